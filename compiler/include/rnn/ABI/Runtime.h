//===- Runtime.h - librnnrt as generated code sees it -----------*- C++ -*-===//
//
// The names of the librnnrt functions generated code calls and the status
// codes it returns, spelt once for every pass that calls or recognizes one.
// They mirror runtime/include/rnnrt/rnnrt.h and rnnrt_math.h, which
// tests/unit/ABI/RuntimeTest.cpp checks at compile time.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_ABI_RUNTIME_H
#define RNN_ABI_RUNTIME_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir::rnn::abi {

/// Every librnnrt function starts with this, and every macro with
/// kRuntimeMacroPrefix: a call to one needs librnnrt (or its headers), not
/// libm.
constexpr llvm::StringLiteral kRuntimePrefix = "rnnrt_";
constexpr llvm::StringLiteral kRuntimeMacroPrefix = "RNNRT_";

// rnnrt.h: checks and copies the entry point makes.
constexpr llvm::StringLiteral kCheckSeqLengths = "rnnrt_check_seq_lengths";
constexpr llvm::StringLiteral kCheckTokenIds = "rnnrt_check_token_ids";
constexpr llvm::StringLiteral kCopyBoxF32 = "rnnrt_copy_box_f32";
constexpr llvm::StringLiteral kCopyBoxI32 = "rnnrt_copy_box_i32";
// rnnrt.h: the lowerings of rnn.flip_sequences and rnn.select_last_carry.
constexpr llvm::StringLiteral kFlipSequencesF32 = "rnnrt_flip_sequences_f32";
constexpr llvm::StringLiteral kSelectLastCarryF32 =
    "rnnrt_select_last_carry_f32";
// rnnrt.h, static inline: bf16 storage on the C path.
constexpr llvm::StringLiteral kBF16ToF32 = "rnnrt_bf16_to_f32";
constexpr llvm::StringLiteral kRoundToBF16 = "rnnrt_round_to_bf16";
// rnnrt_math.h, static inline: the C path's errno-free math.
constexpr llvm::StringLiteral kExpF = "rnnrt_expf";
constexpr llvm::StringLiteral kTanhF = "rnnrt_tanhf";
/// A macro: fmaf where the target has FMA, else a multiply and an add.
constexpr llvm::StringLiteral kMulAddF = "RNNRT_MULADDF";

/// The headers generated C includes: librnnrt's declarations and its
/// inline math.
constexpr llvm::StringLiteral kRuntimeHeader = "rnnrt/rnnrt.h";
constexpr llvm::StringLiteral kMathHeader = "rnnrt/rnnrt_math.h";

/// The status codes of librnnrt (RNNRT_OK, RNNRT_ERROR_*) and of every
/// entry point (<NAME>_OK, <NAME>_ERROR_*), which returns librnnrt's
/// statuses unchanged.
enum Status : int32_t {
  kStatusOK = 0,
  /// A sequence length < 0 or > T (rnnrt_check_seq_lengths).
  kStatusSeqLength = 1,
  /// A NULL buffer, a misaligned workspace, a run-time size out of range.
  kStatusArgument = 2,
  /// A token id outside the embedding (rnnrt_check_token_ids).
  kStatusToken = 3,
};

} // namespace mlir::rnn::abi

#endif // RNN_ABI_RUNTIME_H
