/* A plain C99 program using rnnrt as generated code does: Flax's
 * flip_sequences docstring example, last-carry selection and an error. */

#include "rnnrt/rnnrt.h"

#include <stdio.h>

static void printRows(const char *name, const float *v, int rows, int cols) {
  int r, c;
  for (r = 0; r < rows; ++r) {
    printf("%s[%d] =", name, r);
    for (c = 0; c < cols; ++c)
      printf(" %g", (double)v[r * cols + c]);
    printf("\n");
  }
}

int main(void) {
  /* jnp.arange(10).reshape(2, 5) with seq_lengths [4, 2]. */
  float in[10], out[10];
  int32_t lengths[2] = {4, 2};
  int32_t badLengths[2] = {4, 6};
  /* Carries after steps 0..2 for 2 rows of 1 float; initial carry -1, -2. */
  float carries[6] = {10, 20, 11, 21, 12, 22};
  float initial[2] = {-1, -2};
  int32_t carryLengths[2] = {0, 2};
  float last[2];
  rnnrt_status_t status;
  int i;

  for (i = 0; i < 10; ++i)
    in[i] = (float)i;
  printf("api version %d\n", (int)rnnrt_api_version());
  status = rnnrt_flip_sequences_f32(in, out, lengths, 2, 5, 1, 0);
  printf("flip: %s\n", rnnrt_status_string(status));
  printRows("flipped", out, 2, 5);

  status = rnnrt_flip_sequences_f32(in, in, lengths, 2, 5, 1, 0);
  printf("flip in place: %s\n", rnnrt_status_string(status));
  printRows("in", in, 2, 5);

  for (i = 0; i < 10; ++i)
    out[i] = 99;
  status = rnnrt_flip_sequences_f32(in, out, badLengths, 2, 5, 1, 0);
  printf("flip with length 6: %s\n", rnnrt_status_string(status));
  printRows("untouched", out, 1, 10);

  status = rnnrt_select_last_carry_f32(carries, initial, carryLengths, 2, 3, 1,
                                       last);
  printf("select: %s\n", rnnrt_status_string(status));
  printRows("last", last, 1, 2);
  return 0;
}
