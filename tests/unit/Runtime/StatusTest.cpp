//===- StatusTest.cpp - versions, status strings, length checks -----------===//

#include "rnnrt/rnnrt.h"

#include "gtest/gtest.h"

#include <cctype>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace {

TEST(StatusTest, ApiVersionMatchesHeader) {
  EXPECT_EQ(rnnrt_api_version(), RNNRT_API_VERSION);
  EXPECT_EQ(RNNRT_API_VERSION, 1);
}

TEST(StatusTest, CodesAreDistinctAndOkIsZero) {
  EXPECT_EQ(RNNRT_OK, 0);
  std::set<rnnrt_status_t> codes = {RNNRT_OK, RNNRT_ERROR_SEQ_LENGTH,
                                    RNNRT_ERROR_ARGUMENT};
  EXPECT_EQ(codes.size(), 3u);
}

TEST(StatusTest, StringsAreLowercaseWithoutTrailingPeriod) {
  EXPECT_STREQ(rnnrt_status_string(RNNRT_OK), "ok");
  EXPECT_STREQ(rnnrt_status_string(RNNRT_ERROR_SEQ_LENGTH),
               "sequence length out of range");
  EXPECT_STREQ(rnnrt_status_string(RNNRT_ERROR_ARGUMENT), "invalid argument");
  EXPECT_STREQ(rnnrt_status_string(-1), "unknown status");
  EXPECT_STREQ(rnnrt_status_string(1000), "unknown status");
  for (rnnrt_status_t s :
       {RNNRT_OK, RNNRT_ERROR_SEQ_LENGTH, RNNRT_ERROR_ARGUMENT}) {
    std::string text = rnnrt_status_string(s);
    ASSERT_FALSE(text.empty());
    EXPECT_TRUE(std::islower(static_cast<unsigned char>(text.front())));
    EXPECT_NE(text.back(), '.');
  }
}

TEST(CheckSeqLengthsTest, AcceptsZeroToT) {
  std::vector<int32_t> lengths = {0, 1, 4, 5};
  EXPECT_EQ(rnnrt_check_seq_lengths(lengths.data(), 4, 5), RNNRT_OK);
  // No lengths means every row has length T; no rows is trivially valid.
  EXPECT_EQ(rnnrt_check_seq_lengths(nullptr, 4, 5), RNNRT_OK);
  EXPECT_EQ(rnnrt_check_seq_lengths(lengths.data(), 0, 0), RNNRT_OK);
  std::vector<int32_t> zeros = {0, 0};
  EXPECT_EQ(rnnrt_check_seq_lengths(zeros.data(), 2, 0), RNNRT_OK);
}

TEST(CheckSeqLengthsTest, RejectsOutOfRange) {
  const int32_t bad[] = {-1, 6, std::numeric_limits<int32_t>::min(),
                         std::numeric_limits<int32_t>::max()};
  for (int32_t length : bad) {
    // The bad length is the last row: every row must be checked.
    std::vector<int32_t> lengths = {3, 5, length};
    EXPECT_EQ(rnnrt_check_seq_lengths(lengths.data(), 3, 5),
              RNNRT_ERROR_SEQ_LENGTH)
        << "length " << length;
  }
  // Only `batch` entries are read.
  std::vector<int32_t> lengths = {3, 5, -1};
  EXPECT_EQ(rnnrt_check_seq_lengths(lengths.data(), 2, 5), RNNRT_OK);
}

TEST(CheckSeqLengthsTest, RejectsNegativeSizes) {
  std::vector<int32_t> lengths = {1};
  EXPECT_EQ(rnnrt_check_seq_lengths(lengths.data(), -1, 5),
            RNNRT_ERROR_ARGUMENT);
  EXPECT_EQ(rnnrt_check_seq_lengths(lengths.data(), 1, -1),
            RNNRT_ERROR_ARGUMENT);
  EXPECT_EQ(rnnrt_check_seq_lengths(nullptr, 1, -1), RNNRT_ERROR_ARGUMENT);
}

} // namespace
