//===- CellKinds.h - One description of each cell kind ----------*- C++ -*-===//
//
// What the front end knows of a cell kind apart from its maths: its spec
// name and keys, its gate blocks and carries, the rnn op MLIRGen builds for
// it, and the arrays Flax stores for it in each params layout. The spec
// parser, checker, shapes and summary, weights binding, MLIRGen, the
// reference and the driver read this description instead of switching on
// the kind. The rows are in CellKinds.cpp; a cell kind's maths is its op's
// (RNNCells.td) and its reference step's (Reference/Cells.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef RNN_SPEC_CELLKINDS_H
#define RNN_SPEC_CELLKINDS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace rnnc::spec {

struct Cell;
enum class ParamsLayout;

/// Cell types, named as in Flax; one row of CellKinds.cpp each.
enum class CellKind { LSTM, OptimizedLSTM, GRU, MGU, Simple, ConvLSTM };

/// The arrays of a cell in the fused layout of Params.h.
enum class FusedArray { Wi, Wh, Bi, Bh };

/// One array Flax stores for a cell, and where binding puts it in the fused
/// layout. A kernel is (I, n*H) for `wi` and (H, n*H) for `wh` (kernel_size
/// in front for convolutional cells), a bias (n*H), where n is one gate
/// block or all of them.
struct FlaxParam {
  llvm::StringRef name; ///< under the cell's params path: "hi/kernel"
  FusedArray array;
  /// The gate block it holds (one of CellKindInfo::gates); empty for all of
  /// them, in order (one fused Dense).
  llvm::StringRef gate;
  /// Stored only when this boolean option of the cell is true.
  bool Cell::*presentIf = nullptr;
};

struct CellKindInfo {
  CellKind kind;
  llvm::StringRef name;   ///< the spec's `type`, Flax's class: "LSTMCell"
  llvm::StringRef opName; ///< the rnn op of one step: "rnn.lstm_cell"
  /// The spec keys it takes besides those of every cell (type, features,
  /// dtype, param_dtype, params), in the order the summary shows them.
  /// Those that are attributes of the op (gate_fn, activation_fn,
  /// reset_gate, residual) have the same name there.
  llvm::ArrayRef<llvm::StringRef> keys;
  /// Gate blocks in the fused layout's order: {"i", "f", "g", "o"}.
  llvm::ArrayRef<llvm::StringRef> gates;
  /// The carry in Flax's order, as rnnc names its parts: {"c", "h"}; the
  /// last is the step's output. The op's operands are `input, carries...,
  /// wi, wh, bi?, bh?` and its results the new carries.
  llvm::ArrayRef<llvm::StringRef> carries;
  /// Inputs (*spatial, C), kernels (*kernel_size, in, G*F), convolutions
  /// instead of matmuls.
  bool convolutional;
  /// Takes bfloat16 params and compute, and int8 weights (`quantize:`).
  bool lowPrecision;
  /// What Flax stores per layout, in its creation order (the order missing
  /// params are reported in); empty when the layout has no such cell.
  llvm::ArrayRef<FlaxParam> linen, nnx;

  int64_t numGates() const { return int64_t(gates.size()); }
  /// True for a key of every cell and for one of `keys`.
  bool takes(llvm::StringRef key) const;
  /// The params of `layout`, or std::nullopt when it has no such cell.
  std::optional<llvm::ArrayRef<FlaxParam>> params(ParamsLayout layout) const;
};

/// Every cell kind, in the order of the enum.
llvm::ArrayRef<CellKindInfo> cellKinds();
const CellKindInfo &describe(CellKind kind);

/// "LSTMCell", ...: the spec name, used in diagnostics.
const char *stringify(CellKind kind);
/// Number of gate blocks G of the fused layout.
int64_t numGates(CellKind kind);
/// "LSTMCell, OptimizedLSTMCell, GRUCell and SimpleCell": the cells
/// `layout` has, for diagnostics.
std::string cellKindsIn(ParamsLayout layout);

} // namespace rnnc::spec

#endif // RNN_SPEC_CELLKINDS_H
