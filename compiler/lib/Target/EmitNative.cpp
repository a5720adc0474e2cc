//===- EmitNative.cpp - LLVM dialect to an object file --------------------===//

#include "rnn/Target/Target.h"

#include "TargetMachine.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"

#include <cstdlib>

using namespace rnnc;
/// The largest frame in a -fstack-usage file ("<file>:<line>:<function>
/// <TAB> <bytes> <TAB> static"); -1 when it has none.
static int64_t largestFrame(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return -1;
  int64_t largest = -1;
  llvm::SmallVector<llvm::StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n', -1, false);
  for (llvm::StringRef line : lines) {
    llvm::SmallVector<llvm::StringRef> fields;
    line.split(fields, '\t');
    int64_t bytes;
    if (fields.size() >= 2 && !fields[1].trim().getAsInteger(10, bytes))
      largest = std::max(largest, bytes);
  }
  return largest;
}

static void optimize(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3)
      .run(module, mam);
}

namespace {
/// Collects the errors LLVM reports through its context (an unsupported
/// construct for the target, say) instead of printing them.
struct CollectErrors : llvm::DiagnosticHandler {
  std::string *errors;
  explicit CollectErrors(std::string *errors) : errors(errors) {}
  bool handleDiagnostics(const llvm::DiagnosticInfo &info) override {
    if (info.getSeverity() != llvm::DS_Error)
      return true; // remarks and warnings: nothing a user can act on
    llvm::raw_string_ostream os(*errors);
    if (!errors->empty())
      os << "; ";
    llvm::DiagnosticPrinterRawOStream printer(os);
    info.print(printer);
    return true;
  }
};

/// While alive, an LLVM fatal error (a target that cannot lower something)
/// ends rnnc with an `error:` line naming the target, not "LLVM ERROR".
struct FatalErrorsAsRnncErrors {
  static std::string &target() {
    static std::string name;
    return name;
  }
  explicit FatalErrorsAsRnncErrors(const llvm::Triple &triple) {
    target() = triple.str();
    llvm::install_fatal_error_handler(
        [](void *, const char *reason, bool) {
          llvm::WithColor::error(llvm::errs(), "rnnc")
              << "LLVM cannot emit code for '" << target() << "': " << reason
              << "\n";
          llvm::errs().flush();
          std::_Exit(1);
        });
  }
  ~FatalErrorsAsRnncErrors() { llvm::remove_fatal_error_handler(); }
};
} // namespace

llvm::Error rnnc::emitNative(mlir::ModuleOp module,
                             const TargetOptions &options, NativeFile kind,
                             llvm::raw_pwrite_stream &os,
                             int64_t *stackBytes) {
  auto machine = detail::createTargetMachine(options);
  if (!machine)
    return machine.takeError();
  llvm::TargetMachine &tm = *machine->machine;
  mlir::registerBuiltinDialectTranslation(*module.getContext());
  mlir::registerLLVMDialectTranslation(*module.getContext());
  llvm::LLVMContext llvmContext;
  std::string errors;
  llvmContext.setDiagnosticHandler(std::make_unique<CollectErrors>(&errors));
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return llvm::createStringError("cannot translate the module to LLVM IR");
  llvmModule->setDataLayout(tm.createDataLayout());
  llvmModule->setTargetTriple(tm.getTargetTriple());
  if (!machine->riscvABI.empty())
    llvmModule->addModuleFlag(llvm::Module::Error, "target-abi",
                              llvm::MDString::get(llvmContext,
                                                  machine->riscvABI));
  // The generated code never throws nor calls anything that does: without
  // nounwind, ARM's EHABI tables would pull the unwinder into a firmware.
  for (llvm::Function &function : *llvmModule)
    function.addFnAttr(llvm::Attribute::NoUnwind);
  FatalErrorsAsRnncErrors fatal(tm.getTargetTriple());
  optimize(*llvmModule, tm);

  if (kind == NativeFile::LLVMIR) {
    llvmModule->print(os, nullptr);
    return llvm::Error::success();
  }
  // LLVM writes each function's frame size (-fstack-usage) to a file only.
  llvm::SmallString<128> usagePath;
  if (stackBytes && kind == NativeFile::Object &&
      !llvm::sys::fs::createTemporaryFile("rnnc-stack", "su", usagePath))
    tm.Options.StackUsageOutput = usagePath.str().str();
  llvm::scope_exit readStackUsage([&] {
    if (usagePath.empty())
      return;
    tm.Options.StackUsageOutput.clear();
    *stackBytes = largestFrame(usagePath);
    llvm::sys::fs::remove(usagePath);
  });
  llvm::legacy::PassManager codegen;
  auto fileType = kind == NativeFile::Object
                      ? llvm::CodeGenFileType::ObjectFile
                      : llvm::CodeGenFileType::AssemblyFile;
  if (tm.addPassesToEmitFile(codegen, os, nullptr, fileType))
    return llvm::createStringError("LLVM cannot emit " +
                                   std::string(kind == NativeFile::Object
                                                   ? "an object file"
                                                   : "assembly") +
                                   " for '" + tm.getTargetTriple().str() + "'");
  codegen.run(*llvmModule);
  if (!errors.empty())
    return llvm::createStringError("LLVM cannot emit code for '" +
                                   tm.getTargetTriple().str() + "': " + errors);
  return llvm::Error::success();
}
