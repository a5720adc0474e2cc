//===- RNNCells.td - One time step of each cell kind -------*- tablegen -*-===//
//
// Every cell op computes one step: carry and input in, new carry out. A
// cell's output is its new `h` (true of every Flax cell), so the enclosing
// scan yields it explicitly. Batch dims are the leading dims of `input` and
// of every carry, any number of them, including none.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_IR_RNNCELLS_TD
#define RNN_IR_RNNCELLS_TD

include "rnn/IR/RNNDialect.td"
include "rnn/IR/RNNEnums.td"
include "rnn/IR/RNNInterfaces.td"
include "rnn/IR/RNNTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

// Operands (RNNTypes.td): input, carries and results are activation
// tensors, a dense cell's kernels kernel tensors, ConvLSTM's kernels and
// every bias weight tensors. The verifiers (RNNCells.cpp) tie the
// activations to one type, and a dense cell's params (kernels and biases)
// to one type too: the activations', or bf16 with f32 activations (Flax's
// `param_dtype=bfloat16`: the lowering widens each param where it reads
// it, and the maths is f32), or int8 kernels with f32 activations and
// biases. ConvLSTM's params have the activations' type.
//
// Reduced-precision compute (Flax's `dtype=bfloat16`, docs/Semantics.md):
// a dense cell with `compute_type = bf16` keeps f32 tensors but rounds to
// bf16 at exactly the points XLA's CPU backend rounds a bf16 Flax cell;
// `carry_type` (bf16 or f32, Flax's carry dtype, its `param_dtype`) says
// whether the carries are held as bf16 values or stay f32, which decides
// where the step's tail rounds.
//
// `dynamic_int8` (a unit attribute of the dense cells, needs int8 kernels;
// `quantize: {weights: int8, activations: dynamic}`): the left operand of
// each matmul (input, h) is quantized per row at every step, symmetric, to
// int8 with scale max|row| / 127; the sums are int32 and each is then
// multiplied by its row's and its column's scale (docs/Semantics.md).

// A cell op: one step, its operands in CellOpInterface's order (input,
// carries, wi, wh, bi, bh); `extraDecl` adds to the class declaration.
class RNN_CellOp<string mnemonic, int gates, list<Trait> traits = [],
                 code extraDecl = [{}]>
    : RNN_Op<mnemonic, !listconcat(traits, [Pure, AttrSizedOperandSegments,
          DeclareOpInterfaceMethods<RNN_CellOpInterface>])> {
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    static constexpr int64_t kNumGates = }] # gates # [{;
  }] # extraDecl;
  // Cells whose kernels are matrices share one verifier (RNNCells.cpp); a
  // cell with more to check sets this to empty and defines its own.
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return ::mlir::rnn::verifyDenseCell(*this);
    }
  }];
}

// A cell whose kernels are matrices. With `projected_input` its input is
// the step's input-side product, `input @ wi` computed beforehand for all
// steps by `rnn.project` (`--rnn-split-input-projection`): `G*H` columns,
// in the precision the cell's own product would have had (int8 sums before
// the columns' scales, which the gate maths applies from `wi`'s type as for
// an unsplit cell; with `compute_type` bf16, the product's bf16 values,
// the rows and sums rounded, to which the gate maths adds the bias as it
// does unsplit).
class RNN_DenseCellOp<string mnemonic, int gates, list<Trait> traits = [],
                      code extraDecl = [{}]>
    : RNN_CellOp<mnemonic, gates, traits, [{
    /// Whether `input` is the step's input-side product (CellOpInterface).
    bool hasProjectedInput() { return getProjectedInput(); }
  }] # extraDecl>;

def RNN_LSTMCellOp : RNN_DenseCellOp<"lstm_cell", 4,
    [AllTypesMatch<["c", "h", "new_c", "new_h"]>], [{
    /// Every gate's pre-activation is `xi + xh` (CellOpInterface).
    bool fusesProjections() { return true; }
  }]> {
  let summary = "one step of an LSTM cell (LSTMCell, OptimizedLSTMCell)";
  let description = [{
    Gate order `[i, f, g, o]`; carry `(c, h)` in Flax's order:

    ```
    y = input @ wi (+ bi) + (h @ wh (+ bh))       // I x 4H and H x 4H kernels
    i = gate_fn(y_i)   f = gate_fn(y_f)   g = activation_fn(y_g)   o = gate_fn(y_o)
    new_c = f * c + i * g
    new_h = o * activation_fn(new_c)
    ```

    Flax's `LSTMCell` has no input bias (`bi` absent) and one bias per
    hidden-side gate (`bh`). `OptimizedLSTMCell` computes the same maths
    on the same (concatenated) parameters.

    Example:
    ```mlir
    %c1, %h1 = rnn.lstm_cell(%x, %c, %h) kernels(%wi, %wh)
                 hidden_bias(%bh : tensor<256xf32>)
                 : tensor<8x40xf32>, tensor<8x64xf32>, tensor<40x256xf32>, tensor<64x256xf32>
    ```
  }];
  let arguments = (ins RNN_ActivationTensor:$input, RNN_ActivationTensor:$c,
      RNN_ActivationTensor:$h, RNN_KernelTensor:$wi, RNN_KernelTensor:$wh,
      Optional<RNN_WeightTensor>:$bi, Optional<RNN_WeightTensor>:$bh,
      DefaultValuedAttr<RNN_ActivationAttr, "Activation::sigmoid">:$gate_fn,
      DefaultValuedAttr<RNN_ActivationAttr, "Activation::tanh">:$activation_fn,
      OptionalAttr<TypeAttr>:$compute_type, OptionalAttr<TypeAttr>:$carry_type,
      UnitAttr:$dynamic_int8, UnitAttr:$projected_input);
  let results = (outs RNN_ActivationTensor:$new_c, RNN_ActivationTensor:$new_h);
  let assemblyFormat = [{
    `(` $input `,` $c `,` $h `)` `kernels` `(` $wi `,` $wh `)`
    (`projected_input` $projected_input^)?
    (`input_bias` `(` $bi^ `:` type($bi) `)`)?
    (`hidden_bias` `(` $bh^ `:` type($bh) `)`)?
    (`gate_fn` `` $gate_fn^)? (`activation_fn` `` $activation_fn^)?
    attr-dict `:` type($input) `,` type($h) `,` type($wi) `,` type($wh)
  }];
}

def RNN_GRUCellOp : RNN_DenseCellOp<"gru_cell", 3,
    [AllTypesMatch<["h", "new_h"]>]> {
  let summary = "one step of a GRU cell (GRUCell)";
  let description = [{
    Gate order `[r, z, n]`; carry `h`:

    ```
    gi = input @ wi (+ bi)        gh = h @ wh (+ bh)
    r = gate_fn(gi_r + gh_r)      z = gate_fn(gi_z + gh_z)
    n = activation_fn(gi_n + r * gh_n)
    new_h = (1 - z) * n + z * h
    ```

    linen's `GRUCell` has a bias only on `hn`: `bh = [0, 0, bhn]`. nnx's
    `GRUCell` has none (`bh` absent).
  }];
  let arguments = (ins RNN_ActivationTensor:$input, RNN_ActivationTensor:$h,
      RNN_KernelTensor:$wi, RNN_KernelTensor:$wh,
      Optional<RNN_WeightTensor>:$bi, Optional<RNN_WeightTensor>:$bh,
      DefaultValuedAttr<RNN_ActivationAttr, "Activation::sigmoid">:$gate_fn,
      DefaultValuedAttr<RNN_ActivationAttr, "Activation::tanh">:$activation_fn,
      OptionalAttr<TypeAttr>:$compute_type, OptionalAttr<TypeAttr>:$carry_type,
      UnitAttr:$dynamic_int8, UnitAttr:$projected_input);
  let results = (outs RNN_ActivationTensor:$new_h);
  let assemblyFormat = [{
    `(` $input `,` $h `)` `kernels` `(` $wi `,` $wh `)`
    (`projected_input` $projected_input^)?
    (`input_bias` `(` $bi^ `:` type($bi) `)`)?
    (`hidden_bias` `(` $bh^ `:` type($bh) `)`)?
    (`gate_fn` `` $gate_fn^)? (`activation_fn` `` $activation_fn^)?
    attr-dict `:` type($input) `,` type($h) `,` type($wi) `,` type($wh)
  }];
}

def RNN_MGUCellOp : RNN_DenseCellOp<"mgu_cell", 2,
    [AllTypesMatch<["h", "new_h"]>]> {
  let summary = "one step of a minimal gated unit (MGUCell)";
  let description = [{
    Gate order `[f, n]`; carry `h`:

    ```
    gi = input @ wi (+ bi)        gh = h @ wh (+ bh)
    f = gate_fn(gi_f + gh_f)
    n = activation_fn(gi_n + (reset_gate ? f * gh_n : gh_n))
    new_h = (1 - f) * n + f * h
    ```

    Flax's `MGUCell` has `bh = [0, bhn]` with `reset_gate` and no `bh`
    without it.
  }];
  let arguments = (ins RNN_ActivationTensor:$input, RNN_ActivationTensor:$h,
      RNN_KernelTensor:$wi, RNN_KernelTensor:$wh,
      Optional<RNN_WeightTensor>:$bi, Optional<RNN_WeightTensor>:$bh,
      DefaultValuedAttr<RNN_ActivationAttr, "Activation::sigmoid">:$gate_fn,
      DefaultValuedAttr<RNN_ActivationAttr, "Activation::tanh">:$activation_fn,
      DefaultValuedAttr<BoolAttr, "true">:$reset_gate,
      OptionalAttr<TypeAttr>:$compute_type, OptionalAttr<TypeAttr>:$carry_type,
      UnitAttr:$dynamic_int8, UnitAttr:$projected_input);
  let results = (outs RNN_ActivationTensor:$new_h);
  let assemblyFormat = [{
    `(` $input `,` $h `)` `kernels` `(` $wi `,` $wh `)`
    (`projected_input` $projected_input^)?
    (`input_bias` `(` $bi^ `:` type($bi) `)`)?
    (`hidden_bias` `(` $bh^ `:` type($bh) `)`)?
    (`gate_fn` `` $gate_fn^)? (`activation_fn` `` $activation_fn^)?
    attr-dict `:` type($input) `,` type($h) `,` type($wi) `,` type($wh)
  }];
}

def RNN_SimpleCellOp : RNN_DenseCellOp<"simple_cell", 1,
    [AllTypesMatch<["h", "new_h"]>]> {
  let summary = "one step of an Elman cell (SimpleCell)";
  let extraClassDefinition = [{}]; // its own verifier (RNNCells.cpp)
  let description = [{
    ```
    s = (input @ wi (+ bi)) + (h @ wh (+ bh))
    new_h = activation_fn(residual ? s + h : s)
    ```
  }];
  let arguments = (ins RNN_ActivationTensor:$input, RNN_ActivationTensor:$h,
      RNN_KernelTensor:$wi, RNN_KernelTensor:$wh,
      Optional<RNN_WeightTensor>:$bi, Optional<RNN_WeightTensor>:$bh,
      DefaultValuedAttr<RNN_ActivationAttr, "Activation::tanh">:$activation_fn,
      UnitAttr:$residual,
      OptionalAttr<TypeAttr>:$compute_type, OptionalAttr<TypeAttr>:$carry_type,
      UnitAttr:$dynamic_int8, UnitAttr:$projected_input);
  let results = (outs RNN_ActivationTensor:$new_h);
  let assemblyFormat = [{
    `(` $input `,` $h `)` `kernels` `(` $wi `,` $wh `)`
    (`projected_input` $projected_input^)?
    (`input_bias` `(` $bi^ `:` type($bi) `)`)?
    (`hidden_bias` `(` $bh^ `:` type($bh) `)`)?
    (`activation_fn` `` $activation_fn^)? (`residual` $residual^)?
    attr-dict `:` type($input) `,` type($h) `,` type($wi) `,` type($wh)
  }];
}

def RNN_ConvLSTMCellOp : RNN_CellOp<"conv_lstm_cell", 4,
    [AllTypesMatch<["c", "h", "new_c", "new_h"]>], [{
    /// Number of spatial dims, from the kernel's rank (CellOpInterface).
    int64_t getNumSpatialDims() {
      return mlir::cast<mlir::RankedTensorType>(getWi().getType()).getRank() - 2;
    }
  }]> {
  let summary = "one step of a convolutional LSTM cell (ConvLSTMCell)";
  let extraClassDefinition = [{}]; // its own verifier (RNNCells.cpp)
  let description = [{
    Channels-last N-D convolutions (cross-correlation), stride 1, SAME
    padding (`(k-1)/2` before, `k/2` after each spatial dim), gate order
    `[i, g, f, o]` as in Flax:

    ```
    y = conv(input, wi) (+ bi) + conv(h, wh) (+ bh)   // kernels (*k, C, 4F), (*k, F, 4F)
    new_c = sigmoid(y_f + 1) * c + sigmoid(y_i) * tanh(y_g)
    new_h = sigmoid(y_o) * tanh(new_c)
    ```

    `input` is `(*batch, *spatial, C)`, the carries `(*batch, *spatial, F)`.
  }];
  let arguments = (ins RNN_ActivationTensor:$input, RNN_ActivationTensor:$c,
      RNN_ActivationTensor:$h, RNN_WeightTensor:$wi, RNN_WeightTensor:$wh,
      Optional<RNN_WeightTensor>:$bi, Optional<RNN_WeightTensor>:$bh);
  let results = (outs RNN_ActivationTensor:$new_c, RNN_ActivationTensor:$new_h);
  let assemblyFormat = [{
    `(` $input `,` $c `,` $h `)` `kernels` `(` $wi `,` $wh `)`
    (`input_bias` `(` $bi^ `:` type($bi) `)`)?
    (`hidden_bias` `(` $bh^ `:` type($bh) `)`)?
    attr-dict `:` type($input) `,` type($h) `,` type($wi) `,` type($wh)
  }];
}

#endif // RNN_IR_RNNCELLS_TD
