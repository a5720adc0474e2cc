//===- HoistInputProjection.cpp - One input matmul for all steps ----------===//

#include "rnn/Codegen/Passes.h"

#include "MatmulMatchers.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/SetVector.h"

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

/// A dynamic int8 projection (DynamicInt8.cpp, `dynamic_int8` cells): the
/// f32 rows `x` -> maxima -> (scales, factors) -> quantized i8 -> i8 x i8
/// -> i32 matmul -> f32 rows times their scales. Every op works row by row,
/// so the chain for all steps at once is the same ops on more rows.
struct RowChain {
  Value lhs;                     ///< the f32 operand, traced to a time slice
  SmallVector<Operation *> ops;  ///< in program order, the last one's result
                                 ///< is the projection
};

std::optional<RowChain> dynamicInt8Chain(linalg::MatmulOp op) {
  auto fill = op.getOutputs()[0].getDefiningOp<linalg::FillOp>();
  if (!op.hasPureTensorSemantics() || !rnn::isPlainMatmul(op) || !fill ||
      !matchPattern(fill.getInputs()[0], m_Zero()) ||
      !getElementTypeOrSelf(op.getInputs()[0].getType()).isInteger(8) ||
      !op->getResult(0).hasOneUse())
    return std::nullopt;
  auto quantize = op.getInputs()[0].getDefiningOp<linalg::GenericOp>();
  if (!quantize || quantize.getNumDpsInputs() != 2)
    return std::nullopt;
  Value x = quantize.getDpsInputOperand(0)->get();
  auto scales = quantize.getDpsInputOperand(1)->get()
                    .getDefiningOp<linalg::GenericOp>();
  if (!scales || scales.getNumDpsInputs() != 1 || scales->getNumResults() != 2)
    return std::nullopt;
  auto maxima =
      scales.getDpsInputOperand(0)->get().getDefiningOp<linalg::GenericOp>();
  if (!maxima || maxima.getNumDpsInputs() != 1 ||
      maxima.getDpsInputOperand(0)->get() != x)
    return std::nullopt;
  auto dequantize = dyn_cast<linalg::GenericOp>(*op->getUsers().begin());
  if (!dequantize || dequantize.getNumDpsInputs() != 2 ||
      dequantize.getDpsInputOperand(1)->get() != scales->getResult(0))
    return std::nullopt;
  auto zeros = maxima.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>();
  if (!zeros)
    return std::nullopt;
  return RowChain{x, {zeros, maxima, scales, quantize, fill, op, dequantize}};
}

/// The tensor.empty inits of `chain`'s ops, each once (one empty tensor
/// may be the init of several ops, or of several results of one).
llvm::SetVector<Operation *> emptiesOf(const RowChain &chain) {
  llvm::SetVector<Operation *> empties;
  for (Operation *op : chain.ops)
    for (Value operand : op->getOperands())
      if (auto empty = operand.getDefiningOp<tensor::EmptyOp>())
        empties.insert(empty);
  return empties;
}

/// `chain` on `rows` (n x K) instead of its lhs: each op cloned with n rows
/// (its tensor.empty inits made anew); the last op's result.
Value cloneOnRows(OpBuilder &b, const RowChain &chain, Value rows) {
  int64_t n = cast<RankedTensorType>(rows.getType()).getDimSize(0);
  IRMapping mapping;
  mapping.map(chain.lhs, rows);
  auto rowShape = [&](Type type) {
    SmallVector<int64_t> shape(cast<RankedTensorType>(type).getShape());
    shape[0] = n;
    return shape;
  };
  auto withRows = [&](Type type) {
    return RankedTensorType::get(rowShape(type), getElementTypeOrSelf(type));
  };
  Operation *last = nullptr;
  for (Operation *op : chain.ops) {
    for (Value operand : op->getOperands())
      if (auto empty = operand.getDefiningOp<tensor::EmptyOp>();
          empty && !mapping.contains(operand))
        mapping.map(operand,
                    tensor::EmptyOp::create(b, empty.getLoc(),
                                            rowShape(empty.getType()),
                                            getElementTypeOrSelf(empty))
                        .getResult());
    last = b.clone(*op, mapping);
    for (Value result : last->getResults())
      result.setType(withRows(result.getType()));
  }
  return last->getResult(0);
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
    for (linalg::MatmulOp matmul : matmuls) {
      // Either a plain f32 matmul, or a dynamic int8 chain ending in the
      // f32 product (`op`, what is replaced).
      std::optional<RowChain> chain = dynamicInt8Chain(matmul);
      if (!chain && !rnn::isPlainMatmulFromZero(matmul))
        continue;
      // The projection is built in its rows' element type (not bf16
      // compute's bf16 rows summed in f32, which stay in the loop).
      if (!chain && getElementTypeOrSelf(matmul.getInputs()[0].getType()) !=
                        getElementTypeOrSelf(matmul.getResultTypes()[0]))
        continue;
      Operation *op = chain ? chain->ops.back() : matmul.getOperation();
      std::optional<SlicedOperand> traced =
          traceTimeSlice(chain ? chain->lhs : matmul.getInputs()[0]);
      if (!traced)
        continue;
      Value sequence = traced->slice.getSource();
      Value kernel = matmul.getInputs()[1];
      Operation *point = insertionPoint(op, sequence, kernel);
      if (!point)
        continue;
      Value &projection = projections[{sequence, kernel}];
      OpBuilder b(op->getContext());
      Location loc = op->getLoc();
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
        Value product;
        if (chain) {
          product = cloneOnRows(b, *chain, flat);
        } else {
          Value empty = tensor::EmptyOp::create(b, loc, {n, columns}, element);
          linalg::MatmulOp matmul =
              rnn::createMatmulFromZero(b, loc, flat, kernel, empty);
          // Marks on the matmul hold for the rows of all steps.
          matmul->setDiscardableAttrs(op->getDiscardableAttrDictionary());
          product = matmul.getResult(0);
        }
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
      op->getResult(0).replaceAllUsesWith(value);
      if (chain) {
        // The chain's ops in the loop are dead now, last to first.
        llvm::SetVector<Operation *> empties = emptiesOf(*chain);
        for (Operation *dead : llvm::reverse(chain->ops))
          if (dead->use_empty())
            dead->erase();
        for (Operation *empty : empties)
          if (empty->use_empty())
            empty->erase();
      } else {
        op->erase();
      }
    }
  }
};

} // namespace
