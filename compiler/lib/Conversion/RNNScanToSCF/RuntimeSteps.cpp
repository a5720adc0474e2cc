//===- RuntimeSteps.cpp - A scan over a run-time number of steps ----------===//
//
// With `steps`, the scan's tensors keep the maximum T but only `steps`
// steps run. The loops have run-time bounds, their blocks static sizes: a
// block's input slice has a static shape, so a projected input (rnn.project)
// is computed once per block, for exactly the steps that run. Blocks of
// `runtime-step-block` steps cover all but `steps mod
// runtime-step-block`; that remainder runs as at most one block of each
// smaller power of two (a loop of zero or one iteration each).
//
//===----------------------------------------------------------------------===//

#include "RuntimeSteps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <numeric>

using namespace mlir;
using namespace mlir::rnn;

namespace {
/// Steps [lb, ub) of `state` in blocks of `block` steps (ub - lb a multiple
/// of `block`).
SmallVector<Value> runStepBlocks(ScanLowering &scan, OpBuilder &b,
                                 const StepRows &rows, SmallVector<Value> state,
                                 Value lb, Value ub, int64_t block) {
  Location loc = scan.getLoc();
  int64_t unroll = std::gcd(scan.unrollFactor(), block);
  Value blockSize = arith::ConstantIndexOp::create(b, loc, block);
  auto loop = scf::ForOp::create(
      b, loc, lb, ub, blockSize, state,
      [&](OpBuilder &nb, Location, Value first, ValueRange blockArgs) {
        Value input = scan.inputBlock(nb, rows, first, block);
        // The unrolled steps from `first + local` on (canonicalization
        // folds constant offsets into the slices), reading `sequence`.
        auto unrolled = [&](OpBuilder &sb, StepSequence sequence, Value local,
                            ValueRange iterArgs) {
          SmallVector<Value> current(iterArgs);
          for (int64_t k = 0; k < unroll; ++k) {
            Value l = k == 0 ? local
                             : arith::AddIOp::create(
                                   sb, loc, local,
                                   arith::ConstantIndexOp::create(sb, loc, k))
                                   .getResult();
            Value t = arith::AddIOp::create(sb, loc, first, l);
            current = scan.step(sb, rows, t, sequence, l, current);
          }
          return current;
        };
        // A block of one iteration is no loop over steps: each step
        // projects its own input.
        if (block == unroll) {
          scf::YieldOp::create(
              nb, loc,
              unrolled(nb, StepSequence{input},
                       arith::ConstantIndexOp::create(nb, loc, 0), blockArgs));
          return;
        }
        Value begin = arith::ConstantIndexOp::create(nb, loc, 0);
        Value stride = arith::ConstantIndexOp::create(nb, loc, unroll);
        StepSequence sequence = scan.forSteps(nb, input);
        auto stepLoop = scf::ForOp::create(
            nb, loc, begin, blockSize, stride, blockArgs,
            [&](OpBuilder &sb, Location, Value iv, ValueRange iterArgs) {
              scf::YieldOp::create(sb, loc,
                                   unrolled(sb, sequence, iv, iterArgs));
            });
        scf::YieldOp::create(nb, loc, stepLoop.getResults());
      });
  return SmallVector<Value>(loop.getResults());
}

} // namespace

SmallVector<Value> mlir::rnn::runRuntimeSteps(ScanLowering &scan, OpBuilder &b,
                                              const StepRows &rows,
                                              SmallVector<Value> state) {
  ScanOp op = scan.getOp();
  Location loc = scan.getLoc();
  int64_t block = 1;
  while (block * 2 <=
         std::min(scan.getOptions().runtimeStepBlock, op.getNumSteps()))
    block *= 2;
  // The digits are taken on i64: EmitC has no bitwise ops on index.
  Type i64 = b.getI64Type();
  Value steps = arith::IndexCastUIOp::create(b, loc, i64, op.getSteps());
  auto digits = [&](int64_t mask) {
    Value masked = arith::AndIOp::create(
        b, loc, steps,
        arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(mask)));
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), masked)
        .getResult();
  };
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value full = digits(~(block - 1)); // steps - steps mod block
  state = runStepBlocks(scan, b, rows, state, zero, full, block);
  Value first = full;
  for (int64_t size = block / 2; size >= 1; size /= 2) {
    // `steps & size` is `size` when that digit is set, else 0.
    Value last = arith::AddIOp::create(b, loc, first, digits(size));
    state = runStepBlocks(scan, b, rows, state, first, last, size);
    first = last;
  }
  return state;
}
