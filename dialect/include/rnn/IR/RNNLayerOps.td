//===- RNNLayerOps.td - Layers around the recurrence -------*- tablegen -*-===//
//
// The layers a whole model puts before and after its recurrent layers:
// Flax's Dense, Embed and LayerNorm, activation functions, and the
// reductions over time that turn a sequence into one vector per row. Each
// acts on the last axis (or, for rnn.pool, the time axis) of a tensor with
// any number of leading dims.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_IR_RNNLAYEROPS_TD
#define RNN_IR_RNNLAYEROPS_TD

include "rnn/IR/RNNDialect.td"
include "rnn/IR/RNNEnums.td"
include "rnn/IR/RNNTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def RNN_DenseOp : RNN_Op<"dense", [Pure]> {
  let summary = "an affine map of the last axis, then an activation (Dense)";
  let description = [{
    `result = activation(input @ kernel (+ bias))`, contracting the last axis
    of `input` (`... x I`) with the kernel (`I x N`, Flax's layout); every
    leading dim (batch, time, spatial) is mapped alike. Without
    `activation` the affine map is the result.

    Example:
    ```mlir
    %y = rnn.dense %x, %k bias(%b : tensor<32xf32>) activation <elu>
           : tensor<8x64xf32>, tensor<64x32xf32> -> tensor<8x32xf32>
    ```
  }];
  let arguments = (ins RNN_ActivationTensor:$input, RNN_KernelTensor:$kernel,
      Optional<RNN_WeightTensor>:$bias,
      OptionalAttr<RNN_ActivationAttr>:$activation);
  let results = (outs RNN_ActivationTensor:$result);
  let assemblyFormat = [{
    $input `,` $kernel (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`activation` $activation^)?
    attr-dict `:` type($input) `,` type($kernel) `->` type($result)
  }];
  let hasVerifier = 1;
}

def RNN_ActivationOp : RNN_Op<"activation",
    [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "an activation function (jax.nn semantics)";
  let description = [{
    Applies `fn` to every element, or for `softmax` and `log_softmax`
    normalizes over the last axis.

    Example:
    ```mlir
    %y = rnn.activation <log_softmax> %x : tensor<8x100x27xf32>
    ```
  }];
  let arguments = (ins RNN_ActivationAttr:$fn, RNN_ActivationTensor:$input);
  let results = (outs RNN_ActivationTensor:$result);
  let assemblyFormat = "$fn $input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def RNN_LayerNormOp : RNN_Op<"layer_norm",
    [Pure, AttrSizedOperandSegments, AllTypesMatch<["input", "result"]>]> {
  let summary = "normalization over the last axis (Flax's LayerNorm)";
  let description = [{
    Flax's `LayerNorm` with its default fast variance, per vector `x` of the
    last axis (N entries):

    ```
    mean = sum(x) / N        var = max(0, sum(x * x) / N - mean * mean)
    result = (x - mean) * (1 / sqrt(var + epsilon)) (* scale) (+ bias)
    ```

    Example:
    ```mlir
    %y = rnn.layer_norm %x scale(%s : tensor<64xf32>) bias(%b : tensor<64xf32>)
           epsilon 1.0e-06 : tensor<8x100x64xf32>
    ```
  }];
  let arguments = (ins RNN_ActivationTensor:$input,
      Optional<RNN_WeightTensor>:$scale, Optional<RNN_WeightTensor>:$bias,
      F64Attr:$epsilon);
  let results = (outs RNN_ActivationTensor:$result);
  let assemblyFormat = [{
    $input (`scale` `(` $scale^ `:` type($scale) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)? `epsilon` $epsilon
    attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def RNN_PoolOp : RNN_Op<"pool", [Pure]> {
  let summary = "reduces the time axis of a sequence";
  let description = [{
    `input` is laid out as rnn.scan's input (`(*batch, T, *features)`, or
    time first with `time_major`); the result drops the time axis.

    - Without `seq_lengths`, over all T steps, padding included (what
      `x[:, -1]`, `x[:, 0]`, `jnp.mean/max/sum(x, axis=1)` compute):
      `last` is step T-1, `first` step 0, `mean` the sum over T divided by T.
    - With `seq_lengths`, over each row's valid steps `t < L`: `last` is
      step `L-1`, `first` step 0, `mean` the sum divided by `L`. A row of
      length 0 gives zeros, whatever the kind.

    Example:
    ```mlir
    %p = rnn.pool <mean> %y lengths(%len : tensor<8xi32>)
           {num_batch_dims = 1 : i64} : tensor<8x100x64xf32> -> tensor<8x64xf32>
    ```
  }];
  let arguments = (ins RNN_PoolKindAttr:$kind, RNN_ActivationTensor:$input,
      Optional<RNN_LengthsTensor>:$seq_lengths, I64Attr:$num_batch_dims,
      UnitAttr:$time_major);
  let results = (outs RNN_ActivationTensor:$result);
  let assemblyFormat = [{
    $kind $input (`lengths` `(` $seq_lengths^ `:` type($seq_lengths) `)`)?
    (`time_major` $time_major^)? attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    int64_t getTimeAxis() { return getTimeMajor() ? 0 : getNumBatchDims(); }
  }];
}

def RNN_EmbedOp : RNN_Op<"embed", [Pure]> {
  let summary = "looks up token ids in an embedding table (Flax's Embed)";
  let description = [{
    `result[..., f] = embedding[ids[...], f]`: the table is
    `num_embeddings x features`. Ids outside `[0, num_embeddings)` are
    undefined here; the compiled entry point rejects them before running
    anything.

    Example:
    ```mlir
    %e = rnn.embed %ids, %table : tensor<4x50xi32>, tensor<27x16xf32>
           -> tensor<4x50x16xf32>
    ```
  }];
  let arguments = (ins RNN_TokenIdsTensor:$ids,
      RNN_WeightTensor:$embedding);
  let results = (outs RNN_ActivationTensor:$result);
  let assemblyFormat = [{
    $ids `,` $embedding attr-dict `:` type($ids) `,` type($embedding) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

#endif // RNN_IR_RNNLAYEROPS_TD
