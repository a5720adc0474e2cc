//===- HoistInputProjection.cpp - One input matmul for all steps ----------===//

#include "rnn/Codegen/Passes.h"

#include "MatmulMatchers.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#include <array>

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNHOISTINPUTPROJECTIONPASS
#include "rnn/Codegen/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;

namespace {

/// A matmul's left operand traced back to a time slice of a sequence: the
/// slice, then reshapes that keep the last (feature) dim as its own group.
struct SlicedOperand {
  tensor::ExtractSliceOp slice;
  SmallVector<Operation *> reshapes; ///< from the slice towards the matmul
};

bool keepsLastDim(ArrayRef<ReassociationIndices> groups, int64_t rank) {
  return !groups.empty() && groups.back().size() == 1 &&
         groups.back().front() == rank - 1;
}

std::optional<SlicedOperand> traceTimeSlice(Value lhs) {
  SlicedOperand traced;
  Operation *op = lhs.getDefiningOp();
  while (op && isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op)) {
    SmallVector<ReassociationIndices> groups;
    int64_t rank;
    if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
      groups = collapse.getReassociationIndices();
      rank = collapse.getSrcType().getRank();
    } else {
      auto expand = cast<tensor::ExpandShapeOp>(op);
      groups = expand.getReassociationIndices();
      rank = expand.getResultType().getRank();
    }
    if (!keepsLastDim(groups, rank))
      return std::nullopt;
    traced.reshapes.insert(traced.reshapes.begin(), op);
    op = op->getOperand(0).getDefiningOp();
  }
  auto slice = dyn_cast_or_null<tensor::ExtractSliceOp>(op);
  if (!slice || !slice.hasUnitStride())
    return std::nullopt;
  // Every dim is taken whole but one of size 1 (time), which is dropped.
  RankedTensorType source = slice.getSourceType();
  ArrayRef<int64_t> sizes = slice.getStaticSizes();
  int64_t partial = 0;
  for (int64_t d = 0; d < source.getRank(); ++d) {
    if (ShapedType::isDynamic(sizes[d]) ||
        ShapedType::isDynamic(source.getDimSize(d)))
      return std::nullopt;
    if (sizes[d] == source.getDimSize(d)) {
      std::optional<int64_t> offset =
          getConstantIntValue(slice.getMixedOffsets()[d]);
      if (!offset || *offset != 0)
        return std::nullopt;
      continue;
    }
    if (sizes[d] != 1 || d == source.getRank() - 1)
      return std::nullopt;
    ++partial;
  }
  if (partial != 1 || slice.getType().getRank() != source.getRank() - 1)
    return std::nullopt;
  traced.slice = slice;
  return traced;
}

/// Where the projection of `sequence` by `kernel` may go for `op`: before
/// the outermost loop around `op` that neither value comes from, or before
/// `op` itself when it is in no loop; null when `op`'s own loop defines one
/// of them (the projection would then run every iteration).
Operation *insertionPoint(Operation *op, Value sequence, Value kernel) {
  auto defines = [&](Operation *parent) {
    return llvm::any_of(std::array<Value, 2>{sequence, kernel}, [&](Value v) {
      return parent->isAncestor(v.getParentRegion()->getParentOp());
    });
  };
  Operation *point = op;
  for (Operation *parent = op->getParentOp(); parent && !defines(parent);
       parent = parent->getParentOp())
    if (isa<LoopLikeOpInterface>(parent))
      point = parent;
  if (point == op && op->getParentOfType<LoopLikeOpInterface>())
    return nullptr;
  return point;
}

struct RNNHoistInputProjectionPass
    : rnn::impl::RNNHoistInputProjectionPassBase<RNNHoistInputProjectionPass> {
  void runOnOperation() override {
    DominanceInfo dominance(getOperation());
    // One projection per (sequence, kernel): unrolled steps share it while
    // it dominates them.
    llvm::DenseMap<std::pair<Value, Value>, Value> projections;
    SmallVector<linalg::MatmulOp> matmuls;
    getOperation()->walk([&](linalg::MatmulOp op) { matmuls.push_back(op); });
    for (linalg::MatmulOp op : matmuls) {
      if (!rnn::isPlainMatmulFromZero(op))
        continue;
      std::optional<SlicedOperand> traced = traceTimeSlice(op.getInputs()[0]);
      if (!traced)
        continue;
      Value sequence = traced->slice.getSource();
      Value kernel = op.getInputs()[1];
      Operation *point = insertionPoint(op, sequence, kernel);
      if (!point)
        continue;
      Value &projection = projections[{sequence, kernel}];
      OpBuilder b(op.getContext());
      Location loc = op.getLoc();
      auto seqType = cast<RankedTensorType>(sequence.getType());
      int64_t columns = cast<RankedTensorType>(kernel.getType()).getDimSize(1);
      if (!projection || !dominance.properlyDominates(projection, op)) {
        b.setInsertionPoint(point);
        // (*, I) rows -> one (N, I) x (I, G*H) matmul -> (*, G*H).
        int64_t rank = seqType.getRank();
        ReassociationIndices rows;
        for (int64_t d = 0; d + 1 < rank; ++d)
          rows.push_back(d);
        SmallVector<ReassociationIndices> groups{rows, {rank - 1}};
        Value flat = tensor::CollapseShapeOp::create(b, loc, sequence, groups);
        int64_t n = cast<RankedTensorType>(flat.getType()).getDimSize(0);
        Type element = seqType.getElementType();
        Value empty = tensor::EmptyOp::create(b, loc, {n, columns}, element);
        linalg::MatmulOp matmul =
            rnn::createMatmulFromZero(b, loc, flat, kernel, empty);
        // Marks on the matmul (bf16 operands) hold for the rows of all steps.
        matmul->setDiscardableAttrs(op->getDiscardableAttrDictionary());
        Value product = matmul.getResult(0);
        SmallVector<int64_t> shape(seqType.getShape());
        shape.back() = columns;
        projection = tensor::ExpandShapeOp::create(
            b, loc, RankedTensorType::get(shape, element), product, groups);
      }
      // The same time slice of the projection, reshaped like the operand.
      b.setInsertionPoint(op);
      tensor::ExtractSliceOp slice = traced->slice;
      SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
      sizes.back() = b.getIndexAttr(columns);
      SmallVector<int64_t> sliceShape(slice.getType().getShape());
      sliceShape.back() = columns;
      Value value = tensor::ExtractSliceOp::create(
          b, loc, RankedTensorType::get(sliceShape, seqType.getElementType()),
          projection, slice.getMixedOffsets(), sizes, slice.getMixedStrides());
      for (Operation *reshape : traced->reshapes) {
        auto type = cast<RankedTensorType>(reshape->getResult(0).getType());
        SmallVector<int64_t> reshaped(type.getShape());
        reshaped.back() = columns;
        auto newType = RankedTensorType::get(reshaped, type.getElementType());
        if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(reshape))
          value = tensor::CollapseShapeOp::create(
              b, loc, newType, value, collapse.getReassociationIndices());
        else
          value = tensor::ExpandShapeOp::create(
              b, loc, newType, value,
              cast<tensor::ExpandShapeOp>(reshape).getReassociationIndices());
      }
      op.getResult(0).replaceAllUsesWith(value);
      op.erase();
    }
  }
};

} // namespace
