//===- OverlapInputProjection.cpp - Batch-1 projections beside the steps --===//
//
// Decides, on the rnn ops, which scans of one batch row compute their input
// projection in pieces beside the recurrence, and in groups of how many
// rows (`overlap_rows`): here the projection is known to be the scan's
// input projection. convert-rnn-scan-to-scf builds the overlapped steps
// from the decision; the reasons and the measurements are in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "rnn/IR/RNNOps.h"
#include "rnn/Transforms/Passes.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/bit.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNOVERLAPINPUTPROJECTIONPASS
#include "rnn/Transforms/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;
using namespace mlir::rnn;

namespace {


/// Whether `kernel` is read by `projection` and otherwise only as `cell`'s
/// input kernel (which a projected cell reads for its int8 scales alone):
/// pieces read the kernel in slices of their own width, which any other
/// reader would then have to share. An int8 kernel's storage likewise.
bool readOnlyBy(Value kernel, ProjectOp projection, CellOpInterface cell) {
  for (OpOperand &use : kernel.getUses()) {
    Operation *user = use.getOwner();
    bool asInputKernel = user == cell.getOperation() &&
                         cell.getHiddenKernel() != kernel &&
                         cell.getInputKernel() == kernel;
    if (user != projection.getOperation() && !asInputKernel)
      return false;
  }
  auto cast = kernel.getDefiningOp<quant::StorageCastOp>();
  return !cast || cast.getInput().hasOneUse();
}

struct RNNOverlapInputProjectionPass
    : rnn::impl::RNNOverlapInputProjectionPassBase<
          RNNOverlapInputProjectionPass> {
  using RNNOverlapInputProjectionPassBase::RNNOverlapInputProjectionPassBase;

  void runOnOperation() override {
    getOperation()->walk([&](ScanOp scan) {
      if (int64_t groupRows = decide(scan))
        scan.setOverlapRows(groupRows);
    });
  }

  /// The rows projected together for `scan`, or 0 to leave it alone.
  int64_t decide(ScanOp scan) {
    auto projection = scan.getInput().getDefiningOp<ProjectOp>();
    CellOpInterface cell = scan.getCell();
    if (!projection || !cell)
      return 0;
    // A function to be split into column tasks: each task projects its own
    // columns, a piece of a group's columns would cross the tasks' shares.
    auto func = scan->getParentOfType<FunctionOpInterface>();
    if (func && func->hasAttr(kColumnSplitAttrName))
      return 0;
    auto kernel = cast<RankedTensorType>(projection.getKernel().getType());
    if (kernelStorageBytes(kernel) > maxKernelBytes ||
        !readOnlyBy(projection.getKernel(), projection, cell))
      return 0;
    // As many rows as fit, each piece at least a vector per row, and the
    // first group, projected before the loop, at most a quarter of it.
    int64_t steps = scan.getNumSteps(), columns = kernel.getDimSize(1);
    int64_t groupRows = llvm::bit_floor(uint64_t(std::max<int64_t>(rows, 1)));
    while (groupRows > 1 && (columns % (groupRows * pieceLanes) != 0 ||
                             steps % groupRows != 0 || steps < 4 * groupRows))
      groupRows /= 2;
    if (groupRows < std::max<int64_t>(minRows, 2))
      return 0;
    // The rest of what the lowering needs: the verifier's rules.
    return scan.whyNotOverlapRows(groupRows) ? 0 : groupRows;
  }
};

} // namespace
