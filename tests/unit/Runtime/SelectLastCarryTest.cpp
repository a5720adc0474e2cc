//===- SelectLastCarryTest.cpp - last-carry selection and capture ---------===//

#include "Oracle.h"

#include "rnnrt/rnnrt.h"

#include "gtest/gtest.h"

#include <random>
#include <vector>

using namespace rnnc::test;

namespace {

constexpr float kSentinel = -12345.0f;

/// Carries stacked as (T, batch, carry) with value 100*t + 10*b + c + 1, and
/// an initial carry (batch, carry) with value -(10*b + c + 1).
struct Stack {
  int64_t time, batch, carry;
  std::vector<float> carries, initial;

  Stack(int64_t time, int64_t batch, int64_t carry)
      : time(time), batch(batch), carry(carry) {
    for (int64_t t = 0; t < time; ++t)
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t c = 0; c < carry; ++c)
          carries.push_back(static_cast<float>(100 * t + 10 * b + c + 1));
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t c = 0; c < carry; ++c)
        initial.push_back(static_cast<float>(-(10 * b + c + 1)));
  }

  /// Row b of the carry after step t.
  std::vector<float> step(int64_t t, int64_t b) const {
    auto first = carries.begin() + (t * batch + b) * carry;
    return std::vector<float>(first, first + carry);
  }
  std::vector<float> init(int64_t b) const {
    auto first = initial.begin() + b * carry;
    return std::vector<float>(first, first + carry);
  }

  std::vector<float> select(const std::vector<int32_t> &lengths) const {
    std::vector<float> out(static_cast<size_t>(batch * carry), kSentinel);
    rnnrt_status_t status =
        rnnrt_select_last_carry_f32(carries.data(), initial.data(),
                                    lengths.empty() ? nullptr : lengths.data(),
                                    batch, time, carry, out.data());
    EXPECT_EQ(status, RNNRT_OK) << rnnrt_status_string(status);
    return out;
  }
};

/// Row b of a (batch, carry) result.
std::vector<float> row(const std::vector<float> &v, int64_t b, int64_t carry) {
  return std::vector<float>(v.begin() + b * carry, v.begin() + (b + 1) * carry);
}

TEST(SelectLastCarryTest, LengthZeroSelectsInitialCarry) {
  Stack s(4, 2, 3);
  std::vector<float> out = s.select({0, 0});
  EXPECT_EQ(out, s.initial);
}

TEST(SelectLastCarryTest, LengthTSelectsLastStep) {
  Stack s(4, 2, 3);
  std::vector<float> out = s.select({4, 4});
  EXPECT_EQ(row(out, 0, 3), s.step(3, 0));
  EXPECT_EQ(row(out, 1, 3), s.step(3, 1));
  EXPECT_EQ(row(out, 1, 3), (std::vector<float>{311, 312, 313}));
}

TEST(SelectLastCarryTest, MixedLengths) {
  Stack s(5, 4, 2);
  std::vector<float> out = s.select({2, 0, 5, 1});
  EXPECT_EQ(out, (std::vector<float>{101, 102, -11, -12, 421, 422, 31, 32}));
}

TEST(SelectLastCarryTest, NullLengthsSelectsLastStep) {
  Stack s(3, 2, 2);
  EXPECT_EQ(s.select({}), (std::vector<float>{201, 202, 211, 212}));
  // With T = 0 there is no step: the initial carry.
  Stack empty(0, 2, 2);
  EXPECT_EQ(empty.select({}), empty.initial);
}

TEST(SelectLastCarryTest, SeveralBatchDimsAndCarryAxes) {
  // Batch dims [2, 3], carry (2, 2) as a ConvLSTM carry would be: compared
  // with the N-dimensional oracle.
  Shape batchShape = {2, 3}, carryShape = {2, 2};
  int64_t T = 4;
  Stack s(T, 6, 4);
  std::vector<int32_t> lengths = {0, 1, 4, 3, 2, 0};
  std::vector<float> out = s.select(lengths);
  EXPECT_EQ(out, selectOracle(s.carries, s.initial, lengths, batchShape,
                              carryShape, T));
  EXPECT_EQ(row(out, 3, 4), s.step(2, 3)); // row (1, 0), L = 3
  EXPECT_EQ(row(out, 5, 4), s.init(5));    // row (1, 2), L = 0
}

TEST(SelectLastCarryTest, OutMayAliasInitial) {
  Stack s(3, 3, 2);
  std::vector<float> state = s.initial;
  std::vector<int32_t> lengths = {3, 0, 1};
  ASSERT_EQ(rnnrt_select_last_carry_f32(s.carries.data(), state.data(),
                                        lengths.data(), 3, 3, 2, state.data()),
            RNNRT_OK);
  EXPECT_EQ(state, (std::vector<float>{201, 202, -11, -12, 21, 22}));
}

TEST(SelectLastCarryTest, EmptyArraysMayBeNull) {
  // T = 0: no stacked carries at all, every row keeps its initial carry.
  Stack s(0, 2, 3);
  std::vector<int32_t> zeros = {0, 0};
  std::vector<float> out(6, kSentinel);
  ASSERT_EQ(rnnrt_select_last_carry_f32(nullptr, s.initial.data(), zeros.data(),
                                        2, 0, 3, out.data()),
            RNNRT_OK);
  EXPECT_EQ(out, s.initial);
  EXPECT_EQ(
      rnnrt_select_last_carry_f32(nullptr, nullptr, nullptr, 0, 4, 3, nullptr),
      RNNRT_OK);
  EXPECT_EQ(rnnrt_capture_last_carry_f32(nullptr, 0, nullptr, 0, 3, nullptr),
            RNNRT_OK);
}

TEST(SelectLastCarryTest, RejectsOutOfRangeLengths) {
  Stack s(4, 2, 3);
  for (std::vector<int32_t> lengths :
       {std::vector<int32_t>{2, -1}, std::vector<int32_t>{5, 2}}) {
    std::vector<float> out(6, kSentinel);
    EXPECT_EQ(rnnrt_select_last_carry_f32(s.carries.data(), s.initial.data(),
                                          lengths.data(), 2, 4, 3, out.data()),
              RNNRT_ERROR_SEQ_LENGTH);
    EXPECT_EQ(out, std::vector<float>(6, kSentinel));
  }
}

TEST(SelectLastCarryTest, RejectsBadArguments) {
  Stack s(4, 2, 3);
  std::vector<int32_t> lengths = {1, 2};
  std::vector<float> out(6, kSentinel);
  const float *c = s.carries.data(), *i = s.initial.data();
  const int32_t *l = lengths.data();
  EXPECT_EQ(rnnrt_select_last_carry_f32(nullptr, i, l, 2, 4, 3, out.data()),
            RNNRT_ERROR_ARGUMENT);
  EXPECT_EQ(rnnrt_select_last_carry_f32(c, nullptr, l, 2, 4, 3, out.data()),
            RNNRT_ERROR_ARGUMENT);
  EXPECT_EQ(rnnrt_select_last_carry_f32(c, i, l, 2, 4, 3, nullptr),
            RNNRT_ERROR_ARGUMENT);
  EXPECT_EQ(rnnrt_select_last_carry_f32(c, i, l, -2, 4, 3, out.data()),
            RNNRT_ERROR_ARGUMENT);
  EXPECT_EQ(rnnrt_select_last_carry_f32(c, i, l, 2, -4, 3, out.data()),
            RNNRT_ERROR_ARGUMENT);
  EXPECT_EQ(rnnrt_select_last_carry_f32(c, i, l, 2, 4, -3, out.data()),
            RNNRT_ERROR_ARGUMENT);
  EXPECT_EQ(out, std::vector<float>(6, kSentinel));
}

TEST(CaptureLastCarryTest, MatchesSelectWhenCalledEveryStep) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 50; ++iter) {
    int64_t T = std::uniform_int_distribution<int64_t>(0, 6)(rng);
    int64_t batch = std::uniform_int_distribution<int64_t>(1, 5)(rng);
    Stack s(T, batch, 3);
    std::vector<int32_t> lengths;
    for (int64_t b = 0; b < batch; ++b)
      lengths.push_back(std::uniform_int_distribution<int32_t>(
          0, static_cast<int32_t>(T))(rng));
    std::vector<float> expected = s.select(lengths);

    // Start with t = -1 and the initial carry, then one call per step.
    std::vector<float> out(static_cast<size_t>(batch * 3), kSentinel);
    ASSERT_EQ(rnnrt_capture_last_carry_f32(s.initial.data(), -1, lengths.data(),
                                           batch, 3, out.data()),
              RNNRT_OK);
    for (int64_t t = 0; t < T; ++t)
      ASSERT_EQ(rnnrt_capture_last_carry_f32(s.carries.data() + t * batch * 3,
                                             t, lengths.data(), batch, 3,
                                             out.data()),
                RNNRT_OK);
    EXPECT_EQ(out, expected) << "iteration " << iter;

    // Equivalently, start from a copy of the initial carry.
    out = s.initial;
    for (int64_t t = 0; t < T; ++t)
      ASSERT_EQ(rnnrt_capture_last_carry_f32(s.carries.data() + t * batch * 3,
                                             t, lengths.data(), batch, 3,
                                             out.data()),
                RNNRT_OK);
    EXPECT_EQ(out, expected) << "iteration " << iter;
  }
}

TEST(CaptureLastCarryTest, WritesOnlyMatchingRows) {
  Stack s(3, 3, 2);
  std::vector<int32_t> lengths = {2, 0, 2};
  std::vector<float> out(6, kSentinel);
  ASSERT_EQ(rnnrt_capture_last_carry_f32(s.carries.data() + 1 * 3 * 2, 1,
                                         lengths.data(), 3, 2, out.data()),
            RNNRT_OK);
  EXPECT_EQ(out,
            (std::vector<float>{101, 102, kSentinel, kSentinel, 121, 122}));
  // Out-of-range lengths are not validated; they match no step in [-1, T).
  lengths = {-5, 9, 1};
  out.assign(6, kSentinel);
  for (int64_t t = -1; t < 3; ++t)
    ASSERT_EQ(rnnrt_capture_last_carry_f32(t < 0 ? s.initial.data()
                                                 : s.carries.data() + t * 6,
                                           t, lengths.data(), 3, 2, out.data()),
              RNNRT_OK);
  EXPECT_EQ(out, (std::vector<float>{kSentinel, kSentinel, kSentinel, kSentinel,
                                     21, 22}));
}

TEST(CaptureLastCarryTest, StridedFusedBuffers) {
  // An LSTM state fused as (batch, [c | h]) with H = 2: capture h (the column
  // block at offset H, row stride 2H) into rows of stride 3 of a bigger
  // buffer, whose gap floats must stay untouched.
  const int64_t batch = 2, H = 2, T = 3;
  std::vector<int32_t> lengths = {3, 1};
  std::vector<float> out(static_cast<size_t>(batch * 3), kSentinel);
  for (int64_t t = 0; t < T; ++t) {
    std::vector<float> fused; // c = 1000*t + ..., h = 2000*t + ...
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t j = 0; j < H; ++j)
        fused.push_back(static_cast<float>(1000 * t + 10 * b + j));
      for (int64_t j = 0; j < H; ++j)
        fused.push_back(static_cast<float>(2000 * t + 10 * b + j));
    }
    ASSERT_EQ(rnnrt_capture_last_carry_strided_f32(fused.data() + H, 2 * H, t,
                                                   lengths.data(), batch, H,
                                                   out.data(), 3),
              RNNRT_OK);
  }
  EXPECT_EQ(out,
            (std::vector<float>{4000, 4001, kSentinel, 10, 11, kSentinel}));
}

TEST(CaptureLastCarryTest, RejectsBadArguments) {
  std::vector<float> carry(4, 1.0f);
  std::vector<int32_t> lengths = {1, 1};
  std::vector<float> out(4, kSentinel);
  const float *c = carry.data();
  const int32_t *l = lengths.data();
  float *o = out.data();
  EXPECT_EQ(rnnrt_capture_last_carry_f32(nullptr, 0, l, 2, 2, o),
            RNNRT_ERROR_ARGUMENT);
  EXPECT_EQ(rnnrt_capture_last_carry_f32(c, 0, nullptr, 2, 2, o),
            RNNRT_ERROR_ARGUMENT);
  EXPECT_EQ(rnnrt_capture_last_carry_f32(c, 0, l, 2, 2, nullptr),
            RNNRT_ERROR_ARGUMENT);
  EXPECT_EQ(rnnrt_capture_last_carry_f32(c, 0, l, -2, 2, o),
            RNNRT_ERROR_ARGUMENT);
  EXPECT_EQ(rnnrt_capture_last_carry_f32(c, 0, l, 2, -2, o),
            RNNRT_ERROR_ARGUMENT);
  EXPECT_EQ(rnnrt_capture_last_carry_strided_f32(c, 1, 0, l, 2, 2, o, 2),
            RNNRT_ERROR_ARGUMENT);
  EXPECT_EQ(rnnrt_capture_last_carry_strided_f32(c, 2, 0, l, 2, 2, o, 1),
            RNNRT_ERROR_ARGUMENT);
  EXPECT_EQ(out, std::vector<float>(4, kSentinel));
}

} // namespace
