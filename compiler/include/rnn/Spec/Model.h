//===- Model.h - In-memory form of a model spec -----------------*- C++ -*-===//
//
// The checked, defaults-applied form of a spec file (docs/SpecFormat.md).
// Every later stage (weights binding, the reference implementation, MLIR
// generation) reads this structure; none of them sees YAML.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_SPEC_MODEL_H
#define RNN_SPEC_MODEL_H

#include "rnn/Spec/CellKinds.h"
#include "rnn/Spec/ElementType.h"

#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rnnc::spec {

/// Activation functions with jax.nn semantics. All but Softmax and
/// LogSoftmax are element-wise; those two normalize over the last axis.
enum class Activation {
  Sigmoid,
  HardSigmoid, ///< relu6(x + 3) / 6
  Tanh,
  HardTanh, ///< clip(x, -1, 1)
  Relu,
  Elu, ///< alpha = 1
  Silu,
  Identity,
  Gelu,       ///< jax.nn.gelu(approximate=True): the tanh approximation
  GeluExact,  ///< jax.nn.gelu(approximate=False): x * (1 + erf(x/sqrt 2)) / 2
  Softmax,    ///< over the last axis
  LogSoftmax, ///< over the last axis
  Softplus,   ///< log(1 + exp(x)), as jnp.logaddexp(x, 0)
  LeakyRelu,  ///< slope 0.01 below zero
};

/// True for the activations that act on each element alone (all but
/// Softmax and LogSoftmax); only those can be a cell's gate_fn or
/// activation_fn.
bool isElementwise(Activation fn);

/// How a Pool layer reduces the time axis (docs/SpecFormat.md).
enum class PoolFn { Last, First, Mean, Max, Sum, LastValid, FinalCarry };

enum class Merge { Concat, Add, Mul, Mean };
enum class ParamsLayout { Linen, NNX };
enum class InitialCarry { Zeros, Input };
enum class PaddedOutputs { Compute, Zeros };

struct Cell {
  CellKind kind = CellKind::LSTM;
  int64_t features = 0;
  Activation gateFn = Activation::Sigmoid;
  Activation activationFn = Activation::Tanh;
  // Options of some kinds (CellKindInfo::keys), at Flax's defaults.
  bool resetGate = true;            ///< reset_gate
  bool residual = false;            ///< residual
  std::vector<int64_t> kernelSize;  ///< kernel_size
  bool useBias = true;              ///< use_bias
  std::string params;               ///< '/'-joined param path of this cell
  /// The cell's `param_dtype`, else the model's (applied when parsing ends):
  /// the type its params are stored in. Computation is float32 unless
  /// `dtype` says otherwise: bfloat16 params are widened exactly where they
  /// are read.
  ElementType paramDtype = ElementType::Float32;
  /// `quantize: {weights: int8}` applies to this cell (every cell whose kind
  /// is CellKindInfo::lowPrecision): its kernels are stored as int8
  /// with one float32 scale per output column, set when parsing ends.
  bool int8Weights = false;
  /// `quantize: {weights: int8, activations: dynamic}` applies to this cell:
  /// the left operand of each of its two matmuls is quantized to int8 per
  /// row at every step (docs/Semantics.md#dynamic-int8-activations).
  bool int8Activations = false;
  /// The cell's `dtype` (Flax's computation type), else the model's: bf16
  /// compute rounds where Flax's bf16 cell does (docs/Semantics.md).
  ElementType dtype = ElementType::Float32;
  llvm::SMLoc loc;                  ///< the `cell:` value in the spec

  /// The type the params are stored in: bf16 with bf16 params, and with bf16
  /// compute, which rounds every param to bf16 before use (promote_dtype).
  ElementType storedParamType() const {
    return paramDtype == ElementType::BFloat16 || dtype == ElementType::BFloat16
               ? ElementType::BFloat16
               : ElementType::Float32;
  }
  /// storedParamType() is bfloat16.
  bool storesBF16Params() const {
    return storedParamType() == ElementType::BFloat16;
  }

  /// True for cells whose carry is (c, h); the others carry h only.
  bool hasCellState() const { return describe(kind).carries.size() > 1; }
};

/// One direction: a cell scanned over time.
struct RNN {
  Cell cell;
  bool reverse = false;
  bool keepOrder = false;
  int64_t unroll = 1;
  llvm::SMLoc loc;
};

/// One entry of the spec's `layers`. The recurrent kinds (RNN,
/// Bidirectional) scan cells over time; the others act on the previous
/// layer's output at every step (or once, after a Pool has removed the time
/// axis). Fields belong to the kinds named beside them.
struct Layer {
  enum class Kind {
    RNN,
    Bidirectional,
    Dense,      ///< nn.Dense, then `activation`
    Pool,       ///< a reduction over the time axis
    Embed,      ///< nn.Embed; only as the first layer
    LayerNorm,  ///< nn.LayerNorm over the last axis
    Activation, ///< an activation function between layers
    Dropout,    ///< nn.Dropout: the identity at inference
  };
  Kind kind = Kind::RNN;
  std::string name;
  llvm::SMLoc loc;

  // RNN, Bidirectional.
  RNN rnn;      ///< Kind::RNN
  RNN forward;  ///< Kind::Bidirectional
  RNN backward; ///< Kind::Bidirectional
  Merge merge = Merge::Concat;
  bool returnCarry = false;
  InitialCarry initialCarry = InitialCarry::Zeros;

  // Dense, Embed, LayerNorm.
  int64_t features = 0;      ///< Dense, Embed
  int64_t numEmbeddings = 0; ///< Embed
  bool useBias = true;       ///< Dense, LayerNorm
  bool useScale = true;      ///< LayerNorm
  double epsilon = 1e-6;     ///< LayerNorm
  /// '/'-joined param path: Dense, Embed, LayerNorm (default: the layer's
  /// name); RNN and Bidirectional, when given at the layer (the nn.RNN or
  /// nn.Bidirectional module; see cellParamsPath in Binding.h).
  std::string params;

  /// Dense: applied after the affine map (none when unset). Activation: the
  /// function itself.
  std::optional<Activation> activation;

  // Pool.
  PoolFn poolFn = PoolFn::Last;
  bool validOnly = false;

  // Dropout.
  double rate = 0.0;

  bool isBidirectional() const { return kind == Kind::Bidirectional; }
  /// RNN and Bidirectional layers: the ones with cells and carries.
  bool isRecurrent() const {
    return kind == Kind::RNN || kind == Kind::Bidirectional;
  }
  /// Layers whose weights come from the weights file.
  bool hasParams() const {
    return isRecurrent() || kind == Kind::Dense || kind == Kind::Embed ||
           (kind == Kind::LayerNorm && (useScale || useBias));
  }
};

struct Model {
  int version = 1;
  std::string name;
  ParamsLayout paramsLayout = ParamsLayout::Linen;
  PaddedOutputs paddedOutputs = PaddedOutputs::Compute;
  /// The top-level `param_dtype`: the default of every cell's.
  ElementType paramDtype = ElementType::Float32;
  /// `quantize: {weights: int8}` (an rnnc extension; Flax has none).
  bool int8Weights = false;
  /// `activations: dynamic` too: the dense cells quantize their matmuls'
  /// left operands per row on the fly; `int8ActivationsLoc` is its value,
  /// where a path or target that cannot run it is reported.
  bool int8Activations = false;
  llvm::SMLoc int8ActivationsLoc;
  std::vector<int64_t> batch;    ///< batch dims (maxima when run-time), possibly empty
  /// Per batch dim: `{max: N}`, its actual size (1..N) is a run-time
  /// argument of the entry point (`batch_<d>`).
  std::vector<bool> runtimeBatch;
  /// The top-level `dtype`: the default of every cell's (only cells compute
  /// in it; the layers around them stay float32).
  ElementType dtype = ElementType::Float32;
  int64_t time = 0;              ///< T, or its maximum when runtimeTime
  /// `time: {max: N}`: the entry point takes the actual number of steps
  /// (0..time) as its `steps` argument.
  bool runtimeTime = false;
  /// `input.stream: true`: the model is also run chunk by chunk with its
  /// carries in a state (<name>_stream). Implies runtimeTime (the chunk's
  /// steps are a run-time argument, `time` the most per chunk) and makes
  /// every recurrent layer take and return its carries.
  bool stream = false;
  /// [I] or, for ConvLSTM, [spatial..., C]; empty when the first layer is
  /// an Embed (x is then int32 token ids of shape (*batch, T)).
  std::vector<int64_t> features;
  bool timeMajor = false;
  bool seqLengths = false;
  std::vector<Layer> layers;
  /// Globs of weights-file keys that binding skips (`ignore_params`).
  std::vector<std::string> ignoreParams;
  llvm::SMLoc loc;

  /// True when batch dim `d` is `{max: N}`.
  bool isRuntimeBatch(size_t d) const {
    return d < runtimeBatch.size() && runtimeBatch[d];
  }
  /// True when some batch dim is `{max: N}`.
  bool hasRuntimeBatch() const {
    for (bool runtime : runtimeBatch)
      if (runtime)
        return true;
    return false;
  }

  /// The element type of x (unless it holds token ids), y, the carries the
  /// caller passes and receives, and the values between layers: float32, as
  /// no spec key chooses another yet (`dtype` is the cells' computation
  /// type, inside the cell).
  ElementType activationType() const { return ElementType::Float32; }

  /// True when x holds int32 token ids (the first layer is an Embed).
  bool takesTokens() const {
    return !layers.empty() && layers.front().kind == Layer::Kind::Embed;
  }
};

/// Short names used in diagnostics and generated symbols ("sigmoid", ...;
/// stringify(CellKind) is in CellKinds.h).
const char *stringify(Activation fn);
const char *stringify(Merge merge);
/// `quantize: {weights: int8}`: marks the model and every cell whose kind is
/// CellKindInfo::lowPrecision (the others keep float32 kernels) as having
/// int8 weights. A cell
/// whose params are bfloat16 (param_dtype or dtype) cannot: the name of its
/// layer, else std::nullopt.
std::optional<std::string> applyInt8Weights(Model &model);
/// `activations: dynamic` on top of applyInt8Weights: every cell with int8
/// weights also quantizes its activations (Dense layers stay weight-only).
void applyInt8Activations(Model &model);

const char *stringify(ParamsLayout layout);  ///< "linen", "nnx"
const char *stringify(InitialCarry carry);   ///< "zeros", "input"
const char *stringify(PaddedOutputs padded); ///< "compute", "zeros"
const char *stringify(Layer::Kind kind);     ///< "RNN", "Bidirectional", "Dense", ...
const char *stringify(PoolFn fn);            ///< "last", "first", ..., "final_carry"

} // namespace rnnc::spec

#endif // RNN_SPEC_MODEL_H
