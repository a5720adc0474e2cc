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

TEST(MatmulBlockTest, VectorTargetsGetVectorCode) {
  EXPECT_TRUE(select("x86_64-linux-gnu", "znver4").vector);
  EXPECT_TRUE(select("aarch64-linux-gnu", "").vector);
  EXPECT_TRUE(select("thumbv8.1m.main-none-eabihf", "cortex-m55").vector);
}

TEST(MatmulBlockTest, ScalarTargetsGetScalarBlocks) {
  // 16 accumulators of 32 single-precision registers (FPv4-SP-D16,
  // VFPv3-D16); 32-bit NEON is not IEEE, so LLVM keeps floats on VFP.
  for (auto [triple, cpu] :
       {std::pair<std::string, std::string>{"thumbv7em-none-eabihf", "cortex-m4"},
        {"thumbv8m.main-none-eabihf", "cortex-m33"},
        {"armv7-linux-gnueabihf", ""},
        {"armv7-linux-gnueabihf", "cortex-a7"}}) {
    MatmulBlock block = select(triple, cpu);
    EXPECT_FALSE(block.vector) << triple;
    EXPECT_EQ(block.rows, 4) << triple;
    EXPECT_EQ(block.columns, 4) << triple;
  }
  // Soft float: each value in an integer register a libgcc call keeps.
  MatmulBlock m3 = select("thumbv7m-none-eabi", "cortex-m3");
  EXPECT_FALSE(m3.vector);
  EXPECT_EQ(m3.rows * m3.columns, 4);
}

TEST(MatmulBlockTest, CIsScalarBlocksEverywhere) {
  llvm::Expected<MatmulBlock> host = selectCMatmulBlock({"x86_64-linux-gnu", "znver4"});
  ASSERT_TRUE(static_cast<bool>(host)) << llvm::toString(host.takeError());
  EXPECT_FALSE(host->vector);
  EXPECT_EQ(host->rows * host->columns, 16);
  llvm::Expected<MatmulBlock> m3 = selectCMatmulBlock({"thumbv7m-none-eabi", "cortex-m3"});
  ASSERT_TRUE(static_cast<bool>(m3)) << llvm::toString(m3.takeError());
  EXPECT_EQ(m3->rows * m3->columns, 4);
}

TEST(MatmulBlockTest, UnknownTargetIsAnError) {
  llvm::Expected<MatmulBlock> block =
      selectMatmulBlock({"nonsense-triple", ""});
  ASSERT_FALSE(static_cast<bool>(block));
  EXPECT_NE(llvm::toString(block.takeError()).find("nonsense-triple"),
            std::string::npos);
}

} // namespace
