//===- StridedCopiesToLinalg.cpp - Strided copies as loops ----------------===//

#include "rnn/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNSTRIDEDCOPIESTOLINALGPASS
#include "rnn/Codegen/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;

namespace {

bool isContiguous(Value buffer) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  return type && type.getLayout().isIdentity();
}

struct RNNStridedCopiesToLinalgPass
    : rnn::impl::RNNStridedCopiesToLinalgPassBase<
          RNNStridedCopiesToLinalgPass> {
  void runOnOperation() override {
    getOperation()->walk([](memref::CopyOp copy) {
      if (isContiguous(copy.getSource()) && isContiguous(copy.getTarget()))
        return;
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    });
  }
};

} // namespace
