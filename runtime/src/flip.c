//===- flip.c - Flax's flip_sequences -------------------------------------===//
//
// Each row's output is its valid prefix [0, L) reversed followed by its
// padding [L, T) reversed. Both are reversals of contiguous step ranges, so
// one swap-based loop serves both the out-of-place and the in-place case.
//
//===----------------------------------------------------------------------===//

#include "rnnrt/rnnrt.h"

/// Reverses steps [first, last) of one row. Step s of the row starts at
/// offset s * stepStride and holds `feature` floats. Each pair of steps is
/// read completely before it is written, so `out == in` works.
static void reverseSteps(const float *in, float *out, int64_t first,
                         int64_t last, int64_t stepStride, int64_t feature) {
  int64_t lo = first, hi = last - 1, f;
  for (; lo <= hi; ++lo, --hi) {
    const float *inLo = in + lo * stepStride, *inHi = in + hi * stepStride;
    float *outLo = out + lo * stepStride, *outHi = out + hi * stepStride;
    for (f = 0; f < feature; ++f) {
      float a = inLo[f], b = inHi[f];
      outLo[f] = b;
      outHi[f] = a;
    }
  }
}

rnnrt_status_t rnnrt_flip_sequences_f32(const float *in, float *out,
                                        const int32_t *seq_lengths,
                                        int64_t batch, int64_t time,
                                        int64_t feature, int time_major) {
  rnnrt_status_t status;
  int64_t rowStride, stepStride, b;
  if (batch < 0 || time < 0 || feature < 0)
    return RNNRT_ERROR_ARGUMENT;
  // The arrays may be NULL only when they have no elements.
  if ((!in || !out) && batch > 0 && time > 0 && feature > 0)
    return RNNRT_ERROR_ARGUMENT;
  // Validate every length before writing anything.
  status = rnnrt_check_seq_lengths(seq_lengths, batch, time);
  if (status != RNNRT_OK)
    return status;
  if (batch == 0 || time == 0 || feature == 0)
    return RNNRT_OK;

  // Offsets of row b and of step t within a row, in floats.
  rowStride = time_major ? feature : time * feature;
  stepStride = time_major ? batch * feature : feature;
  for (b = 0; b < batch; ++b) {
    int64_t length = seq_lengths ? seq_lengths[b] : time;
    const float *inRow = in + b * rowStride;
    float *outRow = out + b * rowStride;
    reverseSteps(inRow, outRow, 0, length, stepStride, feature);
    reverseSteps(inRow, outRow, length, time, stepStride, feature);
  }
  return RNNRT_OK;
}
