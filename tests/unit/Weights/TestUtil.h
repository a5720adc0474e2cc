//===- TestUtil.h - Shared helpers of WeightsTests --------------*- C++ -*-===//

#ifndef RNN_TESTS_UNIT_WEIGHTS_TESTUTIL_H
#define RNN_TESTS_UNIT_WEIGHTS_TESTUTIL_H

#include "rnn/Weights/Array.h"

#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace rnnc::test {

/// Path of a fixture in tests/unit/Weights/Inputs.
inline std::string inputPath(llvm::StringRef name) {
  return std::string(RNN_SRC_ROOT) + "/tests/unit/Weights/Inputs/" + name.str();
}

/// The bytes of a fixture (fails the test if unreadable).
inline std::string inputBytes(llvm::StringRef name) {
  auto buffer = llvm::MemoryBuffer::getFile(inputPath(name), false, false);
  EXPECT_TRUE(bool(buffer)) << "cannot read " << inputPath(name);
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

/// The message of `err` (consumed), or "" for success.
inline std::string errorText(llvm::Error err) {
  return err ? llvm::toString(std::move(err)) : std::string();
}

/// Expected content of one array, from Inputs/expected.txt.
struct ExpectedArray {
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<std::string> values;
};

/// The arrays make_weights.py recorded for `file`, by key.
inline std::map<std::string, ExpectedArray>
expectedArrays(llvm::StringRef file) {
  std::map<std::string, ExpectedArray> result;
  std::istringstream lines(inputBytes("expected.txt"));
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string name, key, shape;
    ExpectedArray array;
    words >> name >> key >> array.dtype >> shape;
    if (name != file)
      continue;
    llvm::SmallVector<llvm::StringRef> dims;
    llvm::StringRef(shape).trim("[]").split(dims, ',', -1, false);
    for (llvm::StringRef d : dims)
      array.shape.push_back(std::stoll(d.str()));
    for (std::string v; words >> v;)
      array.values.push_back(v);
    result[key] = array;
  }
  EXPECT_FALSE(result.empty()) << "no expected arrays for " << file.str();
  return result;
}

/// Checks `arrays` against what make_weights.py wrote into `file`.
inline void checkArrays(const std::vector<weights::Array> &arrays,
                        llvm::StringRef file) {
  std::map<std::string, ExpectedArray> expected = expectedArrays(file);
  ASSERT_EQ(arrays.size(), expected.size());
  for (const weights::Array &array : arrays) {
    SCOPED_TRACE(file.str() + ": " + array.name);
    auto it = expected.find(array.name);
    ASSERT_NE(it, expected.end());
    EXPECT_EQ(weights::dtypeName(array.dtype), it->second.dtype);
    EXPECT_EQ(array.shape, it->second.shape);
    const std::vector<std::string> &values = it->second.values;
    if (weights::isFloatingPoint(array.dtype)) {
      llvm::Expected<std::vector<float>> data = weights::toFloat32(array);
      ASSERT_TRUE(bool(data)) << llvm::toString(data.takeError());
      ASSERT_EQ(data->size(), values.size());
      for (size_t i = 0; i < values.size(); ++i)
        EXPECT_EQ((*data)[i], float(std::strtod(values[i].c_str(), nullptr)))
            << "element " << i;
    } else {
      llvm::Expected<std::vector<int64_t>> data = weights::toInt64(array);
      ASSERT_TRUE(bool(data)) << llvm::toString(data.takeError());
      ASSERT_EQ(data->size(), values.size());
      for (size_t i = 0; i < values.size(); ++i)
        EXPECT_EQ((*data)[i], std::stoll(values[i])) << "element " << i;
    }
  }
}

/// Calls `parse` on every strict prefix of `bytes`, each copied into a
/// buffer of exactly that size (so a sanitizer sees any over-read), and
/// expects every one to fail.
inline void expectAllTruncationsFail(
    const std::string &bytes,
    const std::function<bool(llvm::StringRef)> &parseSucceeds) {
  for (size_t len = 0; len < bytes.size(); ++len) {
    std::vector<char> copy(bytes.begin(), bytes.begin() + len);
    EXPECT_FALSE(parseSucceeds(llvm::StringRef(copy.data(), len)))
        << "a prefix of " << len << " bytes was accepted";
  }
}

/// Calls `parse` on every copy of `bytes` with one byte in [from, to)
/// flipped (xor with 0xff, 0x01 and 0x80); returns how many copies were
/// rejected. Any crash fails the test.
inline size_t countRejectedCorruptions(
    const std::string &bytes,
    const std::function<bool(llvm::StringRef)> &parseSucceeds, size_t from = 0,
    size_t to = std::string::npos) {
  size_t rejected = 0;
  for (size_t pos = from; pos < std::min(to, bytes.size()); ++pos) {
    for (unsigned char mask : {0xffu, 0x01u, 0x80u}) {
      std::vector<char> copy(bytes.begin(), bytes.end());
      copy[pos] = char(copy[pos] ^ mask);
      rejected += !parseSucceeds(llvm::StringRef(copy.data(), copy.size()));
    }
  }
  return rejected;
}

} // namespace rnnc::test

#endif // RNN_TESTS_UNIT_WEIGHTS_TESTUTIL_H
