//===- FuzzWeights.cpp - libFuzzer targets: the weights readers -----------===//
//
// One source, four targets (RNN_FUZZ_READER selects which): any bytes as an
// .npz archive, a .npy array, a .safetensors file, or as whichever of these
// parseWeights (the rnnc front door) takes them for. Each reader must return
// an array or an error, never crash, read outside the input or allocate
// more than its limit (set low here, so that a declared size the reader
// failed to check shows up as libFuzzer's out-of-memory).
//
//===----------------------------------------------------------------------===//

#include "rnn/Weights/Npz.h"
#include "rnn/Weights/Safetensors.h"
#include "rnn/Weights/WeightsFile.h"

using namespace rnnc;
using namespace rnnc::weights;

/// Far below libFuzzer's -rss_limit_mb.
[[maybe_unused]] constexpr uint64_t kFuzzMaxBytes = 64 << 20;

template <typename T> static void consume(llvm::Expected<T> value) {
  if (!value)
    llvm::consumeError(value.takeError());
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
#if RNN_FUZZ_READER == 0
  consume(parseNpz(bytes, "fuzz.npz", kFuzzMaxBytes));
  consume(parseNpzHeaders(bytes, "fuzz.npz"));
#elif RNN_FUZZ_READER == 1
  consume(parseNpy(bytes, "x", "fuzz.npy"));
  consume(parseNpyHeader(bytes, "fuzz.npy"));
#elif RNN_FUZZ_READER == 2
  consume(parseSafetensors(bytes, "fuzz.safetensors", kFuzzMaxBytes));
  consume(parseSafetensorsHeaders(bytes, "fuzz.safetensors"));
#else
  setMaxWeightsBytes(kFuzzMaxBytes);
  std::vector<std::string> warnings;
  consume(parseWeights(bytes, "fuzz.bin", warnings));
  consume(parseWeightShapes(bytes, "fuzz.bin"));
#endif
  return 0;
}
