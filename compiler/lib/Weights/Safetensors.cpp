//===- Safetensors.cpp - .safetensors files -------------------------------===//

#include "rnn/Weights/Safetensors.h"
#include "rnn/Spec/ModelShapes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace rnnc::weights;
using llvm::StringRef;

/// The reference implementation refuses headers above 100 MB.
static constexpr uint64_t kMaxHeaderSize = 100'000'000;

static llvm::Error fail(StringRef fileName, const llvm::Twine &msg) {
  return llvm::createStringError(fileName + ": " + msg);
}

static std::optional<DType> parseDType(StringRef name) {
  return llvm::StringSwitch<std::optional<DType>>(name)
      .Case("F32", DType::F32)
      .Case("F64", DType::F64)
      .Case("F16", DType::F16)
      .Case("BF16", DType::BF16)
      .Case("I32", DType::I32)
      .Case("I64", DType::I64)
      .Case("BOOL", DType::Bool)
      .Case("U8", DType::U8)
      .Default(std::nullopt);
}

/// Reads a JSON array of non-negative integers.
static bool parseInts(const llvm::json::Value *value,
                      std::vector<int64_t> &out) {
  const llvm::json::Array *array = value ? value->getAsArray() : nullptr;
  if (!array)
    return false;
  for (const llvm::json::Value &v : *array) {
    std::optional<int64_t> i = v.getAsInteger();
    if (!i || *i < 0)
      return false;
    out.push_back(*i);
  }
  return true;
}

/// Decodes the header entry `name` into an Array without its data, and
/// sets `slice` to where the data lies in `body`.
static llvm::Expected<Array> parseTensor(StringRef name,
                                         const llvm::json::Value &value,
                                         StringRef body, StringRef fileName,
                                         StringRef &slice) {
  auto bad = [&](const llvm::Twine &msg) {
    return fail(fileName, "tensor '" + name + "': " + msg);
  };
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return bad("expected an object");
  std::optional<StringRef> dtypeText = object->getString("dtype");
  if (!dtypeText)
    return bad("missing string 'dtype'");
  std::optional<DType> dtype = parseDType(*dtypeText);
  if (!dtype)
    return bad("unsupported dtype '" + *dtypeText +
               "', expected F32, F64, F16, BF16, I32, I64, BOOL or U8");
  Array array;
  array.name = name.str();
  array.dtype = *dtype;
  if (!parseInts(object->get("shape"), array.shape))
    return bad("'shape' must be an array of non-negative integers");
  std::vector<int64_t> offsets;
  if (!parseInts(object->get("data_offsets"), offsets) || offsets.size() != 2)
    return bad("'data_offsets' must be [begin, end]");
  int64_t n = 0;
  uint64_t bytes = 0;
  if (llvm::Error err =
          checkShape(array.shape, array.dtype,
                     (fileName + ": tensor '" + name + "'").str(), n, bytes))
    return err;
  uint64_t begin = offsets[0], end = offsets[1];
  if (begin > end || end > body.size())
    return bad("data_offsets [" + llvm::Twine(begin) + ", " + llvm::Twine(end) +
               "] outside the data section of " + llvm::Twine(body.size()) +
               " bytes");
  if (end - begin != bytes)
    return bad("data_offsets span " + llvm::Twine(end - begin) +
               " bytes, expected " + llvm::Twine(bytes) + " for " +
               dtypeName(array.dtype) + rnnc::spec::formatShape(array.shape));
  slice = body.slice(begin, end);
  return array;
}

/// The raw (unescaped) text of each key of the top-level object of `json`,
/// which llvm::json::parse has accepted. json::Object keeps only the last of
/// duplicate keys, so they must be found in the text.
static std::vector<StringRef> topLevelKeys(StringRef json) {
  std::vector<StringRef> keys;
  int depth = 0;
  bool expectKey = false;
  for (size_t i = 0; i < json.size(); ++i) {
    switch (json[i]) {
    case '"': {
      size_t start = ++i;
      while (i < json.size() && json[i] != '"')
        i += json[i] == '\\' ? 2 : 1;
      if (depth == 1 && expectKey)
        keys.push_back(json.slice(start, i));
      expectKey = false;
      break;
    }
    case '{':
    case '[':
      expectKey = ++depth == 1;
      break;
    case '}':
    case ']':
      --depth;
      break;
    case ',':
      expectKey = depth == 1;
      break;
    default:
      break;
    }
  }
  return keys;
}

/// The tensors of a file without their data, with where each one's data
/// lies in `data`.
static llvm::Error parseHeader(StringRef data, StringRef fileName,
                               std::vector<Array> &arrays,
                               std::vector<StringRef> &slices) {
  if (data.size() < 8)
    return fail(fileName, "truncated safetensors file: " +
                              llvm::Twine(data.size()) + " bytes");
  uint64_t headerSize = llvm::support::endian::read64le(data.data());
  if (headerSize > data.size() - 8)
    return fail(fileName, "header of " + llvm::Twine(headerSize) +
                              " bytes exceeds the file (" +
                              llvm::Twine(data.size() - 8) +
                              " bytes after the size)");
  if (headerSize > kMaxHeaderSize)
    return fail(fileName,
                "header of " + llvm::Twine(headerSize) + " bytes is too large");
  llvm::Expected<llvm::json::Value> header =
      llvm::json::parse(data.substr(8, headerSize));
  if (!header)
    return fail(fileName,
                "invalid JSON header: " + llvm::toString(header.takeError()));
  const llvm::json::Object *object = header->getAsObject();
  if (!object)
    return fail(fileName, "JSON header is not an object");

  std::vector<StringRef> rawKeys = topLevelKeys(data.substr(8, headerSize));
  if (rawKeys.size() != object->size()) {
    llvm::sort(rawKeys);
    auto dup = std::adjacent_find(rawKeys.begin(), rawKeys.end());
    return fail(fileName,
                dup == rawKeys.end()
                    ? llvm::Twine("duplicate keys in the JSON header")
                    : "duplicate key '" + *dup + "' in the JSON header");
  }

  std::vector<StringRef> names;
  for (const auto &kv : *object)
    if (kv.first != "__metadata__")
      names.push_back(kv.first);
  llvm::sort(names);
  StringRef body = data.substr(8 + headerSize);
  for (StringRef name : names) {
    StringRef slice;
    llvm::Expected<Array> array =
        parseTensor(name, *object->get(name), body, fileName, slice);
    if (!array)
      return array.takeError();
    arrays.push_back(std::move(*array));
    slices.push_back(slice);
  }
  return llvm::Error::success();
}

static std::vector<ArrayInfo> infosOf(const std::vector<Array> &arrays,
                                      const std::vector<StringRef> &slices) {
  std::vector<ArrayInfo> infos;
  for (auto [array, slice] : llvm::zip_equal(arrays, slices))
    infos.push_back({array.name, array.dtype, array.shape, slice.size()});
  return infos;
}

llvm::Expected<std::vector<Array>>
rnnc::weights::parseSafetensors(StringRef data, StringRef fileName,
                                uint64_t maxBytes) {
  std::vector<Array> arrays;
  std::vector<StringRef> slices;
  if (llvm::Error err = parseHeader(data, fileName, arrays, slices))
    return err;
  if (llvm::Error err =
          checkDeclaredBytes(infosOf(arrays, slices), maxBytes, fileName))
    return err;
  for (auto [array, slice] : llvm::zip_equal(arrays, slices))
    array.bytes.assign(slice.bytes_begin(), slice.bytes_end());
  return arrays;
}

llvm::Expected<std::vector<ArrayInfo>>
rnnc::weights::parseSafetensorsHeaders(StringRef data, StringRef fileName) {
  std::vector<Array> arrays;
  std::vector<StringRef> slices;
  if (llvm::Error err = parseHeader(data, fileName, arrays, slices))
    return err;
  return infosOf(arrays, slices);
}

llvm::Expected<std::vector<Array>>
rnnc::weights::readSafetensors(StringRef path, uint64_t maxBytes) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError("cannot open '" + path +
                                   "': " + buffer.getError().message());
  return parseSafetensors((*buffer)->getBuffer(), path, maxBytes);
}
