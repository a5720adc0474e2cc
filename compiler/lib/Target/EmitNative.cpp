//===- EmitNative.cpp - LLVM dialect to an object file --------------------===//

#include "rnn/Target/Target.h"
#include "rnn/IR/RNNDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <cstdlib>
#include <mutex>
#include <optional>

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

/// Up to `limit` names of `names` closest to `name` (by edit distance, and
/// any that start with it), closest first.
static std::string closeNames(llvm::StringRef name,
                              llvm::ArrayRef<llvm::StringRef> names,
                              size_t limit = 6) {
  std::vector<std::pair<unsigned, llvm::StringRef>> scored;
  std::string lower = name.lower();
  for (llvm::StringRef candidate : names) {
    unsigned distance = llvm::StringRef(lower).edit_distance(
        candidate.lower(), /*AllowReplacements=*/true, /*MaxEditDistance=*/8);
    if (candidate.starts_with_insensitive(name) ||
        name.starts_with_insensitive(candidate))
      distance = std::min(distance, 1u);
    if (distance <= std::max<size_t>(2, name.size() / 3))
      scored.push_back({distance, candidate});
  }
  llvm::sort(scored); // by distance, then by name
  std::string list;
  for (size_t i = 0; i < scored.size() && i < limit; ++i)
    list += (i ? ", " : "") + scored[i].second.str();
  return list;
}

/// The FPU a hard-float 32-bit ARM triple implies when no --cpu names one:
/// what the platform's ABI document (or GCC's default for it) assumes.
static std::optional<std::string> defaultArmFpu(const llvm::Triple &triple) {
  switch (triple.getSubArch()) {
  case llvm::Triple::ARMSubArch_v6:
  case llvm::Triple::ARMSubArch_v6k:
  case llvm::Triple::ARMSubArch_v6t2:
    return "+vfp2,-d32"; // Raspberry Pi OS's armhf
  case llvm::Triple::ARMSubArch_v7:
    return "+vfp3d16,-d32,-neon"; // Debian's armhf: VFPv3-D16, no NEON
  case llvm::Triple::ARMSubArch_v7em:
    return "+vfp4d16sp"; // Cortex-M4F/M7: FPv4-SP-D16
  case llvm::Triple::ARMSubArch_v8m_mainline:
  case llvm::Triple::ARMSubArch_v8_1m_mainline:
    return "+fp-armv8d16sp"; // Cortex-M33/M55
  case llvm::Triple::ARMSubArch_v8:
  case llvm::Triple::ARMSubArch_v8r:
    return "+fp-armv8d16,-d32,-neon";
  default:
    return std::nullopt; // v6-M, v7-M, v8-M baseline have no FPU at all
  }
}

/// The RISC-V ABI the features allow: hard float in the widest FP registers.
static std::string riscvABI(const llvm::Triple &triple,
                            const llvm::MCSubtargetInfo &subtarget) {
  bool is64 = triple.isArch64Bit();
  std::string abi = is64 ? "lp64" : "ilp32";
  if (subtarget.checkFeatures("+d"))
    return abi + "d";
  if (subtarget.checkFeatures("+f"))
    return abi + "f";
  if (subtarget.checkFeatures("+e"))
    return abi + "e";
  return abi;
}

namespace {
/// A target machine and what the module needs to agree with it.
struct Machine {
  std::unique_ptr<llvm::TargetMachine> machine;
  std::string riscvABI; ///< the `target-abi` module flag, RISC-V only
};
} // namespace

static llvm::Expected<Machine> createTargetMachine(const TargetOptions &options) {
  initializeTargets();
  bool host = options.triple.empty();
  llvm::Triple triple(host ? llvm::sys::getDefaultTargetTriple()
                           : llvm::Triple::normalize(options.triple));
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError("unknown target '" + options.triple +
                                   "': " + error);
  if (!target->hasTargetMachine() || !target->hasMCAsmBackend())
    return llvm::createStringError("LLVM cannot emit code for '" +
                                   triple.str() + "'");
  std::string cpu = options.cpu;
  std::string features;
  if (cpu.empty() && host)
    cpu = llvm::sys::getHostCPUName().str();
  if (cpu.empty())
    cpu = triple.isRISCV() ? (triple.isArch64Bit() ? "generic-rv64"
                                                   : "generic-rv32")
                           : "generic";
  // An unknown CPU is an error here, before LLVM warns that it ignores it
  // (once for every subtarget it makes).
  if (!options.cpu.empty()) {
    std::unique_ptr<llvm::MCSubtargetInfo> probe(
        target->createMCSubtargetInfo(triple, "", ""));
    if (probe && !probe->isCPUStringValid(cpu)) {
      std::vector<llvm::StringRef> names;
      for (const llvm::SubtargetSubTypeKV &kv :
           probe->getAllProcessorDescriptions())
        names.push_back(kv.Key);
      std::string close = closeNames(cpu, names);
      return llvm::createStringError(
          "unknown CPU '" + cpu + "' for target '" + triple.str() + "'" +
          (close.empty() ? std::string(" (`llc -mtriple=") + triple.str() +
                               " -mcpu=help` lists the CPUs)"
                         : "; did you mean " + close + "?"));
    }
  }
  if (host && options.cpu.empty()) {
    llvm::SubtargetFeatures subtarget;
    for (const auto &[feature, enabled] : llvm::sys::getHostCPUFeatures())
      subtarget.AddFeature(feature, enabled);
    features = subtarget.getString();
  }
  bool arm32 = triple.isARM() || triple.isThumb();
  bool hardFloat = arm32 && triple.isHardFloatABI();
  // A generic CPU for a hard-float triple gets the platform's FPU.
  if (hardFloat && options.cpu.empty()) {
    if (std::optional<std::string> fpu = defaultArmFpu(triple))
      features = *fpu;
  }
  // On Cortex-M, a contractable multiply-add (llvm.fmuladd) is one VFMA
  // rather than VMUL + VADD: LLVM's M4/M33 tuning prefers the pair (1 + 1
  // cycles against VFMA's 3 on the M4), but on cores fetching from flash
  // without a cache half the instructions and code are worth more, and it
  // is what GCC emits for the C path (the M7 pipelines VFMA anyway).
  // Exact fmas are VFMA either way; cores without FMA ignore it.
  if (triple.isArmMClass() || llvm::StringRef(cpu).starts_with("cortex-m"))
    features += features.empty() ? "-slowfpvfmx" : ",-slowfpvfmx";
  // Linux on RISC-V is RV64GC (RV32GC) with the double-float ABI.
  if (triple.isRISCV() && options.cpu.empty() && triple.isOSLinux())
    features = "+m,+a,+f,+d,+c";

  llvm::TargetOptions targetOptions;
  if (arm32)
    targetOptions.FloatABIType =
        hardFloat ? llvm::FloatABI::Hard : llvm::FloatABI::Soft;
  std::string abi;
  if (triple.isRISCV()) {
    std::unique_ptr<llvm::MCSubtargetInfo> probe(
        target->createMCSubtargetInfo(triple, cpu, features));
    abi = riscvABI(triple, *probe);
    targetOptions.MCOptions.ABIName = abi;
  }
  // Bare metal (no OS) links statically: no GOT, and some targets (xtensa)
  // have no PIC at all.
  llvm::Reloc::Model reloc = triple.getOS() == llvm::Triple::UnknownOS
                                 ? llvm::Reloc::Static
                                 : llvm::Reloc::PIC_;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, features, targetOptions, reloc, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return llvm::createStringError("cannot create a target machine for '" +
                                   triple.str() + "' and CPU '" + cpu + "'");
  if (hardFloat &&
      !machine->getMCSubtargetInfo()->checkFeatures("+fpregs"))
    return llvm::createStringError(
        "target '" + triple.str() + "' is hard-float, but " +
        (options.cpu.empty() ? "its architecture has no FPU"
                             : "CPU '" + cpu + "' has no FPU") +
        ": use a soft-float triple (" +
        llvm::StringRef(triple.str()).drop_back(2).str() +
        ") or a CPU with an FPU");
  return Machine{std::move(machine), abi};
}

llvm::Expected<MatmulBlock>
rnnc::selectMatmulBlock(const TargetOptions &options) {
  auto machine = createTargetMachine(options);
  if (!machine)
    return machine.takeError();
  const llvm::MCSubtargetInfo *subtarget =
      machine->machine->getMCSubtargetInfo();
  const llvm::Triple &triple = machine->machine->getTargetTriple();
  if (triple.isX86() && subtarget->checkFeatures("+avx512f"))
    return MatmulBlock{4, 64};
  // 32-bit NEON flushes denormals, so LLVM keeps IEEE float maths on VFP
  // there: only MVE (Armv8.1-M) is a vector unit for floats on 32-bit Arm.
  bool vector = triple.isX86() || triple.isAArch64() ||
                ((triple.isARM() || triple.isThumb()) &&
                 subtarget->checkFeatures("+mve.fp")) ||
                (triple.isRISCV() && subtarget->checkFeatures("+v"));
  if (vector)
    return MatmulBlock{4, 16};
  bool floatRegisters =
      (triple.isARM() || triple.isThumb())
          ? subtarget->checkFeatures("+fpregs")
          : !triple.isRISCV() || subtarget->checkFeatures("+f");
  if (floatRegisters)
    return MatmulBlock{4, 4, /*vector=*/false};
  return MatmulBlock{2, 2, /*vector=*/false};
}

llvm::Expected<MatmulBlock>
rnnc::selectCMatmulBlock(const TargetOptions &options) {
  llvm::Expected<MatmulBlock> block = selectMatmulBlock(options);
  if (!block || !block->vector)
    return block;
  return MatmulBlock{4, 4, /*vector=*/false};
}

llvm::Expected<unsigned> rnnc::indexBitwidth(const TargetOptions &options) {
  auto machine = createTargetMachine(options);
  if (!machine)
    return machine.takeError();
  return machine->machine->getTargetTriple().isArch32Bit() ? 32u : 0u;
}

bool rnnc::isMicrocontroller(const TargetOptions &options) {
  if (llvm::StringRef(options.cpu).starts_with("cortex-m"))
    return true;
  return !options.triple.empty() &&
         llvm::Triple(llvm::Triple::normalize(options.triple)).isArmMClass();
}

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

/// Every fma that need not be exact becomes llvm.fmuladd: one instruction
/// where the target has FMA, a multiply and an add where it has not (exact
/// llvm.fma would be a call to fmaf there).
static void relaxFMAs(mlir::ModuleOp module) {
  module.walk([](mlir::LLVM::FMAOp fma) {
    if (fma->hasAttr(mlir::rnn::kExactFMAAttrName)) {
      fma->removeAttr(mlir::rnn::kExactFMAAttrName);
      return;
    }
    mlir::OpBuilder b(fma);
    auto relaxed = mlir::LLVM::FMulAddOp::create(
        b, fma.getLoc(), fma.getType(), fma.getA(), fma.getB(), fma.getC(),
        fma.getFastmathFlagsAttr());
    fma.replaceAllUsesWith(relaxed.getResult());
    fma.erase();
  });
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
  auto machine = createTargetMachine(options);
  if (!machine)
    return machine.takeError();
  llvm::TargetMachine &tm = *machine->machine;
  relaxFMAs(module);
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
  auto readStackUsage = llvm::make_scope_exit([&] {
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
