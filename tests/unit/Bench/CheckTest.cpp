//===- CheckTest.cpp - The benchmark's correctness gate -------------------===//

#include "Problem.h"

#include <gtest/gtest.h>

using namespace rnnc::bench;

namespace {

constexpr int kRows = 2, kSteps = 5, kFeatures = 10;

/// y of 2 rows x 5 steps x 10 features (20 values a step), no carries.
Problem smallProblem() {
  Problem problem;
  problem.config.cell = CellType::GRU;
  problem.config.hidden = kFeatures;
  problem.config.batch = kRows;
  problem.config.time = kSteps;
  return problem;
}

Outputs ramp() {
  Outputs outputs;
  for (int i = 0; i < kRows * kSteps * kFeatures; ++i)
    outputs.y.push_back(0.5f + i / 256.0f);
  return outputs;
}

float &at(Outputs &outputs, int row, int step, int feature) {
  return outputs.y[(row * kSteps + step) * kFeatures + feature];
}

/// `want` with every value of rows x [from, kSteps) x features moved by
/// `delta`.
Outputs fromStep(Outputs want, int from, float delta) {
  for (int b = 0; b < kRows; ++b)
    for (int t = from; t < kSteps; ++t)
      for (int k = 0; k < kFeatures; ++k)
        at(want, b, t, k) += delta;
  return want;
}

// bf16 compute's gate: one dot rounded the other way moves one value of its
// step by a bf16 ulp (2^-8 near 0.5); the steps after carry it on.
TEST(Check, AllowsFewValuesToDifferWhereTheOutputsFirstDepart) {
  Outputs want = ramp();
  Outputs got = fromStep(want, 2, 0x1p-8f);
  at(got, 1, 1, 3) += 0x1p-8f;
  Check check = checkOutputs(smallProblem(), want, got, Positions::All, 2e-2,
                             2e-2, 0.1);
  EXPECT_TRUE(check.ok) << check.detail;
  EXPECT_EQ(check.firstStep, 1);
  EXPECT_EQ(check.firstStepDiffering, 1);
  EXPECT_EQ(check.differing, 61);
}

// One value may always differ, however few a step has.
TEST(Check, AllowsOneValueToDifferInASmallStep) {
  Outputs want = ramp();
  Outputs got = want;
  at(got, 0, 3, 7) += 0x1p-8f;
  Check check = checkOutputs(smallProblem(), want, got, Positions::All, 2e-2,
                             2e-2, 0.01);
  EXPECT_TRUE(check.ok) << check.detail;
  at(got, 1, 3, 0) += 0x1p-8f;
  check = checkOutputs(smallProblem(), want, got, Positions::All, 2e-2, 2e-2,
                       0.01);
  EXPECT_FALSE(check.ok);
}

// A misplaced rounding point moves many values of the first step at once.
TEST(Check, FailsWhenManyValuesDifferAtTheFirstStepThatDiffers) {
  Outputs want = ramp();
  Outputs got = want;
  for (int k = 0; k < 3; ++k)
    at(got, 0, 2, k) += 0x1p-8f;
  Check check = checkOutputs(smallProblem(), want, got, Positions::All, 2e-2,
                             2e-2, 0.1);
  EXPECT_FALSE(check.ok);
  EXPECT_EQ(check.detail,
            "step 2, the first that differs: 3 of 20 values, more than 10%");
}

TEST(Check, FailsOneValueOutsideTheTolerance) {
  Outputs want = ramp();
  Outputs got = want;
  at(got, 0, 0, 0) += 0.05f;
  Check check = checkOutputs(smallProblem(), want, got, Positions::All, 2e-2,
                             2e-2, 0.1);
  EXPECT_FALSE(check.ok);
  EXPECT_EQ(check.detail, "y[0, 0, 0]: got 0.55, expected 0.5");
}

// The float32 gate: every value may differ, within the tolerance.
TEST(Check, LimitsNoStepByDefault) {
  Outputs want = ramp();
  Check check = checkOutputs(smallProblem(), want, fromStep(want, 0, 1e-4f),
                             Positions::All, 1e-3, 1e-3);
  EXPECT_TRUE(check.ok) << check.detail;
  EXPECT_EQ(check.firstStepDiffering, 20);
}

} // namespace
