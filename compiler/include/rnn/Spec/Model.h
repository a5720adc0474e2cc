//===- Model.h - In-memory form of a model spec -----------------*- C++ -*-===//
//
// The checked, defaults-applied form of a spec file (docs/SpecFormat.md).
// Every later stage (weights binding, the reference implementation, MLIR
// generation) reads this structure; none of them sees YAML.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_SPEC_MODEL_H
#define RNN_SPEC_MODEL_H

#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rnnc::spec {

/// Cell types, named as in Flax.
enum class CellKind {
  LSTM,          ///< LSTMCell
  OptimizedLSTM, ///< OptimizedLSTMCell (same maths as LSTM, fused params)
  GRU,           ///< GRUCell (linen: hn bias; nnx: no hn bias)
  MGU,           ///< MGUCell (linen only)
  Simple,        ///< SimpleCell
  ConvLSTM,      ///< ConvLSTMCell (linen only)
};

/// Element-wise functions with jax.nn semantics.
enum class Activation {
  Sigmoid,
  HardSigmoid, ///< relu6(x + 3) / 6
  Tanh,
  HardTanh, ///< clip(x, -1, 1)
  Relu,
  Elu, ///< alpha = 1
  Silu,
  Identity,
};

enum class Merge { Concat, Add, Mul, Mean };
enum class ParamsLayout { Linen, NNX };
enum class InitialCarry { Zeros, Input };
enum class PaddedOutputs { Compute, Zeros };

struct Cell {
  CellKind kind = CellKind::LSTM;
  int64_t features = 0;
  Activation gateFn = Activation::Sigmoid;
  Activation activationFn = Activation::Tanh;
  bool resetGate = true;            ///< MGUCell only
  bool residual = false;            ///< SimpleCell only
  std::vector<int64_t> kernelSize;  ///< ConvLSTMCell only
  bool useBias = true;              ///< ConvLSTMCell only
  std::string params;               ///< '/'-joined param path of this cell
  llvm::SMLoc loc;                  ///< the `cell:` value in the spec

  /// True for cells whose carry is (c, h); the others carry h only.
  bool hasCellState() const {
    return kind == CellKind::LSTM || kind == CellKind::OptimizedLSTM ||
           kind == CellKind::ConvLSTM;
  }
};

/// One direction: a cell scanned over time.
struct RNN {
  Cell cell;
  bool reverse = false;
  bool keepOrder = false;
  int64_t unroll = 1;
  llvm::SMLoc loc;
};

struct Layer {
  enum class Kind { RNN, Bidirectional };
  Kind kind = Kind::RNN;
  std::string name;
  RNN rnn;      ///< Kind::RNN
  RNN forward;  ///< Kind::Bidirectional
  RNN backward; ///< Kind::Bidirectional
  Merge merge = Merge::Concat;
  bool returnCarry = false;
  InitialCarry initialCarry = InitialCarry::Zeros;
  llvm::SMLoc loc;

  bool isBidirectional() const { return kind == Kind::Bidirectional; }
};

struct Model {
  int version = 1;
  std::string name;
  ParamsLayout paramsLayout = ParamsLayout::Linen;
  PaddedOutputs paddedOutputs = PaddedOutputs::Compute;
  std::vector<int64_t> batch;    ///< static batch dims, possibly empty
  int64_t time = 0;              ///< T
  std::vector<int64_t> features; ///< [I] or, for ConvLSTM, [spatial..., C]
  bool timeMajor = false;
  bool seqLengths = false;
  std::vector<Layer> layers;
  llvm::SMLoc loc;
};

/// Short names used in diagnostics and generated symbols ("LSTMCell", ...).
const char *stringify(CellKind kind);
const char *stringify(Activation fn);
const char *stringify(Merge merge);
const char *stringify(ParamsLayout layout);  ///< "linen", "nnx"
const char *stringify(InitialCarry carry);   ///< "zeros", "input"
const char *stringify(PaddedOutputs padded); ///< "compute", "zeros"
const char *stringify(Layer::Kind kind);     ///< "RNN", "Bidirectional"

} // namespace rnnc::spec

#endif // RNN_SPEC_MODEL_H
