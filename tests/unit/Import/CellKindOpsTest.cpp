//===- CellKindOpsTest.cpp - The front end's cell table and the dialect ---===//
//
// A cell kind's gate count is written twice: in its row of CellKinds.cpp
// (the Flax layout, shapes and the reference read it) and as kNumGates of
// its op in RNNCells.td (the verifier and the lowering read it). MLIRGen
// builds the row's op, so the two must agree; this holds them to it. It
// also sets the options the row takes as attributes of the same name, and
// a name the op does not declare would be a discardable attribute that
// silently changes nothing.
//
//===----------------------------------------------------------------------===//

#include "rnn/IR/RNNDialect.h"
#include "rnn/IR/RNNInterfaces.h"
#include "rnn/Spec/CellKinds.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"

#include "llvm/ADT/STLExtras.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace rnnc::spec;

namespace {

TEST(CellKindOps, EachRowNamesACellOpWithItsGatesAndOptions) {
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

    auto declares = [&](StringRef attr) {
      return llvm::any_of(op->getAttributeNames(), [&](StringAttr own) {
        return own.getValue() == attr;
      });
    };
    for (StringRef option :
         {"gate_fn", "activation_fn", "reset_gate", "residual"})
      if (info.takes(option))
        EXPECT_TRUE(declares(option))
            << info.opName.str() << " has no attribute " << option.str();
    if (info.lowPrecision)
      for (StringRef attr : {"compute_type", "carry_type", "dynamic_int8"})
        EXPECT_TRUE(declares(attr))
            << info.opName.str() << " has no attribute " << attr.str();
  }
}

} // namespace
