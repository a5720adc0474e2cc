//===- Npz.h - numpy .npz archives ------------------------------*- C++ -*-===//
//
// Reads what np.savez and np.savez_compressed write: a zip archive (stored or
// deflated entries, ZIP64 extra fields and records accepted) of .npy files
// (format versions 1, 2 and 3, little-endian, C order). An entry `a/b.npy`
// becomes the array named `a/b`.
//
// Every offset and size read from the file is checked before use: a
// truncated or corrupt archive is an llvm::Error, never a crash or a read
// outside the file.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_WEIGHTS_NPZ_H
#define RNN_WEIGHTS_NPZ_H

#include "rnn/Weights/Array.h"

namespace rnnc::weights {

/// Reads every array of the .npz file at `path`, in archive order.
///
/// Memory stays within what the arrays declare: every entry's .npy header
/// is read (inflated alone) first, the entry's size must be the header's
/// plus its shape times its dtype size, and the declared sizes together must
/// not exceed `maxBytes` (checkDeclaredBytes); only then is any array data
/// inflated, each straight into its array, and an entry whose stream would
/// inflate past its declared size is an error. So a decompression bomb
/// costs neither time nor memory beyond its declared sizes.
llvm::Expected<std::vector<Array>>
readNpz(llvm::StringRef path, uint64_t maxBytes = maxWeightsBytes());

/// Same, from the bytes of an archive; `fileName` only names it in errors.
llvm::Expected<std::vector<Array>>
parseNpz(llvm::StringRef data, llvm::StringRef fileName,
         uint64_t maxBytes = maxWeightsBytes());

/// The name, dtype and shape of every array of an archive, in archive order,
/// from the .npy headers alone (no array data is inflated; CRCs are not
/// checked). The archive's structure is checked as by parseNpz.
llvm::Expected<std::vector<ArrayInfo>> parseNpzHeaders(llvm::StringRef data,
                                                       llvm::StringRef fileName);

/// What a .npy header declares.
struct NpyInfo {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  bool fortranOrder = false;
  uint64_t dataOffset = 0; ///< where the data starts: the header's size
  uint64_t dataBytes = 0;  ///< the shape's elements times the dtype size
};

/// The most bytes a .npy header (magic, version, length and dict) may take;
/// numpy writes a few hundred.
constexpr uint64_t kMaxNpyHeaderBytes = uint64_t(1) << 20;

/// The size of the .npy header that `start` (the first 12 bytes of a .npy
/// file, or all of a shorter one) begins, from its magic, version and
/// length fields; `what` names it in errors.
llvm::Expected<uint64_t> npyHeaderSize(llvm::StringRef start,
                                       llvm::StringRef what);

/// Parses the .npy header at the start of `data`, which must hold at least
/// the whole header (npyHeaderSize bytes); the data after it is not read.
llvm::Expected<NpyInfo> parseNpyHeader(llvm::StringRef data,
                                       llvm::StringRef what);

/// Reorders the elements of `array`, stored column-major, into row-major
/// order (a Fortran-order .npy array).
void toRowMajor(Array &array);

/// Reads one .npy file (the content of one archive entry); `what` names it
/// in errors.
llvm::Expected<Array> parseNpy(llvm::StringRef data, llvm::StringRef name,
                               llvm::StringRef what);

/// The bytes of a version 1.0 .npy file holding `array` (as np.save writes).
llvm::Expected<std::string> serializeNpy(const Array &array);

/// An uncompressed .npz archive of `arrays` (as np.savez writes, without
/// ZIP64), loadable by numpy.load. Errors: duplicate names, a byte count
/// that does not match the shape, bfloat16 (numpy has no such dtype), or an
/// archive too large for plain zip.
llvm::Expected<std::string> serializeNpz(llvm::ArrayRef<Array> arrays);

/// Writes serializeNpz(arrays) to `path`.
llvm::Error writeNpz(llvm::StringRef path, llvm::ArrayRef<Array> arrays);

} // namespace rnnc::weights

#endif // RNN_WEIGHTS_NPZ_H
