//===- carry.c - Flax's _select_last_carry and its streaming form ---------===//
//
// Row b of the final carry is the carry after step L_b - 1, or the initial
// carry when L_b == 0.
//
//===----------------------------------------------------------------------===//

#include "rnnrt/rnnrt.h"

/// Copies `count` floats (a loop, so the sources include no libc header).
static void copyFloats(float *dst, const float *src, int64_t count) {
  int64_t i;
  for (i = 0; i < count; ++i)
    dst[i] = src[i];
}

rnnrt_status_t rnnrt_select_last_carry_f32(const float *carries,
                                           const float *initial,
                                           const int32_t *seq_lengths,
                                           int64_t batch, int64_t time,
                                           int64_t carry, float *out) {
  rnnrt_status_t status;
  int64_t b;
  if (batch < 0 || time < 0 || carry < 0)
    return RNNRT_ERROR_ARGUMENT;
  // The arrays may be NULL only when they have no elements.
  if ((!initial || !out) && batch > 0 && carry > 0)
    return RNNRT_ERROR_ARGUMENT;
  if (!carries && batch > 0 && time > 0 && carry > 0)
    return RNNRT_ERROR_ARGUMENT;
  // Validate every length before writing anything.
  status = rnnrt_check_seq_lengths(seq_lengths, batch, time);
  if (status != RNNRT_OK)
    return status;
  if (batch == 0 || carry == 0)
    return RNNRT_OK;

  for (b = 0; b < batch; ++b) {
    int64_t length = seq_lengths ? seq_lengths[b] : time;
    const float *src = length == 0
                           ? initial + b * carry
                           : carries + ((length - 1) * batch + b) * carry;
    float *dst = out + b * carry;
    if (dst != src)
      copyFloats(dst, src, carry);
  }
  return RNNRT_OK;
}

rnnrt_status_t rnnrt_capture_last_carry_strided_f32(
    const float *carry_t, int64_t carry_row_stride, int64_t t,
    const int32_t *seq_lengths, int64_t batch, int64_t carry, float *out,
    int64_t out_row_stride) {
  int64_t b;
  if (batch < 0 || carry < 0 || carry_row_stride < carry ||
      out_row_stride < carry)
    return RNNRT_ERROR_ARGUMENT;
  // The arrays may be NULL only when they have no elements.
  if ((!carry_t || !out) && batch > 0 && carry > 0)
    return RNNRT_ERROR_ARGUMENT;
  if (!seq_lengths && batch > 0)
    return RNNRT_ERROR_ARGUMENT;
  if (batch == 0 || carry == 0)
    return RNNRT_OK;

  // No length validation: this runs once per step (see the header).
  for (b = 0; b < batch; ++b)
    if ((int64_t)seq_lengths[b] - 1 == t)
      copyFloats(out + b * out_row_stride, carry_t + b * carry_row_stride,
                 carry);
  return RNNRT_OK;
}

rnnrt_status_t rnnrt_capture_last_carry_f32(const float *carry_t, int64_t t,
                                            const int32_t *seq_lengths,
                                            int64_t batch, int64_t carry,
                                            float *out) {
  return rnnrt_capture_last_carry_strided_f32(carry_t, carry, t, seq_lengths,
                                              batch, carry, out, carry);
}
