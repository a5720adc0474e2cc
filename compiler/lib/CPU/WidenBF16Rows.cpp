//===- WidenBF16Rows.cpp - bf16 x bf16 matmuls as the f32 emulation -------===//
//
// bf16 compute's products are matmuls of bf16 rows by bf16 weights into f32
// (convert-rnn-to-linalg). A target with a bf16 dot product computes them
// so (rnn-vectorize-matmuls' bf16-dot); every other path computes them in
// f32 on rows rounded to bf16 values, which is exact: a bf16 value widens to
// f32 without loss and linalg.matmul widens its factors before multiplying.
//
//===----------------------------------------------------------------------===//

#include "WidenBF16Rows.h"
#include "MatmulMatchers.h"

#include "rnn/CPU/Passes.h"
#include "rnn/IR/ScalarMaths.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNWIDENBF16ROWSPASS
#include "rnn/CPU/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;

namespace {

/// The f32 input of `rows` if it is an element-wise truncf of f32 to bf16.
Value narrowedFrom(Value rows) {
  auto generic = rows.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic.getNumReductionLoops() != 0 ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return Value();
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto narrow = yield.getOperand(0).getDefiningOp<arith::TruncFOp>();
  if (!narrow || narrow.getIn() != body.getArgument(0) ||
      !narrow.getIn().getType().isF32())
    return Value();
  return generic.getDpsInputs()[0];
}

} // namespace

bool mlir::rnn::hasBF16Rows(linalg::MatmulOp op) {
  return getElementTypeOrSelf(op.getInputs()[0].getType()).isBF16() &&
         getElementTypeOrSelf(op.getOutputs()[0].getType()).isF32();
}

linalg::MatmulOp mlir::rnn::widenBF16Rows(RewriterBase &rewriter,
                                          linalg::MatmulOp op) {
  Value rows = op.getInputs()[0];
  Value wide;
  if (Value f32Rows = narrowedFrom(rows)) {
    Operation *narrow = rows.getDefiningOp();
    rewriter.setInsertionPoint(narrow);
    wide = mapElementwise(rewriter, narrow->getLoc(), f32Rows,
                         rewriter.getF32Type(),
                    [](OpBuilder &b, Location loc, Value x) {
                      return rnn::emitRoundToBF16(b, loc, x);
                    });
  } else {
    rewriter.setInsertionPoint(op);
    wide = mapElementwise(rewriter, op.getLoc(), rows, rewriter.getF32Type(),
                    [](OpBuilder &b, Location loc, Value x) -> Value {
                      return arith::ExtFOp::create(b, loc, b.getF32Type(), x);
                    });
  }
  rewriter.setInsertionPoint(op);
  auto widened = linalg::MatmulOp::create(
      rewriter, op.getLoc(), op.getResultTypes(),
      ValueRange{wide, op.getInputs()[1]}, op.getOutputs(),
      llvm::to_vector(op->getDiscardableAttrs()));
  rewriter.replaceOp(op, widened->getResults());
  if (Operation *narrow = rows.getDefiningOp();
      narrow && isa<linalg::GenericOp>(narrow) && narrow->use_empty()) {
    Operation *init =
        cast<linalg::GenericOp>(narrow).getDpsInits()[0].getDefiningOp();
    rewriter.eraseOp(narrow);
    if (init && isa<tensor::EmptyOp>(init) && init->use_empty())
      rewriter.eraseOp(init);
  }
  return widened;
}

namespace {

struct RNNWidenBF16RowsPass
    : rnn::impl::RNNWidenBF16RowsPassBase<RNNWidenBF16RowsPass> {
  void runOnOperation() override {
    SmallVector<linalg::MatmulOp> matmuls;
    getOperation()->walk([&](linalg::MatmulOp op) {
      if (rnn::hasBF16Rows(op))
        matmuls.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::MatmulOp op : matmuls)
      rnn::widenBF16Rows(rewriter, op);
  }
};

} // namespace
