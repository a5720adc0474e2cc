//===- FuseSiblingLoops.cpp - Two loops of one trip count as one ----------===//

#include "FuseSiblingLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;

namespace {

std::optional<int64_t> tripCount(scf::ForOp loop) {
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lower || !upper || !step || *step <= 0)
    return std::nullopt;
  return *upper > *lower ? (*upper - *lower + *step - 1) / *step : 0;
}

/// Whether `op` or an op nested in it uses a result of `loop`.
bool usesResultOf(Operation *op, scf::ForOp loop) {
  WalkResult walk = op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (operand.getDefiningOp() == loop.getOperation())
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}

} // namespace

FailureOr<scf::ForOp> rnn::fuseSiblingLoops(RewriterBase &rewriter,
                                            scf::ForOp first,
                                            scf::ForOp second) {
  std::optional<int64_t> trips = tripCount(first);
  if (first->getBlock() != second->getBlock() ||
      !first->isBeforeInBlock(second) || !trips || trips != tripCount(second) ||
      usesResultOf(second, first))
    return failure();
  if (failed(moveOperationDependencies(rewriter, second, first)))
    return failure();

  Location loc = first.getLoc();
  SmallVector<Value> inits(first.getInitArgs());
  llvm::append_range(inits, second.getInitArgs());
  rewriter.setInsertionPoint(first);
  auto fused = scf::ForOp::create(
      rewriter, loc, first.getLowerBound(), first.getUpperBound(),
      first.getStep(), inits,
      [&](OpBuilder &b, Location loc, Value iv, ValueRange args) {
        IRMapping mapping;
        mapping.map(first.getInductionVar(), iv);
        mapping.map(first.getRegionIterArgs(),
                    args.take_front(first.getNumRegionIterArgs()));
        mapping.map(second.getRegionIterArgs(),
                    args.drop_front(first.getNumRegionIterArgs()));
        // second's iv = its lower bound + iteration * its step.
        Value secondIv = iv;
        if (first.getLowerBound() != second.getLowerBound() ||
            first.getStep() != second.getStep()) {
          Value iteration = arith::DivUIOp::create(
              b, loc, arith::SubIOp::create(b, loc, iv, first.getLowerBound()),
              first.getStep());
          secondIv = arith::AddIOp::create(
              b, loc, second.getLowerBound(),
              arith::MulIOp::create(b, loc, iteration, second.getStep()));
        }
        mapping.map(second.getInductionVar(), secondIv);
        SmallVector<Value> yielded;
        for (scf::ForOp loop : {first, second}) {
          for (Operation &op : loop.getBody()->without_terminator())
            b.clone(op, mapping);
          for (Value value : loop.getBody()->getTerminator()->getOperands())
            yielded.push_back(mapping.lookupOrDefault(value));
        }
        scf::YieldOp::create(b, loc, yielded);
      });
  // replaceOp erases `first`: its result count must be read before.
  unsigned numFirstResults = first.getNumResults();
  rewriter.replaceOp(first, fused.getResults().take_front(numFirstResults));
  rewriter.replaceOp(second, fused.getResults().drop_front(numFirstResults));
  return fused;
}
