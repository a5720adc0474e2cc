//===- CellKindOpsTest.cpp - The front end's cell table and the dialect ---===//
//
// A cell kind's gate count is written twice: in its row of CellKinds.cpp
// (the Flax layout, shapes and the reference read it) and as kNumGates of
// its op in RNNCells.td (the verifier and the lowering read it). MLIRGen
// builds the row's op, so the two must agree; this holds them to it.
//
//===----------------------------------------------------------------------===//

#include "rnn/IR/RNNDialect.h"
#include "rnn/IR/RNNInterfaces.h"
#include "rnn/Spec/CellKinds.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace rnnc::spec;

namespace {

TEST(CellKindOps, EachRowNamesACellOpWithItsGateCount) {
  MLIRContext ctx;
  ctx.loadDialect<rnn::RNNDialect>();
  for (const CellKindInfo &info : cellKinds()) {
    std::optional<RegisteredOperationName> op =
        RegisteredOperationName::lookup(info.opName, &ctx);
    ASSERT_TRUE(op.has_value()) << info.opName.str() << " is not an op";
    auto *cell = op->getInterface<rnn::CellOpInterface>();
    ASSERT_NE(cell, nullptr)
        << info.opName.str() << " does not implement CellOpInterface";
    EXPECT_EQ(cell->getNumGates(), info.numGates()) << info.name.str();
  }
}

} // namespace
