//===- NpzTest.cpp - .npz / .npy reading and writing ----------------------===//

#include "TestUtil.h"

#include "rnn/Weights/Npz.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"

#include <cmath>
#include <cstring>

using namespace rnnc::weights;
using namespace rnnc::test;

namespace {

std::string parseError(llvm::StringRef bytes) {
  llvm::Expected<std::vector<Array>> arrays = parseNpz(bytes, "t.npz");
  return arrays ? std::string() : llvm::toString(arrays.takeError());
}

bool npzParses(llvm::StringRef bytes) {
  llvm::Expected<std::vector<Array>> arrays = parseNpz(bytes, "t.npz");
  if (arrays)
    return true;
  llvm::consumeError(arrays.takeError());
  return false;
}

/// Offset of the first central directory record of a small archive.
size_t centralOffset(const std::string &zip) {
  size_t at = zip.find("PK\x01\x02");
  EXPECT_NE(at, std::string::npos);
  return at;
}

Array makeArray(std::string name, DType dtype, std::vector<int64_t> shape,
                std::vector<uint8_t> bytes) {
  return Array{std::move(name), dtype, std::move(shape), std::move(bytes)};
}

/// One array of every dtype numpy can store, with distinct bytes.
std::vector<Array> sampleArrays() {
  std::vector<Array> arrays;
  uint8_t next = 1;
  auto fill = [&](size_t n) {
    std::vector<uint8_t> bytes(n);
    for (uint8_t &b : bytes)
      b = next++;
    return bytes;
  };
  arrays.push_back(
      makeArray("enc/cell/hi/kernel", DType::F32, {2, 3}, fill(24)));
  arrays.push_back(makeArray("f64", DType::F64, {3}, fill(24)));
  arrays.push_back(makeArray("f16", DType::F16, {1, 2, 2}, fill(8)));
  arrays.push_back(makeArray("i32", DType::I32, {2}, fill(8)));
  arrays.push_back(makeArray("i64", DType::I64, {1}, fill(8)));
  arrays.push_back(makeArray("flag", DType::Bool, {2}, {1, 0}));
  arrays.push_back(makeArray("u8", DType::U8, {3}, fill(3)));
  arrays.push_back(makeArray("scalar", DType::F32, {}, fill(4)));
  arrays.push_back(makeArray("empty", DType::F32, {0, 5}, {}));
  return arrays;
}

void expectSameArrays(const std::vector<Array> &a,
                      const std::vector<Array> &b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].dtype, b[i].dtype);
    EXPECT_EQ(a[i].shape, b[i].shape);
    EXPECT_EQ(a[i].bytes, b[i].bytes);
  }
}

std::string npyWithHeader(llvm::StringRef dict, llvm::StringRef data) {
  std::string npy("\x93NUMPY\x01\x00", 8);
  npy += char(dict.size() & 0xff);
  npy += char(dict.size() >> 8);
  return npy + dict.str() + data.str();
}

std::string npyError(llvm::StringRef npy) {
  llvm::Expected<Array> array = parseNpy(npy, "x", "x.npy");
  return array ? std::string() : llvm::toString(array.takeError());
}

/// Reads Inputs/`file` and checks it against what make_weights.py wrote.
void expectReadsAsWritten(const char *file) {
  llvm::Expected<std::vector<Array>> arrays = readNpz(inputPath(file));
  ASSERT_TRUE(bool(arrays)) << llvm::toString(arrays.takeError());
  checkArrays(*arrays, file);
}

TEST(NpzTest, ReadsSavez) { expectReadsAsWritten("arrays.npz"); }

TEST(NpzTest, ReadsSavezCompressed) {
  expectReadsAsWritten("arrays_compressed.npz");
}

TEST(NpzTest, ReadsAndConvertsOtherDtypes) {
  for (const char *file : {"converted.npz", "ints.npz"})
    expectReadsAsWritten(file);
}

TEST(NpzTest, ReadsNpyVersions1To3) { expectReadsAsWritten("versions.npz"); }

TEST(NpzTest, ReadsZip64Records) { expectReadsAsWritten("zip64.npz"); }

TEST(NpzTest, ConversionsRejectTheWrongKind) {
  Array ints = makeArray("n", DType::I32, {1}, {1, 0, 0, 0});
  EXPECT_EQ(errorText(toFloat32(ints).takeError()),
            "array 'n' has dtype int32, expected a floating-point dtype");
  Array floats = makeArray("f", DType::F32, {1}, {0, 0, 0x80, 0x3f});
  EXPECT_EQ(errorText(toInt64(floats).takeError()),
            "array 'f' has dtype float32, expected an integer dtype");
  Array shortData = makeArray("s", DType::F32, {2}, {0, 0, 0x80, 0x3f});
  EXPECT_EQ(errorText(toFloat32(shortData).takeError()),
            "array 's' has 4 data bytes, expected 8");
}

TEST(NpzTest, HalfAndBfloat16Conversions) {
  EXPECT_EQ(halfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(halfToFloat(0xc000), -2.0f);
  EXPECT_EQ(halfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(halfToFloat(0x0001), 5.9604644775390625e-08f); // smallest subnormal
  EXPECT_EQ(halfToFloat(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(halfToFloat(0x7e00)));
  EXPECT_TRUE(std::signbit(halfToFloat(0x8000)));
  EXPECT_EQ(bfloat16ToFloat(0x3f80), 1.0f);
  EXPECT_EQ(bfloat16ToFloat(0xc0a0), -5.0f);
}

/// param_dtype: bfloat16 rounds float32 params as jnp.asarray(x,
/// jnp.bfloat16) does: to nearest, ties to even, NaN kept, overflow to inf.
TEST(NpzTest, RoundsFloatToBFloat16NearestEven) {
  auto fromBits = [](uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  };
  EXPECT_EQ(floatToBFloat16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBFloat16(-5.0f), 0xc0a0);
  // Below, at and above half an ulp; ties go to the even neighbour.
  EXPECT_EQ(floatToBFloat16(fromBits(0x3f807fff)), 0x3f80);
  EXPECT_EQ(floatToBFloat16(fromBits(0x3f808000)), 0x3f80); // tie, even
  EXPECT_EQ(floatToBFloat16(fromBits(0x3f818000)), 0x3f82); // tie, up to even
  EXPECT_EQ(floatToBFloat16(fromBits(0x3f808001)), 0x3f81);
  EXPECT_EQ(floatToBFloat16(fromBits(0xbf80c000)), 0xbf81); // sign kept
  // The largest finite float rounds up to infinity; infinities and zeros
  // stay; a NaN stays a NaN (its payload truncated, made quiet).
  EXPECT_EQ(floatToBFloat16(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(floatToBFloat16(-std::numeric_limits<float>::infinity()), 0xff80);
  EXPECT_EQ(floatToBFloat16(-0.0f), 0x8000);
  EXPECT_TRUE(std::isnan(roundToBFloat16(fromBits(0x7f800001))));
  EXPECT_TRUE(std::isnan(roundToBFloat16(std::nanf(""))));
  // Round trip: a bf16 value is exact.
  EXPECT_EQ(roundToBFloat16(bfloat16ToFloat(0x3e9a)), bfloat16ToFloat(0x3e9a));
}

TEST(NpzTest, ReadsFortranOrderAsRowMajor) {
  expectReadsAsWritten("fortran.npz");
}

TEST(NpzTest, RejectsBigEndianAndDuplicates) {
  std::string big = errorText(readNpz(inputPath("bigendian.npz")).takeError());
  EXPECT_NE(big.find("big-endian dtype '>f4' is not supported"),
            std::string::npos)
      << big;
  std::string dup = errorText(readNpz(inputPath("duplicate.npz")).takeError());
  EXPECT_NE(dup.find("duplicate array 'w'"), std::string::npos) << dup;
  std::string missing = errorText(readNpz(inputPath("nope.npz")).takeError());
  EXPECT_NE(missing.find("cannot open"), std::string::npos) << missing;
}

TEST(NpzTest, RejectsCorruptArchives) {
  std::string zip = inputBytes("arrays.npz");
  size_t central = centralOffset(zip);

  std::string method = zip;
  method[central + 10] = 12; // bzip2
  EXPECT_NE(parseError(method).find("unsupported compression method 12"),
            std::string::npos);

  std::string name = zip;
  for (size_t at; (at = name.find("scalar.npy")) != std::string::npos;)
    name.replace(at, 10, "scalar.txt");
  EXPECT_NE(parseError(name).find("entry 'scalar.txt' is not a .npy array"),
            std::string::npos);

  std::string crc = zip;
  size_t data = crc.find("\x93NUMPY");
  crc[data + 130] ^= 0x10; // in the data of the first array
  EXPECT_NE(parseError(crc).find("crc mismatch"), std::string::npos);

  std::string compressed = inputBytes("arrays_compressed.npz");
  size_t cdir = centralOffset(compressed);
  for (int i = 0; i < 4; ++i) // claim 0xfffffff0 uncompressed bytes
    compressed[cdir + 24 + i] = char(i ? 0xff : 0xf0);
  EXPECT_NE(parseError(compressed).find("corrupt sizes"), std::string::npos)
      << parseError(compressed);

  EXPECT_NE(parseError("PK").find("too short"), std::string::npos);
  EXPECT_NE(parseError(std::string(40, 'x')).find("no end of central"),
            std::string::npos);
}

TEST(NpzTest, RejectsBadNpyHeaders) {
  const std::string f32x2(8, '\0');
  EXPECT_EQ(npyError(npyWithHeader(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n",
                f32x2)),
            "");
  EXPECT_EQ(
      npyError(npyWithHeader("{'descr': '<f4', 'shape': (2,), }\n", f32x2)),
      "x.npy: invalid .npy header: expected keys 'descr', "
      "'fortran_order' and 'shape'");
  EXPECT_EQ(npyError(npyWithHeader("{'descr': [('a', '<f4')], "
                                   "'fortran_order': False, 'shape': (2,)}",
                                   f32x2)),
            "x.npy: invalid .npy header: structured dtypes are not supported");
  EXPECT_EQ(
      npyError(npyWithHeader(
          "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}", f32x2)),
      "x.npy: invalid .npy header: expected a non-negative integer in "
      "the shape");
  EXPECT_EQ(npyError(npyWithHeader("{'descr': '<f4', 'fortran_order': False, "
                                   "'shape': (2,), 'extra': True}",
                                   f32x2)),
            "x.npy: invalid .npy header: unexpected key 'extra'");
  EXPECT_EQ(
      npyError(npyWithHeader(
          "{'descr': '<c8', 'fortran_order': False, 'shape': (2,)}", f32x2)),
      "x.npy: unsupported dtype '<c8', expected one of '<f2', '<f4', "
      "'<f8', '<i4', '<i8', '|b1', '|u1'");
  EXPECT_EQ(
      npyError(npyWithHeader(
          "{'descr': '<f4', 'fortran_order': False, 'shape': (3,)}", f32x2)),
      "x.npy: array data has 8 bytes, expected 12 for float32[3]");
  EXPECT_EQ(npyError(npyWithHeader("{'descr': '<f4', 'fortran_order': False, "
                                   "'shape': (4294967296, 4294967296, 16)}",
                                   f32x2)),
            "x.npy: shape [4294967296, 4294967296, 16] is too large");
  std::string v9 = npyWithHeader("{}", "");
  v9[6] = 9;
  EXPECT_EQ(npyError(v9), "x.npy: unsupported .npy format version 9.0, "
                          "expected 1.0, 2.0 or 3.0");
}

TEST(NpzTest, EveryTruncationIsAnError) {
  for (const char *file :
       {"arrays.npz", "arrays_compressed.npz", "zip64.npz", "versions.npz"}) {
    SCOPED_TRACE(file);
    expectAllTruncationsFail(inputBytes(file), npzParses);
  }
}

TEST(NpzTest, CorruptionNeverCrashesAndCrcCatchesData) {
  for (const char *file : {"arrays.npz", "arrays_compressed.npz", "zip64.npz"})
    countRejectedCorruptions(inputBytes(file), npzParses);
  // In a stored archive every byte of array data is covered by its CRC.
  std::string zip = inputBytes("versions.npz");
  size_t start = zip.find("\x93NUMPY"), end = zip.find("PK", start);
  ASSERT_LT(end, zip.size());
  EXPECT_EQ(countRejectedCorruptions(zip, npzParses, start, end),
            3 * (end - start));
}

TEST(NpzTest, RoundTripsThroughOwnReader) {
  std::vector<Array> arrays = sampleArrays();
  llvm::Expected<std::string> bytes = serializeNpz(arrays);
  ASSERT_TRUE(bool(bytes)) << llvm::toString(bytes.takeError());
  llvm::Expected<std::vector<Array>> back = parseNpz(*bytes, "mem.npz");
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  expectSameArrays(arrays, *back);

  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("weights", "npz", path));
  ASSERT_EQ(errorText(writeNpz(path, arrays)), "");
  llvm::Expected<std::vector<Array>> fromFile = readNpz(path);
  ASSERT_TRUE(bool(fromFile)) << llvm::toString(fromFile.takeError());
  expectSameArrays(arrays, *fromFile);
  llvm::sys::fs::remove(path);
}

TEST(NpzTest, ChecksDeclaredSizesAgainstTheLimitFirst) {
  std::vector<Array> arrays = sampleArrays();
  llvm::Expected<std::string> bytes = serializeNpz(arrays);
  ASSERT_TRUE(bool(bytes)) << llvm::toString(bytes.takeError());
  // 24 + 24 + 8 + 8 + 8 + 2 + 3 + 4 + 0 bytes of data in all.
  EXPECT_TRUE(bool(parseNpz(*bytes, "mem.npz", 81)));
  EXPECT_EQ(errorText(parseNpz(*bytes, "mem.npz", 80).takeError()),
            "mem.npz: the arrays declare 81 bytes of data, more than the "
            "limit of 80 (--max-weights-bytes); the largest is "
            "'enc/cell/hi/kernel' with 24 bytes (float32[2, 3])");
  // The limit is the process default unless given.
  uint64_t saved = maxWeightsBytes();
  EXPECT_EQ(saved, kDefaultMaxWeightsBytes);
  setMaxWeightsBytes(10);
  EXPECT_NE(errorText(parseNpz(*bytes, "mem.npz").takeError()), "");
  setMaxWeightsBytes(saved);
}

TEST(NpzTest, ReadsHeadersWithoutData) {
  std::vector<Array> arrays = sampleArrays();
  llvm::Expected<std::string> bytes = serializeNpz(arrays);
  ASSERT_TRUE(bool(bytes)) << llvm::toString(bytes.takeError());
  llvm::Expected<std::vector<ArrayInfo>> infos =
      parseNpzHeaders(*bytes, "mem.npz");
  ASSERT_TRUE(bool(infos)) << llvm::toString(infos.takeError());
  ASSERT_EQ(infos->size(), arrays.size());
  for (size_t i = 0; i < arrays.size(); ++i) {
    EXPECT_EQ((*infos)[i].name, arrays[i].name);
    EXPECT_EQ((*infos)[i].dtype, arrays[i].dtype);
    EXPECT_EQ((*infos)[i].shape, arrays[i].shape);
    EXPECT_EQ((*infos)[i].numBytes, arrays[i].bytes.size());
  }
}

TEST(NpzTest, EntrySizeMustMatchTheNpyHeader) {
  // The header of a stored float32[2] entry, changed to claim float32[3]:
  // the entry's size and its header disagree before any data is read.
  Array two = makeArray("w", DType::F32, {2}, std::vector<uint8_t>(8, 0));
  llvm::Expected<std::string> zip = serializeNpz({two});
  ASSERT_TRUE(bool(zip));
  std::string archive = *zip;
  size_t shape = archive.find("(2,)");
  ASSERT_NE(shape, std::string::npos);
  archive[shape + 1] = '3';
  EXPECT_EQ(parseError(archive),
            "t.npz: entry 'w.npy' holds 136 bytes, but its .npy header "
            "declares 128 header and 12 data bytes (float32[3])");
}

TEST(NpzTest, SerializeRejectsWhatNumpyCannotStore) {
  Array bf16 = makeArray("b", DType::BF16, {1}, {0, 0});
  EXPECT_EQ(errorText(serializeNpz({bf16}).takeError()),
            "array 'b': numpy has no bfloat16 dtype");
  Array a = makeArray("a", DType::F32, {1}, {0, 0, 0, 0});
  EXPECT_EQ(errorText(serializeNpz({a, a}).takeError()), "duplicate array 'a'");
  Array bad = makeArray("c", DType::F32, {2}, {0, 0, 0, 0});
  EXPECT_EQ(errorText(serializeNpz({bad}).takeError()),
            "array 'c' has 4 data bytes, expected 8");
}

/// numpy itself loads what writeNpz writes (python3-numpy is a build
/// dependency, see scripts/bootstrap).
TEST(NpzTest, NumpyLoadsWrittenFile) {
  std::vector<Array> arrays = {
      makeArray("enc/cell/hi/kernel", DType::F32, {2, 2},
                {0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0, 0, 0x40, 0x40, 0, 0, 0x80,
                 0xc0}),
      makeArray("n", DType::I64, {}, {7, 0, 0, 0, 0, 0, 0, 0}),
      makeArray("h", DType::F16, {1}, {0x00, 0x3c})};
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("numpy", "npz", path));
  ASSERT_EQ(errorText(writeNpz(path, arrays)), "");
  std::string script =
      "import sys, numpy as np\n"
      "d = np.load(sys.argv[1])\n"
      "assert sorted(d.files) == ['enc/cell/hi/kernel', 'h', 'n'], d.files\n"
      "k = d['enc/cell/hi/kernel']\n"
      "assert k.dtype == np.float32 and k.tolist() == [[1, 2], [3, -4]], k\n"
      "assert d['n'].dtype == np.int64 and d['n'].shape == () and d['n'] == 7\n"
      "assert d['h'].dtype == np.float16 and d['h'].tolist() == [1.0]\n";
  llvm::StringRef args[] = {"/usr/bin/python3", "-c", script, path};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(args[0], args, std::nullopt, {}, 60, 0,
                                     &message);
  EXPECT_EQ(rc, 0) << message;
  llvm::sys::fs::remove(path);
}

} // namespace
