//===- TargetMachine.cpp - An LLVM target machine for --target/--cpu -----===//

#include "TargetMachine.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>
#include <optional>

using namespace rnnc;
using namespace rnnc::detail;

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


llvm::Expected<Machine>
rnnc::detail::createTargetMachine(const TargetOptions &options) {
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
  // Xtensa loads constants with L32R from a literal pool put before each
  // function; LLVM 22's object writer places it where the previous
  // function's code ends, not 4-byte aligned as L32R needs ("fixup value
  // must be 4-byte aligned"). In a section of its own each function's pool
  // starts the section, aligned; a linker then also drops unused ones.
  if (triple.getArch() == llvm::Triple::xtensa)
    targetOptions.FunctionSections = true;
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
