//===- ApproximateMath.cpp - Vectorizable exp and tanh --------------------===//

#include "rnn/Codegen/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNAPPROXIMATEMATHPASS
#include "rnn/Codegen/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;

namespace {

struct RNNApproximateMathPass
    : rnn::impl::RNNApproximateMathPassBase<RNNApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Only the functions cells use.
    populateMathPolynomialApproximationPatterns(
        patterns, [](StringRef name) {
          name.consume_front("math.");
          return name == "exp" || name == "expm1" || name == "tanh";
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
