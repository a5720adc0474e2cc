//===- WeightsFile.cpp - Reading a weights file into a ParamTree ----------===//

#include "rnn/Weights/WeightsFile.h"
#include "rnn/Spec/ModelShapes.h"
#include "rnn/Weights/Npz.h"
#include "rnn/Weights/Safetensors.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace rnnc;
using namespace rnnc::weights;
using llvm::StringRef;

static llvm::Error fail(StringRef fileName, const llvm::Twine &msg) {
  return llvm::createStringError(fileName + ": " + msg);
}

/// Reads the arrays of a file in whichever format its first bytes show.
static llvm::Expected<std::vector<Array>> parseArrays(StringRef data,
                                                      StringRef fileName) {
  if (data.starts_with("\x93NUMPY"))
    return fail(fileName, "a single .npy array, expected an .npz archive "
                          "(np.savez) or a .safetensors file");
  // A safetensors file starts with its 8-byte header size, then a JSON
  // object. Byte 8 of a zip archive is a compression method (0 or 8) or an
  // entry count of 0, never '{', so a header size that happens to begin with
  // "PK" is not taken for a zip.
  if (data.size() >= 9 && data[8] == '{')
    return parseSafetensors(data, fileName);
  if (data.starts_with("PK"))
    return parseNpz(data, fileName);
  return fail(fileName, "unknown weights format, expected an .npz archive "
                        "(np.savez) or a .safetensors file");
}

/// The headers of a file in whichever format its first bytes show.
static llvm::Expected<std::vector<ArrayInfo>>
parseArrayInfos(StringRef data, StringRef fileName) {
  if (data.starts_with("\x93NUMPY"))
    return fail(fileName, "a single .npy array, expected an .npz archive "
                          "(np.savez) or a .safetensors file");
  if (data.size() >= 9 && data[8] == '{')
    return parseSafetensorsHeaders(data, fileName);
  if (data.starts_with("PK"))
    return parseNpzHeaders(data, fileName);
  return fail(fileName, "unknown weights format, expected an .npz archive "
                        "(np.savez) or a .safetensors file");
}

/// The param key of the array `name` (without `params/`), checked like
/// parseWeights checks it; `original` maps the keys seen so far to their
/// names in the file.
static llvm::Expected<std::string>
paramKey(StringRef name, StringRef fileName,
         std::map<std::string, std::string> &original) {
  StringRef key = name;
  key.consume_front("params/");
  if (key.empty())
    return fail(fileName, "array '" + name + "' has an empty key");
  auto [it, inserted] = original.try_emplace(key.str(), name.str());
  if (!inserted)
    return fail(fileName, "arrays '" + it->second + "' and '" + name +
                              "' both give param '" + key + "'");
  return key.str();
}

llvm::Expected<ParamShapes>
rnnc::parseWeightShapes(StringRef data, StringRef fileName,
                        std::map<std::string, std::string> *nonFloat) {
  llvm::Expected<std::vector<ArrayInfo>> infos =
      parseArrayInfos(data, fileName);
  if (!infos)
    return infos.takeError();
  // The limit readWeights would refuse the file for comes first, as there.
  if (llvm::Error err = checkDeclaredBytes(*infos, maxWeightsBytes(), fileName))
    return std::move(err);
  ParamShapes shapes;
  std::map<std::string, std::string> original;
  for (const ArrayInfo &info : *infos) {
    llvm::Expected<std::string> key = paramKey(info.name, fileName, original);
    if (!key)
      return key.takeError();
    if (!isFloatingPoint(info.dtype) && nonFloat) {
      (*nonFloat)[*key] = dtypeName(info.dtype);
      continue;
    }
    if (!isFloatingPoint(info.dtype))
      return fail(fileName, "param '" + *key + "' has dtype " +
                                dtypeName(info.dtype) +
                                ", expected a floating-point dtype");
    shapes[*key] = info.shape;
  }
  return shapes;
}

llvm::Expected<ParamShapes>
rnnc::readWeightShapes(StringRef path,
                       std::map<std::string, std::string> *nonFloat) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError("cannot open '" + path +
                                   "': " + buffer.getError().message());
  return parseWeightShapes((*buffer)->getBuffer(), path, nonFloat);
}

llvm::Expected<ParamTree>
rnnc::parseWeights(StringRef data, StringRef fileName,
                   std::vector<std::string> &warnings,
                   std::map<std::string, std::string> *nonFloat) {
  llvm::Expected<std::vector<Array>> arrays = parseArrays(data, fileName);
  if (!arrays)
    return arrays.takeError();
  ParamTree tree;
  std::map<std::string, std::string> original; // key -> name in the file
  for (Array &array : *arrays) {
    llvm::Expected<std::string> checkedKey =
        paramKey(array.name, fileName, original);
    if (!checkedKey)
      return checkedKey.takeError();
    StringRef key = *checkedKey;
    if (!isFloatingPoint(array.dtype) && nonFloat) {
      (*nonFloat)[key.str()] = dtypeName(array.dtype);
      continue;
    }
    if (!isFloatingPoint(array.dtype))
      return fail(fileName, "param '" + key + "' has dtype " +
                                dtypeName(array.dtype) +
                                ", expected a floating-point dtype");
    llvm::Expected<std::vector<float>> values = toFloat32(array);
    // Each array's bytes go as soon as they are converted: the file's data
    // is held once, not twice.
    std::vector<uint8_t>().swap(array.bytes);
    if (!values)
      return fail(fileName, llvm::toString(values.takeError()));
    // bfloat16 arrays stay as they are; binding says where one is widened.
    if (array.dtype != DType::F32 && array.dtype != DType::BF16)
      warnings.push_back(("converted '" + key + "' from " +
                          dtypeName(array.dtype) + " to float32")
                             .str());
    // A bfloat16 array keeps its type (its values are exact floats); the
    // other float types are float32 now.
    tree[key.str()] =
        Tensor{array.shape, std::move(*values),
               array.dtype == DType::BF16 ? spec::ElementType::BFloat16
                                          : spec::ElementType::Float32};
  }
  return tree;
}

/// The contents of the file at `path`.
static llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readFile(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError("cannot open '" + path +
                                   "': " + buffer.getError().message());
  return std::move(*buffer);
}

llvm::Expected<std::vector<WeightsEntry>>
rnnc::listWeights(StringRef path) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer = readFile(path);
  if (!buffer)
    return buffer.takeError();
  // Headers only: a listing never inflates an array.
  llvm::Expected<std::vector<ArrayInfo>> infos =
      parseArrayInfos((*buffer)->getBuffer(), path);
  if (!infos)
    return infos.takeError();
  std::vector<WeightsEntry> entries;
  std::map<std::string, std::string> original;
  for (const ArrayInfo &info : *infos) {
    llvm::Expected<std::string> key = paramKey(info.name, path, original);
    if (!key)
      return key.takeError();
    entries.push_back({*key, dtypeName(info.dtype), info.shape,
                       int64_t(info.numBytes)});
  }
  llvm::sort(entries, [](const WeightsEntry &a, const WeightsEntry &b) {
    return a.key < b.key;
  });
  return entries;
}

llvm::Expected<ParamTree>
rnnc::readWeights(StringRef path, std::vector<std::string> &warnings,
                  std::map<std::string, std::string> *nonFloat) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError("cannot open '" + path +
                                   "': " + buffer.getError().message());
  return parseWeights((*buffer)->getBuffer(), path, warnings, nonFloat);
}

void rnnc::printWeightsListing(llvm::raw_ostream &os,
                               const std::vector<WeightsEntry> &entries,
                               bool flat) {
  // Keys sharing a prefix are adjacent in sorted order, so each key prints
  // only the directories it does not share with the previous one.
  llvm::SmallVector<StringRef> previous;
  int64_t parameters = 0, bytes = 0;
  for (const WeightsEntry &entry : entries) {
    parameters += spec::numElements(entry.shape);
    bytes += entry.bytes;
    if (flat) {
      os << entry.key << "  " << entry.dtype << "  "
         << spec::formatShape(entry.shape) << "\n";
      continue;
    }
    llvm::SmallVector<StringRef> parts;
    StringRef(entry.key).split(parts, '/');
    size_t common = 0;
    while (common + 1 < parts.size() && common + 1 < previous.size() &&
           parts[common] == previous[common])
      ++common;
    for (size_t i = common; i + 1 < parts.size(); ++i)
      os.indent(2 * i) << parts[i] << "/\n";
    os.indent(2 * (parts.size() - 1))
        << parts.back() << "  " << entry.dtype
        << spec::formatShape(entry.shape) << "\n";
    previous = parts;
  }
  size_t arrays = entries.size();
  os << arrays << (arrays == 1 ? " array, " : " arrays, ") << parameters
     << (parameters == 1 ? " parameter, " : " parameters, ") << bytes
     << " bytes\n";
}

void rnnc::printParamTree(llvm::raw_ostream &os, const ParamTree &tree) {
  std::vector<WeightsEntry> entries;
  for (const auto &[key, tensor] : tree)
    entries.push_back(
        {key, spec::stringify(tensor.elementType), tensor.shape,
         tensor.numElements() * spec::byteWidth(tensor.elementType)});
  printWeightsListing(os, entries, /*flat=*/false);
}
