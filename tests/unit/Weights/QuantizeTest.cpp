//===- QuantizeTest.cpp - int8 weights, symmetric per output column -------===//

#include "rnn/Weights/Quantize.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace rnnc;

/// Each column's scale is its max |w| / 127 in float32; the largest weight
/// becomes +-127; values round to nearest with ties to even.
TEST(QuantizeTest, ScalesPerColumnAndRoundsHalfToEven) {
  // Column 0: max 127 (scale 1), ties at 2.5 and -0.5; column 1: max 2.54
  // (scale 0.02), -2.54 becomes -127.
  Tensor kernel{{3, 2}, {127.0f, 1.27f, 2.5f, -2.54f, -0.5f, 0.01f}};
  std::optional<Int8Kernel> q = quantizeInt8PerColumn(kernel);
  ASSERT_TRUE(q);
  EXPECT_EQ(q->shape, kernel.shape);
  EXPECT_EQ(q->scales[0], 1.0f);
  EXPECT_EQ(q->scales[1], 2.54f / 127.0f);
  EXPECT_EQ(q->values[0], 127);
  EXPECT_EQ(q->values[2], 2);  // 2.5: tie, to even
  EXPECT_EQ(q->values[4], 0);  // -0.5: tie, to even (zero)
  EXPECT_EQ(q->values[3], -127);
  EXPECT_EQ(q->values[1], int8_t(std::nearbyint(1.27f / q->scales[1])));
  // Dequantized: value * scale, and within half a step of the original.
  Tensor back = dequantize(*q);
  for (size_t i = 0; i < kernel.data.size(); ++i) {
    EXPECT_EQ(back.data[i], float(q->values[i]) * q->scales[i % 2]);
    EXPECT_LE(std::fabs(back.data[i] - kernel.data[i]),
              0.5f * q->scales[i % 2] * (1 + 1e-6f));
  }
}

/// A zero column, and one so small that max / 127 underflows to zero, get
/// scale 1 and zeros: exact for the zero column, off by the subnormal for
/// the other.
TEST(QuantizeTest, ZeroColumnsGetScaleOne) {
  float tiny = std::numeric_limits<float>::denorm_min();
  Tensor kernel{{2, 2}, {0.0f, tiny, -0.0f, 0.0f}};
  std::optional<Int8Kernel> q = quantizeInt8PerColumn(kernel);
  ASSERT_TRUE(q);
  EXPECT_EQ(q->scales, (std::vector<float>{1.0f, 1.0f}));
  EXPECT_EQ(q->values, (std::vector<int8_t>{0, 0, 0, 0}));
}

/// Non-finite weights have no int8 value.
TEST(QuantizeTest, RejectsNonFiniteWeights) {
  for (float bad : {std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity(), std::nanf("")}) {
    Tensor kernel{{2, 2}, {1.0f, 2.0f, bad, 0.5f}};
    EXPECT_FALSE(quantizeInt8PerColumn(kernel));
  }
}

/// Quantizing the dequantized kernel again gives the same int8 values (the
/// benchmark feeds rnnc dequantized kernels).
TEST(QuantizeTest, RequantizesToTheSameValues) {
  Tensor kernel{{3, 3}, {0.3f, -1.7f, 0.02f, 0.11f, 0.9f, -0.04f, -0.25f,
                         0.5f, 0.031f}};
  std::optional<Int8Kernel> q = quantizeInt8PerColumn(kernel);
  ASSERT_TRUE(q);
  std::optional<Int8Kernel> again = quantizeInt8PerColumn(dequantize(*q));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->values, q->values);
  for (size_t j = 0; j < 3; ++j)
    EXPECT_NEAR(again->scales[j], q->scales[j], 1e-6f * q->scales[j]);
}
