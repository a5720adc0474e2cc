//===- Array.h - Raw arrays read from weights files -------------*- C++ -*-===//
//
// A dense array exactly as a weights file stores it (any dtype, raw
// little-endian bytes, C order), plus the conversions that turn one into the
// float32 data of a Tensor (Params.h). The readers (Npz.h, Safetensors.h)
// produce these; WeightsFile.h converts them into a ParamTree.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_WEIGHTS_ARRAY_H
#define RNN_WEIGHTS_ARRAY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rnnc::weights {

/// Element types a weights file may hold.
enum class DType { Bool, U8, I32, I64, F16, BF16, F32, F64 };

/// numpy's name for `dtype` ("float32", "bfloat16", ...).
const char *dtypeName(DType dtype);
/// Size of one element in bytes.
size_t dtypeSize(DType dtype);
/// True for F16, BF16, F32 and F64.
bool isFloatingPoint(DType dtype);

/// One named array: `bytes` holds numElements() * dtypeSize(dtype)
/// little-endian elements in row-major order.
struct Array {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
};

/// An array `name` of `shape` holding `values` as they are in memory:
/// float32 or int32 (what the driver writes out, and the benchmark).
Array makeArray(std::string name, std::vector<int64_t> shape,
                llvm::ArrayRef<float> values);
Array makeArray(std::string name, std::vector<int64_t> shape,
                llvm::ArrayRef<int32_t> values);

/// What a weights file declares about one array, read from its header alone
/// (no data read or inflated).
struct ArrayInfo {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  uint64_t numBytes = 0; ///< the product of the shape times dtypeSize(dtype)
};

/// The default most bytes of array data a weights file may declare in all
/// (`rnnc --max-weights-bytes`): 2 GiB, 512M float32 parameters, far more
/// than any recurrent model rnnc compiles.
constexpr uint64_t kDefaultMaxWeightsBytes = uint64_t(2) << 30;

/// The limit every reader checks the declared sizes against before it reads
/// or inflates any array data: kDefaultMaxWeightsBytes unless
/// setMaxWeightsBytes() changed it (the rnnc driver does, from
/// --max-weights-bytes).
uint64_t maxWeightsBytes();
void setMaxWeightsBytes(uint64_t bytes);

/// An error when the arrays of `infos` declare more than `maxBytes` bytes in
/// all, naming the total, the limit and the largest array:
///   w.npz: the arrays declare 4400000000 bytes of data, more than the limit
///   of 2147483648 (--max-weights-bytes); the largest is 'w' with 4400000000
///   bytes (float32[1100000000])
llvm::Error checkDeclaredBytes(llvm::ArrayRef<ArrayInfo> infos,
                               uint64_t maxBytes, llvm::StringRef fileName);

/// The number of elements of `shape` and their size in bytes, or an error
/// naming `what` when a dimension is negative or the size overflows.
llvm::Error checkShape(llvm::ArrayRef<int64_t> shape, DType dtype,
                       llvm::StringRef what, int64_t &numElements,
                       uint64_t &numBytes);


/// IEEE binary16 and bfloat16 bit patterns to float (exact).
float halfToFloat(uint16_t bits);
float bfloat16ToFloat(uint16_t bits);

/// `value` rounded to bfloat16, round to nearest, ties to even (as
/// jnp.asarray(x, jnp.bfloat16) rounds), as its bit pattern or widened back
/// to float (exact). NaNs stay NaNs.
uint16_t floatToBFloat16(float value);
float roundToBFloat16(float value);

/// The elements of a floating-point array as float32 (f64 is rounded to
/// nearest). An integer or bool array, or one whose byte count does not match
/// its shape, is an error.
llvm::Expected<std::vector<float>> toFloat32(const Array &array);

/// The elements of an integer or bool array as int64. A floating-point array,
/// or one whose byte count does not match its shape, is an error.
llvm::Expected<std::vector<int64_t>> toInt64(const Array &array);

} // namespace rnnc::weights

#endif // RNN_WEIGHTS_ARRAY_H
