//===- RelaxFMAs.cpp - Contractable multiply-adds where exactness is moot -===//

#include "rnn/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNRELAXFMASPASS
#include "rnn/CPU/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;

namespace {

struct RNNRelaxFMAsPass
    : rnn::impl::RNNRelaxFMAsPassBase<RNNRelaxFMAsPass> {
  void runOnOperation() override {
    getOperation()->walk([](LLVM::FMAOp fma) {
      if (fma->removeAttr(rnn::kExactFMAAttrName))
        return;
      OpBuilder b(fma);
      auto relaxed = LLVM::FMulAddOp::create(
          b, fma.getLoc(), fma.getType(), fma.getA(), fma.getB(), fma.getC(),
          fma.getFastmathFlagsAttr());
      fma.replaceAllUsesWith(relaxed.getResult());
      fma.erase();
    });
  }
};

} // namespace
