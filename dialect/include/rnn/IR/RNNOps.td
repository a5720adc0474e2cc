//===- RNNOps.td - Layers and sequence ops of the rnn dialect -*- tablegen -*-===//

#ifndef RNN_IR_RNNOPS_TD
#define RNN_IR_RNNOPS_TD

include "rnn/IR/RNNDialect.td"
include "rnn/IR/RNNEnums.td"
include "rnn/IR/RNNCells.td"
include "rnn/IR/RNNLayerOps.td"
include "rnn/IR/RNNTypes.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

def RNN_ScanOp : RNN_Op<"scan", [RecursiveMemoryEffects,
    AttrSizedOperandSegments]> {
  let summary = "a cell scanned over time (Flax's RNN layer)";
  let description = [{
    Runs the body once per time step of `input`. The body's block arguments
    are the carry followed by the input at one step (the input without its
    time axis); it yields the new carry and the step's output, which are
    stacked along the time axis of `outputs`.

    - Layout: `input` is `(*batch, T, *features)`, or `(T, *batch, *features)`
      with `time_major`. `num_batch_dims` says how many batch dims there are
      (possibly none).
    - `init`: the initial carry; absent means zeros.
    - `reverse`: each sequence is processed from its last valid step
      (`rnn.flip_sequences` on the input); with `keep_order` the outputs are
      flipped back to input order.
    - `seq_lengths` (one per batch row): the final carry of row `b` is the
      carry after its last valid step (the initial carry when the length is
      0). Padded steps are computed like any other, as in Flax: their outputs
      continue the recurrence over the padding. With `zero_padded_outputs`
      they are zero instead (and need not be computed).
    - `final_carry` results are present (one per carry) only when asked for.
    - `unroll` is a code-generation hint: steps per loop iteration.
    - `overlap_rows` (R, set by `--rnn-overlap-input-projection`): a
      code-generation decision for a batch of one row whose input is an
      `rnn.project`. The steps compute that projection themselves, R rows
      at a time: rows [0, R) before the first step, then each of the first
      T - R steps 1 / R of the columns of the next R rows
      (`rnn.project_piece`) in one loop over k with its recurrent product,
      which has the projection's depth. Verified: R a power of two of at
      least 2 that divides T at least 4 times and divides the projection's
      columns; one batch dim of one row, static steps and rows, `unroll`
      1, steps in order (not `reverse` without `lengths`), a projection
      without `dynamic_int8` or `compute_type` into a cell with a projected
      input. (A bf16 projection would round its ring, and shared loops
      over k have no bf16 dot block: the recurrent product would lose
      vdpbf16ps.)

    An input that is an `rnn.project` into a cell with a projected input
    has `compute_type` exactly when the cell has (verified): bf16 compute's
    cell reads the rounded Dense output.

    Lengths outside `[0, T]` are undefined here; the compiled entry point
    rejects them before running anything.

    - `steps` (an index, `input.time: {max: T}` in the spec): only steps
      `[0, steps)` run; `T` is then the maximum. Outputs at later steps are
      undefined and the final carry is the carry after step `steps - 1` (the
      initial carry when `steps` is 0). Not with `reverse` or `seq_lengths`,
      which need the whole sequence; `steps` outside `[0, T]` is undefined
      (the entry point rejects it).
    - `rows` (an index, `input.batch: [{max: B}, ...]` in the spec): only
      rows `[0, rows)` of the first batch dim run; `B` is then the maximum.
      Outputs and final carries of later rows are undefined. `rows` outside
      `[1, B]` is undefined (the entry point rejects it).

    Example:
    ```mlir
    %y, %h = rnn.scan %x lengths(%len : tensor<8xi32>) reverse unroll 4
               {num_batch_dims = 1 : i64}
               : tensor<8x100x40xf32> -> tensor<8x100x48xf32>, tensor<8x48xf32> {
    ^bb0(%h0: tensor<8x48xf32>, %xt: tensor<8x40xf32>):
      %h1 = rnn.gru_cell(%xt, %h0) kernels(%wi, %wh) ...
      rnn.yield carry(%h1 : tensor<8x48xf32>) output(%h1 : tensor<8x48xf32>)
    }
    ```
  }];
  let arguments = (ins RNN_ActivationTensor:$input,
      Optional<RNN_LengthsTensor>:$seq_lengths,
      Variadic<RNN_ActivationTensor>:$init,
      Optional<Index>:$steps,
      Optional<Index>:$rows,
      I64Attr:$num_batch_dims,
      UnitAttr:$time_major, UnitAttr:$reverse, UnitAttr:$keep_order,
      UnitAttr:$zero_padded_outputs,
      DefaultValuedAttr<I64Attr, "1">:$unroll,
      OptionalAttr<I64Attr>:$overlap_rows);
  let results = (outs RNN_ActivationTensor:$outputs,
      Variadic<RNN_ActivationTensor>:$final_carry);
  let regions = (region SizedRegion<1>:$body);
  let builders = [
    // A scan without a code-generation decision (`overlap_rows`), as the
    // front end and the rewrites of layers build it.
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::mlir::Value":$input,
        "::mlir::Value":$seq_lengths, "::mlir::ValueRange":$init,
        "::mlir::Value":$steps, "::mlir::Value":$rows,
        "::mlir::IntegerAttr":$num_batch_dims, "::mlir::UnitAttr":$time_major,
        "::mlir::UnitAttr":$reverse, "::mlir::UnitAttr":$keep_order,
        "::mlir::UnitAttr":$zero_padded_outputs, "::mlir::IntegerAttr":$unroll),
    [{
      build($_builder, $_state, resultTypes, input, seq_lengths, init, steps,
            rows, num_batch_dims, time_major, reverse, keep_order,
            zero_padded_outputs, unroll, /*overlap_rows=*/nullptr);
    }]>
  ];
  let assemblyFormat = [{
    $input (`lengths` `(` $seq_lengths^ `:` type($seq_lengths) `)`)?
    (`init` `(` $init^ `:` type($init) `)`)?
    (`steps` `(` $steps^ `)`)? (`rows` `(` $rows^ `)`)?
    (`time_major` $time_major^)? (`reverse` $reverse^)?
    (`keep_order` $keep_order^)? (`zero_padded_outputs` $zero_padded_outputs^)?
    (`unroll` $unroll^)?
    attr-dict `:` type($input) `->` type(results) $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The carry block arguments of the body.
    mlir::Block::BlockArgListType getCarryArgs();
    /// The input block argument of the body (the input at one step).
    mlir::BlockArgument getStepInputArg();
    /// Axis of `input` and `outputs` that is time.
    int64_t getTimeAxis() { return getTimeMajor() ? 0 : getNumBatchDims(); }
    /// The sequence length T (the maximum when `steps` is present).
    int64_t getNumSteps();
    /// The cell of the body (the first, if several).
    CellOpInterface getCell();
    /// Why the lowering of `overlap_rows` = `rows` does not apply to this
    /// scan (the verifier's rules), or nothing when it does.
    std::optional<std::string> whyNotOverlapRows(int64_t rows);
  }];
}

def RNN_BidirectionalOp : RNN_Op<"bidirectional", [RecursiveMemoryEffects,
    AttrSizedOperandSegments, AttrSizedResultSegments]> {
  let summary = "forward and backward scans merged (Flax's Bidirectional)";
  let description = [{
    Runs the `forward` body as a forward `rnn.scan` and the `backward` body
    as a scan with `reverse` and `keep_order` over the same input, then
    combines their outputs with `merge` (`concat` puts forward first on the
    last axis). The two bodies may hold different cells. Each direction has
    its own optional initial carry, final carry results (present for both
    directions or for neither) and unroll factor. Every other attribute
    means what it means on `rnn.scan`, and so does `rows` (both scans run
    the actual rows).
  }];
  let arguments = (ins RNN_ActivationTensor:$input,
      Optional<RNN_LengthsTensor>:$seq_lengths,
      Variadic<RNN_ActivationTensor>:$forward_init,
      Variadic<RNN_ActivationTensor>:$backward_init,
      Optional<Index>:$rows,
      RNN_MergeAttr:$merge, I64Attr:$num_batch_dims,
      UnitAttr:$time_major, UnitAttr:$zero_padded_outputs,
      DefaultValuedAttr<I64Attr, "1">:$forward_unroll,
      DefaultValuedAttr<I64Attr, "1">:$backward_unroll);
  let results = (outs RNN_ActivationTensor:$outputs,
      Variadic<RNN_ActivationTensor>:$forward_carry,
      Variadic<RNN_ActivationTensor>:$backward_carry);
  let regions = (region SizedRegion<1>:$forward, SizedRegion<1>:$backward);
  let assemblyFormat = [{
    $input (`lengths` `(` $seq_lengths^ `:` type($seq_lengths) `)`)?
    (`forward_init` `(` $forward_init^ `:` type($forward_init) `)`)?
    (`backward_init` `(` $backward_init^ `:` type($backward_init) `)`)?
    (`rows` `(` $rows^ `)`)?
    `merge` `` $merge (`time_major` $time_major^)?
    (`zero_padded_outputs` $zero_padded_outputs^)?
    attr-dict `:` type($input) `->` type($outputs)
    (`carries` `(` type($forward_carry)^ `)` `(` type($backward_carry) `)`)?
    `forward` $forward `backward` $backward
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getTimeAxis() { return getTimeMajor() ? 0 : getNumBatchDims(); }
  }];
}

def RNN_YieldOp : RNN_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["ScanOp", "BidirectionalOp"]>]> {
  let summary = "ends a scan body with the new carry and the step's output";
  let arguments = (ins Variadic<RNN_ActivationTensor>:$carry,
      RNN_ActivationTensor:$output);
  let assemblyFormat = [{
    `carry` `(` $carry `:` type($carry) `)`
    `output` `(` $output `:` type($output) `)` attr-dict
  }];
}

//===----------------------------------------------------------------------===//
// Sequence utilities
//===----------------------------------------------------------------------===//

def RNN_MergeOp : RNN_Op<"merge", [Pure]> {
  let summary = "combines the outputs of two directions";
  let description = [{
    `concat` joins `lhs` and `rhs` on the last axis (`lhs` first); `add`,
    `mul` and `mean` (`(lhs + rhs) / 2`) are element-wise on equal shapes.
  }];
  let arguments = (ins RNN_MergeAttr:$kind, RNN_ActivationTensor:$lhs,
      RNN_ActivationTensor:$rhs);
  let results = (outs RNN_ActivationTensor:$result);
  let assemblyFormat = [{
    $kind $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def RNN_FlipSequencesOp : RNN_Op<"flip_sequences",
    [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "reverses each sequence's valid prefix (Flax flip_sequences)";
  let description = [{
    For a row of length `L` and time index `t`: `result[t] = input[L-1-t]`
    for `t < L` and `result[t] = input[T-1-(t-L)]` for `t >= L`, i.e. index
    `(T-1-t+L) mod T`: the valid prefix is reversed and so is the padding
    block after it. Without `seq_lengths` the whole time axis is reversed.
    The op is an involution for fixed lengths.
  }];
  let arguments = (ins RNN_ActivationTensor:$input,
      Optional<RNN_LengthsTensor>:$seq_lengths,
      I64Attr:$num_batch_dims, UnitAttr:$time_major);
  let results = (outs RNN_ActivationTensor:$result);
  let assemblyFormat = [{
    $input (`lengths` `(` $seq_lengths^ `:` type($seq_lengths) `)`)?
    (`time_major` $time_major^)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    int64_t getTimeAxis() { return getTimeMajor() ? 0 : getNumBatchDims(); }
  }];
}

def RNN_SelectLastCarryOp : RNN_Op<"select_last_carry",
    [Pure, AllTypesMatch<["initial", "result"]>]> {
  let summary = "picks each row's carry after its last valid step";
  let description = [{
    `carries` stacks the carry after every step on axis 0 (`T x *batch x
    ...`, as Flax does even when time-major). Row `b` of the result is
    `carries[L_b - 1, b]`, or `initial[b]` when `L_b` is 0 (Flax would
    return the carry after all padded steps there; rnnc returns the initial
    carry). The batch dims are the dims of `seq_lengths`.

    rnnc's front end never stacks carries: an `rnn.scan` with `seq_lengths`
    returns each row's final carry itself, captured inside the time loop
    without a `T x B x H` stack. This op is Flax's `_select_last_carry` for
    IR that does hold stacked carries (written by hand, or produced by
    another front end); it bufferizes into `rnnrt_select_last_carry_f32`.
  }];
  let arguments = (ins RNN_ActivationTensor:$carries,
      RNN_LengthsTensor:$seq_lengths, RNN_ActivationTensor:$initial);
  let results = (outs RNN_ActivationTensor:$result);
  let assemblyFormat = [{
    $carries `,` $seq_lengths `,` $initial attr-dict `:` type($carries) `,`
    type($seq_lengths) `,` type($initial)
  }];
  let hasVerifier = 1;
}

def RNN_ProjectOp : RNN_Op<"project", [Pure]> {
  let summary = "a cell's input-side product on every row of a sequence";
  let description = [{
    `result[..., :] = input[..., :] @ kernel`: each row (every index but the
    last dim's) on its own, so this op on any slice of the rows (a block of
    steps, one step, a block of batch rows) is that slice of its result.
    It is a dense cell's input-side product taken out of the recurrence
    (`--rnn-split-input-projection`): the cell then takes a step of the
    result as its input (`projected_input`), and `--convert-rnn-scan-to-scf`
    computes it once per loop over steps (or block of steps) on the slice
    of the input that loop reads.

    The product has the precision the cell's own had:
    - a kernel of the input's element type, or bf16 with an f32 input
      (bf16 params, widened where read);
    - an int8 kernel (`!quant.uniform` per column): the sums of the input
      times the kernel's int8 values, in f32, *without* the columns' scales
      (the cell holding the kernel applies them in its gate maths, once per
      output, as it does unsplit);
    - with `dynamic_int8` (int8 kernels only): each row quantized to int8
      with its own scale `max|row| / 127`, the products summed in int32,
      times the row's scale (docs/Semantics.md); again before the columns'
      scales.
    - with `compute_type = bf16` (bf16 kernels and f32 input only: a cell
      with `compute_type` bf16, Flax's `dtype=bfloat16`): each row rounded
      to bf16, the products summed in f32 (exact products of bf16 values),
      and each sum rounded to bf16: the input Dense's output before its
      bias (docs/Semantics.md, `B(x̂ @ Wi)`), held as bf16 values in an
      f32 result as the cell's tensors hold them. The cell adds the bias
      and rounds as it does unsplit.

    Example:
    ```mlir
    %gx = rnn.project %x kernel(%wi)
            : tensor<8x100x40xf32>, tensor<40x192xf32> -> tensor<8x100x192xf32>
    ```
  }];
  let arguments = (ins RNN_ActivationTensor:$input, RNN_KernelTensor:$kernel,
      UnitAttr:$dynamic_int8, OptionalAttr<TypeAttr>:$compute_type);
  let results = (outs RNN_ActivationTensor:$result);
  let assemblyFormat = [{
    $input `kernel` `(` $kernel `)` (`dynamic_int8` $dynamic_int8^)?
    attr-dict `:` type($input) `,` type($kernel) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Code generation
//===----------------------------------------------------------------------===//

def RNN_ProjectPieceOp : RNN_Op<"project_piece", [Pure,
    AllTypesMatch<["ring", "result"]>]> {
  let summary = "a block of an input projection, written into a ring of rows";
  let description = [{
    `result` is `ring` with its block of `rows` rows from `ring_row` and
    column block `block` (columns `[block * width, (block + 1) * width)`)
    replaced by `input[first : first + rows] @` that column block of
    `kernel`, in the precision of an
    `rnn.project` without `dynamic_int8` or `compute_type` (an int8
    kernel's sums before the columns' scales). `input` is a sequence's rows,
    `[S, K]`; `kernel` is `[K, N]`; `ring` is `[M, N]`; `width` divides N,
    so a block starts at a multiple of its width by construction (what
    packing the kernel in panels of a width dividing it relies on).

    `convert-rnn-scan-to-scf` builds it for a scan with `overlap_rows`: the
    first group of rows whole, and in each step a piece of the next group.
    A piece with `beside` (a result of a dense cell with a projected input
    whose recurrent product has depth K) is computed in one loop over k
    with that cell's recurrent product: `convert-rnn-to-linalg` lowers the
    two together as one `rnn.shared_k_matmuls`.

    Example:
    ```mlir
    %ring1 = rnn.project_piece %x[%first] kernel(%wi)[%block]
               into %ring[%half] rows 8 width 16 beside(%h1 : tensor<1x32xf32>)
               : tensor<64x32xf32>, tensor<32x128xf32>, tensor<16x128xf32>
    ```
  }];
  let arguments = (ins RNN_ActivationTensor:$input, RNN_KernelTensor:$kernel,
      RNN_ActivationTensor:$ring, Index:$first, Index:$block, Index:$ring_row,
      I64Attr:$rows, I64Attr:$width, Optional<RNN_ActivationTensor>:$beside);
  let results = (outs RNN_ActivationTensor:$result);
  let assemblyFormat = [{
    $input `[` $first `]` `kernel` `(` $kernel `)` `[` $block `]`
    `into` $ring `[` $ring_row `]` `rows` $rows `width` $width
    (`beside` `(` $beside^ `:` type($beside) `)`)?
    attr-dict `:` type($input) `,` type($kernel) `,` type($ring)
  }];
  let hasVerifier = 1;
}

def RNN_SharedKMatmulsOp : RNN_Op<"shared_k_matmuls", [Pure,
    AllTypesMatch<["firstAcc", "first"]>,
    AllTypesMatch<["secondAcc", "second"]>]> {
  let summary = "two matrix products of one depth, computed in one loop over k";
  let description = [{
    `first = firstAcc + firstLhs x firstRhs[:, firstBlock * n :
    (firstBlock + 1) * n]` (n: `firstAcc`'s columns, dividing `firstRhs`'s)
    and `second = secondAcc + secondLhs x secondRhs`, each as
    `linalg.matmul` defines it (operands widened to the accumulator's
    element type). Both products have the same depth k, and the op asks
    code generation to run them in one loop over k, so that one product's
    arithmetic overlaps the other's loads. The first product's weights are
    a column block given by its index, so it starts at a multiple of its
    width by construction: `--rnn-vectorize-matmuls` packs them in panels
    of a width dividing n without proving an offset.
    `--convert-rnn-to-linalg` builds it (an `rnn.project_piece` beside the
    step's recurrent matrix-vector product, at batch 1) and
    `--rnn-vectorize-matmuls` consumes it; no later pass accepts it.
  }];
  let arguments = (ins AnyStaticShapeTensor:$firstLhs,
      AnyStaticShapeTensor:$firstRhs, Index:$firstBlock,
      AnyStaticShapeTensor:$firstAcc,
      AnyStaticShapeTensor:$secondLhs, AnyStaticShapeTensor:$secondRhs,
      AnyStaticShapeTensor:$secondAcc);
  let results = (outs AnyStaticShapeTensor:$first,
      AnyStaticShapeTensor:$second);
  let assemblyFormat = [{
    `ins` `(` $firstLhs `,` $firstRhs `[` $firstBlock `]` `:` type($firstLhs)
    `,` type($firstRhs) `)`
    `outs` `(` $firstAcc `:` type($firstAcc) `)` `,`
    `ins` `(` $secondLhs `,` $secondRhs `:` type($secondLhs) `,` type($secondRhs) `)`
    `outs` `(` $secondAcc `:` type($secondAcc) `)` attr-dict
  }];
  let hasVerifier = 1;
}

#endif // RNN_IR_RNNOPS_TD
