//===- steps.c - Copies for run-time sizes --------------------------------===//
//
// Between the caller's buffers, dense for the actual sizes (batch dims,
// steps), and the maximum-shape buffers the generated code works on.
//
//===----------------------------------------------------------------------===//

#include "rnnrt/rnnrt.h"

#include <string.h>

/* Level |level| of the box; |dst_stride| and |src_stride| are the bytes of
 * one entry of this level. */
static void copy_level(char *dst, const char *src, int64_t rank,
                       const int64_t *dims, int64_t level, int64_t dst_stride,
                       int64_t src_stride) {
  int64_t count = dims[3 * level], i;
  if (level == rank - 1) {
    memcpy(dst, src, (size_t)(count * dst_stride));
    return;
  }
  for (i = 0; i < count; ++i)
    copy_level(dst + i * dst_stride, src + i * src_stride, rank, dims,
               level + 1, dst_stride / dims[3 * level + 4],
               src_stride / dims[3 * level + 5]);
}

static rnnrt_status_t copy_box(char *dst, const char *src, int64_t rank,
                               const int64_t *dims, int64_t element_bytes) {
  int64_t l, dst_bytes = element_bytes, src_bytes = element_bytes;
  if (rank < 1 || !dims)
    return RNNRT_ERROR_ARGUMENT;
  for (l = 0; l < rank; ++l) {
    const int64_t *d = dims + 3 * l;
    if (d[0] < 0 || d[0] > d[1] || d[0] > d[2])
      return RNNRT_ERROR_ARGUMENT;
    if (d[0] == 0)
      return RNNRT_OK;
  }
  /* Bytes of one entry of level 0: the product of the inner extents. */
  for (l = 1; l < rank; ++l) {
    dst_bytes *= dims[3 * l + 1];
    src_bytes *= dims[3 * l + 2];
  }
  copy_level(dst, src, rank, dims, 0, dst_bytes, src_bytes);
  return RNNRT_OK;
}

rnnrt_status_t rnnrt_copy_box_f32(float *dst, const float *src, int64_t rank,
                                  const int64_t *dims) {
  return copy_box((char *)dst, (const char *)src, rank, dims,
                  (int64_t)sizeof(float));
}

rnnrt_status_t rnnrt_copy_box_i32(int32_t *dst, const int32_t *src,
                                  int64_t rank, const int64_t *dims) {
  return copy_box((char *)dst, (const char *)src, rank, dims,
                  (int64_t)sizeof(int32_t));
}
