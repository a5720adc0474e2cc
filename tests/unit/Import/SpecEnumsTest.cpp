//===- SpecEnumsTest.cpp - The spec's enums name the dialect's ------------===//
//
// SpecEnums.h holds the values of the spec's Activation and Merge to
// RNNEnums.td's at compile time; here every value's name in the spec (its
// YAML spelling) is the dialect's name for the value it maps to.
//
//===----------------------------------------------------------------------===//

#include "rnn/Import/SpecEnums.h"

#include "gtest/gtest.h"

using namespace rnnc;

TEST(SpecEnumsTest, ActivationNamesAgree) {
  for (uint32_t v = 0; v <= mlir::rnn::getMaxEnumValForActivation(); ++v) {
    auto fn = static_cast<spec::Activation>(v);
    EXPECT_EQ(llvm::StringRef(spec::stringify(fn)),
              mlir::rnn::stringifyActivation(toDialect(fn)));
  }
}

TEST(SpecEnumsTest, MergeNamesAgree) {
  for (uint32_t v = 0; v <= mlir::rnn::getMaxEnumValForMerge(); ++v) {
    auto merge = static_cast<spec::Merge>(v);
    EXPECT_EQ(llvm::StringRef(spec::stringify(merge)),
              mlir::rnn::stringifyMerge(toDialect(merge)));
  }
}
