//===- OverlappedSteps.cpp - Steps that project their own next rows -------===//
//
// The lowering of a scan's `overlap_rows` (R), decided on the rnn ops by
// --rnn-overlap-input-projection: instead of the projection of all steps
// before the loop, projected rows live in a ring of 2 x R rows, group g
// (steps [g R, (g + 1) R)) in half g % 2. The first group is projected
// before the loop. Step t of the first T - R steps copies its row out of
// the ring (so that the ring is then updated in place), and its cell has
// beside it piece t % R of the next group, R rows times a 1 / R slice of
// the kernel's columns, into the other half: an rnn.project_piece whose
// `beside` is the cell, which convert-rnn-to-linalg computes in one loop
// over k with the cell's recurrent product. The last group's steps, with
// nothing left to project, run in a loop of their own.
//
//===----------------------------------------------------------------------===//

#include "ScanLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::rnn;

bool ScanLowering::overlapsSteps(int64_t count, Value activeSteps,
                                 const StepRange &range) {
  return overlapRows && !activeSteps && !range.first && unrollFactor() == 1 &&
         count % overlapRows == 0 && count >= 4 * overlapRows;
}

SmallVector<Value> ScanLowering::runOverlappedSteps(OpBuilder &b,
                                                    const StepRows &rows,
                                                    Value sequence, Value first,
                                                    int64_t count,
                                                    ValueRange state) {
  int64_t groupRows = overlapRows;
  Location at = projection.getLoc();
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, at, value);
  };
  // The steps' input rows as the projection reads them: [count, K].
  auto sequenceType = cast<RankedTensorType>(sequence.getType());
  int64_t rank = sequenceType.getRank();
  ReassociationIndices leading;
  for (int64_t dim = 0; dim + 1 < rank; ++dim)
    leading.push_back(dim);
  Value input = tensor::CollapseShapeOp::create(
      b, at, sequence,
      ArrayRef<ReassociationIndices>{leading, ReassociationIndices{rank - 1}});
  Value kernel = projection.getKernel();
  int64_t columns = cast<RankedTensorType>(kernel.getType()).getDimSize(1);
  int64_t width = columns / groupRows;
  auto rowType = cast<RankedTensorType>(op.getStepInputArg().getType());
  auto ringType = RankedTensorType::get({2 * groupRows, columns},
                                        sequenceType.getElementType());
  auto ringRow = [&](Value ring, Value local) -> Value {
    Value row = arith::RemUIOp::create(b, at, local, index(2 * groupRows));
    SmallVector<OpFoldResult> unit(2, b.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(
        b, at, rowType, ring, ArrayRef<OpFoldResult>{row, b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(columns)},
        unit);
  };
  // Step `local` of these steps at its time.
  auto timeOf = [&](Value local) -> Value {
    return first ? arith::AddIOp::create(b, at, first, local).getResult()
                 : local;
  };

  Value ring = tensor::EmptyOp::create(b, at, ringType.getShape(),
                                       ringType.getElementType());
  ring = ProjectPieceOp::create(b, at, ringType, input, kernel, ring, index(0),
                                index(0), index(0), groupRows, columns,
                                /*beside=*/Value());

  // Steps [0, count - R), each with a piece of the next group.
  SmallVector<Value> inits = llvm::to_vector(state);
  inits.push_back(ring);
  auto overlapped = scf::ForOp::create(
      b, at, index(0), index(count - groupRows), index(1), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(overlapped.getBody());
    Value local = overlapped.getInductionVar();
    Value ringArg = overlapped.getRegionIterArgs().back();
    Value row = ringRow(ringArg, local);
    Value copy = linalg::CopyOp::create(
                     b, at, row,
                     tensor::EmptyOp::create(b, at, rowType.getShape(),
                                             rowType.getElementType())
                         .getResult())
                     .getResult(0);
    Value group = arith::AddIOp::create(
        b, at, arith::DivUIOp::create(b, at, local, index(groupRows)),
        index(1));
    Value firstRow = arith::MulIOp::create(b, at, group, index(groupRows));
    Value half = arith::MulIOp::create(
        b, at, arith::RemUIOp::create(b, at, group, index(2)),
        index(groupRows));
    Value block = arith::RemUIOp::create(b, at, local, index(groupRows));
    Value nextRing;
    SmallVector<Value> next = stepOn(
        b, rows, timeOf(local), copy,
        overlapped.getRegionIterArgs().drop_back(), [&](CellOpInterface cell) {
          nextRing = ProjectPieceOp::create(
              b, at, ringType, input, kernel, ringArg, firstRow, block, half,
              groupRows, width, cell->getResults().back());
        });
    next.push_back(nextRing);
    scf::YieldOp::create(b, at, next);
  }

  // The last group's steps read the ring only.
  Value projected = overlapped.getResults().back();
  auto last = scf::ForOp::create(b, at, index(count - groupRows), index(count),
                                 index(1), overlapped.getResults().drop_back());
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(last.getBody());
    Value local = last.getInductionVar();
    Value row = ringRow(projected, local);
    scf::YieldOp::create(
        b, at, stepOn(b, rows, timeOf(local), row, last.getRegionIterArgs()));
  }
  return llvm::to_vector(ValueRange(last.getResults()));
}
