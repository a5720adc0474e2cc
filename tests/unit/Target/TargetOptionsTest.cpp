//===- TargetOptionsTest.cpp - Bad --target/--cpu are clean errors --------===//
//
// An unknown CPU is one error naming close CPUs, before LLVM could print its
// "is not a recognized processor" warning (it did, once per subtarget, and
// went on); a hard-float triple whose CPU has no FPU is an error too.

#include "rnn/Target/Target.h"

#include "gtest/gtest.h"

using namespace rnnc;

namespace {

/// The error of selecting a block for `triple` and `cpu`, and what was
/// printed to stderr meanwhile.
std::pair<std::string, std::string> failure(const std::string &triple,
                                            const std::string &cpu) {
  testing::internal::CaptureStderr();
  llvm::Expected<MatmulBlock> block = selectMatmulBlock({triple, cpu});
  std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(static_cast<bool>(block)) << triple << " " << cpu;
  return {block ? "" : llvm::toString(block.takeError()), printed};
}

TEST(TargetOptionsTest, UnknownCpuListsCloseNames) {
  auto [error, printed] = failure("thumbv7em-none-eabihf", "cortex-m44");
  EXPECT_NE(error.find("unknown CPU 'cortex-m44'"), std::string::npos)
      << error;
  EXPECT_NE(error.find("did you mean cortex-m4,"), std::string::npos) << error;
  EXPECT_EQ(printed, "");

  std::tie(error, printed) = failure("aarch64-linux-gnu", "cortex-a7b");
  EXPECT_NE(error.find("cortex-a76"), std::string::npos) << error;
  EXPECT_EQ(printed, "");

  std::tie(error, printed) = failure("x86_64-linux-gnu", "znver9");
  EXPECT_NE(error.find("znver4"), std::string::npos) << error;
  EXPECT_EQ(printed, "");
}

TEST(TargetOptionsTest, HardFloatNeedsAnFpu) {
  auto [error, printed] = failure("thumbv7em-none-eabihf", "cortex-m3");
  EXPECT_NE(error.find("hard-float, but CPU 'cortex-m3' has no FPU"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("thumbv7em-unknown-none-eabi)"), std::string::npos)
      << error;
  std::tie(error, printed) = failure("thumbv7m-none-eabihf", "");
  EXPECT_NE(error.find("its architecture has no FPU"), std::string::npos)
      << error;
  EXPECT_EQ(printed, "");
}

TEST(TargetOptionsTest, EmbeddedTriplesAreAccepted) {
  for (auto [triple, cpu] :
       {std::pair{"thumbv7em-none-eabihf", ""},
        std::pair{"thumbv7em-none-eabihf", "cortex-m4"},
        std::pair{"thumbv7m-none-eabi", "cortex-m3"},
        std::pair{"armv7-linux-gnueabihf", ""},
        std::pair{"riscv32-unknown-elf", "sifive-e76"},
        std::pair{"riscv64-linux-gnu", ""}, std::pair{"xtensa-none-elf", ""}}) {
    testing::internal::CaptureStderr();
    llvm::Expected<MatmulBlock> block = selectMatmulBlock({triple, cpu});
    EXPECT_TRUE(static_cast<bool>(block))
        << triple << ": " << llvm::toString(block.takeError());
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "") << triple;
  }
}

} // namespace
