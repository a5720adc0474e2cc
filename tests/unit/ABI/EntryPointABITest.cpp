//===- EntryPointABITest.cpp - What describeEntryPoint reads off <name>_run
//===//
//
// The description every consumer of the C ABI reads: roles, C names and
// types, run-time axes and the in-place carry pairs, from the attributes
// --rnn-create-entry-point leaves on the entry point's arguments.

#include "rnn/ABI/EntryPointABI.h"
#include "rnn/IR/RNNDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
namespace {

// Qualified: <cxxabi.h> (through gtest) has a global `abi`.
namespace abi = mlir::rnn::abi;

class EntryPointABITest : public ::testing::Test {
protected:
  EntryPointABITest() {
    ctx.loadDialect<arith::ArithDialect, func::FuncDialect,
                    memref::MemRefDialect>();
  }

  OwningOpRef<ModuleOp> parse(llvm::StringRef text) {
    return parseSourceString<ModuleOp>(text, &ctx);
  }

  MLIRContext ctx;
};

constexpr llvm::StringLiteral kModel = R"mlir(
module attributes {rnn.workspace_size = 256 : i64,
                   rnn.workspace_alignment = 32 : i64} {
  func.func @m_run(%x: memref<5x4x3xf32> {rnn.name = "x", rnn.batch_axis = 0 : i64},
                   %b: memref<i32> {rnn.name = "batch_0"},
                   %h0: memref<5x2xf32> {rnn.name = "initial_carry/enc/h"},
                   %y: memref<5x4x2xf32> {rnn.name = "y", rnn.output},
                   %h: memref<5x2xf32> {rnn.name = "carry/enc/h", rnn.output},
                   %ws: memref<?xi8> {rnn.workspace}) -> i32 {
    %c0 = arith.constant 0 : i32
    return %c0 : i32
  }
}
)mlir";

TEST_F(EntryPointABITest, DescribesEveryParameter) {
  OwningOpRef<ModuleOp> module = parse(kModel);
  ASSERT_TRUE(module);
  FailureOr<abi::EntryPointABI> entry = abi::describeEntryPoint(*module, "m");
  ASSERT_TRUE(succeeded(entry));
  EXPECT_EQ(entry->name, "m_run");
  ASSERT_EQ(entry->parameters.size(), 6u);
  const auto &params = entry->parameters;

  EXPECT_EQ(params[0].role, abi::Role::Input);
  EXPECT_EQ(*params[0].cPointerType(), "const float *");
  EXPECT_EQ(params[0].batchAxis, 0);
  EXPECT_EQ(params[0].numElements(), 60);

  EXPECT_EQ(params[1].role, abi::Role::BatchSize);
  EXPECT_EQ(params[1].batchSizeOf, 0);
  EXPECT_EQ(*params[1].cPointerType(), "const int32_t *");

  EXPECT_EQ(params[2].role, abi::Role::InitialCarry);
  EXPECT_EQ(params[2].cName, "initial_carry_enc_h");
  EXPECT_EQ(params[3].role, abi::Role::Output);
  EXPECT_EQ(*params[3].cPointerType(), "float *");
  EXPECT_EQ(params[4].role, abi::Role::FinalCarry);

  // Only an initial carry and its final carry may share a buffer.
  EXPECT_EQ(params[2].mayAlias, 4u);
  EXPECT_EQ(params[4].mayAlias, 2u);
  EXPECT_FALSE(params[0].mayAlias || params[3].mayAlias || params[5].mayAlias);

  ASSERT_TRUE(entry->workspaceParameter());
  EXPECT_EQ(*entry->workspaceParameter()->cPointerType(), "void *");
  EXPECT_EQ(entry->workspace.size, 256);
  EXPECT_EQ(entry->workspace.alignment, 32);
  EXPECT_EQ(entry->find("carry/enc/h"), &params[4]);
}

TEST_F(EntryPointABITest, TokensAreInt32Inputs) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @t_run(%x: memref<2x3xi32> {rnn.name = "x"},
                     %l: memref<2xi32> {rnn.name = "seq_lengths"},
                     %s: memref<i32> {rnn.name = "steps"},
                     %ws: memref<?xi8> {rnn.workspace}) -> i32 {
      %c0 = arith.constant 0 : i32
      return %c0 : i32
    }
  )mlir");
  ASSERT_TRUE(module);
  FailureOr<abi::EntryPointABI> entry = abi::describeEntryPoint(*module, "t");
  ASSERT_TRUE(succeeded(entry));
  EXPECT_EQ(entry->parameters[0].role, abi::Role::Tokens);
  EXPECT_EQ(entry->parameters[1].role, abi::Role::SeqLengths);
  EXPECT_EQ(entry->parameters[2].role, abi::Role::Steps);
  // Before --rnn-assign-workspace: no size yet, the default alignment.
  EXPECT_FALSE(entry->workspace.size);
  EXPECT_EQ(entry->workspace.alignment, 64);
}

TEST_F(EntryPointABITest, NamesAndPrefixes) {
  EXPECT_EQ(abi::entryPointName("enc"), "enc_run");
  EXPECT_EQ(abi::macroPrefix("enc"), "ENC_");
  EXPECT_EQ(abi::parameterName("carry/enc/forward/h"), "carry_enc_forward_h");
}

/// Each element type's C name (the signature) and numpy name (the header's
/// prose, as the spec spells types); bf16 has no C name.
TEST_F(EntryPointABITest, ElementTypeNames) {
  Builder b(&ctx);
  EXPECT_EQ(abi::cElementTypeName(b.getF32Type()), "float");
  EXPECT_EQ(abi::cElementTypeName(b.getI32Type()), "int32_t");
  EXPECT_FALSE(abi::cElementTypeName(b.getBF16Type()));
  EXPECT_EQ(abi::elementTypeName(b.getF32Type()), "float32");
  EXPECT_EQ(abi::elementTypeName(b.getBF16Type()), "bfloat16");
  EXPECT_EQ(abi::elementTypeName(b.getF16Type()), "float16");
  EXPECT_EQ(abi::elementTypeName(b.getI32Type()), "int32");
  EXPECT_EQ(abi::elementTypeName(b.getI1Type()), "bool");
  EXPECT_FALSE(abi::elementTypeName(b.getIndexType()));
}

TEST_F(EntryPointABITest, MissingEntryPointIsAnError) {
  OwningOpRef<ModuleOp> module = parse("module {}");
  ASSERT_TRUE(module);
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(abi::describeEntryPoint(*module, "m")));
  EXPECT_EQ(message, "no entry point 'm_run'");
}

} // namespace
