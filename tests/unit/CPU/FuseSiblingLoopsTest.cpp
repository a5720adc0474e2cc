//===- FuseSiblingLoopsTest.cpp - Two loops of one trip count as one ------===//

#include "FuseSiblingLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;

namespace {

class FuseSiblingLoopsTest : public ::testing::Test {
protected:
  FuseSiblingLoopsTest() {
    context
        .loadDialect<func::FuncDialect, scf::SCFDialect, arith::ArithDialect>();
  }

  /// Parses `body` as the body of `func.func @f(%n: index) -> (index, index)`.
  void parse(StringRef body) {
    std::string text =
        "func.func @f(%n: index) -> (index, index) {\n" + body.str() + "\n}";
    module = parseSourceString<ModuleOp>(text, &context);
    ASSERT_TRUE(module) << text;
  }

  SmallVector<scf::ForOp> loops() {
    auto f = cast<func::FuncOp>(module->getBody()->front());
    return llvm::to_vector(f.getBody().front().getOps<scf::ForOp>());
  }

  FailureOr<scf::ForOp> fuse() {
    SmallVector<scf::ForOp> found = loops();
    EXPECT_EQ(found.size(), 2u);
    IRRewriter rewriter(&context);
    return rnn::fuseSiblingLoops(rewriter, found[0], found[1]);
  }

  /// Parses `body`, whose two loops must not be fused, and checks that
  /// fusing them fails and leaves the IR as it was.
  void expectRefused(StringRef body) {
    parse(body);
    std::string before = print();
    EXPECT_TRUE(failed(fuse()));
    EXPECT_EQ(print(), before);
  }

  std::string print() {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    return text;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

// Sums of the induction variables of a loop over 0..8 step 2 and one over
// 1..13 step 3 (four iterations each), and a value the second loop reads
// that is defined between the two.
constexpr StringRef kIndependent = R"(
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c13 = arith.constant 13 : index
  %a = scf.for %i = %c0 to %c8 step %c2 iter_args(%s = %c0) -> (index) {
    %t = arith.addi %s, %i : index
    scf.yield %t : index
  }
  %start = arith.addi %n, %c1 : index
  %b = scf.for %j = %c1 to %c13 step %c3 iter_args(%s = %start) -> (index) {
    %t = arith.addi %s, %j : index
    scf.yield %t : index
  }
  return %a, %b : index, index)";

TEST_F(FuseSiblingLoopsTest, RunsBothBodiesInOneLoop) {
  parse(kIndependent);
  FailureOr<scf::ForOp> fused = fuse();
  ASSERT_TRUE(succeeded(fused));
  EXPECT_TRUE(succeeded(verify(*module)));
  ASSERT_EQ(loops().size(), 1u);
  // The first loop's bounds; both accumulators carried.
  EXPECT_EQ(getConstantIntValue(fused->getLowerBound()), 0);
  EXPECT_EQ(getConstantIntValue(fused->getUpperBound()), 8);
  EXPECT_EQ(getConstantIntValue(fused->getStep()), 2);
  EXPECT_EQ(fused->getNumResults(), 2u);
  // The second induction variable is rebuilt from the iteration:
  // 1 + (i - 0) / 2 * 3.
  std::string text = print();
  EXPECT_NE(text.find("arith.divui"), std::string::npos) << text;
  EXPECT_NE(text.find("arith.muli"), std::string::npos) << text;
  // What the second loop read is now defined before the fused loop.
  auto start =
      llvm::find_if(fused->getOperation()->getBlock()->getOperations(),
                    [](Operation &op) { return isa<arith::AddIOp>(op); });
  ASSERT_NE(start, fused->getOperation()->getBlock()->end());
  EXPECT_TRUE(start->isBeforeInBlock(*fused));
  // The function returns the fused loop's results, in order.
  auto ret =
      cast<func::ReturnOp>(fused->getOperation()->getBlock()->getTerminator());
  EXPECT_EQ(ret.getOperand(0), fused->getResult(0));
  EXPECT_EQ(ret.getOperand(1), fused->getResult(1));
}

// Two loops from 0 step 1 up to the given bounds; the second starts from
// `secondInit` (the first loop's result %a makes it dependent).
std::string twoLoops(StringRef firstUpper, StringRef secondUpper,
                     StringRef secondInit) {
  return (R"(
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %a = scf.for %i = %c0 to )" +
          firstUpper + R"( step %c1 iter_args(%s = %c0) -> (index) {
    scf.yield %i : index
  }
  %b = scf.for %j = %c0 to )" +
          secondUpper + R"( step %c1 iter_args(%s = )" + secondInit +
          R"() -> (index) {
    scf.yield %j : index
  }
  return %a, %b : index, index)")
      .str();
}

TEST_F(FuseSiblingLoopsTest, RefusesDifferentTripCounts) {
  expectRefused(twoLoops("%c4", "%c5", "%c0"));
}

TEST_F(FuseSiblingLoopsTest, RefusesADependentSecondLoop) {
  expectRefused(twoLoops("%c4", "%c4", "%a"));
}

TEST_F(FuseSiblingLoopsTest, RefusesDynamicBounds) {
  expectRefused(twoLoops("%n", "%n", "%c0"));
}

} // namespace
