//===- WeightPanels.h - Constant weights stored as blocks read them -*- C++ -*-===//
//
// A register-blocked matmul reads its right-hand side one row of an n-wide
// column block per step of k: n contiguous values, then a jump of a whole
// row. Weights are constants, so rnn-vectorize-matmuls, which chooses n,
// stores them in the order its blocks read them (decidePanelLayouts,
// packWeights) and builds its blocks' reads of them so (PanelReads).
//
//===----------------------------------------------------------------------===//

#ifndef RNN_CPU_WEIGHTPANELS_H
#define RNN_CPU_WEIGHTPANELS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::rnn {

/// A matmul's register blocks, planned before any is built.
struct BlockPlan {
  int64_t m = 0, n = 0;
  /// bf16 dot products of this many f32 lanes, k in pairs (0: one k a step).
  int64_t dotLanes = 0;
  /// Narrow blocks stay linalg.matmul, for the scalar path.
  bool vectorized = true;
};

/// How the register blocks of a matmul read a constant [K, N] of weights.
struct PanelLayout {
  /// Columns of a block, n (dividing N).
  int64_t width = 0;
  /// Rows k and k + 1 interleaved, [N / n, K / 2, 2n], for blocks that take
  /// k in pairs (bf16 dot products); otherwise [N / n, K, n].
  bool kPairs = false;
  /// bf16 columns c and c + L of each 2L-column group of a row in one
  /// 32-bit word (L lanes; 0: in order), for blocks that widen them to f32.
  int64_t pairedLanes = 0;
};

/// The constant weights a matmul multiplies by: its right-hand side, or the
/// source of that operand when it is one block of the constant's columns
/// (`columnBlock`). A null `constant` when the weights are no constant.
struct WeightsSource {
  arith::ConstantOp constant;
  tensor::ExtractSliceOp columnBlock;
};
WeightsSource weightsSource(linalg::MatmulOp op);

/// The layout of each constant whose every use is read by vector blocks of
/// `plans` of one width n < N: directly, or through one of
/// `alignedBlocks`, slices that are a block of its columns by construction
/// (an rnn.shared_k_matmuls' first weights: block index x width, the one
/// offset the tiler does not build) of a width that n divides. k pairs
/// when every reader is a bf16 dot block (even for n = N); bf16 columns
/// paired for `pairBF16Lanes` when every reader widens them whole. A splat
/// needs no order.
llvm::MapVector<arith::ConstantOp, PanelLayout>
decidePanelLayouts(const llvm::MapVector<linalg::MatmulOp, BlockPlan> &plans,
                   const llvm::SmallPtrSetImpl<Operation *> &alignedBlocks,
                   int64_t pairBF16Lanes);

/// `weights` [K, N] stored in `layout`. Values are moved, not changed.
DenseElementsAttr packWeights(DenseElementsAttr weights,
                              const PanelLayout &layout);

/// Constant weights stored as their blocks read them: `packed` holds the
/// [K, N] constant (N `columns`) in `layout`, or is the constant itself
/// (`layout.width` 0: the blocks read rows of it directly, not rows of a
/// slice of it).
struct PackedWeights {
  Value packed;
  PanelLayout layout;
  int64_t columns = 0;
};

/// How a tiled matmul reads packed weights: a block's rows of the weights
/// are rows of the panel of the block's columns, which start at a multiple
/// of the width (the tiler's loop over blocks steps by it).
struct PanelReads {
  const PackedWeights &weights;
  /// The slice of the constant the matmul multiplies by (a block of its
  /// columns, at a multiple of the width), or null for the whole constant.
  tensor::ExtractSliceOp columnBlock;
  /// Rows of weights stored with their columns paired (and their lanes),
  /// for the widening of their reads.
  llvm::DenseMap<Value, int64_t> &pairedRows;

  /// Replaces `slice`, rows of `block` (a slice of the matmul's weights,
  /// themselves the constant or a block of its columns), by the same rows
  /// of the packed weights.
  void readRows(RewriterBase &rewriter, tensor::ExtractSliceOp block,
                tensor::ExtractSliceOp slice) const;

  /// The k pair `slice` (rows k, k + 1 of `block`), read through `read`,
  /// as one row of interleaved pairs of the weights stored as k pairs: the
  /// new read (1 x 2n).
  Value readKPairs(RewriterBase &rewriter, tensor::ExtractSliceOp block,
                   tensor::ExtractSliceOp slice,
                   vector::TransferReadOp read) const;
};

/// The f32 columns of `read`, a read of bf16 columns paired for `lanes`.
Value widenPairedColumns(OpBuilder &b, Location loc, Value read,
                         int64_t lanes);

} // namespace mlir::rnn

#endif // RNN_CPU_WEIGHTPANELS_H
