//===- TargetMachine.h - An LLVM target machine for --target/--cpu -*- C++ -*-===//
//
// Internal to the Target library: the one place that turns rnnc's
// TargetOptions into an LLVM TargetMachine (float ABI, FPU, relocation
// model, checks of the CPU name), shared by describeTarget and emitNative.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_TARGET_TARGETMACHINE_H
#define RNN_TARGET_TARGETMACHINE_H

#include "rnn/Target/TargetInfo.h"

#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>

namespace rnnc::detail {

/// A target machine and what the module needs to agree with it.
struct Machine {
  std::unique_ptr<llvm::TargetMachine> machine;
  std::string riscvABI; ///< the `target-abi` module flag, RISC-V only
};

/// The machine for `options`: the host without a triple, the host CPU
/// without a CPU on the host. Fails with a user-facing message for an
/// unknown triple or CPU (listing close names) and for a hard-float triple
/// whose CPU has no FPU.
llvm::Expected<Machine> createTargetMachine(const TargetOptions &options);

} // namespace rnnc::detail

#endif // RNN_TARGET_TARGETMACHINE_H
