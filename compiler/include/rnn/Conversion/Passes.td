//===- Passes.td - Conversions, one folder each ------------*- tablegen -*-===//

#ifndef RNN_CONVERSION_PASSES_TD
#define RNN_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertRNNScanToSCFPass : Pass<"convert-rnn-scan-to-scf"> {
  let summary = "lower rnn.scan to an scf.for over time, unrolled";
  let description = [{
    Each scan becomes a loop over time whose body is the scan's body cloned
    `unroll` times, plus a fully unrolled remainder of `T mod unroll` steps.
    `reverse` with lengths becomes `rnn.flip_sequences` of the input (and
    of the outputs with `keep_order`); without lengths every row reverses
    whole, so step t reads the input at T - 1 - t (and stores there with
    `keep_order`), with no flipped copies; with `seq_lengths`, the final carry of each row is
    captured after its last valid step, and `zero_padded_outputs` zeroes the
    outputs of padded steps. The initial carry defaults to zeros. A step's
    new carries are its cell's results, which `convert-rnn-to-linalg`
    computes over the old carries, and its output is inserted into its
    slot of the sequence, where that lowering computes it (a zero-padded
    output is selected into the slot); only a value computed elsewhere is
    copied.

    When the outputs of all steps are large (at least eight times
    `time-block-bytes`), the loop runs over blocks of steps whose outputs
    take at least `time-block-bytes` and that hold at least
    `time-block-rows` rows (batch x steps), and each block reads its own
    slice of the input. Work done once for the steps (the input
    projection) then covers one block, and its result is still in cache
    when the steps read it, instead of going through memory for the whole
    sequence; with enough rows, a block's projection still reads its
    weights for enough work (H=1024 at batch 16: blocks of 4 steps re-read
    16 MiB of weights every 64 rows; 16 steps are 5 % faster).

    With `zero_padded_outputs` and lengths (one batch dim, a body of
    cells), padded steps are skipped: the rows are ranked by decreasing
    length, and blocks of sorted rows (`length-block-rows`, or the nearest
    divisor of the batch; a batch that does not split so runs as one block)
    each gather their rows, run from zero outputs only up to their longest
    row's length (in whole unrolled iterations or blocks of steps, as short
    as keeps `skip-block-rows` rows per block), and scatter their outputs and final
    carries back. When the rows of a block can end far apart (T x rows /
    batch spans at least two such iterations or blocks), a block runs in
    phases of fewer and fewer rows: its first r rows until the r-th ends,
    then the first r - 1 from there. The work follows the sum of the
    lengths.

    A scan whose input is an `rnn.project` (its cell's input product, put
    there by `--rnn-split-input-projection`) computes it per loop over
    steps on the input that loop reads: before the loop on the rows'
    whole input, or in each block of steps on the block's slice (after the
    flip, with which it commutes). Steps outside such a loop (the
    remainder after blocks, blocks of run-time steps of one iteration,
    rows in blocks) use the loop's projection of the whole input when
    there is one, else project the whole input once before them, except
    in a block of rows, where each step projects its own input (as it
    does in RAM-lean code). The op is row-wise, so this needs no
    knowledge of what it computes.

    A scan with `overlap_rows` R (`--rnn-overlap-input-projection`) projects
    no sequence: its loop over steps (or each block of steps, where R
    divides the block at least 4 times) keeps projected rows in a ring of
    2 x R rows, the first R projected before the loop (`rnn.project_piece`
    of the whole width), then each of the first T - R steps copies its row
    out of the ring and has piece t % R of the next group (R rows, column
    block t % R of width N / R) as an `rnn.project_piece` `beside` its
    cell, and the last R
    steps run in a loop of their own that only reads the ring. RAM-lean
    code ignores it (each step projects its own input).

    With `ram-lean` (rnnc's `--optimize=ram`), the scratch memory must not
    grow with T: the time loop never runs in blocks of steps (nothing is
    done once to cover a block), and `reverse` with lengths reads
    each row's step in place (step t of a row of length L reads the input
    at L - 1 - t, and t itself beyond L) instead of a flipped copy of the
    whole input.
  }];
  let options = [
    Option<"timeBlockBytes", "time-block-bytes", "int64_t", "262144",
           "outputs per block of time steps (0: one loop over all steps)">,
    Option<"timeBlockRows", "time-block-rows", "int64_t", "256",
           "rows (batch x steps) per block of time steps, at least">,
    Option<"ramLean", "ram-lean", "bool", "false",
           "scratch memory independent of T: no blocks of steps, reversed "
           "inputs read in place">,
    Option<"lastRowCopies", "last-row-copies", "bool", "false",
           "with lengths, copy each row's final carry at its last valid "
           "step (a loop over rows) instead of selecting every element "
           "every step">,
    Option<"runtimeStepBlock", "runtime-step-block", "int64_t", "16",
           "steps per full block of a run-time number of steps">,
    Option<"skipBlockRows", "skip-block-rows", "int64_t", "32",
           "rows (rows x steps) per block of steps when padded steps are "
           "skipped, at least">,
    Option<"lengthBlockRows", "length-block-rows", "int64_t", "4",
           "the most rows per length-sorted block (a larger divisor of the "
           "batch if none up to it)">,
    Option<"rowPhaseCacheBytes", "row-phase-cache-bytes", "int64_t", "0",
           "a length-sorted block runs in phases of fewer rows only when "
           "its recurrent weights fit this cache (0: no figure, always)">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect"];
}

def ConvertRNNToLinalgPass : Pass<"convert-rnn-to-linalg"> {
  let summary = "lower rnn cells and rnn.merge to linalg, tensor, arith and math";
  let description = [{
    Every cell op becomes its two fused matmuls (`linalg.matmul` on the
    batch dims collapsed to one), bias additions, and one element-wise
    `linalg.generic` with the gate maths, which writes each new carry over
    the old one and a result that a `tensor.insert_slice` puts into a slot
    (a scan step's output) into that slot as well, as one more init: no loop
    of its own reads the output back to copy it (bufferized, that copy was
    4 % of the time at LSTM/GRU H=64 B=128 T=256). ConvLSTM uses linalg
    convolutions with SAME padding. A cell with `projected_input` computes only its
    recurrent matmul and reads its input's gate blocks. With dynamic int8
    activations a cell's products end at their i32 sums, which the gate
    generic converts with their rows' scales (one pass over the sums less
    each step). `rnn.project` becomes the matmul (or the dynamic int8
    chain, ending in f32) the cell's input product would have been, on its
    rows folded into one dim; `rnn.project_piece`
    a matmul into its zero-filled block of the ring, inserted back, or, when
    it is `beside` a cell, one `rnn.shared_k_matmuls` with the cell's
    recurrent product (the piece's column block passed on as its index),
    in that product's place. `rnn.merge` becomes
    tensor inserts (concat) or an element-wise `linalg.generic`. Works on
    tensors, before bufferization.

    With `fuse-projections` (set for RAM-lean code with scalar register
    blocks), an LSTM cell whose kernels and biases are f32 constants
    computes its pre-activations as one matmul instead: `[x, h] @ [wi; wh]`
    into a `linalg.broadcast` of the bias (the biases summed at compile
    time, as the accumulator summed them when they were rows of the kernel),
    so that the register block's accumulators start from the bias
    (rnn-block-matmuls) and sum the input and the recurrent products before
    they are stored once; the gate loop then reads one value per gate
    instead of two products and the biases (kws on the Cortex-M4: see
    docs/Embedded.md). Only where the row of the operands and a column per
    bias is no wider than the gate blocks it replaces (I + H + biases <=
    4 H), so the scratch memory does not grow; the sums are reordered.

    Dynamic int8 activations find each row's maximum magnitude in a loop
    over the row that keeps the maximum in an `scf.for` value (as a
    reduction into memory, LLVM could not hold it in a register when the
    rows and the maxima share the workspace). With `integer-row-maxima`,
    it compares the magnitudes' bits as integers: the same maximum (a
    float's magnitude orders as its bits do, NaNs above infinity) in a
    loop a loop vectorizer takes (`vpandd`, `vpmaxud`), where the
    NaN-propagating float maximum (`maximumf`) stays scalar.

    With `dequantize-generic` (set where rnn-int8-matmuls runs), an
    `rnn.project`'s dynamic int8 sums are converted by one
    `linalg.generic` over rows and columns, each row's scale broadcast by
    its indexing map, which rnn-int8-matmuls folds into its kernel's
    epilogue: the sums are converted in registers, and no i32 copy of them
    is written and read again. Without it (the C path, targets with no
    int8 kernel) a loop over the rows converts each row with its scale read
    once, which a loop vectorizer takes.
  }];
  let options = [
    Option<"fuseProjections", "fuse-projections", "bool", "false",
           "one matmul of [x, h] by [wi; wh] into rows of the bias per LSTM "
           "cell with constant f32 weights">,
    Option<"integerRowMaxima", "integer-row-maxima", "bool", "false",
           "dynamic int8 activations: each row's maximum magnitude found on "
           "the bits of the magnitudes as integers, so that the loop "
           "vectorizes">,
    Option<"dequantizeGeneric", "dequantize-generic", "bool", "false",
           "dynamic int8 activations: each rnn.project's i32 sums converted "
           "by one generic over rows and columns, for rnn-int8-matmuls to "
           "fold into its kernel (default: a loop over the rows)">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect", "mlir::math::MathDialect",
                           "mlir::scf::SCFDialect"];
}

def RNNConvertVectorToLLVMPass : Pass<"rnn-convert-vector-to-llvm"> {
  let summary = "lower the vector dialect to LLVM with the target's index width";
  let description = [{
    Upstream's `convert-vector-to-llvm` with one more option: the width of
    `index`. Upstream's pass always converts `index` to 64 bits, while the
    other conversions of a 32-bit target's pipeline (memref, arith, func,
    cf) take `index-bitwidth=32`; where vectors remain (Cortex-M55/M85's
    Helium), a vector load's address arithmetic would then be 64-bit on
    memref descriptors of 32-bit sizes, casts that nothing can reconcile.
    This pass runs upstream's patterns, in upstream's order, with a type
    converter of the given index width (0: 64 bits, what upstream does).
    Contractions lower to outer products; `enable-x86vector` adds the
    x86vector dialect's conversions (its AVX-512 BF16 dot).
  }];
  let options = [
    Option<"indexBitwidth", "index-bitwidth", "unsigned", "0",
           "Bits of `index` (0: 64)">,
    Option<"x86Vector", "enable-x86vector", "bool", "false",
           "Also convert the x86vector dialect">,
  ];
  let dependentDialects = ["LLVM::LLVMDialect", "arith::ArithDialect",
                           "memref::MemRefDialect",
                           "x86vector::X86VectorDialect"];
}

def RNNStoreBF16AsBitsPass : Pass<"rnn-store-bf16-as-bits", "mlir::ModuleOp"> {
  let summary = "keep bf16 buffers as uint16 bit patterns, widened by librnnrt";
  let description = [{
    C99 has no bfloat16 type (EmitC would print the compiler extension
    `__bf16`), so for the C path bf16 params (`param_dtype: bfloat16`) are
    stored as their bit patterns: every bf16 buffer becomes a `ui16` buffer
    of the same bits (constant `memref.global`s are bit cast; views keep
    their shape and strides), and each load of one, which only a widening
    `arith.extf` to f32 may read, becomes a `ui16` load passed to
    `rnnrt_bf16_to_f32` (a `static inline` function of `rnnrt/rnnrt.h`:
    the bits shifted into the top half of a float, exact). The weights keep
    two bytes each, and the maths is f32 as on the LLVM path.

    Anything else on bf16 (a store, a function argument, another reader of
    a load) is an error naming the op: generated code only reads constant
    bf16 params.
  }];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

def RNNConvertBuffersToEmitCPass
    : Pass<"rnn-convert-buffers-to-emitc", "mlir::ModuleOp"> {
  let summary = "lower the entry point on buffers to EmitC, buffers as C pointers";
  let description = [{
    Lowers what `--rnn-lower-to-llvm` would hand to LLVM (func, memref,
    scf, arith and math on static buffers) to the EmitC dialect, for C99.

    Every buffer becomes a pointer to its first element (`float *`); a
    load or store indexes it with the strides of its memref type, so only
    static strides are accepted (the offset may be dynamic: it moves the
    pointer). `memref.view` of the workspace is a byte offset and a cast;
    `memref.subview` and `memref.reinterpret_cast` move the pointer;
    `memref.expand_shape`, `memref.collapse_shape` and `memref.cast` keep
    it. `memref.copy` between contiguous buffers is a flat loop, so the
    code needs no `memcpy`. Constant `memref.global`s become `static const`
    flat C arrays (renamed without leading underscores, which C reserves).
    Math ops call libm's C99 functions (`expf`, `tanhf`, `expm1f`, ...).
    Calls to external functions (librnnrt's `rnnrt_*`, declared by
    `rnnrt/rnnrt.h`) become `emitc.call_opaque`, and their declarations
    are dropped. Argument attributes (`rnn.name`, `rnn.workspace`) are kept
    for `--rnn-emitc-entry-abi`.

    Generated C never allocates and keeps no mutable state: `memref.alloc`,
    `memref.alloca` and non-constant globals are errors.
  }];
  let dependentDialects = ["mlir::emitc::EmitCDialect"];
}

def RNNEmitCEntryABIPass : Pass<"rnn-emitc-entry-abi", "mlir::ModuleOp"> {
  let summary = "give EmitC functions the C signature of the model header";
  let description = [{
    Runs after `--rnn-convert-buffers-to-emitc`. The entry point's
    parameters take the C types its `EntryPointABI` gives them (the one
    description of the C ABI, `rnn/ABI/EntryPointABI.h`): inputs (arguments
    with `rnn.name` and without `rnn.output`) become `const T *`, the
    workspace (`rnn.workspace`, the last argument) becomes `void *`, exactly
    as the header written by rnnc declares them; the body casts them back
    to the pointers it indexes. Unused parameters are voided so that
    `-Wall -Wextra -Werror` accepts the file. The module gets the includes
    the code needs (`<math.h>`, `<stdbool.h>`, `<stddef.h>`, `<stdint.h>`,
    `"rnnrt/rnnrt.h"`) and every constant global is aligned to 64 bytes
    where the compiler can say so (`_Alignas` in C11, the GNU `aligned`
    attribute), and left at its natural alignment otherwise.
  }];
  let dependentDialects = ["mlir::emitc::EmitCDialect"];
}

#endif // RNN_CONVERSION_PASSES_TD
