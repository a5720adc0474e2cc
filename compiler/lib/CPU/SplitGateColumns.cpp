//===- SplitGateColumns.cpp - One batch-1 step on half the gate columns ---===//
//
// At batch 1 a step is bound by streaming the recurrent weights (LSTM
// H=1024: 16 MiB a step). <name>_run_parallel splits such a model by gate
// columns: task t owns the units [lo, hi) and computes, each step, only the
// gate columns of those units (in every gate block), their gate maths and
// their part of h; the tasks then trade their halves of h. This pass adds
// the compiled half of that, `<name>_cols_step`: `<name>_run` (bufferized)
// cloned, with four more arguments before the workspace (`exchange`,
// [2 x H] f32 shared by the tasks; `hidden`, the task's own [1 x H] row of
// h where the caller's buffer holds h; `task`; `step`) and
//
//  - every write of a gate-column buffer (a workspace buffer whose rows
//    are G x H wide: the input projection, the recurrent products) in an
//    `scf.if` on its column block's unit being the task's, placed around
//    all that follows the block's first column in its loop body, so the
//    task streams only its panels of the packed weights;
//  - the gate loop (the one loop that writes the outputs) over [lo, hi);
//  - the time loop replaced by its body at `step`, what comes before it
//    (initial carries, the input projection of all steps) run at step 0
//    only, the other task's part of h read from `exchange[(step - 1) % 2]`
//    first and the task's own written to `exchange[step % 2]` last, and
//    the final carries (copies after the loop) copied at the last step,
//    the task's units only.
//
// Each task gets its own workspace, so only `exchange` and the outputs are
// shared, in disjoint parts; the header's <name>_run_parallel calls the
// hook once a step (its return is the barrier between the writes of one
// step's exchange row and the reads of it). A column's sums run the same
// code in the same order as in <name>_run, so the result is bit-identical.
//
// The clone is only made when the function has that shape: one time loop
// without iteration arguments, holding one gate loop, writing the outputs
// nowhere else, and after it only the final carries' copies. Otherwise the
// module is left alone, and the header's <name>_run_parallel stays serial.
//
//===----------------------------------------------------------------------===//

#include "MatmulMatchers.h"
#include "rnn/CPU/Passes.h"
#include "rnn/IR/RNNDialect.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

#include <numeric>

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNSPLITGATECOLUMNSPASS
#include "rnn/CPU/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;

namespace {

/// `value` through views that keep its storage (subviews, reshapes).
Value storageOf(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto subview = dyn_cast<memref::SubViewOp>(def))
      value = subview.getSource();
    else if (auto expand = dyn_cast<memref::ExpandShapeOp>(def))
      value = expand.getSrc();
    else if (auto collapse = dyn_cast<memref::CollapseShapeOp>(def))
      value = collapse.getSrc();
    else
      break;
  }
  return value;
}

bool isFunctionArgument(Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  return arg && isa<func::FuncOp>(arg.getOwner()->getParentOp());
}

/// The memrefs `op` writes (empty if none), or failure when it has effects
/// on unknown values.
FailureOr<SmallVector<Value>> writtenBuffers(Operation *op) {
  SmallVector<Value> written;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects) {
    // An intrinsic on values only (the int8 kernels' dot products) has no
    // memory to write; one taking a memref or a pointer might write it.
    if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op)) {
      if (llvm::any_of(call->getOperandTypes(),
                       llvm::IsaPred<BaseMemRefType, LLVM::LLVMPointerType>))
        return failure();
      return written;
    }
    if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return failure();
    return written;
  }
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  for (MemoryEffects::EffectInstance &effect : instances) {
    if (!isa<MemoryEffects::Write>(effect.getEffect()))
      continue;
    if (!effect.getValue())
      return failure();
    written.push_back(effect.getValue());
  }
  return written;
}

/// The block of columns `write` (a vector.transfer_write or memref.store)
/// writes: the subview of a 2-D workspace buffer it writes into, whose
/// last offset is the block's first column.
FailureOr<Value> writtenBlock(Operation *write) {
  Value dest;
  if (auto transfer = dyn_cast<vector::TransferWriteOp>(write))
    dest = transfer.getBase();
  else if (auto store = dyn_cast<memref::StoreOp>(write))
    dest = store.getMemRef();
  else
    return failure();
  auto type = dyn_cast<MemRefType>(dest.getType());
  if (!dest.getDefiningOp<memref::SubViewOp>() || !type ||
      type.getShape().back() == ShapedType::kDynamic)
    return failure();
  for (Value view = dest; !view.getDefiningOp<memref::ViewOp>();) {
    auto subview = view.getDefiningOp<memref::SubViewOp>();
    if (!subview ||
        subview.getSourceType().getRank() != subview.getType().getRank() ||
        !isOneInteger(subview.getMixedStrides().back()))
      return failure();
    view = subview.getSource();
  }
  return dest;
}

/// The terms that sum to the first column of `block` (writtenBlock).
SmallVector<OpFoldResult> firstColumnTerms(Value block) {
  SmallVector<OpFoldResult> terms;
  while (auto subview = block.getDefiningOp<memref::SubViewOp>()) {
    terms.push_back(subview.getMixedOffsets().back());
    block = subview.getSource();
  }
  return terms;
}

/// Whether `block` holds `inner` (is it or one of its ancestors).
bool holds(Block *block, Block *inner) {
  return block == inner ||
         (inner->getParentOp() &&
          block->findAncestorOpInBlock(*inner->getParentOp()));
}

/// The innermost block in which all of `values` are defined (or are block
/// arguments), inside `outermost`, and the op after which the last of them
/// is there (null: the block's start); failure when there is none.
FailureOr<std::pair<Block *, Operation *>>
definitionPoint(ArrayRef<Value> values, Block *outermost) {
  Block *block = nullptr;
  for (Value value : values)
    if (!block || holds(block, value.getParentBlock()))
      block = value.getParentBlock();
  if (!block || !holds(outermost, block))
    return failure();
  Operation *after = nullptr;
  for (Value value : values) {
    if (!holds(value.getParentBlock(), block))
      return failure();
    Operation *def = value.getDefiningOp();
    if (value.getParentBlock() == block && def &&
        (!after || after->isBeforeInBlock(def)))
      after = def;
  }
  return std::make_pair(block, after);
}

/// Whether `op` reads `storage` (through any view of it).
bool readsStorage(Operation *op, Value storage) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [&](MemoryEffects::EffectInstance &effect) {
    return isa<MemoryEffects::Read>(effect.getEffect()) && effect.getValue() &&
           storageOf(effect.getValue()) == storage;
  });
}

struct Recurrence {
  Block *body; ///< the block holding the time loop
  scf::ForOp timeLoop;
  scf::ForOp gateLoop;
  Value hidden;      ///< the [1 x H] buffer of h the step reads
  int64_t units = 0; ///< H
  int64_t steps = 0; ///< T
  int64_t split = 0; ///< the first unit of task 1
  /// The final carries' copies into outputs, after the time loop.
  SmallVector<memref::CopyOp> finalCopies;
  /// The blocks of gate columns written (writtenBlock).
  llvm::SetVector<Value> columnBlocks;
};

/// `func`'s recurrence, if it has the shape the split knows.
FailureOr<Recurrence> analyze(func::FuncOp func) {
  Recurrence rec;
  // Every write of an output: in the gate loop (the one loop inside another
  // that writes them), a final carry's copy, or of h where the caller's
  // buffer holds it (checked once h is known).
  bool unknown = false;
  SmallVector<std::pair<Operation *, Value>> outputWrites;
  func.getBody().walk([&](Operation *op) {
    FailureOr<SmallVector<Value>> written = writtenBuffers(op);
    if (failed(written)) {
      unknown = true;
      return;
    }
    for (Value buffer : *written) {
      Value storage = storageOf(buffer);
      if (!isFunctionArgument(storage))
        continue;
      outputWrites.push_back({op, storage});
      auto loop = op->getParentOfType<scf::ForOp>();
      if (isa<memref::CopyOp>(op) || !loop ||
          !loop->getParentOfType<scf::ForOp>())
        continue;
      if (rec.gateLoop && rec.gateLoop != loop)
        unknown = true;
      rec.gateLoop = loop;
    }
  });
  if (unknown || !rec.gateLoop)
    return failure();
  bool nested = false;
  rec.gateLoop.getBody()->walk([&](LoopLikeOpInterface) { nested = true; });
  if (nested)
    return failure();
  rec.timeLoop = rec.gateLoop->getParentOfType<scf::ForOp>();
  if (!rec.timeLoop || rec.gateLoop->getParentOp() != rec.timeLoop ||
      rec.timeLoop.getNumResults() != 0 ||
      getConstantIntValue(rec.timeLoop.getLowerBound()) != 0 ||
      getConstantIntValue(rec.timeLoop.getStep()) != 1 ||
      !getConstantIntValue(rec.timeLoop.getUpperBound()))
    return failure();
  rec.steps = *getConstantIntValue(rec.timeLoop.getUpperBound());
  rec.body = rec.timeLoop->getBlock();
  if (!rec.body->back().hasTrait<OpTrait::IsTerminator>() ||
      rec.body->back().getNumOperands() != 0)
    return failure();
  // After the time loop, only the final carries: copies into outputs.
  for (Operation *op = rec.timeLoop->getNextNode(); op != &rec.body->back();
       op = op->getNextNode()) {
    auto copy = dyn_cast<memref::CopyOp>(op);
    if (!copy || !isFunctionArgument(copy.getTarget()))
      return failure();
    rec.finalCopies.push_back(copy);
  }
  std::optional<int64_t> lower =
      getConstantIntValue(rec.gateLoop.getLowerBound());
  std::optional<int64_t> upper =
      getConstantIntValue(rec.gateLoop.getUpperBound());
  std::optional<int64_t> gateStep = getConstantIntValue(rec.gateLoop.getStep());
  if (lower != 0 || !upper || !gateStep || rec.gateLoop.getNumResults())
    return failure();
  rec.units = *upper;

  // h: the [1 x H] buffer (the workspace's or the caller's final carry)
  // the gate loop writes and the rest of the step reads.
  SmallVector<Value> hidden;
  rec.gateLoop.getBody()->walk([&](memref::StoreOp store) {
    Value buffer = storageOf(store.getMemRef());
    if (llvm::is_contained(hidden, buffer))
      return;
    bool readElsewhere = false;
    rec.timeLoop.getBody()->walk([&](Operation *op) {
      if (!rec.gateLoop->isAncestor(op) && readsStorage(op, buffer))
        readElsewhere = true;
    });
    if (readElsewhere)
      hidden.push_back(buffer);
  });
  if (hidden.size() != 1)
    return failure();
  rec.hidden = hidden.front();
  auto hiddenType = cast<MemRefType>(rec.hidden.getType());
  if (hiddenType.getShape() != ArrayRef<int64_t>{1, rec.units} ||
      !hiddenType.getLayout().isIdentity() ||
      !hiddenType.getElementType().isF32() ||
      (!rec.hidden.getDefiningOp<memref::ViewOp>() &&
       !isFunctionArgument(rec.hidden)))
    return failure();
  for (auto &write : outputWrites) {
    Operation *op = write.first;
    Value storage = write.second;
    bool beforeLoop =
        rec.body->findAncestorOpInBlock(*op) &&
        rec.body->findAncestorOpInBlock(*op)->isBeforeInBlock(rec.timeLoop);
    if (!rec.gateLoop->isAncestor(op) &&
        !llvm::any_of(rec.finalCopies,
                      [&](memref::CopyOp copy) { return copy == op; }) &&
        !(storage == rec.hidden && beforeLoop))
      return failure();
  }

  auto isCarryRow = [&](Value value) {
    auto type = dyn_cast<MemRefType>(value.getType());
    return type && type.getShape() == ArrayRef<int64_t>{1, rec.units} &&
           type.getLayout().isIdentity();
  };
  for (memref::CopyOp copy : rec.finalCopies)
    if (!isCarryRow(copy.getSource()) || !isCarryRow(copy.getTarget()) ||
        !copy.getSource().getDefiningOp<memref::ViewOp>() ||
        copy.getTarget() == rec.hidden)
      return failure();

  // The gate-column writes, in the time loop and before it.
  int64_t align = *gateStep;
  for (Operation &op : *rec.body) {
    WalkResult result = op.walk<WalkOrder::PreOrder>([&](Operation *nestedOp) {
      if (rec.gateLoop->isAncestor(nestedOp))
        return WalkResult::skip();
      FailureOr<SmallVector<Value>> written = writtenBuffers(nestedOp);
      if (failed(written))
        return WalkResult::interrupt();
      for (Value buffer : *written) {
        auto type = dyn_cast<MemRefType>(storageOf(buffer).getType());
        if (!type || type.getRank() != 2 ||
            type.getShape().back() == ShapedType::kDynamic ||
            type.getShape().back() <= rec.units ||
            type.getShape().back() % rec.units != 0)
          continue; // not gate columns
        FailureOr<Value> block = writtenBlock(nestedOp);
        if (failed(block))
          return WalkResult::interrupt();
        // Blocks start at multiples of their width, which divides the
        // split: no block holds columns of both tasks.
        int64_t width = cast<MemRefType>(block->getType()).getShape().back();
        if (!llvm::all_of(firstColumnTerms(*block), [&](OpFoldResult term) {
              return rnn::isMultipleOf(term, width);
            }))
          return WalkResult::interrupt();
        align = std::lcm(align, width);
        rec.columnBlocks.insert(*block);
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return failure();
  }
  if (rec.columnBlocks.empty() || rec.units % align != 0)
    return failure();
  rec.split = rec.units / 2 / align * align;
  if (rec.split == 0)
    return failure();
  return rec;
}

} // namespace

namespace mlir::rnn {
namespace {

struct RNNSplitGateColumnsPass
    : impl::RNNSplitGateColumnsPassBase<RNNSplitGateColumnsPass> {
  using Base::Base;

  void runOnOperation() override;
};

} // namespace
} // namespace mlir::rnn

namespace {

/// Whether the column `terms` sum to, in rows of `gates` blocks of `units`
/// columns, is one of [lo, hi) of its block. Subtractions and selects
/// only: the C path has no unsigned remainder of an index, and C compilers
/// warn of `&` between comparisons.
Value ownsColumn(OpBuilder &builder, Location loc, ArrayRef<OpFoldResult> terms,
                 int64_t gates, int64_t units, Value lo, Value hi) {
  Value unit = getValueOrCreateConstantIndexOp(builder, loc, terms.front());
  for (OpFoldResult term : terms.drop_front())
    unit = arith::AddIOp::create(
        builder, loc, unit,
        getValueOrCreateConstantIndexOp(builder, loc, term));
  // column - units x (the gate blocks before it).
  Value width = arith::ConstantIndexOp::create(builder, loc, units);
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value before;
  for (int64_t gate = 1; gate < gates; ++gate) {
    Value beyond = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::uge, unit,
        arith::ConstantIndexOp::create(builder, loc, gate * units));
    Value block = arith::SelectOp::create(builder, loc, beyond, width, zero);
    before =
        before ? arith::AddIOp::create(builder, loc, before, block) : block;
  }
  if (before)
    unit = arith::SubIOp::create(builder, loc, unit, before);
  Value fromLo =
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::uge, unit, lo);
  Value belowHi =
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult, unit, hi);
  Value no = arith::ConstantIntOp::create(builder, loc, builder.getI1Type(), 0);
  return arith::SelectOp::create(builder, loc, fromLo, belowHi, no);
}

/// Puts what follows the definition of `columnBlock`'s first column in its
/// block (every use of `columnBlock` included) under `scf.if` on the task
/// owning the columns.
LogicalResult predicate(OpBuilder &builder, Value columnBlock, Block *outermost,
                        int64_t units, Value lo, Value hi,
                        DenseSet<Block *> &predicated) {
  SmallVector<OpFoldResult> terms = firstColumnTerms(columnBlock);
  SmallVector<Value> values;
  for (OpFoldResult term : terms)
    if (auto value = dyn_cast<Value>(term))
      values.push_back(value);
  FailureOr<std::pair<Block *, Operation *>> point =
      definitionPoint(values, outermost);
  if (failed(point))
    return failure();
  Block *block = point->first;
  Operation *after = point->second;
  if (!predicated.insert(block).second)
    return failure();
  Operation *terminator = block->getTerminator();
  if (terminator->getNumOperands() != 0)
    return failure();
  Operation *first = after ? after->getNextNode() : &block->front();
  SmallVector<Operation *> moved;
  for (Operation *op = first; op != terminator; op = op->getNextNode())
    moved.push_back(op);
  auto isMoved = [&](Operation *user) {
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    return inBlock && llvm::is_contained(moved, inBlock);
  };
  // Nothing outside the moved ops uses their results, and they hold every
  // write of the columns.
  for (Operation *op : moved)
    if (!llvm::all_of(op->getUsers(), isMoved))
      return failure();
  if (!llvm::all_of(columnBlock.getUsers(), isMoved))
    return failure();
  builder.setInsertionPoint(first);
  Location loc = columnBlock.getLoc();
  Value storage = storageOf(columnBlock);
  int64_t gates = cast<MemRefType>(storage.getType()).getShape().back() / units;
  Value owns = ownsColumn(builder, loc, terms, gates, units, lo, hi);
  auto ifOp = scf::IfOp::create(builder, loc, owns, /*withElseRegion=*/false);
  for (Operation *op : moved)
    op->moveBefore(ifOp.thenBlock()->getTerminator());
  return success();
}

/// for u in [lo, hi): to[toRow, u] = from[fromRow, u] (rows of 2-D f32
/// buffers).
void copyUnits(OpBuilder &builder, Location loc, Value from, Value fromRow,
               Value to, Value toRow, Value lo, Value hi) {
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  scf::ForOp::create(
      builder, loc, lo, hi, one, ValueRange(),
      [&](OpBuilder &b, Location l, Value unit, ValueRange) {
        Value value =
            memref::LoadOp::create(b, l, from, ValueRange{fromRow, unit});
        memref::StoreOp::create(b, l, value, to, ValueRange{toRow, unit});
        scf::YieldOp::create(b, l);
      });
}

/// The row of `exchange` that step `step` (i32) writes, or with `previous`
/// the one step - 1 wrote: (step + previous) & 1, in i32 (the C path has no
/// unsigned remainder of an index).
Value rowOfStep(OpBuilder &builder, Location loc, Value step, bool previous) {
  Type i32 = step.getType();
  Value one = arith::ConstantIntOp::create(builder, loc, i32, 1);
  if (previous)
    step = arith::AddIOp::create(builder, loc, step, one);
  return arith::IndexCastUIOp::create(
      builder, loc, builder.getIndexType(),
      arith::AndIOp::create(builder, loc, step, one));
}

/// Rewrites the clone `step` of the entry point into one step of one task.
LogicalResult splitColumns(func::FuncOp step) {
  FailureOr<Recurrence> found = analyze(step);
  if (failed(found))
    return failure();
  Recurrence &rec = *found;
  MLIRContext *ctx = step.getContext();
  Location loc = step.getLoc();
  OpBuilder builder(ctx);

  // The new arguments, before the workspace (which the C ABI wants last):
  // exchange (shared), the task's own row for h where the caller's buffer
  // holds it, task, step. Unnamed: not parameters of the model.
  unsigned workspaceIndex = step.getNumArguments() - 1;
  if (!step.getArgAttr(workspaceIndex, rnn::kWorkspaceAttrName))
    return failure();
  auto f32 = Float32Type::get(ctx);
  auto exchangeType = MemRefType::get({2, rec.units}, f32);
  auto hiddenType = MemRefType::get({1, rec.units}, f32);
  auto i32 = IntegerType::get(ctx, 32);
  DictionaryAttr none = builder.getDictionaryAttr({});
  if (failed(step.insertArguments(SmallVector<unsigned>(4, workspaceIndex),
                                  {exchangeType, hiddenType, i32, i32},
                                  {none, none, none, none},
                                  {loc, loc, loc, loc})))
    return failure();
  Value exchange = step.getArgument(workspaceIndex);
  Value ownHidden = step.getArgument(workspaceIndex + 1);
  Value task = step.getArgument(workspaceIndex + 2);
  Value stepArg = step.getArgument(workspaceIndex + 3);
  // h in the caller's buffer (a final carry built in place): both tasks
  // would write and read it, so each keeps h in its own row, and writes
  // its units of it to the caller's at the end.
  Value callersHidden;
  if (isFunctionArgument(rec.hidden)) {
    callersHidden = rec.hidden;
    Operation *work = rec.body->getParentOp();
    rec.hidden.replaceUsesWithIf(ownHidden, [&](OpOperand &use) {
      return work->isProperAncestor(use.getOwner());
    });
    rec.hidden = ownHidden;
  }

  // The task's units and the other's, at the function's start.
  builder.setInsertionPointToStart(&step.getBody().front());
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(builder, loc, v).getResult();
  };
  Value zero = index(0);
  Value split = index(rec.split), units = index(rec.units);
  Value isFirst =
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, task,
                            arith::ConstantIntOp::create(builder, loc, i32, 0));
  Value lo = arith::SelectOp::create(builder, loc, isFirst, zero, split);
  Value hi = arith::SelectOp::create(builder, loc, isFirst, split, units);
  Value otherLo = arith::SelectOp::create(builder, loc, isFirst, split, zero);
  Value otherHi = arith::SelectOp::create(builder, loc, isFirst, units, split);
  Value stepIndex = arith::IndexCastUIOp::create(
      builder, loc, builder.getIndexType(), stepArg);

  DenseSet<Block *> predicated;
  for (Value columnBlock : rec.columnBlocks)
    if (failed(predicate(builder, columnBlock, rec.body, rec.units, lo, hi,
                         predicated)))
      return failure();
  rec.gateLoop.getLowerBoundMutable().assign(lo);
  rec.gateLoop.getUpperBoundMutable().assign(hi);

  // What comes before the time loop, at step 0 only.
  SmallVector<Operation *> once;
  for (Operation &op : *rec.body) {
    if (&op == rec.timeLoop.getOperation())
      break;
    if (isMemoryEffectFree(&op))
      continue;
    if (!op.use_empty())
      return failure();
    once.push_back(&op);
  }
  builder.setInsertionPoint(rec.timeLoop);
  Value firstStep = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::eq, stepIndex, zero);
  auto atStart = scf::IfOp::create(builder, loc, firstStep,
                                   /*withElseRegion=*/true);
  for (Operation *op : once)
    op->moveBefore(atStart.thenBlock()->getTerminator());
  // Later steps: the other task's part of h, from the previous step's row.
  builder.setInsertionPoint(atStart.elseBlock()->getTerminator());
  Value previousRow = rowOfStep(builder, loc, stepArg, /*previous=*/true);
  copyUnits(builder, loc, exchange, previousRow, rec.hidden, zero, otherLo,
            otherHi);

  // The time loop's body at `step`, then the task's part of h out.
  Block *loopBody = rec.timeLoop.getBody();
  rec.timeLoop.getInductionVar().replaceAllUsesWith(stepIndex);
  loopBody->getTerminator()->erase();
  rec.body->getOperations().splice(rec.timeLoop->getIterator(),
                                   loopBody->getOperations());
  builder.setInsertionPoint(rec.timeLoop);
  Value row = rowOfStep(builder, loc, stepArg, /*previous=*/false);
  copyUnits(builder, loc, rec.hidden, zero, exchange, row, lo, hi);
  rec.timeLoop.erase();

  // The final carries: the task's units, after the last step.
  if (!rec.finalCopies.empty() || callersHidden) {
    builder.setInsertionPoint(rec.body->getTerminator());
    Value lastStep =
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, stepIndex,
                              index(rec.steps - 1));
    auto atEnd = scf::IfOp::create(builder, loc, lastStep,
                                   /*withElseRegion=*/false);
    builder.setInsertionPoint(atEnd.thenBlock()->getTerminator());
    for (memref::CopyOp copy : rec.finalCopies) {
      copyUnits(builder, copy.getLoc(), copy.getSource(), zero,
                copy.getTarget(), zero, lo, hi);
      copy.erase();
    }
    if (callersHidden)
      copyUnits(builder, loc, rec.hidden, zero, callersHidden, zero, lo, hi);
  }
  return success();
}

} // namespace

void mlir::rnn::RNNSplitGateColumnsPass::runOnOperation() {
  ModuleOp module = getOperation();
  auto entry = module.lookupSymbol<func::FuncOp>(entryPoint);
  auto source =
      from.empty() ? entry : module.lookupSymbol<func::FuncOp>(from);
  if (!entry || entry.isExternal() || !source || source.isExternal())
    return;
  std::string name = entryPoint;
  if (StringRef(name).ends_with("_run"))
    name.resize(name.size() - 4);
  func::FuncOp step = source.clone();
  step.setSymName(name + "_cols_step");
  step->removeAttr(kColumnSplitAttrName);
  OpBuilder(entry).insert(step);
  step->moveAfter(entry);
  if (failed(splitColumns(step)))
    step.erase();
  if (source != entry)
    source.erase();
}
