//===- TargetInfoTest.cpp - What describeTarget reads off a target ---------===//
//
// The pipeline decides from these fields alone (selectCodegenOptions), so
// each is checked on a CPU where it is known: the vector unit, registers,
// FMA, the bf16 and int8 dot products, pointer width, microcontroller, and
// what the pipeline derives from them.

#include "rnn/Pipelines/Pipelines.h"
#include "rnn/Target/TargetInfo.h"

#include "gtest/gtest.h"

using namespace rnnc;

namespace {

TargetInfo describe(const std::string &triple, const std::string &cpu) {
  llvm::Expected<TargetInfo> info = describeTarget({triple, cpu});
  if (!info) {
    ADD_FAILURE() << triple << " " << cpu << ": "
                  << llvm::toString(info.takeError());
    return {};
  }
  return *info;
}

TEST(TargetInfoTest, X86) {
  TargetInfo zen4 = describe("x86_64-linux-gnu", "znver4");
  EXPECT_EQ(zen4.vectorBits, 512u);
  EXPECT_EQ(zen4.registers, 32u);
  EXPECT_TRUE(zen4.fma && zen4.bf16Dot && zen4.int8Dot);
  EXPECT_EQ(zen4.pointerBits, 64u);
  EXPECT_FALSE(zen4.microcontroller);
  EXPECT_EQ(zen4.indexBitwidth(), 0u);
  EXPECT_EQ(zen4.vectorLanes(), 16);
  EXPECT_TRUE(zen4.overlapsInputProjection());
  EXPECT_EQ(zen4.cacheBytes, 1 << 20);
  // vdpbf16ps and vpdpbusd on a whole register: 16 lanes; the VNNI kernel
  // keeps 16 of the 32 registers for its sums.
  EXPECT_EQ(zen4.narrowestVectorBlock(), 8);
  EXPECT_EQ(zen4.kernelAccumulators(), 16);
  // vcvtneps2bf16 rounds bf16 compute's values.
  EXPECT_TRUE(zen4.bf16Convert());

  TargetInfo haswell = describe("x86_64-linux-gnu", "haswell");
  EXPECT_EQ(haswell.vectorBits, 256u);
  EXPECT_EQ(haswell.registers, 16u);
  // The smallest L2 of AVX2 cores: larger recurrent weights run no phases
  // of fewer rows in length-sorted blocks.
  EXPECT_EQ(haswell.cacheBytes, 256 << 10);
  EXPECT_TRUE(haswell.fma);
  EXPECT_FALSE(haswell.bf16Dot || haswell.int8Dot || haswell.bf16Convert());
  EXPECT_TRUE(haswell.int16PairDot); // AVX2's vpmaddwd
  EXPECT_EQ(haswell.vectorLanes(), 8);
  // 16 registers leave too few accumulators for the recurrence.
  EXPECT_FALSE(haswell.overlapsInputProjection());
  EXPECT_EQ(haswell.narrowestVectorBlock(), 8);
  EXPECT_EQ(haswell.kernelAccumulators(), 8);
  EXPECT_EQ(haswell.scanBlocking().runtimeStepBlock, 16);
  EXPECT_EQ(haswell.scanBlocking().skipBlockRows, 32);
  EXPECT_EQ(haswell.scanBlocking().lengthBlockRows, 4);

  TargetInfo alderlake = describe("x86_64-linux-gnu", "alderlake");
  EXPECT_EQ(alderlake.vectorBits, 256u);
  EXPECT_TRUE(alderlake.int8Dot); // AVX-VNNI
  EXPECT_FALSE(alderlake.bf16Dot || alderlake.bf16Convert());
  TargetInfo skylake = describe("x86_64-linux-gnu", "skylake-avx512");
  EXPECT_EQ(skylake.vectorBits, 512u);
  EXPECT_FALSE(skylake.bf16Dot || skylake.bf16Convert());

  TargetInfo sse = describe("x86_64-linux-gnu", "x86-64");
  EXPECT_EQ(sse.vectorBits, 128u);
  EXPECT_FALSE(sse.int8Dot || sse.int16PairDot);
}

TEST(TargetInfoTest, Arm) {
  TargetInfo a76 = describe("aarch64-linux-gnu", "cortex-a76");
  EXPECT_EQ(a76.vectorBits, 128u);
  EXPECT_EQ(a76.registers, 32u);
  EXPECT_TRUE(a76.fma && a76.int8Dot);
  EXPECT_EQ(a76.vectorLanes(), 4);
  EXPECT_FALSE(a76.overlapsInputProjection());

  TargetInfo m4 = describe("thumbv7em-none-eabihf", "cortex-m4");
  EXPECT_EQ(m4.vectorBits, 0u);
  EXPECT_TRUE(m4.floatRegisters && m4.fma && m4.microcontroller);
  EXPECT_EQ(m4.pointerBits, 32u);
  EXPECT_EQ(m4.indexBitwidth(), 32u);
  EXPECT_TRUE(m4.rationalGates() && m4.shortLoadOffsets());
  EXPECT_EQ(m4.narrowestVectorBlock(), 0); // no vector blocks
  EXPECT_EQ(m4.scanBlocking().runtimeStepBlock, 16);
  EXPECT_EQ(m4.scanBlocking().skipBlockRows, 32);
  EXPECT_EQ(m4.scanBlocking().lengthBlockRows, 4);

  TargetInfo m3 = describe("thumbv7m-none-eabi", "cortex-m3");
  EXPECT_FALSE(m3.floatRegisters || m3.fma);
  EXPECT_TRUE(m3.microcontroller && m3.shortLoadOffsets());
  EXPECT_FALSE(m3.rationalGates()); // soft-float division is a routine

  // Debian's armhf: VFPv3-D16, whose multiply-adds are not fused.
  TargetInfo armhf = describe("armv7-linux-gnueabihf", "");
  EXPECT_TRUE(armhf.floatRegisters);
  EXPECT_FALSE(armhf.fma || armhf.microcontroller);
  EXPECT_EQ(armhf.vectorBits, 0u);
  EXPECT_TRUE(armhf.rationalGates() && armhf.shortLoadOffsets());
  EXPECT_FALSE(a76.rationalGates() || a76.shortLoadOffsets());
}

TEST(TargetInfoTest, CodegenOptionsFollowTheTarget) {
  llvm::Expected<CodegenOptions> m4 = selectCodegenOptions(
      {"thumbv7em-none-eabihf", "cortex-m4"}, CodegenPath::LLVM,
      Optimize::Default);
  ASSERT_TRUE(static_cast<bool>(m4)) << llvm::toString(m4.takeError());
  EXPECT_TRUE(m4->ramLean && m4->scalarMatmuls);
  EXPECT_EQ(m4->blockRows, 4);
  EXPECT_EQ(m4->blockColumns, 4);
  EXPECT_EQ(m4->workspaceAlignment, 8);
  EXPECT_EQ(m4->indexBitwidth, 32u);
  EXPECT_TRUE(m4->rationalGates && m4->innermostBuffersFirst);
  // LLVM unrolls the blocks' loops over k itself; GCC at -O2 does not.
  EXPECT_EQ(m4->blockUnrollK, 1);
  llvm::Expected<CodegenOptions> m4C = selectCodegenOptions(
      {"thumbv7em-none-eabihf", "cortex-m4"}, CodegenPath::C,
      Optimize::Default);
  ASSERT_TRUE(static_cast<bool>(m4C));
  EXPECT_EQ(m4C->blockUnrollK, 4);
  EXPECT_TRUE(m4C->rationalGates);

  llvm::Expected<CodegenOptions> m4Speed = selectCodegenOptions(
      {"thumbv7em-none-eabihf", "cortex-m4"}, CodegenPath::LLVM,
      Optimize::Speed);
  ASSERT_TRUE(static_cast<bool>(m4Speed));
  EXPECT_FALSE(m4Speed->ramLean);
  EXPECT_EQ(m4Speed->workspaceAlignment, 64);

  llvm::Expected<CodegenOptions> zen4 = selectCodegenOptions(
      {"x86_64-linux-gnu", "znver4"}, CodegenPath::LLVM, Optimize::Default);
  ASSERT_TRUE(static_cast<bool>(zen4));
  EXPECT_FALSE(zen4->ramLean || zen4->scalarMatmuls);
  EXPECT_FALSE(zen4->rationalGates || zen4->innermostBuffersFirst);
  EXPECT_EQ(zen4->blockUnrollK, 1);
  EXPECT_EQ(zen4->blockColumns, 64);
  EXPECT_EQ(zen4->vectorLanes, 16);
  EXPECT_EQ(zen4->minVectorColumns, 8);
  EXPECT_EQ(zen4->kernelAccumulators, 16);
  EXPECT_EQ(zen4->scanBlocking.runtimeStepBlock, 16);
  EXPECT_TRUE(zen4->overlapInputProjection);
  EXPECT_EQ(zen4->cacheBytes, 1 << 20);
  EXPECT_EQ(zen4->int8Dot, "vpdpbusd");
  llvm::Expected<CodegenOptions> haswell = selectCodegenOptions(
      {"x86_64-linux-gnu", "haswell"}, CodegenPath::LLVM, Optimize::Default);
  ASSERT_TRUE(static_cast<bool>(haswell));
  EXPECT_EQ(haswell->vectorLanes, 8);
  EXPECT_FALSE(haswell->overlapInputProjection);
  EXPECT_EQ(haswell->int8Dot, "vpmaddwd");
  llvm::Expected<CodegenOptions> a72 = selectCodegenOptions(
      {"aarch64-linux-gnu", "cortex-a72"}, CodegenPath::LLVM,
      Optimize::Default);
  ASSERT_TRUE(static_cast<bool>(a72));
  EXPECT_TRUE(a72->int8Dot.empty());
  llvm::Expected<CodegenOptions> zen4C = selectCodegenOptions(
      {"x86_64-linux-gnu", "znver4"}, CodegenPath::C, Optimize::Default);
  ASSERT_TRUE(static_cast<bool>(zen4C));
  EXPECT_TRUE(zen4C->scalarMatmuls);
  EXPECT_EQ(zen4C->blockColumns, 4);

  // The C path without a target does not look at the host.
  llvm::Expected<CodegenOptions> c =
      selectCodegenOptions({}, CodegenPath::C, Optimize::Ram);
  ASSERT_TRUE(static_cast<bool>(c));
  EXPECT_TRUE(c->ramLean && c->scalarMatmuls);
  EXPECT_EQ(c->blockRows, 4);

  llvm::Expected<CodegenOptions> bad = selectCodegenOptions(
      {"x86_64-linux-gnu", "znver9"}, CodegenPath::C, Optimize::Default);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("unknown CPU 'znver9'"),
            std::string::npos);
}

} // namespace
