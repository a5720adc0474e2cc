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
llvm::Expected<std::vector<Array>> readNpz(llvm::StringRef path);

/// Same, from the bytes of an archive; `fileName` only names it in errors.
llvm::Expected<std::vector<Array>> parseNpz(llvm::StringRef data,
                                            llvm::StringRef fileName);

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
