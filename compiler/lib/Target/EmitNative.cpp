//===- EmitNative.cpp - LLVM dialect to an object file --------------------===//

#include "rnn/Target/Target.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <mutex>

using namespace rnnc;

static void initializeTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
  });
}

static llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const TargetOptions &options) {
  initializeTargets();
  bool host = options.triple.empty();
  llvm::Triple triple(host ? llvm::sys::getDefaultTargetTriple()
                           : options.triple);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError("unknown target '" + triple.str() +
                                   "': " + error);
  std::string cpu = options.cpu;
  std::string features;
  if (cpu.empty() && host)
    cpu = llvm::sys::getHostCPUName().str();
  if (cpu.empty())
    cpu = "generic";
  if (host && options.cpu.empty()) {
    llvm::SubtargetFeatures subtarget;
    for (const auto &[feature, enabled] : llvm::sys::getHostCPUFeatures())
      subtarget.AddFeature(feature, enabled);
    features = subtarget.getString();
  }
  llvm::TargetOptions targetOptions;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, features, targetOptions, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return llvm::createStringError("cannot create a target machine for '" +
                                   triple.str() + "' and CPU '" + cpu + "'");
  return machine;
}

llvm::Expected<MatmulBlock>
rnnc::selectMatmulBlock(const TargetOptions &options) {
  auto machine = createTargetMachine(options);
  if (!machine)
    return machine.takeError();
  const llvm::MCSubtargetInfo *subtarget = (*machine)->getMCSubtargetInfo();
  if ((*machine)->getTargetTriple().isX86() &&
      subtarget->checkFeatures("+avx512f"))
    return MatmulBlock{4, 64};
  return MatmulBlock{4, 16};
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

llvm::Error rnnc::emitNative(mlir::ModuleOp module,
                             const TargetOptions &options, NativeFile kind,
                             llvm::raw_pwrite_stream &os) {
  mlir::registerBuiltinDialectTranslation(*module.getContext());
  mlir::registerLLVMDialectTranslation(*module.getContext());
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return llvm::createStringError("cannot translate the module to LLVM IR");
  auto machine = createTargetMachine(options);
  if (!machine)
    return machine.takeError();
  llvmModule->setDataLayout((*machine)->createDataLayout());
  llvmModule->setTargetTriple((*machine)->getTargetTriple());
  optimize(*llvmModule, **machine);

  if (kind == NativeFile::LLVMIR) {
    llvmModule->print(os, nullptr);
    return llvm::Error::success();
  }
  llvm::legacy::PassManager codegen;
  auto fileType = kind == NativeFile::Object
                      ? llvm::CodeGenFileType::ObjectFile
                      : llvm::CodeGenFileType::AssemblyFile;
  if ((*machine)->addPassesToEmitFile(codegen, os, nullptr, fileType))
    return llvm::createStringError("the target cannot emit this file type");
  codegen.run(*llvmModule);
  return llvm::Error::success();
}
