//===- Safetensors.h - .safetensors files -----------------------*- C++ -*-===//
//
// The safetensors format: an 8-byte little-endian header length N, N bytes
// of JSON mapping each tensor name to {"dtype", "shape", "data_offsets":
// [begin, end]} (offsets relative to the data after the header; an optional
// "__metadata__" entry is ignored), then the raw little-endian data.
//
// Supported dtypes: F32, F64, F16, BF16, I32, I64, BOOL, U8. Every offset is
// checked against the file: a corrupt file is an llvm::Error, never a read
// outside the file.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_WEIGHTS_SAFETENSORS_H
#define RNN_WEIGHTS_SAFETENSORS_H

#include "rnn/Weights/Array.h"

namespace rnnc::weights {

/// Reads every tensor of the .safetensors file at `path`, sorted by name.
/// The header is checked whole, and the declared sizes against `maxBytes`
/// (checkDeclaredBytes), before any data is copied.
llvm::Expected<std::vector<Array>>
readSafetensors(llvm::StringRef path, uint64_t maxBytes = maxWeightsBytes());

/// Same, from the bytes of a file; `fileName` only names it in errors.
llvm::Expected<std::vector<Array>>
parseSafetensors(llvm::StringRef data, llvm::StringRef fileName,
                 uint64_t maxBytes = maxWeightsBytes());

/// The name, dtype and shape of every tensor, sorted by name, from the
/// header alone (checked as by parseSafetensors; no data is copied).
llvm::Expected<std::vector<ArrayInfo>>
parseSafetensorsHeaders(llvm::StringRef data, llvm::StringRef fileName);

} // namespace rnnc::weights

#endif // RNN_WEIGHTS_SAFETENSORS_H
