//===- steps.c - Copies for a run-time number of steps --------------------===//
//
// Between the caller's buffers, dense for the actual steps, and the
// maximum-shape buffers the generated code works on.
//
//===----------------------------------------------------------------------===//

#include "rnnrt/rnnrt.h"

#include <string.h>

static rnnrt_status_t copy_steps(char *dst, const char *src, int64_t outer,
                                 int64_t steps, int64_t step_bytes,
                                 int64_t dst_steps, int64_t src_steps) {
  int64_t o;
  if (outer < 0 || steps < 0 || step_bytes < 0 || steps > dst_steps ||
      steps > src_steps)
    return RNNRT_ERROR_ARGUMENT;
  if (steps == 0 || step_bytes == 0)
    return RNNRT_OK;
  for (o = 0; o < outer; ++o)
    memcpy(dst + o * dst_steps * step_bytes, src + o * src_steps * step_bytes,
           (size_t)(steps * step_bytes));
  return RNNRT_OK;
}

rnnrt_status_t rnnrt_copy_steps_f32(float *dst, const float *src,
                                    int64_t outer, int64_t steps,
                                    int64_t step_elements, int64_t dst_steps,
                                    int64_t src_steps) {
  return copy_steps((char *)dst, (const char *)src, outer, steps,
                    step_elements * (int64_t)sizeof(float), dst_steps,
                    src_steps);
}

rnnrt_status_t rnnrt_copy_steps_i32(int32_t *dst, const int32_t *src,
                                    int64_t outer, int64_t steps,
                                    int64_t step_elements, int64_t dst_steps,
                                    int64_t src_steps) {
  return copy_steps((char *)dst, (const char *)src, outer, steps,
                    step_elements * (int64_t)sizeof(int32_t), dst_steps,
                    src_steps);
}
