//===- Array.cpp - Raw arrays read from weights files ---------------------===//

#include "rnn/Weights/Array.h"
#include "rnn/Spec/ModelShapes.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace rnnc::weights;
using llvm::support::endian::read16le;
using llvm::support::endian::read32le;
using llvm::support::endian::read64le;

const char *rnnc::weights::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return "bool";
  case DType::U8:
    return "uint8";
  case DType::I32:
    return "int32";
  case DType::I64:
    return "int64";
  case DType::F16:
    return "float16";
  case DType::BF16:
    return "bfloat16";
  case DType::F32:
    return "float32";
  case DType::F64:
    return "float64";
  }
  return "unknown";
}

size_t rnnc::weights::dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::Bool:
  case DType::U8:
    return 1;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I32:
  case DType::F32:
    return 4;
  case DType::I64:
  case DType::F64:
    return 8;
  }
  return 1;
}

bool rnnc::weights::isFloatingPoint(DType dtype) {
  return dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::F32 ||
         dtype == DType::F64;
}

llvm::Error rnnc::weights::checkShape(llvm::ArrayRef<int64_t> shape,
                                      DType dtype, llvm::StringRef what,
                                      int64_t &numElements,
                                      uint64_t &numBytes) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return llvm::createStringError("%s has a negative dimension %lld",
                                     what.str().c_str(), (long long)d);
    if (llvm::MulOverflow(n, d, n))
      return llvm::createStringError("%s: shape %s is too large",
                                     what.str().c_str(),
                                     spec::formatShape(shape).c_str());
  }
  int64_t bytes = 0;
  if (llvm::MulOverflow(n, int64_t(dtypeSize(dtype)), bytes))
    return llvm::createStringError("%s: shape %s is too large",
                                   what.str().c_str(),
                                   spec::formatShape(shape).c_str());
  numElements = n;
  numBytes = bytes;
  return llvm::Error::success();
}

static uint64_t currentMaxWeightsBytes = kDefaultMaxWeightsBytes;

uint64_t rnnc::weights::maxWeightsBytes() { return currentMaxWeightsBytes; }

void rnnc::weights::setMaxWeightsBytes(uint64_t bytes) {
  currentMaxWeightsBytes = bytes;
}

llvm::Error rnnc::weights::checkDeclaredBytes(llvm::ArrayRef<ArrayInfo> infos,
                                              uint64_t maxBytes,
                                              llvm::StringRef fileName) {
  uint64_t total = 0;
  bool overflow = false;
  const ArrayInfo *largest = nullptr;
  for (const ArrayInfo &info : infos) {
    if (info.numBytes > std::numeric_limits<uint64_t>::max() - total)
      overflow = true;
    else
      total += info.numBytes;
    if (!largest || info.numBytes > largest->numBytes)
      largest = &info;
  }
  if (!overflow && total <= maxBytes)
    return llvm::Error::success();
  std::string totalText = overflow ? "more than 2^64" : std::to_string(total);
  return llvm::createStringError(
      fileName + ": the arrays declare " + totalText +
      " bytes of data, more than the limit of " + llvm::Twine(maxBytes) +
      " (--max-weights-bytes); the largest is '" + largest->name + "' with " +
      llvm::Twine(largest->numBytes) + " bytes (" + dtypeName(largest->dtype) +
      spec::formatShape(largest->shape) + ")");
}

float rnnc::weights::halfToFloat(uint16_t bits) {
  uint32_t sign = uint32_t(bits & 0x8000) << 16;
  uint32_t exp = (bits >> 10) & 0x1f;
  uint32_t mant = bits & 0x3ff;
  float magnitude;
  if (exp == 0)
    magnitude = std::ldexp(float(mant), -24); // zero or subnormal
  else if (exp == 31)
    magnitude = mant ? std::numeric_limits<float>::quiet_NaN()
                     : std::numeric_limits<float>::infinity();
  else
    magnitude = std::ldexp(float(mant | 0x400), int(exp) - 25);
  uint32_t out;
  std::memcpy(&out, &magnitude, 4);
  out |= sign;
  float f;
  std::memcpy(&f, &out, 4);
  return f;
}

float rnnc::weights::bfloat16ToFloat(uint16_t bits) {
  uint32_t out = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &out, 4);
  return f;
}

uint16_t rnnc::weights::floatToBFloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN: keep it a (quiet) NaN
    return uint16_t((bits >> 16) | 0x0040u);
  // Round to nearest, ties to even: add just under half an ulp of bfloat16,
  // plus one when the kept part is odd. Overflow carries into the exponent,
  // as it should (to infinity at the top).
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return uint16_t(bits >> 16);
}

float rnnc::weights::roundToBFloat16(float value) {
  return bfloat16ToFloat(floatToBFloat16(value));
}

/// Checks that the byte count of `array` matches its shape.
static llvm::Error checkBytes(const Array &array, int64_t &n) {
  uint64_t bytes = 0;
  if (llvm::Error err = checkShape(array.shape, array.dtype,
                                   "array '" + array.name + "'", n, bytes))
    return err;
  if (bytes != array.bytes.size())
    return llvm::createStringError(
        "array '%s' has %zu data bytes, expected %llu", array.name.c_str(),
        array.bytes.size(), (unsigned long long)bytes);
  return llvm::Error::success();
}

llvm::Expected<std::vector<float>>
rnnc::weights::toFloat32(const Array &array) {
  if (!isFloatingPoint(array.dtype))
    return llvm::createStringError("array '%s' has dtype %s, expected a "
                                   "floating-point dtype",
                                   array.name.c_str(), dtypeName(array.dtype));
  int64_t n = 0;
  if (llvm::Error err = checkBytes(array, n))
    return err;
  std::vector<float> out(n);
  const uint8_t *p = array.bytes.data();
  for (int64_t i = 0; i < n; ++i) {
    switch (array.dtype) {
    case DType::F16:
      out[i] = halfToFloat(read16le(p + 2 * i));
      break;
    case DType::BF16:
      out[i] = bfloat16ToFloat(read16le(p + 2 * i));
      break;
    case DType::F32: {
      uint32_t bits = read32le(p + 4 * i);
      std::memcpy(&out[i], &bits, 4);
      break;
    }
    default: { // F64
      uint64_t bits = read64le(p + 8 * i);
      double d;
      std::memcpy(&d, &bits, 8);
      out[i] = float(d);
      break;
    }
    }
  }
  return out;
}

llvm::Expected<std::vector<int64_t>>
rnnc::weights::toInt64(const Array &array) {
  if (isFloatingPoint(array.dtype))
    return llvm::createStringError(
        "array '%s' has dtype %s, expected an integer dtype",
        array.name.c_str(), dtypeName(array.dtype));
  int64_t n = 0;
  if (llvm::Error err = checkBytes(array, n))
    return err;
  std::vector<int64_t> out(n);
  const uint8_t *p = array.bytes.data();
  for (int64_t i = 0; i < n; ++i) {
    switch (array.dtype) {
    case DType::I32:
      out[i] = int32_t(read32le(p + 4 * i));
      break;
    case DType::I64:
      out[i] = int64_t(read64le(p + 8 * i));
      break;
    default: // Bool, U8
      out[i] = p[i];
      break;
    }
  }
  return out;
}

template <typename T>
static Array arrayOf(std::string name, DType dtype, std::vector<int64_t> shape,
                     llvm::ArrayRef<T> values) {
  Array array;
  array.name = std::move(name);
  array.dtype = dtype;
  array.shape = std::move(shape);
  array.bytes.resize(values.size() * sizeof(T));
  if (!values.empty())
    std::memcpy(array.bytes.data(), values.data(), array.bytes.size());
  return array;
}

Array rnnc::weights::makeArray(std::string name, std::vector<int64_t> shape,
                               llvm::ArrayRef<float> values) {
  return arrayOf(std::move(name), DType::F32, std::move(shape), values);
}

Array rnnc::weights::makeArray(std::string name, std::vector<int64_t> shape,
                               llvm::ArrayRef<int32_t> values) {
  return arrayOf(std::move(name), DType::I32, std::move(shape), values);
}
