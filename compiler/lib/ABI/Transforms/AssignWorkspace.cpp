//===- AssignWorkspace.cpp - Buffers from the caller's workspace ----------===//

#include "rnn/ABI/EntryPointABI.h"
#include "rnn/ABI/Passes.h"
#include "rnn/IR/RNNDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNASSIGNWORKSPACEPASS
#include "rnn/ABI/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;
using namespace mlir::rnn;

namespace {

/// The program points (pre-order positions in `func`) during which a buffer
/// must keep its contents.
struct Lifetime {
  int64_t begin = 0, end = 0;
  bool overlaps(const Lifetime &other) const {
    return begin <= other.end && other.begin <= end;
  }
};

class LifetimeAnalysis {
public:
  explicit LifetimeAnalysis(func::FuncOp func) {
    int64_t next = 0;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) { first[op] = next++; });
    func.walk<WalkOrder::PostOrder>([&](Operation *op) {
      int64_t last = first[op];
      for (Region &region : op->getRegions())
        for (Operation &nested : region.getOps())
          last = std::max(last, this->last[&nested]);
      this->last[op] = last;
    });
  }

  /// From the allocation to the last use of the buffer or of anything that
  /// may alias it (views, loop and branch results it flows into). A use
  /// inside a loop that the allocation is outside of keeps the buffer for
  /// the whole loop; a use by an op with regions, for the whole op.
  Lifetime of(memref::AllocOp alloc) {
    Lifetime life{first[alloc], first[alloc]};
    SmallVector<Value> worklist{alloc.getResult()};
    llvm::DenseSet<Value> seen;
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      if (!seen.insert(value).second)
        continue;
      for (Operation *user : value.getUsers()) {
        extendTo(life, user, alloc);
        // Anything the user returns as a buffer may be this buffer.
        for (Value result : user->getResults())
          if (isa<BaseMemRefType>(result.getType()))
            worklist.push_back(result);
        if (user->hasTrait<OpTrait::IsTerminator>())
          if (Operation *parent = user->getParentOp())
            for (Value result : parent->getResults())
              if (isa<BaseMemRefType>(result.getType()))
                worklist.push_back(result);
      }
    }
    return life;
  }

private:
  void extendTo(Lifetime &life, Operation *user, memref::AllocOp alloc) {
    life.end = std::max(life.end, last[user]);
    for (Operation *op = user->getParentOp(); op; op = op->getParentOp()) {
      if (op->isAncestor(alloc))
        break;
      if (isa<LoopLikeOpInterface>(op))
        life.end = std::max(life.end, last[op]);
    }
  }

  llvm::DenseMap<Operation *, int64_t> first, last;
};

/// The most loops around a use of `buffer` or of a view of it.
int64_t loopDepthOfUses(Value buffer) {
  int64_t deepest = 0;
  for (Operation *user : buffer.getUsers()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(user);
        view && view.getViewSource() == buffer) {
      for (Value result : user->getResults())
        deepest = std::max(deepest, loopDepthOfUses(result));
      continue;
    }
    int64_t depth = 0;
    for (Operation *op = user->getParentOp(); op; op = op->getParentOp())
      depth += isa<LoopLikeOpInterface>(op);
    deepest = std::max(deepest, depth);
  }
  return deepest;
}

/// Rewrites the allocations of `func`; returns the workspace bytes used.
/// Buffers whose lifetimes do not overlap share space (first fit), placed
/// in program order or, with `innermostFirst`, those used in the deepest
/// loops first (at the lowest offsets).
FailureOr<int64_t> assignWorkspace(func::FuncOp func, BlockArgument workspace,
                                   int64_t alignment, bool innermostFirst) {
  SmallVector<memref::AllocOp> allocs;
  func.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
  if (innermostFirst) {
    // Each depth once: the comparator would walk the uses again per compare.
    llvm::DenseMap<Operation *, int64_t> depth;
    for (memref::AllocOp alloc : allocs)
      depth[alloc] = loopDepthOfUses(alloc.getResult());
    llvm::stable_sort(allocs, [&](memref::AllocOp a, memref::AllocOp b) {
      return depth[a] > depth[b];
    });
  }
  // All lifetimes first: rewriting allocations changes the program.
  LifetimeAnalysis lifetimes(func);
  SmallVector<Lifetime> lives = llvm::map_to_vector(
      allocs, [&](memref::AllocOp alloc) { return lifetimes.of(alloc); });
  struct Placed {
    Lifetime life;
    int64_t offset, bytes;
  };
  SmallVector<Placed> placed;
  int64_t total = 0;
  for (auto [alloc, life] : llvm::zip(allocs, lives)) {
    MemRefType type = alloc.getType();
    if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
        !type.getElementType().isIntOrFloat())
      return alloc.emitOpError("cannot be placed in the workspace: expected a "
                               "static shape, an identity layout and a scalar "
                               "element type, got ")
             << type;
    int64_t bytes = llvm::alignTo(
        type.getNumElements() *
            llvm::divideCeil(type.getElementTypeBitWidth(), 8),
        alignment);
    // The lowest aligned offset clear of every live buffer.
    SmallVector<const Placed *> live;
    for (const Placed &other : placed)
      if (other.life.overlaps(life))
        live.push_back(&other);
    llvm::sort(live, [](const Placed *a, const Placed *b) {
      return a->offset < b->offset;
    });
    int64_t offset = 0;
    for (const Placed *other : live)
      if (offset + bytes > other->offset &&
          offset < other->offset + other->bytes)
        offset = other->offset + other->bytes;
    placed.push_back({life, offset, bytes});
    total = std::max(total, offset + bytes);

    OpBuilder b(alloc);
    Value shift = arith::ConstantIndexOp::create(b, alloc.getLoc(), offset);
    auto view = memref::ViewOp::create(b, alloc.getLoc(), type, workspace,
                                       shift, ValueRange{});
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    alloc.replaceAllUsesWith(view.getResult());
    alloc.erase();
  }
  return total;
}

struct RNNAssignWorkspacePass
    : rnn::impl::RNNAssignWorkspacePassBase<RNNAssignWorkspacePass> {
  using RNNAssignWorkspacePassBase::RNNAssignWorkspacePassBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (alignment < abi::kMinWorkspaceAlignment ||
        !llvm::isPowerOf2_64(alignment)) {
      module.emitError() << "rnn-assign-workspace: alignment must be a power "
                            "of two of at least "
                         << abi::kMinWorkspaceAlignment << ", got "
                         << static_cast<int64_t>(alignment);
      return signalPassFailure();
    }
    int64_t total = 0;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      std::optional<unsigned> index;
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
        if (func.getArgAttr(i, kWorkspaceAttrName))
          index = i;
      if (!index)
        continue;
      BlockArgument workspace = func.getArgument(*index);
      FailureOr<int64_t> bytes = assignWorkspace(func, workspace, alignment,
                                                innermostFirst);
      if (failed(bytes))
        return signalPassFailure();
      // A workspace of 0 bytes is never accessed: the entry point's check
      // (--rnn-create-entry-point) lets it be NULL or misaligned.
      if (*bytes == 0)
        for (Operation *user : llvm::make_early_inc_range(workspace.getUsers()))
          if (auto address =
                  dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(user)) {
            OpBuilder b(address);
            address.replaceAllUsesWith(
                arith::ConstantIndexOp::create(b, address.getLoc(),
                                               abi::kMinWorkspaceAlignment)
                    .getResult());
            address.erase();
          }
      // Now that its size is known, the workspace gets a static type, which
      // the bare-pointer calling convention requires.
      Type byte = cast<MemRefType>(workspace.getType()).getElementType();
      workspace.setType(MemRefType::get({*bytes}, byte));
      SmallVector<Type> inputs(func.getArgumentTypes());
      inputs[*index] = workspace.getType();
      func.setFunctionType(FunctionType::get(&getContext(), inputs,
                                             func.getResultTypes()));
      // A function built for a column split becomes <name>_cols_step, whose
      // workspace type states its own size (the header's task stride):
      // <name>_run's callers need not hold it.
      if (!func->hasAttr(kColumnSplitAttrName))
        total = std::max(total, *bytes);
    }
    module->setAttr(kWorkspaceSizeAttrName,
                    IntegerAttr::get(IntegerType::get(&getContext(), 64), total));
    module->setAttr(
        kWorkspaceAlignmentAttrName,
        IntegerAttr::get(IntegerType::get(&getContext(), 64), alignment));
  }
};

} // namespace
