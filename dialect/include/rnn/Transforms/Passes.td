//===- Passes.td - Transforms of the rnn dialect -----------*- tablegen -*-===//

#ifndef RNN_TRANSFORMS_PASSES_TD
#define RNN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def RNNExpandBidirectionalPass : Pass<"rnn-expand-bidirectional"> {
  let summary = "split rnn.bidirectional into two rnn.scan ops and an rnn.merge";
  let description = [{
    The forward body becomes a forward scan; the backward body a scan with
    `reverse` and `keep_order`, so both produce outputs in input order, and
    `rnn.merge` combines them. Initial carries, lengths, final carries and
    unroll factors go to the scan they belong to.
  }];
  let dependentDialects = [];
}

def RNNRuntimeRowsPass : Pass<"rnn-runtime-rows"> {
  let summary = "run the layers after a scan with `rows` on its actual rows";
  let description = [{
    The rows of an `rnn.scan` with `rows` beyond that count are undefined,
    so the layers that map each row alone (`rnn.dense`, `rnn.activation`,
    `rnn.layer_norm`, `rnn.merge`, `rnn.pool` without lengths) on its
    results need not compute them: each becomes one block of rows per set
    binary digit of the count (an `scf.for` of zero or one iteration), a
    static clone of the layer on a slice of its rows, and its result carries
    the rows on to the next layer.
  }];
  let dependentDialects = ["arith::ArithDialect", "scf::SCFDialect",
                           "tensor::TensorDialect"];
}

def RNNSplitInputProjectionPass : Pass<"rnn-split-input-projection"> {
  let summary = "compute the input side of a scan's cell before the scan";
  let description = [{
    A dense cell's input-side product `x_t @ wi` reads no carry, so all of
    a scan's steps' products are one `rnn.project` of the scan's input,
    which makes T small matmuls one large, efficient one and leaves the
    recurrence only `h @ wh`. On each `rnn.scan` whose body's cell reads the
    step input (and nothing else does), the pass puts that `rnn.project`
    (the cell's kernel and precision: f32 or bf16 params, int8 weights,
    dynamic int8 activations, bf16 compute) before the scan, makes it the
    scan's input, and marks the cell `projected_input`. Every kind of scan
    qualifies: both directions of an expanded Bidirectional, stacked
    layers, reverse (`rnn.project` is row-wise, so it commutes with the
    flip), lengths, run-time rows and steps. Each element still sums the
    same products in the same order. A bf16-compute cell's projection has
    its `compute_type`: the rows rounded to bf16 and the sums rounded to
    bf16 (its input Dense's output before the bias), which the cell then
    reads as it read its own product's rounding (B(v) of a bf16 value is
    itself); such a cell needs bf16 weights, which is what the front end
    gives it.

    Left alone: convolutional cells and unbatched scans (both keep the
    product in each step, as their code always has). `--convert-rnn-scan-to-scf`
    computes the projection per loop over steps, or per block of steps, on
    the slice of the input that loop reads. RAM-lean pipelines do not run
    this pass: their cells keep `x` and `wi`, so the product stays in each
    step (no buffer grows with T) and `fuse-projections` can share the
    accumulators of both products.
  }];
  let dependentDialects = [];
}

def RNNOverlapInputProjectionPass : Pass<"rnn-overlap-input-projection"> {
  let summary = "decide which batch-1 scans compute their input projection beside the recurrence";
  let description = [{
    At batch 1 a step's recurrent matmul is a matrix-vector product bound by
    streaming the recurrent weights from cache, and the projection of the
    input before the loop ([T, K] x [K, N], `rnn.project`) is bound by the
    FMA units: run one after the other, each leaves the other's resource
    idle. This pass decides, on each `rnn.scan` of one batch row whose input
    is its cell's projection (`--rnn-split-input-projection`), whether the
    steps compute that projection themselves, and in groups of how many
    rows: it sets the scan's `overlap_rows` (R).
    `--convert-rnn-scan-to-scf` then keeps projected rows in a ring of 2 x R
    rows: group g (steps [g R, (g + 1) R)) in half g % 2. The first group is
    projected before the loop; step t of the first T - R steps copies row
    t % 2R out of the ring, then computes piece t % R of the next group (its
    R rows times a 1 / R slice of the kernel's columns: one row's worth of
    work per step) into the other half, in one loop over k with the step's
    recurrent product, which has the same depth (`rnn.project_piece`
    `beside` the cell, one `rnn.shared_k_matmuls` after
    `--convert-rnn-to-linalg`). The last group's steps, with nothing left to
    project, run in a loop of their own. Each element still sums the same
    products in the same order.

    R is the largest power of two up to `rows` that divides T, leaves
    T >= 4 R (the first group, not overlapped, is at most a quarter of the
    steps), and gives pieces of at least `piece-lanes` columns per row (a
    vector register of floats); if that is fewer than `min-rows`, the scan
    is left alone (groups of 2 rows, even T below 16, measured 10-15x slower
    than no overlap: GRU H=64 T=10, 61 against 4.5 us). Left alone also:
    kernels larger than `max-kernel-bytes` (every piece reads its slice of
    the kernel again, which must then stay in cache: the target's L2, 1 MiB
    on the AVX-512 CPUs it was measured on; LSTM H=1024 was 5-10 % slower);
    kernels that anything but this projection and the cell's `wi` operand
    reads (another projection would have to read it in the pieces' narrow
    blocks); the recurrent product of another depth than the projection's
    (input size and hidden size differ); `unroll` above 1; steps read from
    the end (`reverse` without `lengths`); dynamic int8 activations; the
    scans of a function built for a column split (`rnn.column_split`: a
    piece's columns would cross the tasks' shares).
  }];
  let options = [
    Option<"rows", "rows", "int64_t", "8",
           "most rows projected together (each step computes 1 / rows of their columns)">,
    Option<"minRows", "min-rows", "int64_t", "4",
           "fewest rows projected together; fewer leave the projection alone">,
    Option<"pieceLanes", "piece-lanes", "int64_t", "16",
           "fewest columns a piece has per row: the f32 lanes of a vector register">,
    Option<"maxKernelBytes", "max-kernel-bytes", "int64_t", "1048576",
           "largest projection kernel handled, in bytes (the cache it stays in)">,
  ];
  let dependentDialects = [];
}

#endif // RNN_TRANSFORMS_PASSES_TD
