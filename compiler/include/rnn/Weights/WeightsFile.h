//===- WeightsFile.h - Reading a weights file into a ParamTree --*- C++ -*-===//
//
// Entry point for weights files: picks the format by content (.npz is a zip
// archive starting with "PK"; anything else is read as .safetensors), strips
// an optional leading `params/` from every key (Flax's variable collection)
// and converts every array to float values (Tensor, Params.h).
//
//===----------------------------------------------------------------------===//

#ifndef RNN_WEIGHTS_WEIGHTSFILE_H
#define RNN_WEIGHTS_WEIGHTSFILE_H

#include "rnn/Weights/Array.h"
#include "rnn/Weights/Params.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <string>
#include <vector>

namespace rnnc {

/// Reads the weights file at `path`. float16 and float64 arrays are
/// converted to float32 tensors, each appending a warning to `warnings`
/// ("converted 'enc/cell/hi/kernel' from float64 to float32"); bfloat16
/// arrays are kept as bfloat16 tensors (exact floats), and binding warns
/// where a float32 owner widens them.
/// Errors: unreadable or corrupt files, integer or bool arrays (naming the
/// key and dtype), and two keys that are equal once `params/` is stripped.
/// With `nonFloat`, integer and bool arrays (a checkpoint's step counter)
/// are no error: they stay out of the tree and are listed there instead
/// (key -> dtype name), for binding to report if they matter.
llvm::Expected<ParamTree>
readWeights(llvm::StringRef path, std::vector<std::string> &warnings,
            std::map<std::string, std::string> *nonFloat = nullptr);

/// Same, from the bytes of a file; `fileName` only names it in messages.
llvm::Expected<ParamTree>
parseWeights(llvm::StringRef data, llvm::StringRef fileName,
             std::vector<std::string> &warnings,
             std::map<std::string, std::string> *nonFloat = nullptr);

/// One array of a weights file as stored, for `rnnc inspect`.
struct WeightsEntry {
  std::string key;   ///< without a leading `params/`
  std::string dtype; ///< "float32", "int32", "bool", ...
  std::vector<int64_t> shape;
  int64_t bytes = 0; ///< its size in the file's dtype
};

/// Every array of the weights file at `path`, of any dtype, sorted by key.
llvm::Expected<std::vector<WeightsEntry>> listWeights(llvm::StringRef path);

/// Prints `entries` as printParamTree does (the tree, each array with its
/// own dtype), or with `flat` one full path per line:
///
///   enc/cell/hi/bias  float32  [64]
///   step  int32  []
///   2 arrays, 65 parameters, 260 bytes
void printWeightsListing(llvm::raw_ostream &os,
                         const std::vector<WeightsEntry> &entries, bool flat);

/// The shape of every param of a weights file, keyed like a ParamTree.
using ParamShapes = std::map<std::string, std::vector<int64_t>>;

/// The keys and shapes of the weights file at `path`, from the array headers
/// alone: no array data is read or inflated, so this costs time and memory
/// in the number of arrays, not their sizes (binding's shape check before
/// readWeights). Keys, dtypes and the declared sizes (maxWeightsBytes())
/// are checked as by readWeights, `nonFloat` included.
llvm::Expected<ParamShapes>
readWeightShapes(llvm::StringRef path,
                 std::map<std::string, std::string> *nonFloat = nullptr);

/// Same, from the bytes of a file; `fileName` only names it in messages.
llvm::Expected<ParamShapes>
parseWeightShapes(llvm::StringRef data, llvm::StringRef fileName,
                  std::map<std::string, std::string> *nonFloat = nullptr);

/// Prints `tree` for `rnnc inspect`: one line per path component, indented
/// two spaces per level, each array with its dtype and shape, then a total:
///
///   enc/
///     cell/
///       hi/
///         bias  float32[64]
///         kernel  float32[64, 64]
///   2 arrays, 4160 parameters, 16640 bytes
void printParamTree(llvm::raw_ostream &os, const ParamTree &tree);

} // namespace rnnc

#endif // RNN_WEIGHTS_WEIGHTSFILE_H
