//===- FlipSequencesTest.cpp - rnnrt_flip_sequences_f32 -------------------===//

#include "Oracle.h"

#include "rnnrt/rnnrt.h"

#include "gtest/gtest.h"

#include <limits>
#include <random>
#include <vector>

using namespace rnnc::test;

namespace {

constexpr float kSentinel = -12345.0f;

/// Calls the runtime on a whole array of shape `shape` (batch dims, time and
/// feature axes laid out as in flipOracle) and returns the output.
std::vector<float> flip(const std::vector<float> &in, const Shape &shape,
                        size_t numBatchDims, bool timeMajor,
                        const std::vector<int32_t> &lengths) {
  size_t timeAxis = timeMajor ? 0 : numBatchDims;
  size_t firstBatchAxis = timeMajor ? 1 : 0;
  int64_t batch = 1;
  for (size_t i = 0; i < numBatchDims; ++i)
    batch *= shape[firstBatchAxis + i];
  int64_t feature = 1;
  for (size_t i = numBatchDims + 1; i < shape.size(); ++i)
    feature *= shape[i];
  std::vector<float> out(in.size(), kSentinel);
  rnnrt_status_t status = rnnrt_flip_sequences_f32(
      in.data(), out.data(), lengths.empty() ? nullptr : lengths.data(), batch,
      shape[timeAxis], feature, timeMajor);
  EXPECT_EQ(status, RNNRT_OK) << rnnrt_status_string(status);
  return out;
}

TEST(FlipSequencesTest, OracleMatchesClosedForm) {
  // The reference's closed form equals Flax's mod formula for 0 <= L <= T.
  for (int64_t T = 1; T <= 7; ++T)
    for (int64_t L = 0; L <= T; ++L)
      for (int64_t t = 0; t < T; ++t)
        EXPECT_EQ(floorMod(T - 1 - t + L, T),
                  t < L ? L - 1 - t : T - 1 - (t - L))
            << "T=" << T << " L=" << L << " t=" << t;
}

TEST(FlipSequencesTest, FlaxDocstringExample) {
  // inputs = jnp.arange(10).reshape(2, 5), seq_lengths = [4, 2].
  std::vector<float> in = iota(10);
  std::vector<float> out(10, kSentinel);
  std::vector<int32_t> lengths = {4, 2};
  ASSERT_EQ(rnnrt_flip_sequences_f32(in.data(), out.data(), lengths.data(),
                                     /*batch=*/2, /*time=*/5, /*feature=*/1,
                                     /*time_major=*/0),
            RNNRT_OK);
  // The padding block is reversed in place too: row 1 ends 9, 8, 7.
  EXPECT_EQ(out, (std::vector<float>{3, 2, 1, 0, 4, 6, 5, 9, 8, 7}));
}

TEST(FlipSequencesTest, FlaxDocstringExampleTimeMajor) {
  // The same data transposed to (time=5, batch=2).
  std::vector<float> in = {0, 5, 1, 6, 2, 7, 3, 8, 4, 9};
  std::vector<float> out(10, kSentinel);
  std::vector<int32_t> lengths = {4, 2};
  ASSERT_EQ(rnnrt_flip_sequences_f32(in.data(), out.data(), lengths.data(), 2,
                                     5, 1, /*time_major=*/1),
            RNNRT_OK);
  EXPECT_EQ(out, (std::vector<float>{3, 6, 2, 5, 1, 9, 0, 8, 4, 7}));
}

TEST(FlipSequencesTest, LengthsZeroAndTAreFullReversals) {
  // Row 0 has L = 0 (all padding), row 1 has L = T; both fully reversed.
  std::vector<float> in = iota(8);
  std::vector<int32_t> lengths = {0, 4};
  std::vector<float> expected = {3, 2, 1, 0, 7, 6, 5, 4};
  EXPECT_EQ(flip(in, {2, 4}, 1, false, lengths), expected);
  EXPECT_EQ(flip(in, {2, 4}, 1, false, {}), expected);
}

TEST(FlipSequencesTest, LengthOneAndTMinusOne) {
  std::vector<float> in = iota(8);
  // L = 1: prefix [0] stays, padding [1, 4) reversed; L = 3: [2,1,0] then 3.
  EXPECT_EQ(flip(in, {2, 4}, 1, false, {1, 3}),
            (std::vector<float>{0, 3, 2, 1, 6, 5, 4, 7}));
}

TEST(FlipSequencesTest, NullLengthsIsPlainReversal) {
  // Time-major (T=3, batch=2, feature=2): whole time steps are reversed.
  std::vector<float> in = iota(12);
  EXPECT_EQ(flip(in, {3, 2, 2}, 1, true, {}),
            (std::vector<float>{8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3}));
}

TEST(FlipSequencesTest, SeveralFeatureAxes) {
  // (batch=2, T=4, 3, 2): each time step is a 3x2 block moved as a whole.
  Shape shape = {2, 4, 3, 2};
  std::vector<float> in = iota(numElements(shape));
  std::vector<int32_t> lengths = {3, 1};
  std::vector<float> out = flip(in, shape, 1, false, lengths);
  EXPECT_EQ(out, flipOracle(in, shape, 1, false, lengths));
  // Spot check: row 0, step 0 is input step 2 (offset 12..17).
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(out[i], static_cast<float>(12 + i));
}

TEST(FlipSequencesTest, SeveralFeatureAxesTimeMajor) {
  Shape shape = {5, 3, 2, 2}; // (T, batch, 2, 2)
  std::vector<float> in = iota(numElements(shape));
  std::vector<int32_t> lengths = {5, 0, 2};
  EXPECT_EQ(flip(in, shape, 1, true, lengths),
            flipOracle(in, shape, 1, true, lengths));
}

TEST(FlipSequencesTest, SeveralBatchDims) {
  // Batch dims [2, 3] flattened to 6 rows, T = 5, feature 2.
  Shape shape = {2, 3, 5, 2};
  std::vector<float> in = iota(numElements(shape));
  std::vector<int32_t> lengths = {0, 1, 2, 3, 4, 5};
  std::vector<float> out = flip(in, shape, 2, false, lengths);
  EXPECT_EQ(out, flipOracle(in, shape, 2, false, lengths));
  // Row (1, 0) has L = 3: its step 0 is its input step 2.
  int64_t row = 3 * 5 * 2;
  EXPECT_EQ(out[row], in[row + 2 * 2]);
}

TEST(FlipSequencesTest, SeveralBatchDimsTimeMajor) {
  Shape shape = {4, 2, 3, 3, 2}; // (T, 2, 3, 3, 2)
  std::vector<float> in = iota(numElements(shape));
  std::vector<int32_t> lengths = {4, 3, 0, 1, 2, 4};
  EXPECT_EQ(flip(in, shape, 2, true, lengths),
            flipOracle(in, shape, 2, true, lengths));
}

TEST(FlipSequencesTest, NoBatchDims) {
  // Unbatched (T=4, feature=2): batch = 1.
  Shape shape = {4, 2};
  std::vector<float> in = iota(8);
  for (bool timeMajor : {false, true})
    EXPECT_EQ(flip(in, shape, 0, timeMajor, {2}),
              (std::vector<float>{2, 3, 0, 1, 6, 7, 4, 5}));
}

TEST(FlipSequencesTest, InPlaceMatchesOutOfPlace) {
  Shape shapes[] = {{3, 5, 2}, {5, 3, 2}};
  std::vector<int32_t> lengths = {5, 2, 0};
  for (bool timeMajor : {false, true}) {
    const Shape &shape = shapes[timeMajor];
    std::vector<float> data = iota(numElements(shape));
    std::vector<float> expected =
        flipOracle(data, shape, 1, timeMajor, lengths);
    ASSERT_EQ(rnnrt_flip_sequences_f32(data.data(), data.data(), lengths.data(),
                                       3, 5, 2, timeMajor),
              RNNRT_OK);
    EXPECT_EQ(data, expected) << "time_major=" << timeMajor;
  }
}

TEST(FlipSequencesTest, RandomShapesMatchOracleAndAreInvolutions) {
  std::mt19937 rng(20260702);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int iter = 0; iter < 200; ++iter) {
    size_t numBatchDims = static_cast<size_t>(uniform(0, 3));
    size_t numFeatureAxes = static_cast<size_t>(uniform(0, 2));
    bool timeMajor = uniform(0, 1);
    int64_t T = uniform(1, 7);
    Shape batchShape, shape;
    for (size_t i = 0; i < numBatchDims; ++i)
      batchShape.push_back(uniform(1, 3));
    if (timeMajor)
      shape.push_back(T);
    shape.insert(shape.end(), batchShape.begin(), batchShape.end());
    if (!timeMajor)
      shape.push_back(T);
    for (size_t i = 0; i < numFeatureAxes; ++i)
      shape.push_back(uniform(1, 3));

    std::vector<int32_t> lengths;
    for (int64_t b = 0; b < numElements(batchShape); ++b)
      lengths.push_back(static_cast<int32_t>(uniform(0, T)));
    std::vector<float> in = iota(numElements(shape), 1.0f);
    std::vector<float> once = flip(in, shape, numBatchDims, timeMajor, lengths);
    ASSERT_EQ(once, flipOracle(in, shape, numBatchDims, timeMajor, lengths))
        << "iteration " << iter;
    EXPECT_EQ(flip(once, shape, numBatchDims, timeMajor, lengths), in)
        << "iteration " << iter;
  }
}

TEST(FlipSequencesTest, RejectsNegativeLength) {
  std::vector<float> in = iota(10);
  std::vector<float> out(10, kSentinel);
  std::vector<int32_t> lengths = {4, -1};
  EXPECT_EQ(rnnrt_flip_sequences_f32(in.data(), out.data(), lengths.data(), 2,
                                     5, 1, 0),
            RNNRT_ERROR_SEQ_LENGTH);
  EXPECT_EQ(out, std::vector<float>(10, kSentinel));
}

TEST(FlipSequencesTest, RejectsLengthAboveTime) {
  std::vector<float> in = iota(10);
  std::vector<float> out(10, kSentinel);
  std::vector<int32_t> lengths = {6, 2}; // T + 1 in the first row
  for (int timeMajor : {0, 1}) {
    EXPECT_EQ(rnnrt_flip_sequences_f32(in.data(), out.data(), lengths.data(), 2,
                                       5, 1, timeMajor),
              RNNRT_ERROR_SEQ_LENGTH);
    EXPECT_EQ(out, std::vector<float>(10, kSentinel));
  }
  // In place, a bad length in the last row must not touch the earlier rows.
  std::vector<float> data = iota(10);
  lengths = {4, std::numeric_limits<int32_t>::max()};
  EXPECT_EQ(rnnrt_flip_sequences_f32(data.data(), data.data(), lengths.data(),
                                     2, 5, 1, 0),
            RNNRT_ERROR_SEQ_LENGTH);
  EXPECT_EQ(data, iota(10));
}

TEST(FlipSequencesTest, RejectsBadArguments) {
  std::vector<float> in = iota(10);
  std::vector<float> out(10, kSentinel);
  std::vector<int32_t> lengths = {4, 2};
  EXPECT_EQ(
      rnnrt_flip_sequences_f32(nullptr, out.data(), lengths.data(), 2, 5, 1, 0),
      RNNRT_ERROR_ARGUMENT);
  EXPECT_EQ(
      rnnrt_flip_sequences_f32(in.data(), nullptr, lengths.data(), 2, 5, 1, 0),
      RNNRT_ERROR_ARGUMENT);
  EXPECT_EQ(rnnrt_flip_sequences_f32(in.data(), out.data(), lengths.data(), -2,
                                     5, 1, 0),
            RNNRT_ERROR_ARGUMENT);
  EXPECT_EQ(rnnrt_flip_sequences_f32(in.data(), out.data(), lengths.data(), 2,
                                     -5, 1, 0),
            RNNRT_ERROR_ARGUMENT);
  EXPECT_EQ(rnnrt_flip_sequences_f32(in.data(), out.data(), lengths.data(), 2,
                                     5, -1, 0),
            RNNRT_ERROR_ARGUMENT);
  EXPECT_EQ(out, std::vector<float>(10, kSentinel));
}

TEST(FlipSequencesTest, EmptySizesWriteNothing) {
  std::vector<float> in = iota(4);
  std::vector<float> out(4, kSentinel);
  std::vector<int32_t> zeros = {0, 0};
  // T = 0 (only L = 0 is valid), batch = 0, feature = 0.
  EXPECT_EQ(
      rnnrt_flip_sequences_f32(in.data(), out.data(), zeros.data(), 2, 0, 2, 0),
      RNNRT_OK);
  EXPECT_EQ(
      rnnrt_flip_sequences_f32(in.data(), out.data(), nullptr, 0, 4, 1, 1),
      RNNRT_OK);
  EXPECT_EQ(
      rnnrt_flip_sequences_f32(in.data(), out.data(), zeros.data(), 2, 2, 0, 0),
      RNNRT_OK);
  EXPECT_EQ(out, std::vector<float>(4, kSentinel));
  // Pointers to empty arrays may be NULL.
  EXPECT_EQ(rnnrt_flip_sequences_f32(nullptr, nullptr, nullptr, 0, 4, 1, 0),
            RNNRT_OK);
  EXPECT_EQ(
      rnnrt_flip_sequences_f32(nullptr, nullptr, zeros.data(), 2, 0, 3, 1),
      RNNRT_OK);
  std::vector<int32_t> one = {1};
  EXPECT_EQ(
      rnnrt_flip_sequences_f32(in.data(), out.data(), one.data(), 1, 0, 1, 0),
      RNNRT_ERROR_SEQ_LENGTH);
}

} // namespace
