//===- AssignWorkspace.cpp - Buffers from the caller's workspace ----------===//

#include "rnn/Codegen/Passes.h"
#include "rnn/IR/RNNDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNASSIGNWORKSPACEPASS
#include "rnn/Codegen/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;
using namespace mlir::rnn;

namespace {

/// Vector loads and stores want their buffers aligned to a cache line.
constexpr int64_t kAlignment = 64;

/// Rewrites the allocations of `func`; returns the workspace bytes used.
FailureOr<int64_t> assignWorkspace(func::FuncOp func, BlockArgument workspace) {
  SmallVector<memref::AllocOp> allocs;
  func.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
  int64_t offset = 0;
  for (memref::AllocOp alloc : allocs) {
    MemRefType type = alloc.getType();
    if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
        !type.getElementType().isIntOrFloat())
      return alloc.emitOpError("cannot be placed in the workspace: expected a "
                               "static shape, an identity layout and a scalar "
                               "element type, got ")
             << type;
    int64_t bytes =
        type.getNumElements() * llvm::divideCeil(type.getElementTypeBitWidth(), 8);
    OpBuilder b(alloc);
    Value shift = arith::ConstantIndexOp::create(b, alloc.getLoc(), offset);
    auto view = memref::ViewOp::create(b, alloc.getLoc(), type, workspace,
                                       shift, ValueRange{});
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    alloc.replaceAllUsesWith(view.getResult());
    alloc.erase();
    offset = llvm::alignTo(offset + bytes, kAlignment);
  }
  return offset;
}

struct RNNAssignWorkspacePass
    : rnn::impl::RNNAssignWorkspacePassBase<RNNAssignWorkspacePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
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
      FailureOr<int64_t> bytes = assignWorkspace(func, workspace);
      if (failed(bytes))
        return signalPassFailure();
      // Now that its size is known, the workspace gets a static type, which
      // the bare-pointer calling convention requires.
      Type byte = cast<MemRefType>(workspace.getType()).getElementType();
      workspace.setType(MemRefType::get({*bytes}, byte));
      SmallVector<Type> inputs(func.getArgumentTypes());
      inputs[*index] = workspace.getType();
      func.setFunctionType(FunctionType::get(&getContext(), inputs,
                                             func.getResultTypes()));
      total = std::max(total, *bytes);
    }
    module->setAttr(kWorkspaceSizeAttrName,
                    IntegerAttr::get(IntegerType::get(&getContext(), 64), total));
  }
};

} // namespace
