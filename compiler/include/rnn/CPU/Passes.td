//===- Passes.td - CPU code generation ---------------------*- tablegen -*-===//

#ifndef RNN_CPU_PASSES_TD
#define RNN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def RNNRelaxFMAsPass : Pass<"rnn-relax-fmas"> {
  let summary = "turn the fused multiply-adds that need not be exact into llvm.intr.fmuladd";
  let description = [{
    Every `llvm.intr.fma` without `rnn.exact_fma` becomes
    `llvm.intr.fmuladd`, which LLVM contracts: one instruction where the
    target has FMA, a multiply and an add where it has not (an exact
    `llvm.fma` would be a call to `fmaf` there). The exact ones keep
    `llvm.intr.fma` and lose the attribute, whose job is done. The last
    pass of the LLVM path, so that `rnn-opt --rnn-lower-to-llvm` gives what
    rnnc translates.
  }];
}

def RNNSplitGateColumnsPass : Pass<"rnn-split-gate-columns", "mlir::ModuleOp"> {
  let summary = "add <name>_cols_step: one batch-1 step on one task's gate columns";
  let description = [{
    For `<name>_run_parallel` at batch 1 (two tasks, each owning half the
    hidden units): clones the bufferized entry point `entry-point`
    (`<name>_run`) as `<name>_cols_step`, which takes four more arguments
    before the workspace, `exchange` (`memref<2xHxf32>`, shared by the
    tasks), `hidden` (`memref<1xHxf32>`, the task's own row of h where the
    caller's final-carry buffer holds h), `task` and `step` (i32), and runs
    step `step` of task `task` only: every write of a gate-column buffer (a
    workspace buffer G x H wide: the input projection, the recurrent
    products) is guarded by its column block's unit being the task's,
    around all that follows the block's first column in its loop body (so
    the task streams only its panels of the weights); the gate loop runs
    over the task's units; what precedes the time loop runs at step 0, the
    final carries' copies after it at the last step, for the task's units;
    the other task's part of h is read from `exchange[(step - 1) % 2]`
    before the step and the task's own written to `exchange[step % 2]`
    after it. A column's sums run the same code in the same order as in
    `<name>_run`, so the result is bit-identical. The entry point itself is
    unchanged.

    With `from`, the step is cloned from that function instead (a model
    function built for the split, `rnn.column_split`: the entry point's
    scans may compute their input projection beside the recurrence, in
    pieces whose columns no split divides), which is then erased; its sums
    are the entry point's, term for term and in the same order (the
    overlap keeps them), so the result is still bit-identical.

    Only a function of that shape is split (one time loop without iteration
    arguments, holding the one loop that writes the outputs, after it only
    copies of final carries; column blocks starting at multiples of their
    width, which divides the split); otherwise the module is left as it is.
    Each step of LSTM H=1024 at batch 1 streams 16 MiB of recurrent
    weights; two cores each streaming half ran 32 steps 1.87x as fast
    (docs/Performance.md, "Two cores").
  }];
  let options = [
    Option<"entryPoint", "entry-point", "std::string", "",
           "the bufferized entry point to split (<name>_run)">,
    Option<"from", "from", "std::string", "",
           "the bufferized function to clone the step from, and erase "
           "(default: entry-point, which stays)">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def RNNReorderMatmulLoopsPass : Pass<"rnn-reorder-matmul-loops"> {
  let summary = "turn linalg.matmul into a generic that iterates (i, k, j)";
  let description = [{
    Lowered as written, a matmul's innermost loop is its reduction over k,
    which walks a column of the right-hand side. With the reduction in the
    middle, the innermost loop runs along contiguous rows of the right-hand
    side and of the result, which the backend vectorizes. The maths is
    unchanged: each result element still accumulates over k in order.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::arith::ArithDialect"];
}

def RNNBlockMatmulsPass : Pass<"rnn-block-matmuls"> {
  let summary = "register-blocked scalar matmuls for cores without vector units";
  let description = [{
    Each `linalg.matmul` on static f32 tensors is tiled (`scf::tileUsingSCF`)
    into blocks of at most `tile-m` rows by as many columns as fit in
    `accumulators` (the largest divisors of the matmul's sizes), and each
    block becomes one `scf.for` over k whose iter_args are the block's
    accumulators: each step loads the block's rows of the left-hand side
    and columns of the right-hand side once and updates every accumulator
    with a `math.fma` (contractable: not marked `rnn.exact_fma`). C then
    gets local variables and LLVM registers, so each loaded value feeds
    several multiply-adds and no accumulator goes through memory inside the
    loop. Each accumulator still sums over k in order. A matmul into a
    `linalg.fill` starts its accumulators from the fill's value and writes
    the fill's destination, so the fill is not run; one into a
    `linalg.broadcast` of a row (a cell's bias, from fused projections)
    starts each column's accumulators from its element of the row, read
    once per block. Element-wise generics
    after it that write into that same destination without reading it (a
    Dense head's bias add and log_softmax), each reading the previous
    result, write into that result instead: the same values, and
    bufferization then updates one buffer in place, as it does after a
    matmul written as loops. For scalar targets (Cortex-M, the C path), in
    place of `--rnn-reorder-matmul-loops`.

    `unroll-k` unrolls each block's loop over k, for C compilers that do not
    unroll at -O2 (GCC): a 4 x 4 block's step is 8 loads and 16
    multiply-adds, and its counter, compare and branch are 3 more (kws on
    the Cortex-M4, C path, unrolled by 4: 4 % fewer instructions). The LLVM
    path leaves it to LLVM's own unroller.
  }];
  let options = [
    Option<"tileM", "tile-m", "int64_t", "4", "rows per register block, at most">,
    Option<"accumulators", "accumulators", "int64_t", "16",
           "accumulators (rows x columns) per register block, at most">,
    Option<"unrollK", "unroll-k", "int64_t", "1",
           "copies of a block's step over k per iteration (upstream "
           "loopUnrollByFactor, with a remainder loop)">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::scf::SCFDialect",
                           "mlir::tensor::TensorDialect", "mlir::math::MathDialect",
                           "mlir::arith::ArithDialect"];
}

def RNNApproximateMathPass : Pass<"rnn-approximate-math"> {
  let summary = "replace exp, expm1 and tanh with polynomial and rational approximations";
  let description = [{
    Calls to libm keep the element-wise gate maths of a cell from being
    vectorized. The gate functions get short approximations of their own:
    the sigmoid the cell lowerings write, `1 / (1 + exp(-x))`, on one
    saturating 2^y (a degree-5 polynomial and the exponent bits), within
    1e-7 absolute error (4e-7 relative where the result is a normal float),
    and f32 `tanh` as x P(x^2) / Q(x^2) (the rational fit below) on x
    clamped to [-10, 10], the result clamped to [-1, 1], within 3e-7
    absolute and relative error; both saturate to exactly 0, 1 or -1 and
    keep NaN.
    Other exp and expm1 use MLIR's polynomial approximations (a few ulp).
    All are plain arithmetic, which
    the backend vectorizes. They use float/int bit casts, so the C path,
    where EmitC has no such cast, keeps libm.

    The rational fit: tanh(x) = x P(x^2) / Q(x^2), degrees 4 and 4 in x^2,
    a minimax fit on |x| < 9 (within 4e-7 absolute and relative error in
    f32 arithmetic).

    With `rational-gates`, for cores with a scalar FPU (Cortex-M4F, VFP),
    where a division is one instruction and the exponent bits of 2^y are
    moves between register files, the scalar f32 sigmoid is rational too,
    sigmoid(x) = 1/2 + tanh(x / 2) / 2 by the same fit, and both test x^2
    with a branch instead of clamping: |x| beyond the fit (and NaN) takes
    it to exactly 0, 1 or -1 (NaN kept); measured within 2.5e-7 (tanh) and
    1.5e-7 (sigmoid) with fused multiply-adds. 22 fewer
    instructions per LSTM unit and step on the Cortex-M4 (kws, C path). No
    bit casts, so the C path uses them too, with `approximate-other=false`:
    other exp, expm1 and tanh stay librnnrt's.
  }];
  let options = [
    Option<"rationalGates", "rational-gates", "bool", /*default=*/"false",
           "scalar sigmoid and tanh as rational functions with a range "
           "branch (scalar FPUs)">,
    Option<"approximateOther", "approximate-other", "bool", /*default=*/"true",
           "replace exp, expm1 and tanh other than the gates' with "
           "polynomials (bit casts: not on the C path)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::math::MathDialect",
                           "mlir::scf::SCFDialect", "mlir::vector::VectorDialect"];
}

def RNNAnnotateVectorLoopsPass : Pass<"rnn-annotate-vector-loops"> {
  let summary = "tell LLVM's loop vectorizer how to vectorize gate-maths and bf16 loops";
  let description = [{
    Gives innermost loops (after `convert-linalg-to-loops`) an LLVM loop
    annotation (`loop_annotation`, which `convert-scf-to-cf` moves to the
    latch branch):

    - a loop that computes `math` functions (a cell's gate maths) is one
      long dependency chain per vector of lanes: exponentials, a division,
      then tanh of the new c. LLVM vectorizes it without interleaving, so
      at H=64 out-of-order execution overlaps too few chains: such loops
      ask for `count` independent vectors per iteration;
    - a loop that converts between f32 and bf16 (bf16 compute's rounding
      at Flax's points, the rows packed for a bf16 dot), when the target
      rounds with an instruction (`bf16-lanes` > 1: AVX512_BF16's
      `vcvtneps2bf16`, where `arith-expand` leaves the conversions to
      LLVM), asks for vectors of `bf16-lanes` lanes: LLVM's cost model
      otherwise picks 4 lanes for the gate maths and scalar code with
      inserts for the packing.
  }];
  let options = [
    Option<"count", "count", "unsigned", /*default=*/"4",
           "vectors the LLVM loop vectorizer interleaves per iteration of "
           "a gate-maths loop">,
    Option<"bf16Lanes", "bf16-lanes", "unsigned", /*default=*/"0",
           "lanes of the vectors of loops that convert between f32 and "
           "bf16 (0: as LLVM's cost model chooses)">
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def RNNWidenBF16RowsPass : Pass<"rnn-widen-bf16-rows"> {
  let summary = "compute matmuls of bf16 rows in f32, for targets without a bf16 dot";
  let description = [{
    bf16 compute's products are `linalg.matmul`s of rows narrowed to bf16
    (a `linalg.generic` of `arith.truncf`) into f32, the form a bf16
    dot-product instruction computes (`--rnn-vectorize-matmuls`' `bf16-dot`).
    On every other path this pass makes each such matmul the f32
    emulation: its rows are the f32 rows rounded to bf16 values (`truncf`,
    `extf`, in the narrowing's place), and the weights stay as they are
    (bf16 ones are widened where they are read). The result is the same:
    a bf16 value widens to f32 exactly, and `linalg.matmul` widens its
    factors before multiplying. Rows of another origin are widened
    (`extf`).
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
}

def RNNVectorizeMatmulsPass : Pass<"rnn-vectorize-matmuls"> {
  let summary = "tile static matmuls into register blocks and vectorize them";
  let description = [{
    Each `linalg.matmul` on static tensors is tiled into blocks of
    `tile-m` rows by `tile-n` columns (the largest divisors of the matmul's
    sizes that fit) with a loop over k, and each block becomes a
    `vector.contract` of one k step: with the accumulator hoisted out of the
    k loop (`loop-invariant-subset-hoisting`), it stays in registers and each
    step is `tile-m` broadcasts times `tile-n / lanes` fused multiply-adds.
    A matmul with fewer rows than a block (a small batch) gets wider
    blocks, so it keeps as many independent accumulators. The loop over
    column blocks is outermost, so a block column of the right-hand side
    stays in cache while the row blocks pass over it. A `linalg.fill` that
    initializes the accumulator is fused into each block, so that after
    hoisting a block starts from a constant vector instead of reading back
    a buffer filled beforehand. Matmuls whose sizes do not tile are left
    for the scalar path, and so are those whose blocks would be narrower
    than `min-block-columns` (they would leave most of each vector register
    idle).

    The two products of an `rnn.shared_k_matmuls` share their loops: each
    gets the same number of column blocks, within half of a block's
    accumulators (in whole vectors of `vector-lanes` f32 lanes, else half
    vectors), and the loops over column blocks, rows and k are fused level
    by level, so one loop over k runs both contractions. Other matmuls
    reading the same weights use the pair's column width. A pair whose
    columns do not split so is vectorized as two matmuls; either way no
    `rnn.shared_k_matmuls` is left.

    With `alternate-sweeps`, a matmul whose weights are read again (by the
    next iteration of the loop around it, weights defined outside that
    loop, or by another matmul in the same block) walks them in alternate
    directions: every other read visits the column blocks and k last to
    first (mirrored indices chosen by the parity of the read). Weights
    larger than a cache level then start each read with the lines the
    previous read left in cache, instead of evicting each line just before
    it is needed again (LSTM H=64, batch 1: 64 KiB of weights, twice the L1;
    245 -> 220 us at T=256). Reversing k changes the order of the sums on
    those reads only.

    With `bf16-dot` (targets with AVX512_BF16), a matmul of bf16 rows and
    bf16 weights into f32 with an even K (and blocks of whole vectors of
    `vector-lanes` f32 lanes: vdpbf16ps works on a whole register) steps
    through k two at a time, and each step is `x86vector.avx512.dot`
    (vdpbf16ps) per row and vector of columns: the row's
    pair of values broadcast as one 32-bit word, the two weight rows
    interleaved into pairs (a shuffle, unless the weights are constants
    stored as k pairs, below). The rows are a bf16 tensor, narrowed once
    before the blocks, so no block narrows them again. vdpbf16ps sums a
    pair in its own order and flushes denormals, so it is not the f32
    emulation's result (see docs/Semantics.md, bfloat16 compute). Every
    other matmul of bf16 rows (odd K, narrow blocks, matmuls sharing their
    loop over k, or without `bf16-dot`) becomes the f32 emulation, as
    `--rnn-widen-bf16-rows` makes it.

    Constant weights are stored in the order the blocks read them, decided
    with the blocks: a block reads an n-wide column panel of the weights,
    one row per step of k (n contiguous values, then a jump of a whole row;
    a new page per step for large matrices). Every block is planned before
    any is built; when every use of a constant [K, N] is read by blocks of
    one width n < N (directly, or through the column block an
    `rnn.shared_k_matmuls` gives its first product by index, a piece of an
    overlapped projection, of a width n divides), the constant is
    packed at compile time as [N / n, K, n], panel after panel, and each
    block reads its rows as `%packed[j / n, k, 0] [1, r, n]`, j the column
    block the tiled loop visits: a block streams through contiguous
    memory. Values are moved, not changed. A constant read through any
    other slice of its columns (or whole, or in two widths) stays as it
    is.

    With `pair-bf16-lanes=L` (L f32 lanes to a vector register; 0: off),
    bf16 weights that every block widens to f32 (all read whole) are stored
    with each 2L-wide group of a row's columns paired, column c and c + L
    in one 32-bit word (c < L), and each widening is a shift left by 16
    (columns c) and a mask of the high half (columns c + L) of the words:
    2 ops per 2L weights, where a zero-extend and a shift take 2 per L. The
    widened values, and so the sums, are the same. Little-endian targets
    only: the word's low half is its first bf16.

    Weights that every reader takes in k pairs (bf16 dot blocks) are stored
    as k pairs instead, [N / n, K / 2, 2n] (even where n = N): each step
    reads one row of it, already interleaved, and needs no shuffle.
  }];
  let options = [
    Option<"tileM", "tile-m", "int64_t", "4", "rows per register block">,
    Option<"tileN", "tile-n", "int64_t", "64", "columns per register block">,
    Option<"vectorLanes", "vector-lanes", "int64_t", "16",
           "f32 lanes of a vector register (the column unit of shared loops "
           "and of bf16 dot blocks)">,
    Option<"minBlockColumns", "min-block-columns", "int64_t", "8",
           "the narrowest block of columns vectorized">,
    Option<"alternateSweeps", "alternate-sweeps", "bool", "false",
           "read weights that are read again (next step) in alternate directions">,
    Option<"bf16Dot", "bf16-dot", "bool", "false",
           "matmuls of bf16 rows and weights as AVX512_BF16 dot products">,
    Option<"pairBF16Lanes", "pair-bf16-lanes", "int64_t", "0",
           "f32 lanes of a vector register: store bf16 weights' columns c "
           "and c + L of each 2L-column group of a row in one word (0: off)">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::scf::SCFDialect",
                           "mlir::tensor::TensorDialect", "mlir::vector::VectorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::x86vector::X86VectorDialect"];
}

def RNNInt8MatmulsPass : Pass<"rnn-int8-matmuls"> {
  let summary = "i8 x i8 -> i32 matmuls by constant weights on an x86 dot product";
  let description = [{
    Each `linalg.matmul` (on static tensors) of signed i8 activations
    (M x K) by constant signed i8 weights (K x N) into an i32 zero fill, as
    dynamic int8 activations leave them, becomes register-blocked vector
    code on one x86 instruction (an `llvm.call_intrinsic`) that adds groups
    of exact integer products into i32 lanes:

    - `vpdpbusd` (AVX-512 VNNI, `llvm.x86.avx512.vpdpbusd.512`): 16 lanes,
      groups of 4 k (K % 4 == 0, N % 16 == 0). Each group of 4 activation
      bytes is broadcast with its sign bits flipped (q + 128, unsigned, as
      vpdpbusd wants), and each column's 128 * sum_k w_kj, a constant, is
      subtracted from the finished sum.
    - `vpmaddwd` (AVX2, `llvm.x86.avx2.pmadd.wd`): 8 lanes, pairs of k
      (K % 2 == 0, N % 8 == 0), both operands sign-extended to i16 (the
      weights by their load), the pair sums added to the accumulators.

    Blocks of up to 4 rows keep at most `accumulators` vector sums (the
    other registers hold their operands). Where the sums' only reader is a
    `linalg.generic` converting them, `float(sum) * scale[row]` with the
    scales indexed by the row (convert-rnn-to-linalg's
    `dequantize-generic`), the kernel converts each finished sum so and
    writes the f32 products in the generic's place. The weights are repacked at
    compile time as [N/(lanes c)][K/group][c x lanes x group] bytes (blocks of c panels, k in groups interleaved,
    so a block reads one contiguous stream); column blocks are outermost.
    In a function built for a column split (`rnn.column_split`), blocks
    divide the tasks' shares, as rnn-vectorize-matmuls' do.
    The result is exactly the signed sum. Other matmuls are left alone.
  }];
  let options = [
    Option<"instruction", "instruction", "std::string", "\"vpdpbusd\"",
           "The dot product: vpdpbusd (AVX-512 VNNI) or vpmaddwd (AVX2)">,
    Option<"accumulators", "accumulators", "int64_t", "16",
           "vector registers a block keeps its sums in (the rest hold "
           "operands)">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
                           "mlir::vector::VectorDialect", "mlir::arith::ArithDialect",
                           "mlir::LLVM::LLVMDialect"];
}

#endif // RNN_CPU_PASSES_TD
