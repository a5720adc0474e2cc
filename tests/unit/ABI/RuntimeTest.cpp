//===- RuntimeTest.cpp - rnn/ABI/Runtime.h against librnnrt's headers -----===//
//
// The compiler's names for librnnrt's functions and statuses must be the
// ones its headers declare: each name is checked at compile time against a
// declaration (taking its type, without calling or linking it).

#include "rnn/ABI/Runtime.h"

#include "rnnrt/rnnrt.h"
#include "rnnrt/rnnrt_math.h"

#include "gtest/gtest.h"

#include <type_traits>

namespace {

// Qualified: <cxxabi.h> (through gtest) has a global `abi`.
namespace abi = mlir::rnn::abi;

/// `constant` spells the function `fn`, which the headers declare.
#define EXPECT_RUNTIME_FUNCTION(constant, fn)                                  \
  static_assert(std::is_function_v<decltype(fn)>, #fn " is not declared");     \
  EXPECT_EQ(abi::constant, llvm::StringRef(#fn))

TEST(RuntimeTest, FunctionNamesAreDeclared) {
  EXPECT_RUNTIME_FUNCTION(kCheckSeqLengths, rnnrt_check_seq_lengths);
  EXPECT_RUNTIME_FUNCTION(kCheckTokenIds, rnnrt_check_token_ids);
  EXPECT_RUNTIME_FUNCTION(kCopyBoxF32, rnnrt_copy_box_f32);
  EXPECT_RUNTIME_FUNCTION(kCopyBoxI32, rnnrt_copy_box_i32);
  EXPECT_RUNTIME_FUNCTION(kFlipSequencesF32, rnnrt_flip_sequences_f32);
  EXPECT_RUNTIME_FUNCTION(kSelectLastCarryF32, rnnrt_select_last_carry_f32);
  EXPECT_RUNTIME_FUNCTION(kBF16ToF32, rnnrt_bf16_to_f32);
  EXPECT_RUNTIME_FUNCTION(kRoundToBF16, rnnrt_round_to_bf16);
  EXPECT_RUNTIME_FUNCTION(kExpF, rnnrt_expf);
  EXPECT_RUNTIME_FUNCTION(kTanhF, rnnrt_tanhf);
}

TEST(RuntimeTest, NamesHaveTheRuntimePrefix) {
  for (llvm::StringRef name :
       {abi::kCheckSeqLengths, abi::kCheckTokenIds, abi::kCopyBoxF32,
        abi::kCopyBoxI32, abi::kFlipSequencesF32, abi::kSelectLastCarryF32,
        abi::kBF16ToF32, abi::kRoundToBF16, abi::kExpF, abi::kTanhF})
    EXPECT_TRUE(name.starts_with(abi::kRuntimePrefix)) << name.str();
  EXPECT_TRUE(abi::kMulAddF.starts_with(abi::kRuntimeMacroPrefix));
#ifndef RNNRT_MULADDF
  ADD_FAILURE() << "rnnrt_math.h defines no RNNRT_MULADDF";
#endif
}

TEST(RuntimeTest, StatusCodesAreLibrnnrts) {
  static_assert(abi::kStatusOK == RNNRT_OK);
  static_assert(abi::kStatusSeqLength == RNNRT_ERROR_SEQ_LENGTH);
  static_assert(abi::kStatusArgument == RNNRT_ERROR_ARGUMENT);
  static_assert(abi::kStatusToken == RNNRT_ERROR_TOKEN);
}

} // namespace
