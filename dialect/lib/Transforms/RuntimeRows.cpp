//===- RuntimeRows.cpp - Layers after a scan run its actual rows ----------===//
//
// A scan with `rows` leaves rows [rows, B) of its results undefined; the
// layers that map each row alone (Dense, Activation, LayerNorm, Pool
// without lengths, Merge) need not compute them either. Each such layer
// whose batched operands carry the same rows becomes one block of rows per
// binary digit (RowBlocks.h) of static clones on row slices, and its result
// carries the rows on. The scan's own lowering splits its rows likewise
// (convert-rnn-scan-to-scf).
//
//===----------------------------------------------------------------------===//

#include "rnn/IR/RNNOps.h"
#include "rnn/Transforms/Passes.h"
#include "rnn/Transforms/RowBlocks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNRUNTIMEROWSPASS
#include "rnn/Transforms/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;
using namespace mlir::rnn;

namespace {

/// The actual rows of a value and the axis they count.
struct Rows {
  Value count;
  int64_t axis;
};

/// A row-wise layer: the operands with rows and the result's rows axis.
struct RowWise {
  SmallVector<unsigned> batched;
  int64_t resultAxis;
};

std::optional<RowWise> rowWise(Operation *op,
                               const llvm::DenseMap<Value, Rows> &known) {
  auto axisOf = [&](Value v) -> std::optional<int64_t> {
    auto it = known.find(v);
    if (it == known.end())
      return std::nullopt;
    return it->second.axis;
  };
  return llvm::TypeSwitch<Operation *, std::optional<RowWise>>(op)
      .Case<DenseOp, ActivationOp, LayerNormOp>(
          [&](auto layer) -> std::optional<RowWise> {
            std::optional<int64_t> axis = axisOf(layer.getInput());
            // Dense contracts the last axis: the rows must be another one.
            if (!axis || *axis + 1 >= layer.getInput().getType().getRank())
              return std::nullopt;
            return RowWise{{0}, *axis};
          })
      .Case([&](MergeOp merge) -> std::optional<RowWise> {
        std::optional<int64_t> lhs = axisOf(merge.getLhs());
        std::optional<int64_t> rhs = axisOf(merge.getRhs());
        if (!lhs || lhs != rhs ||
            known.lookup(merge.getLhs()).count !=
                known.lookup(merge.getRhs()).count ||
            *lhs + 1 >= merge.getLhs().getType().getRank())
          return std::nullopt;
        return RowWise{{0, 1}, *lhs};
      })
      .Case([&](PoolOp pool) -> std::optional<RowWise> {
        std::optional<int64_t> axis = axisOf(pool.getInput());
        int64_t time = pool.getTimeAxis();
        if (!axis || pool.getSeqLengths() || *axis == time)
          return std::nullopt;
        return RowWise{{0}, *axis > time ? *axis - 1 : *axis};
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// `op` computed on its actual rows only: its clones on blocks of rows.
Value splitRows(OpBuilder &b, Operation *op, const RowWise &layer,
                const Rows &rows, const llvm::DenseMap<Value, Rows> &known) {
  Location loc = op->getLoc();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Value full = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                       resultType.getElementType());
  int64_t maxRows = resultType.getDimSize(layer.resultAxis);
  SmallVector<Value> result = buildRowBlocks(
      b, loc, rows.count, maxRows, full,
      [&](OpBuilder &nb, Value first, int64_t size, ValueRange carried) {
        IRMapping mapping;
        for (unsigned i : layer.batched) {
          Value operand = op->getOperand(i);
          mapping.map(operand, extractRows(nb, loc, operand,
                                           known.lookup(operand).axis, first,
                                           size));
        }
        Operation *clone = nb.clone(*op, mapping);
        SmallVector<int64_t> shape(resultType.getShape());
        shape[layer.resultAxis] = size;
        clone->getResult(0).setType(
            RankedTensorType::get(shape, resultType.getElementType()));
        return SmallVector<Value>{insertRows(nb, loc, clone->getResult(0),
                                             carried[0], layer.resultAxis,
                                             first)};
      });
  return result[0];
}

struct RNNRuntimeRowsPass
    : rnn::impl::RNNRuntimeRowsPassBase<RNNRuntimeRowsPass> {
  void runOnOperation() override {
    llvm::DenseMap<Value, Rows> known;
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<ScanOp, DenseOp, ActivationOp, LayerNormOp, MergeOp, PoolOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      if (auto scan = dyn_cast<ScanOp>(op)) {
        if (!scan.getRows())
          continue;
        known[scan.getOutputs()] = {scan.getRows(), scan.getTimeMajor() ? 1 : 0};
        for (Value carry : scan.getFinalCarry())
          known[carry] = {scan.getRows(), 0};
        continue;
      }
      std::optional<RowWise> layer = rowWise(op, known);
      if (!layer)
        continue;
      Rows rows = known.lookup(op->getOperand(layer->batched.front()));
      OpBuilder b(op);
      Value result = splitRows(b, op, *layer, rows, known);
      op->getResult(0).replaceAllUsesWith(result);
      op->erase();
      known[result] = {rows.count, layer->resultAxis};
    }
  }
};

} // namespace
