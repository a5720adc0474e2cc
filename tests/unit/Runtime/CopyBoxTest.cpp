//===- CopyBoxTest.cpp - rnnrt_copy_box_f32 / _i32 ------------------------===//
//
// The copies between the caller's dense buffers and the maximum-shape ones
// of a model with run-time sizes: every element of the box lands at its
// index in the other layout, nothing outside it is written, and bad sizes
// copy nothing.
//
//===----------------------------------------------------------------------===//

#include "rnnrt/rnnrt.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <vector>

namespace {

constexpr float kSentinel = -7.0f;

/// Flat index of `index` in a row-major array of shape `shape`.
int64_t flat(const std::vector<int64_t> &index,
             const std::vector<int64_t> &shape) {
  int64_t at = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    at = at * shape[d] + index[d];
  return at;
}

TEST(CopyBoxTest, DenseToMaximumAndBack) {
  // A (rows, steps, features) box of (3, 2, 4) in a (5, 6, 4) maximum.
  std::vector<int64_t> box{3, 2, 4}, full{5, 6, 4};
  std::vector<float> dense(3 * 2 * 4);
  for (size_t i = 0; i < dense.size(); ++i)
    dense[i] = float(i);
  std::vector<float> wide(5 * 6 * 4, kSentinel);
  // Levels: rows, steps, and the contiguous features.
  int64_t in[] = {3, 5, 3, 2, 6, 2, 4, 4, 4};
  ASSERT_EQ(rnnrt_copy_box_f32(wide.data(), dense.data(), 3, in), RNNRT_OK);
  for (int64_t r = 0; r < 5; ++r)
    for (int64_t t = 0; t < 6; ++t)
      for (int64_t f = 0; f < 4; ++f) {
        float got = wide[flat({r, t, f}, full)];
        if (r < 3 && t < 2)
          EXPECT_EQ(got, dense[flat({r, t, f}, box)]) << r << " " << t;
        else
          EXPECT_EQ(got, kSentinel) << r << " " << t;
      }
  std::vector<float> back(dense.size(), kSentinel);
  int64_t out[] = {3, 3, 5, 2, 2, 6, 4, 4, 4};
  ASSERT_EQ(rnnrt_copy_box_f32(back.data(), wide.data(), 3, out), RNNRT_OK);
  EXPECT_EQ(back, dense);
}

TEST(CopyBoxTest, Int32AndEmptyBoxes) {
  std::vector<int32_t> src{1, 2, 3, 4}, dst(8, -1);
  int64_t rows[] = {4, 8, 4};
  ASSERT_EQ(rnnrt_copy_box_i32(dst.data(), src.data(), 1, rows), RNNRT_OK);
  EXPECT_EQ(dst, (std::vector<int32_t>{1, 2, 3, 4, -1, -1, -1, -1}));
  // A count of 0 (0 steps) copies nothing and succeeds.
  std::vector<int32_t> untouched(dst);
  int64_t none[] = {2, 2, 2, 0, 4, 0};
  EXPECT_EQ(rnnrt_copy_box_i32(dst.data(), src.data(), 2, none), RNNRT_OK);
  EXPECT_EQ(dst, untouched);
}

TEST(CopyBoxTest, BadSizesCopyNothing) {
  std::vector<float> src(16, 1.0f), dst(16, kSentinel);
  int64_t above[] = {5, 4, 4};    // more than the extents
  int64_t negative[] = {-1, 4, 4};
  EXPECT_EQ(rnnrt_copy_box_f32(dst.data(), src.data(), 1, above),
            RNNRT_ERROR_ARGUMENT);
  EXPECT_EQ(rnnrt_copy_box_f32(dst.data(), src.data(), 1, negative),
            RNNRT_ERROR_ARGUMENT);
  EXPECT_EQ(rnnrt_copy_box_f32(dst.data(), src.data(), 0, above),
            RNNRT_ERROR_ARGUMENT);
  EXPECT_EQ(dst, std::vector<float>(16, kSentinel));
}

} // namespace
