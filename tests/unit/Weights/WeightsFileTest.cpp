//===- WeightsFileTest.cpp - readWeights and printParamTree ---------------===//

#include "TestUtil.h"

#include "rnn/Weights/Npz.h"
#include "rnn/Weights/WeightsFile.h"

using namespace rnnc;
using namespace rnnc::test;

namespace {

std::vector<std::string> keysOf(const ParamTree &tree) {
  std::vector<std::string> keys;
  for (const auto &entry : tree)
    keys.push_back(entry.first);
  return keys;
}

std::string readError(llvm::StringRef bytes) {
  std::vector<std::string> warnings;
  return errorText(parseWeights(bytes, "w.bin", warnings).takeError());
}

TEST(WeightsFileTest, ReadsFloat32NpzWithoutWarnings) {
  std::vector<std::string> warnings;
  llvm::Expected<ParamTree> tree =
      readWeights(inputPath("arrays_compressed.npz"), warnings);
  ASSERT_TRUE(bool(tree)) << llvm::toString(tree.takeError());
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(keysOf(*tree),
            (std::vector<std::string>{"empty", "enc/cell/hi/bias",
                                      "enc/cell/hi/kernel", "scalar"}));
  const Tensor &kernel = tree->at("enc/cell/hi/kernel");
  EXPECT_EQ(kernel.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(kernel.data,
            (std::vector<float>{-1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f}));
  EXPECT_EQ(tree->at("scalar").shape, std::vector<int64_t>{});
  EXPECT_EQ(tree->at("scalar").data, std::vector<float>{3.25f});
  EXPECT_EQ(tree->at("empty").shape, (std::vector<int64_t>{0, 4}));
  EXPECT_TRUE(tree->at("empty").data.empty());
}

TEST(WeightsFileTest, StripsParamsPrefixAndWarnsOnConversion) {
  std::vector<std::string> warnings;
  llvm::Expected<ParamTree> tree =
      readWeights(inputPath("converted.npz"), warnings);
  ASSERT_TRUE(bool(tree)) << llvm::toString(tree.takeError());
  EXPECT_EQ(keysOf(*tree), (std::vector<std::string>{"a/f16", "a/f64", "b"}));
  EXPECT_EQ(warnings, (std::vector<std::string>{
                          "converted 'a/f64' from float64 to float32",
                          "converted 'a/f16' from float16 to float32"}));
  EXPECT_EQ(tree->at("a/f64").data,
            (std::vector<float>{1.0f / 3, -2.0f / 3, 1e10f, 0.0f}));
  EXPECT_EQ(
      tree->at("a/f16").data,
      (std::vector<float>{0.5f, -1.5f, 65504.0f, 5.9604644775390625e-08f}));
}

TEST(WeightsFileTest, ReadsSafetensorsByContent) {
  std::vector<std::string> warnings;
  llvm::Expected<ParamTree> tree =
      readWeights(inputPath("mixed.safetensors"), warnings);
  ASSERT_TRUE(bool(tree)) << llvm::toString(tree.takeError());
  EXPECT_EQ(keysOf(*tree),
            (std::vector<std::string>{"brain", "enc/cell/i/kernel", "half"}));
  // bfloat16 stays bfloat16: nothing converted, nothing to warn about.
  EXPECT_EQ(warnings, (std::vector<std::string>{
                          "converted 'half' from float16 to float32"}));
  // bfloat16 by truncation of 1/3 and -0.1.
  EXPECT_EQ(tree->at("brain").data,
            (std::vector<float>{0.33203125f, -0.099609375f, 256.0f, -2.0f}));
  // A bfloat16 array is a bfloat16 tensor; float16 widens to float32.
  EXPECT_EQ(tree->at("brain").elementType, spec::ElementType::BFloat16);
  EXPECT_EQ(tree->at("half").elementType, spec::ElementType::Float32);
  EXPECT_EQ(tree->at("enc/cell/i/kernel").elementType,
            spec::ElementType::Float32);
}

TEST(WeightsFileTest, RejectsIntegerParams) {
  std::vector<std::string> warnings;
  std::string err =
      errorText(readWeights(inputPath("ints.npz"), warnings).takeError());
  EXPECT_EQ(err, inputPath("ints.npz") +
                     ": param 'i32' has dtype int32, expected a "
                     "floating-point dtype");
}

TEST(WeightsFileTest, SetsIntegerArraysAsideWhenAsked) {
  std::vector<std::string> warnings;
  std::map<std::string, std::string> nonFloat;
  llvm::Expected<ParamTree> tree =
      readWeights(inputPath("ints.npz"), warnings, &nonFloat);
  ASSERT_TRUE(bool(tree)) << llvm::toString(tree.takeError());
  EXPECT_FALSE(tree->count("i32"));
  EXPECT_EQ(nonFloat.at("i32"), "int32");
  for (const auto &[key, dtype] : nonFloat)
    EXPECT_FALSE(tree->count(key)) << key;
}

TEST(WeightsFileTest, ListsArraysOfEveryDtype) {
  llvm::Expected<std::vector<WeightsEntry>> entries =
      listWeights(inputPath("ints.npz"));
  ASSERT_TRUE(bool(entries)) << llvm::toString(entries.takeError());
  bool sawInt32 = false;
  for (const WeightsEntry &entry : *entries)
    sawInt32 |= entry.key == "i32" && entry.dtype == "int32";
  EXPECT_TRUE(sawInt32);

  std::vector<WeightsEntry> two = {
      {"enc/cell/hi/bias", "float32", {3}, 12},
      {"step", "int32", {}, 4}};
  std::string flat, nested;
  llvm::raw_string_ostream flatOs(flat), nestedOs(nested);
  printWeightsListing(flatOs, two, /*flat=*/true);
  printWeightsListing(nestedOs, two, /*flat=*/false);
  EXPECT_EQ(flat, "enc/cell/hi/bias  float32  [3]\n"
                  "step  int32  []\n"
                  "2 arrays, 4 parameters, 16 bytes\n");
  EXPECT_EQ(nested, "enc/\n"
                    "  cell/\n"
                    "    hi/\n"
                    "      bias  float32[3]\n"
                    "step  int32[]\n"
                    "2 arrays, 4 parameters, 16 bytes\n");
}

TEST(WeightsFileTest, RejectsKeysEqualAfterStrippingParams) {
  weights::Array a{"params/x", weights::DType::F32, {1}, {0, 0, 0, 0}};
  weights::Array b{"x", weights::DType::F32, {1}, {0, 0, 0, 0}};
  llvm::Expected<std::string> npz = weights::serializeNpz({a, b});
  ASSERT_TRUE(bool(npz)) << llvm::toString(npz.takeError());
  EXPECT_EQ(readError(*npz),
            "w.bin: arrays 'params/x' and 'x' both give param 'x'");
}

TEST(WeightsFileTest, RejectsUnknownFormats) {
  EXPECT_EQ(readError("hello, world"),
            "w.bin: unknown weights format, expected an .npz archive "
            "(np.savez) or a .safetensors file");
  EXPECT_EQ(readError(std::string("\x93NUMPY\x01\x00", 8)),
            "w.bin: a single .npy array, expected an .npz archive (np.savez) "
            "or a .safetensors file");
  EXPECT_NE(readError("PK\x03\x04 but not a zip").find("w.bin: not a zip"),
            std::string::npos);
  std::vector<std::string> warnings;
  std::string err =
      errorText(readWeights(inputPath("missing.npz"), warnings).takeError());
  EXPECT_NE(err.find("cannot open '"), std::string::npos) << err;
}

TEST(WeightsFileTest, SafetensorsHeaderSizeStartingWithPKIsNotAZip) {
  std::string json =
      R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  json.resize(0x4b50, ' '); // the size's first two bytes are "PK"
  std::string file("PK\0\0\0\0\0\0", 8);
  file += json + std::string("\0\0\x80\x3f", 4);
  std::vector<std::string> warnings;
  llvm::Expected<ParamTree> tree = parseWeights(file, "w.bin", warnings);
  ASSERT_TRUE(bool(tree)) << llvm::toString(tree.takeError());
  EXPECT_EQ(tree->at("w").data, std::vector<float>{1.0f});
}

TEST(WeightsFileTest, PrintsParamTree) {
  ParamTree tree;
  auto add = [&](std::string key, std::vector<int64_t> shape) {
    Tensor t{shape, {}};
    t.data.resize(size_t(t.numElements()));
    tree[key] = t;
  };
  add("enc/cell/ii/kernel", {4, 3});
  add("enc/cell/hi/kernel", {2, 3});
  add("enc/cell/hi/bias", {3});
  add("dec/cell/h/kernel", {2, 2});
  add("scalar", {});
  std::string text;
  llvm::raw_string_ostream os(text);
  printParamTree(os, tree);
  EXPECT_EQ(text, "dec/\n"
                  "  cell/\n"
                  "    h/\n"
                  "      kernel  float32[2, 2]\n"
                  "enc/\n"
                  "  cell/\n"
                  "    hi/\n"
                  "      bias  float32[3]\n"
                  "      kernel  float32[2, 3]\n"
                  "    ii/\n"
                  "      kernel  float32[4, 3]\n"
                  "scalar  float32[]\n"
                  "5 arrays, 26 parameters, 104 bytes\n");

  std::string one;
  llvm::raw_string_ostream oneOs(one);
  printParamTree(oneOs, ParamTree{{"w", Tensor{{}, {1.0f}}}});
  EXPECT_EQ(one, "w  float32[]\n1 array, 1 parameter, 4 bytes\n");

  // Each array with the type it is held in (a bfloat16 array stays one).
  std::string bf16;
  llvm::raw_string_ostream bf16Os(bf16);
  printParamTree(bf16Os, ParamTree{{"w", Tensor{{3},
                                                {1.0f, 2.0f, 3.0f},
                                                spec::ElementType::BFloat16}}});
  EXPECT_EQ(bf16, "w  bfloat16[3]\n1 array, 3 parameters, 6 bytes\n");
}

} // namespace
