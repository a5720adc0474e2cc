//===- AnnotateVectorLoops.cpp - LLVM loop annotations for vectorizing ----===//

#include "rnn/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNANNOTATEVECTORLOOPSPASS
#include "rnn/CPU/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;

namespace {

/// What an innermost loop's body computes, as far as the annotation goes.
struct LoopBody {
  bool innermost = true;
  bool math = false; ///< calls a math function: a gate loop
  bool bf16 = false; ///< converts between f32 and bf16
};

LoopBody inspect(scf::ForOp loop) {
  LoopBody body;
  loop.getBody()->walk([&](Operation *op) {
    if (isa<LoopLikeOpInterface>(op))
      body.innermost = false;
    else if (isa<math::MathDialect>(op->getDialect()))
      body.math = true;
    else if (isa<arith::TruncFOp, arith::ExtFOp>(op) &&
             (getElementTypeOrSelf(op->getResult(0)).isBF16() ||
              getElementTypeOrSelf(op->getOperand(0)).isBF16()))
      body.bf16 = true;
  });
  return body;
}

struct RNNAnnotateVectorLoopsPass
    : rnn::impl::RNNAnnotateVectorLoopsPassBase<RNNAnnotateVectorLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto i32 = [&](unsigned value) {
      return IntegerAttr::get(IntegerType::get(ctx, 32), value);
    };
    auto annotate = [&](bool interleave, bool vectorize) {
      return LLVM::LoopAnnotationAttr::get(
          ctx, /*disableNonforced=*/{},
          vectorize ? LLVM::LoopVectorizeAttr::get(
                          ctx, /*disable=*/BoolAttr::get(ctx, false),
                          /*predicateEnable=*/{}, /*scalableEnable=*/{},
                          i32(bf16Lanes), /*followupVectorized=*/{},
                          /*followupEpilogue=*/{}, /*followupAll=*/{})
                    : LLVM::LoopVectorizeAttr(),
          interleave ? LLVM::LoopInterleaveAttr::get(ctx, i32(count))
                     : LLVM::LoopInterleaveAttr(),
          /*unroll=*/{}, /*unrollAndJam=*/{}, /*licm=*/{}, /*distribute=*/{},
          /*pipeline=*/{}, /*peeled=*/{}, /*unswitch=*/{}, /*mustProgress=*/{},
          /*isVectorized=*/{}, /*startLoc=*/{}, /*endLoc=*/{},
          /*parallelAccesses=*/{});
    };
    getOperation()->walk([&](scf::ForOp loop) {
      LoopBody body = inspect(loop);
      bool vectorize = body.bf16 && bf16Lanes > 1;
      // The name of llvm.br's own attribute: the latch branch that
      // convert-scf-to-cf creates inherits the loop's attributes, and the
      // LLVM lowering of that branch keeps it.
      if (body.innermost && (body.math || vectorize))
        loop->setAttr("loop_annotation", annotate(body.math, vectorize));
    });
  }
};

} // namespace
