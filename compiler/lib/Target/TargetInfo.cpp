//===- TargetInfo.cpp - What code generation knows of a target -----------===//

#include "rnn/Target/TargetInfo.h"

#include "TargetMachine.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace rnnc;

llvm::Expected<TargetInfo> rnnc::describeTarget(const TargetOptions &options) {
  llvm::Expected<detail::Machine> machine =
      detail::createTargetMachine(options);
  if (!machine)
    return machine.takeError();
  const llvm::TargetMachine &tm = *machine->machine;
  const llvm::MCSubtargetInfo &subtarget = *tm.getMCSubtargetInfo();
  auto has = [&](llvm::StringRef feature) {
    return subtarget.checkFeatures(("+" + feature).str());
  };
  const llvm::Triple &triple = tm.getTargetTriple();
  TargetInfo info;
  info.triple = triple.str();
  info.cpu = tm.getTargetCPU().str();
  info.pointerBits = triple.isArch64Bit() ? 64 : triple.isArch32Bit() ? 32 : 16;
  info.microcontroller = isMicrocontroller(options);
  bool arm32 = triple.isARM() || triple.isThumb();
  if (triple.isX86()) {
    bool avx512 = has("avx512f");
    info.vectorBits = avx512 ? 512 : has("avx") ? 256 : has("sse2") ? 128 : 0;
    info.registers = avx512 && triple.isArch64Bit() ? 32
                     : triple.isArch64Bit()         ? 16
                                                    : 8;
    info.floatRegisters = true;
    info.fma = has("fma") || avx512;
    info.bf16Dot = has("avx512bf16");
    info.int8Dot = has("avx512vnni") || has("avxvnni");
    info.int16PairDot = has("avx2");
    // The L2 of the AVX-512 cores the batch-1 overlap was tuned on (Zen 4,
    // Skylake-SP: 1 MiB), taken for every AVX-512 CPU; for other AVX2
    // cores the smallest of theirs (Haswell to Skylake client: 256 KiB;
    // Zen 1-3: 512 KiB), so weights larger than it are not taken as cached.
    if (avx512)
      info.cacheBytes = 1 << 20;
    else if (has("avx2"))
      info.cacheBytes = 256 << 10;
  } else if (triple.isAArch64()) {
    info.vectorBits = has("neon") ? 128 : 0;
    info.registers = 32;
    info.floatRegisters = has("fp-armv8");
    info.fma = info.floatRegisters;
    info.bf16Dot = has("bf16");
    info.int8Dot = has("dotprod");
  } else if (arm32) {
    info.floatRegisters = has("fpregs");
    info.vectorBits = has("mve.fp") ? 128 : 0;
    info.registers = info.vectorBits ? 8 : info.floatRegisters ? 32 : 0;
    info.fma = has("vfp4d16sp");
  } else if (triple.isRISCV()) {
    info.floatRegisters = has("f");
    info.vectorBits = has("v") ? 128 : 0; // VLEN is at least 128 with V
    info.registers = 32;
    info.fma = info.floatRegisters;
  } else {
    // Other targets (xtensa, ...): scalar code with floats in registers.
    info.floatRegisters = true;
    info.registers = 16;
  }
  return info;
}

bool TargetInfo::bf16Convert() const {
  return bf16Dot && vectorBits >= 512 && llvm::Triple(triple).isX86();
}

MatmulBlock TargetInfo::matmulBlock() const {
  if (vectorBits >= 512 && registers >= 32)
    return MatmulBlock{4, 64};
  if (vectorBits)
    return MatmulBlock{4, 16};
  if (floatRegisters)
    return MatmulBlock{4, 4, /*vector=*/false};
  return MatmulBlock{2, 2, /*vector=*/false};
}

/// 32-bit Arm (A32 or Thumb).
static bool isArm32(llvm::StringRef triple) {
  llvm::Triple parsed(triple);
  return parsed.isARM() || parsed.isThumb();
}

bool TargetInfo::rationalGates() const {
  return vectorBits == 0 && floatRegisters && isArm32(triple);
}

bool TargetInfo::shortLoadOffsets() const { return isArm32(triple); }

MatmulBlock TargetInfo::cMatmulBlock() const {
  MatmulBlock block = matmulBlock();
  return block.vector ? MatmulBlock{4, 4, /*vector=*/false} : block;
}

llvm::Expected<MatmulBlock>
rnnc::selectMatmulBlock(const TargetOptions &options) {
  llvm::Expected<TargetInfo> info = describeTarget(options);
  if (!info)
    return info.takeError();
  return info->matmulBlock();
}

llvm::Expected<MatmulBlock>
rnnc::selectCMatmulBlock(const TargetOptions &options) {
  llvm::Expected<TargetInfo> info = describeTarget(options);
  if (!info)
    return info.takeError();
  return info->cMatmulBlock();
}

llvm::Expected<unsigned> rnnc::indexBitwidth(const TargetOptions &options) {
  llvm::Expected<TargetInfo> info = describeTarget(options);
  if (!info)
    return info.takeError();
  return info->indexBitwidth();
}

bool rnnc::isMicrocontroller(const TargetOptions &options) {
  if (llvm::StringRef(options.cpu).starts_with("cortex-m"))
    return true;
  return !options.triple.empty() &&
         llvm::Triple(llvm::Triple::normalize(options.triple)).isArmMClass();
}

llvm::Error rnnc::checkHostRuns(const TargetOptions &options) {
  if (options.cpu.empty() && options.triple.empty())
    return llvm::Error::success();
  if (!options.triple.empty() &&
      llvm::Triple::normalize(options.triple) != llvm::sys::getProcessTriple())
    return llvm::createStringError("this machine cannot run code for '" +
                                   options.triple + "'");
  llvm::Expected<detail::Machine> machine =
      detail::createTargetMachine(options);
  if (!machine)
    return machine.takeError();
  const llvm::MCSubtargetInfo &subtarget =
      *machine->machine->getMCSubtargetInfo();
  // What rnnc targets by default (the host CPU as LLVM names it) counts as
  // runnable too: a VM hides some system features (pku, wbnoinvd) that its
  // CPU's LLVM description has and user code never needs.
  llvm::Expected<detail::Machine> hostMachine =
      detail::createTargetMachine(
          TargetOptions{"", llvm::sys::getHostCPUName().str()});
  if (!hostMachine)
    return hostMachine.takeError();
  const llvm::MCSubtargetInfo &hostDefault =
      *hostMachine->machine->getMCSubtargetInfo();
  llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
  // Without the host's feature list there is nothing to compare.
  if (host.empty())
    return llvm::Error::success();
  std::string missing;
  for (const llvm::SubtargetFeatureKV &feature :
       subtarget.getAllProcessorFeatures()) {
    llvm::StringRef name = feature.Key;
    std::string plus = ("+" + name).str();
    auto it = host.find(name);
    if (it == host.end() || it->second || !subtarget.checkFeatures(plus) ||
        hostDefault.checkFeatures(plus))
      continue;
    missing += (missing.empty() ? "" : ", ") + name.str();
  }
  if (missing.empty())
    return llvm::Error::success();
  return llvm::createStringError("this machine cannot run code for CPU '" +
                                 options.cpu + "': it lacks " + missing);
}
