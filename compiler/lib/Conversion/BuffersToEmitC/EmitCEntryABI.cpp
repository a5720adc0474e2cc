//===- EmitCEntryABI.cpp - The header's C signature, in EmitC -------------===//

#include "EmitCPatterns.h"
#include "rnn/ABI/EntryPointABI.h"
#include "rnn/Conversion/Passes.h"
#include "rnn/IR/RNNDialect.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNEMITCENTRYABIPASS
#include "rnn/Conversion/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;
using namespace mlir::rnn;

namespace {

/// Aligns what follows it (a constant global) to the module's buffer
/// alignment (rnn.workspace_alignment: 64, a cache line, for vector code; 8
/// on a microcontroller, whose flash each byte of padding costs) where the
/// compiler can say so; plain C99 has no way, and gets natural alignment.
/// A build may define it first (a section attribute, say).
constexpr llvm::StringLiteral kAlignMacro = "RNNC_ALIGNED";

std::string alignDefinition(int64_t alignment) {
  std::string n = std::to_string(alignment);
  return "#ifndef RNNC_ALIGNED\n"
         "#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L\n"
         "#define RNNC_ALIGNED _Alignas(" +
         n +
         ")\n"
         "#elif defined(__GNUC__)\n"
         "#define RNNC_ALIGNED __attribute__((aligned(" +
         n +
         ")))\n"
         "#else\n"
         "#define RNNC_ALIGNED\n"
         "#endif\n"
         "#endif";
}

/// Whether `func` is an entry point of --rnn-create-entry-point (its
/// arguments carry the ABI's attributes), not a helper.
bool isEntryPoint(emitc::FuncOp func) {
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (func.getArgAttr(i, kNameAttrName) ||
        func.getArgAttr(i, kWorkspaceAttrName))
      return true;
  return false;
}

/// Gives the parameters of `func` the types the header declares (the
/// entry point's ABI: inputs `const T *`, the workspace `void *`) and casts
/// them back at the entry; voids unused ones.
LogicalResult applyEntryABI(emitc::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  Block &entry = func.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  std::optional<abi::EntryPointABI> entryABI;
  if (isEntryPoint(func)) {
    FailureOr<abi::EntryPointABI> described = abi::describeEntryPoint(func);
    if (failed(described))
      return failure();
    entryABI = std::move(*described);
  }
  SmallVector<Type> inputs(func.getArgumentTypes());
  for (BlockArgument arg : entry.getArguments()) {
    unsigned i = arg.getArgNumber();
    auto pointer = dyn_cast<emitc::PointerType>(arg.getType());
    Type abiType = arg.getType();
    const abi::Parameter *param = entryABI ? &entryABI->parameters[i] : nullptr;
    bool isWorkspace = param && param->isWorkspace();
    if (param &&
        (isWorkspace || (param->isConst() && param->isNamed() && pointer))) {
      if (!pointer)
        return func.emitOpError("expected a pointer workspace, found ")
               << arg.getType();
      FailureOr<std::string> pointee = param->cPointee();
      if (failed(pointee))
        return func.emitOpError("cannot name the C type of input '")
               << param->key << "', found " << pointer.getPointee();
      abiType = emitc::PointerType::get(emitc::OpaqueType::get(ctx, *pointee));
    }
    if (abiType != arg.getType()) {
      Type bodyType = arg.getType();
      arg.setType(abiType);
      inputs[i] = abiType;
      if (!arg.use_empty()) {
        // The workspace (void *) casts plainly; inputs drop const.
        Value cast =
            isWorkspace
                ? emitc::CastOp::create(b, arg.getLoc(), bodyType, arg)
                      .getResult()
                : castPointer(b, arg.getLoc(), bodyType, arg,
                              /*dropsConst=*/true);
        arg.replaceUsesWithIf(cast, [&](OpOperand &use) {
          return use.getOwner() != cast.getDefiningOp() &&
                 use.getOwner() != cast.getDefiningOp()->getOperand(0)
                                       .getDefiningOp();
        });
      }
    }
    if (arg.use_empty())
      emitc::VerbatimOp::create(b, arg.getLoc(), "(void){};", ValueRange{arg});
  }
  func.setFunctionType(
      FunctionType::get(ctx, inputs, func.getFunctionType().getResults()));
  return success();
}

struct RNNEmitCEntryABIPass
    : rnn::impl::RNNEmitCEntryABIPassBase<RNNEmitCEntryABIPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<emitc::FuncOp>())
      if (!func.getBody().empty() && failed(applyEntryABI(func)))
        return signalPassFailure();

    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    Location loc = module.getLoc();
    for (StringRef header : {"math.h", "stdbool.h", "stddef.h", "stdint.h"})
      emitc::IncludeOp::create(b, loc, header, /*is_standard_include=*/true);
    emitc::IncludeOp::create(b, loc, abi::kRuntimeHeader);
    emitc::IncludeOp::create(b, loc, abi::kMathHeader);
    auto globals = llvm::to_vector(module.getOps<emitc::GlobalOp>());
    if (globals.empty())
      return;
    emitc::VerbatimOp::create(b, loc,
                              alignDefinition(workspaceAlignment(module)));
    for (emitc::GlobalOp global : globals) {
      b.setInsertionPoint(global);
      emitc::VerbatimOp::create(b, global.getLoc(), kAlignMacro);
    }
  }
};

} // namespace
