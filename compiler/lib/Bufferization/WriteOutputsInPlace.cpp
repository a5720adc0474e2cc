//===- WriteOutputsInPlace.cpp - Outputs built in the caller's buffers ----===//

#include "rnn/Bufferization/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNWRITEOUTPUTSINPLACEPASS
#include "rnn/Bufferization/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;

namespace {

/// The value `result` updates in place: an scf.for result's initial value,
/// an insert_slice's destination, a destination-style op's init. Null for
/// anything else.
Value updatedValue(OpResult result) {
  Operation *op = result.getOwner();
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return loop.getInitArgs()[result.getResultNumber()];
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
    return insert.getDest();
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
    return dps.getTiedOpOperand(result)->get();
  return {};
}

/// The tensor.empty that `value` is built from, if every value on the way
/// (the empty tensor included) has no other use.
tensor::EmptyOp findSoleSeed(Value value) {
  while (value.hasOneUse()) {
    if (auto empty = value.getDefiningOp<tensor::EmptyOp>())
      return empty;
    auto result = dyn_cast<OpResult>(value);
    if (!result || !(value = updatedValue(result)))
      return {};
  }
  return {};
}

struct RNNWriteOutputsInPlacePass
    : rnn::impl::RNNWriteOutputsInPlacePassBase<RNNWriteOutputsInPlacePass> {
  void runOnOperation() override {
    getOperation()->walk([](bufferization::MaterializeInDestinationOp op) {
      Value dest = op.getDest();
      if (!isa<BaseMemRefType>(dest.getType()) || !op.getWritable())
        return;
      tensor::EmptyOp seed = findSoleSeed(op.getSource());
      if (!seed || seed.getType() != op.getSource().getType())
        return;
      // The buffer must exist where the chain starts. The entry point's
      // outputs are its arguments; with run-time sizes they are maximum-shape
      // buffers it allocates after the model body, which can as well be
      // allocated before it (and a flattened batch's view of one, made
      // right after it).
      if (Operation *def = dest.getDefiningOp();
          def &&
          (def->getBlock() != seed->getBlock() || !def->isBeforeInBlock(seed))) {
        auto view = dyn_cast<memref::CollapseShapeOp>(def);
        if (view)
          def = view.getSrc().getDefiningOp();
        auto alloc = dyn_cast_or_null<memref::AllocOp>(def);
        if (!alloc || alloc->getNumOperands() != 0 ||
            alloc->getBlock() != seed->getBlock() ||
            (view && view->getBlock() != seed->getBlock()))
          return;
        alloc->moveBefore(seed);
        if (view)
          view->moveBefore(seed);
      }
      OpBuilder b(seed);
      // The output's old contents are never read: the chain overwrites what
      // the empty tensor left undefined.
      Value output = bufferization::ToTensorOp::create(
          b, seed.getLoc(), seed.getType(), dest, /*restrict=*/true,
          /*writable=*/true);
      seed.replaceAllUsesWith(output);
      seed.erase();
    });
  }
};

} // namespace
