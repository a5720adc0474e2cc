//===- MatmulBlockTest.cpp - The register block follows the target --------===//

#include "rnn/Target/Target.h"

#include "gtest/gtest.h"

using namespace rnnc;

namespace {

MatmulBlock select(const std::string &triple, const std::string &cpu) {
  llvm::Expected<MatmulBlock> block = selectMatmulBlock({triple, cpu});
  EXPECT_TRUE(static_cast<bool>(block)) << llvm::toString(block.takeError());
  return block ? *block : MatmulBlock{0, 0};
}

TEST(MatmulBlockTest, Avx512GetsSixteenWideRegisters) {
  MatmulBlock block = select("x86_64-linux-gnu", "znver4");
  EXPECT_EQ(block.rows, 4);
  EXPECT_EQ(block.columns, 64);
  block = select("x86_64-linux-gnu", "skylake-avx512");
  EXPECT_EQ(block.columns, 64);
}

TEST(MatmulBlockTest, Avx2AndNeonGetNarrowBlocks) {
  // 16 AVX2 registers (a 4 x 64 block would need 32 for accumulators).
  MatmulBlock avx2 = select("x86_64-linux-gnu", "znver3");
  EXPECT_EQ(avx2.rows, 4);
  EXPECT_EQ(avx2.columns, 16);
  MatmulBlock generic = select("x86_64-linux-gnu", "x86-64");
  EXPECT_EQ(generic.columns, 16);
  MatmulBlock neon = select("aarch64-linux-gnu", "cortex-a76");
  EXPECT_EQ(neon.rows, 4);
  EXPECT_EQ(neon.columns, 16);
}

TEST(MatmulBlockTest, UnknownTargetIsAnError) {
  llvm::Expected<MatmulBlock> block =
      selectMatmulBlock({"nonsense-triple", ""});
  ASSERT_FALSE(static_cast<bool>(block));
  EXPECT_NE(llvm::toString(block.takeError()).find("nonsense-triple"),
            std::string::npos);
}

} // namespace
