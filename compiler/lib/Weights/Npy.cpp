//===- Npy.cpp - numpy .npy arrays ----------------------------------------===//
//
// The .npy format: magic "\x93NUMPY", a version, a header length, then a
// Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces and a newline, then the raw elements. numpy saves a
// transposed view (as from a PyTorch weight's .T) with 'fortran_order':
// True, its elements in column-major order; they are read into row-major
// order, as np.load presents them.
//
//===----------------------------------------------------------------------===//

#include "rnn/Spec/ModelShapes.h"
#include "rnn/Weights/Npz.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"

#include <algorithm>

using namespace rnnc::weights;
using llvm::StringRef;

static constexpr StringRef kMagic("\x93NUMPY", 6);

static llvm::Error fail(StringRef what, const llvm::Twine &msg) {
  return llvm::createStringError(what + ": " + msg);
}

namespace {
/// The three fields of a .npy header.
struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
};

/// A recursive-descent parser for the small subset of Python literals that a
/// .npy header uses: a dict of quoted keys to quoted strings, True/False and
/// tuples of non-negative integers.
class HeaderParser {
public:
  HeaderParser(StringRef text, StringRef what) : text(text), what(what) {}

  llvm::Expected<NpyHeader> parse() {
    NpyHeader header;
    bool seenDescr = false, seenOrder = false, seenShape = false;
    if (!consume('{'))
      return error("expected '{'");
    while (!consume('}')) {
      std::string key;
      if (llvm::Error err = parseString(key))
        return err;
      if (!consume(':'))
        return error("expected ':' after '" + key + "'");
      bool *seen = nullptr;
      llvm::Error err = llvm::Error::success();
      if (key == "descr") {
        seen = &seenDescr;
        if (peek() == '[')
          return error("structured dtypes are not supported");
        err = parseString(header.descr);
      } else if (key == "fortran_order") {
        seen = &seenOrder;
        err = parseBool(header.fortranOrder);
      } else if (key == "shape") {
        seen = &seenShape;
        err = parseShape(header.shape);
      } else {
        return error("unexpected key '" + key + "'");
      }
      if (err)
        return err;
      if (*seen)
        return error("duplicate key '" + key + "'");
      *seen = true;
      if (!consume(',') && peek() != '}')
        return error("expected ',' or '}'");
    }
    skipSpace();
    if (pos != text.size())
      return error("unexpected text after the header dict");
    if (!seenDescr || !seenOrder || !seenShape)
      return error("expected keys 'descr', 'fortran_order' and 'shape'");
    return header;
  }

private:
  void skipSpace() {
    while (pos < text.size() && llvm::isSpace(text[pos]))
      ++pos;
  }
  char peek() {
    skipSpace();
    return pos < text.size() ? text[pos] : '\0';
  }
  bool consume(char c) {
    if (peek() != c)
      return false;
    ++pos;
    return true;
  }
  llvm::Error error(const llvm::Twine &msg) {
    return fail(what, "invalid .npy header: " + msg);
  }

  llvm::Error parseString(std::string &out) {
    char quote = peek();
    if (quote != '\'' && quote != '"')
      return error("expected a quoted string");
    size_t end = text.find(quote, ++pos);
    if (end == StringRef::npos)
      return error("unterminated string");
    out = text.slice(pos, end).str();
    if (out.find('\\') != std::string::npos)
      return error("escapes in strings are not supported");
    pos = end + 1;
    return llvm::Error::success();
  }

  llvm::Error parseBool(bool &out) {
    skipSpace();
    StringRef rest = text.substr(pos);
    if (rest.starts_with("True")) {
      out = true;
      pos += 4;
    } else if (rest.starts_with("False")) {
      out = false;
      pos += 5;
    } else {
      return error("expected True or False");
    }
    return llvm::Error::success();
  }

  llvm::Error parseShape(std::vector<int64_t> &out) {
    if (!consume('('))
      return error("expected '(' to start the shape");
    while (!consume(')')) {
      skipSpace();
      size_t start = pos;
      while (pos < text.size() && llvm::isDigit(text[pos]))
        ++pos;
      int64_t dim = 0;
      if (text.slice(start, pos).getAsInteger(10, dim) || dim < 0)
        return error("expected a non-negative integer in the shape");
      if (pos < text.size() && text[pos] == 'L') // Python 2 long
        ++pos;
      out.push_back(dim);
      if (!consume(',') && peek() != ')')
        return error("expected ',' or ')' in the shape");
    }
    return llvm::Error::success();
  }

  StringRef text;
  StringRef what;
  size_t pos = 0;
};
} // namespace

/// Maps a numpy type string to a DType; little-endian and C order only.
static llvm::Expected<DType> parseDescr(StringRef descr, StringRef what) {
  if (descr.size() >= 2 && (descr[0] == '>' || descr[0] == '!'))
    return fail(what, "big-endian dtype '" + descr +
                          "' is not supported (save a little-endian array)");
  static const struct {
    const char *descr;
    DType dtype;
  } known[] = {{"|b1", DType::Bool}, {"|u1", DType::U8},  {"<i4", DType::I32},
               {"<i8", DType::I64},  {"<f2", DType::F16}, {"<f4", DType::F32},
               {"<f8", DType::F64}};
  for (const auto &k : known)
    if (descr == k.descr)
      return k.dtype;
  return fail(what, "unsupported dtype '" + descr +
                        "', expected one of '<f2', '<f4', '<f8', '<i4', "
                        "'<i8', '|b1', '|u1'");
}

static const char *descrOf(DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return "|b1";
  case DType::U8:
    return "|u1";
  case DType::I32:
    return "<i4";
  case DType::I64:
    return "<i8";
  case DType::F16:
    return "<f2";
  case DType::F32:
    return "<f4";
  case DType::F64:
    return "<f8";
  case DType::BF16:
    break;
  }
  return nullptr;
}

void rnnc::weights::toRowMajor(Array &array) {
  size_t rank = array.shape.size(), size = dtypeSize(array.dtype);
  if (rank < 2)
    return;
  // Column-major strides, in elements.
  std::vector<uint64_t> strides(rank, 1);
  for (size_t d = 1; d < rank; ++d)
    strides[d] = strides[d - 1] * uint64_t(array.shape[d - 1]);
  std::vector<uint8_t> rowMajor(array.bytes.size());
  std::vector<int64_t> index(rank, 0);
  for (size_t offset = 0; offset < rowMajor.size(); offset += size) {
    uint64_t source = 0;
    for (size_t d = 0; d < rank; ++d)
      source += uint64_t(index[d]) * strides[d];
    std::copy_n(array.bytes.begin() + source * size, size,
                rowMajor.begin() + offset);
    // The next row-major index: the last dimension varies fastest.
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < array.shape[d])
        break;
      index[d] = 0;
    }
  }
  array.bytes = std::move(rowMajor);
}

llvm::Expected<uint64_t> rnnc::weights::npyHeaderSize(StringRef data,
                                                      StringRef what) {
  if (data.size() < 10 || !data.starts_with(kMagic))
    return fail(what, "not a .npy array (bad magic)");
  unsigned major = uint8_t(data[6]), minor = uint8_t(data[7]);
  uint64_t headerStart, headerLen;
  if (major == 1) {
    headerStart = 10;
    headerLen = llvm::support::endian::read16le(data.data() + 8);
  } else if (major == 2 || major == 3) {
    if (data.size() < 12)
      return fail(what, "truncated .npy header");
    headerStart = 12;
    headerLen = llvm::support::endian::read32le(data.data() + 8);
  } else {
    return fail(what, "unsupported .npy format version " + llvm::Twine(major) +
                          "." + llvm::Twine(minor) +
                          ", expected 1.0, 2.0 or 3.0");
  }
  if (headerStart + headerLen > kMaxNpyHeaderBytes)
    return fail(what, ".npy header of " + llvm::Twine(headerLen) +
                          " bytes is too large (at most " +
                          llvm::Twine(kMaxNpyHeaderBytes) + ")");
  return headerStart + headerLen;
}

llvm::Expected<NpyInfo> rnnc::weights::parseNpyHeader(StringRef data,
                                                      StringRef what) {
  llvm::Expected<uint64_t> size = npyHeaderSize(data, what);
  if (!size)
    return size.takeError();
  uint64_t headerStart = uint8_t(data[6]) == 1 ? 10 : 12;
  uint64_t headerLen = *size - headerStart;
  if (headerLen > data.size() - headerStart)
    return fail(what, "truncated .npy header: " + llvm::Twine(headerLen) +
                          " bytes declared, " +
                          llvm::Twine(data.size() - headerStart) +
                          " available");
  HeaderParser parser(data.substr(headerStart, headerLen), what);
  llvm::Expected<NpyHeader> header = parser.parse();
  if (!header)
    return header.takeError();
  llvm::Expected<DType> dtype = parseDescr(header->descr, what);
  if (!dtype)
    return dtype.takeError();
  NpyInfo info;
  info.dtype = *dtype;
  info.shape = header->shape;
  info.fortranOrder = header->fortranOrder;
  info.dataOffset = *size;
  int64_t n = 0;
  if (llvm::Error err = checkShape(info.shape, info.dtype, what, n,
                                   info.dataBytes))
    return err;
  return info;
}

llvm::Expected<Array> rnnc::weights::parseNpy(StringRef data, StringRef name,
                                              StringRef what) {
  llvm::Expected<NpyInfo> info = parseNpyHeader(data, what);
  if (!info)
    return info.takeError();
  Array array;
  array.name = name.str();
  array.dtype = info->dtype;
  array.shape = info->shape;
  StringRef payload = data.substr(info->dataOffset);
  if (payload.size() != info->dataBytes)
    return fail(what, "array data has " + llvm::Twine(payload.size()) +
                          " bytes, expected " + llvm::Twine(info->dataBytes) +
                          " for " + dtypeName(array.dtype) +
                          rnnc::spec::formatShape(array.shape));
  array.bytes.assign(payload.bytes_begin(), payload.bytes_end());
  if (info->fortranOrder)
    toRowMajor(array);
  return array;
}

llvm::Expected<std::string> rnnc::weights::serializeNpy(const Array &array) {
  const char *descr = descrOf(array.dtype);
  if (!descr)
    return llvm::createStringError("array '" + array.name +
                                   "': numpy has no bfloat16 dtype");
  int64_t n = 0;
  uint64_t bytes = 0;
  if (llvm::Error err = checkShape(array.shape, array.dtype,
                                   "array '" + array.name + "'", n, bytes))
    return err;
  if (bytes != array.bytes.size())
    return llvm::createStringError(
        "array '" + array.name + "' has " + llvm::Twine(array.bytes.size()) +
        " data bytes, expected " + llvm::Twine(bytes));

  std::string dict = "{'descr': '" + std::string(descr) +
                     "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < array.shape.size(); ++i)
    dict +=
        std::to_string(array.shape[i]) + (array.shape.size() == 1      ? ","
                                          : i + 1 < array.shape.size() ? ", "
                                                                       : "");
  dict += "), }";
  // Like numpy: pad with spaces so the data starts at a multiple of 64.
  size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  if (dict.size() > 0xffff)
    return llvm::createStringError("array '" + array.name +
                                   "': .npy header too long");

  std::string out(kMagic);
  out += char(1);
  out += char(0);
  out += char(dict.size() & 0xff);
  out += char(dict.size() >> 8);
  out += dict;
  out.append(array.bytes.begin(), array.bytes.end());
  return out;
}
