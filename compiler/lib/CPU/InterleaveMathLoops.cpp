//===- InterleaveMathLoops.cpp - Interleaved gate-maths loops -------------===//

#include "rnn/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNINTERLEAVEMATHLOOPSPASS
#include "rnn/CPU/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;

namespace {

/// An innermost scalar loop that calls a math function: a gate loop.
bool isMathLoop(scf::ForOp loop) {
  bool hasMath = false, nested = false;
  loop.getBody()->walk([&](Operation *op) {
    if (isa<LoopLikeOpInterface>(op))
      nested = true;
    else if (isa<math::MathDialect>(op->getDialect()))
      hasMath = true;
  });
  return hasMath && !nested;
}

struct RNNInterleaveMathLoopsPass
    : rnn::impl::RNNInterleaveMathLoopsPassBase<RNNInterleaveMathLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto annotation = LLVM::LoopAnnotationAttr::get(
        ctx, /*disableNonforced=*/{}, /*vectorize=*/{},
        LLVM::LoopInterleaveAttr::get(
            ctx, IntegerAttr::get(IntegerType::get(ctx, 32), count)),
        /*unroll=*/{}, /*unrollAndJam=*/{}, /*licm=*/{}, /*distribute=*/{},
        /*pipeline=*/{}, /*peeled=*/{}, /*unswitch=*/{}, /*mustProgress=*/{},
        /*isVectorized=*/{}, /*startLoc=*/{}, /*endLoc=*/{},
        /*parallelAccesses=*/{});
    getOperation()->walk([&](scf::ForOp loop) {
      // The name of llvm.br's own attribute: the latch branch that
      // convert-scf-to-cf creates inherits the loop's attributes, and the
      // LLVM lowering of that branch keeps it.
      if (isMathLoop(loop))
        loop->setAttr("loop_annotation", annotation);
    });
  }
};

} // namespace
