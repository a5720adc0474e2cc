//===- SafetensorsTest.cpp - .safetensors reading -------------------------===//

#include "TestUtil.h"

#include "rnn/Weights/Safetensors.h"

using namespace rnnc::weights;
using namespace rnnc::test;

namespace {

/// A safetensors file with header `json` and data section `data`.
std::string makeFile(llvm::StringRef json, llvm::StringRef data,
                     uint64_t headerSize = ~uint64_t(0)) {
  if (headerSize == ~uint64_t(0))
    headerSize = json.size();
  std::string out;
  for (int i = 0; i < 8; ++i)
    out += char((headerSize >> (8 * i)) & 0xff);
  return out + json.str() + data.str();
}

std::string parseError(llvm::StringRef bytes) {
  llvm::Expected<std::vector<Array>> arrays = parseSafetensors(bytes, "t.st");
  return arrays ? std::string() : llvm::toString(arrays.takeError());
}

bool parses(llvm::StringRef bytes) {
  llvm::Expected<std::vector<Array>> arrays = parseSafetensors(bytes, "t.st");
  if (arrays)
    return true;
  llvm::consumeError(arrays.takeError());
  return false;
}

TEST(SafetensorsTest, ReadsF32F16AndBF16) {
  llvm::Expected<std::vector<Array>> arrays =
      readSafetensors(inputPath("mixed.safetensors"));
  ASSERT_TRUE(bool(arrays)) << llvm::toString(arrays.takeError());
  checkArrays(*arrays, "mixed.safetensors");
  // Sorted by name, __metadata__ skipped.
  ASSERT_EQ(arrays->size(), 3u);
  EXPECT_EQ((*arrays)[0].name, "brain");
  EXPECT_EQ((*arrays)[1].name, "half");
  EXPECT_EQ((*arrays)[2].name, "params/enc/cell/i/kernel");
}

TEST(SafetensorsTest, ReadsHandWrittenFile) {
  std::string data("\x00\x00\x80\x3f\x00\x00\x00\xc0\x07\x00\x00\x00", 12);
  llvm::Expected<std::vector<Array>> arrays = parseSafetensors(
      makeFile(R"({"n":{"dtype":"I32","shape":[],"data_offsets":[8,12]},)"
               R"("w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
               R"("__metadata__":{"k":"v"}})",
               data),
      "t.st");
  ASSERT_TRUE(bool(arrays)) << llvm::toString(arrays.takeError());
  ASSERT_EQ(arrays->size(), 2u);
  EXPECT_EQ(toInt64((*arrays)[0]).get(), std::vector<int64_t>{7});
  EXPECT_EQ(toFloat32((*arrays)[1]).get(), (std::vector<float>{1.0f, -2.0f}));
}

TEST(SafetensorsTest, ReportsHeaderErrors) {
  EXPECT_EQ(parseError("abc"), "t.st: truncated safetensors file: 3 bytes");
  EXPECT_EQ(parseError(makeFile("{}", "", 100)),
            "t.st: header of 100 bytes exceeds the file (2 bytes after the "
            "size)");
  EXPECT_NE(parseError(makeFile("{\"a\":", ""))
                .find("t.st: invalid JSON "
                      "header: "),
            std::string::npos);
  EXPECT_EQ(parseError(makeFile("[1]", "")),
            "t.st: JSON header is not an object");
  // json::Object would silently keep the last of two equal keys.
  EXPECT_EQ(parseError(makeFile(R"({"a":{"x":[1,"a"]},"b":"a","a":2})", "")),
            "t.st: duplicate key 'a' in the JSON header");
  EXPECT_EQ(parseError(makeFile(R"({"a":1,"\u0061":2})", "")),
            "t.st: duplicate keys in the JSON header");
  EXPECT_EQ(parseError(makeFile("{}", "")), "");
}

TEST(SafetensorsTest, ReportsTensorErrors) {
  std::string data(8, '\0');
  auto tensor = [&](llvm::StringRef fields) {
    return parseError(makeFile(("{\"w\":{" + fields + "}}").str(), data));
  };
  EXPECT_EQ(tensor(R"("shape":[2],"data_offsets":[0,8])"),
            "t.st: tensor 'w': missing string 'dtype'");
  EXPECT_EQ(tensor(R"("dtype":"I8","shape":[2],"data_offsets":[0,2])"),
            "t.st: tensor 'w': unsupported dtype 'I8', expected F32, F64, "
            "F16, BF16, I32, I64, BOOL or U8");
  EXPECT_EQ(tensor(R"("dtype":"F32","shape":[-2],"data_offsets":[0,8])"),
            "t.st: tensor 'w': 'shape' must be an array of non-negative "
            "integers");
  EXPECT_EQ(tensor(R"("dtype":"F32","shape":[2],"data_offsets":[0])"),
            "t.st: tensor 'w': 'data_offsets' must be [begin, end]");
  EXPECT_EQ(tensor(R"("dtype":"F32","shape":[2],"data_offsets":[4,12])"),
            "t.st: tensor 'w': data_offsets [4, 12] outside the data section "
            "of 8 bytes");
  EXPECT_EQ(tensor(R"("dtype":"F32","shape":[2],"data_offsets":[8,0])"),
            "t.st: tensor 'w': data_offsets [8, 0] outside the data section "
            "of 8 bytes");
  EXPECT_EQ(tensor(R"("dtype":"F32","shape":[1],"data_offsets":[0,8])"),
            "t.st: tensor 'w': data_offsets span 8 bytes, expected 4 for "
            "float32[1]");
  EXPECT_EQ(tensor(R"("dtype":"F64","shape":[4294967296,4294967296],)"
                   R"("data_offsets":[0,8])"),
            "t.st: tensor 'w': shape [4294967296, 4294967296] is too large");
  EXPECT_EQ(parseError(makeFile(R"({"w":3})", data)),
            "t.st: tensor 'w': expected an object");
}

TEST(SafetensorsTest, EveryTruncationIsAnError) {
  expectAllTruncationsFail(inputBytes("mixed.safetensors"), parses);
}

TEST(SafetensorsTest, CorruptionNeverCrashes) {
  std::string bytes = inputBytes("mixed.safetensors");
  // Any flip in the upper bytes of the header size makes it exceed the file.
  EXPECT_EQ(countRejectedCorruptions(bytes, parses, 1, 8), 3u * 7);
  countRejectedCorruptions(bytes, parses);
}

TEST(SafetensorsTest, MissingFileIsAnError) {
  std::string err =
      errorText(readSafetensors(inputPath("nope.safetensors")).takeError());
  EXPECT_NE(err.find("cannot open"), std::string::npos) << err;
}

} // namespace
