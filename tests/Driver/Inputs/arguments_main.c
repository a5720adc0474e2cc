/* The run-time argument contract of a generated entry point (kws_bilstm):
 * every NULL pointer and every workspace below KWS_WORKSPACE_MIN_ALIGNMENT
 * gives KWS_ERROR_ARGUMENT with nothing written; a workspace that is only
 * KWS_WORKSPACE_MIN_ALIGNMENT-aligned works and gives the same outputs as
 * one declared with KWS_WORKSPACE. Strict C99, for both code generators. */
#include "kws.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum {
  B = KWS_BATCH_DIM_0,
  X_SIZE = KWS_BATCH_DIM_0 * KWS_TIME * KWS_INPUT_FEATURES,
  Y_SIZE = KWS_BATCH_DIM_0 * KWS_TIME * KWS_OUTPUT_FEATURES,
  C_SIZE = KWS_CARRY_ENCODER_FORWARD_C_SIZE,
  NUM_ARGS = 8
};

static float x[X_SIZE];
static int32_t lengths[B] = {KWS_TIME, 20, 5, 0};
static float y[Y_SIZE], fc[C_SIZE], fh[C_SIZE], bc[C_SIZE], bh[C_SIZE];
static float expected[Y_SIZE + 4 * C_SIZE];
static KWS_WORKSPACE(workspace);
/* Room for a workspace at any offset from a 64-byte boundary. */
static KWS_WORKSPACE_ALIGNAS unsigned char
    shifted[KWS_WORKSPACE_SIZE + KWS_WORKSPACE_ALIGNMENT];

static const char *const names[NUM_ARGS] = {
    "x", "seq_lengths", "y", "forward c", "forward h", "backward c",
    "backward h", "workspace"};

/* Every output byte set to 0x7f, a pattern no run writes. */
static void poison(void) {
  memset(y, 0x7f, sizeof y);
  memset(fc, 0x7f, sizeof fc);
  memset(fh, 0x7f, sizeof fh);
  memset(bc, 0x7f, sizeof bc);
  memset(bh, 0x7f, sizeof bh);
}

static int untouched(void) {
  float pattern;
  int i;
  memset(&pattern, 0x7f, sizeof pattern);
  for (i = 0; i < Y_SIZE; ++i)
    if (memcmp(&y[i], &pattern, sizeof pattern))
      return 0;
  for (i = 0; i < C_SIZE; ++i)
    if (memcmp(&fc[i], &pattern, sizeof pattern) ||
        memcmp(&fh[i], &pattern, sizeof pattern) ||
        memcmp(&bc[i], &pattern, sizeof pattern) ||
        memcmp(&bh[i], &pattern, sizeof pattern))
      return 0;
  return 1;
}

/* The outputs, in one array. */
static void gather(float *out) {
  memcpy(out, y, sizeof y);
  memcpy(out + Y_SIZE, fc, sizeof fc);
  memcpy(out + Y_SIZE + C_SIZE, fh, sizeof fh);
  memcpy(out + Y_SIZE + 2 * C_SIZE, bc, sizeof bc);
  memcpy(out + Y_SIZE + 3 * C_SIZE, bh, sizeof bh);
}

/* kws_run with argument `nullArg` (if in range) NULL. */
static int32_t call(int nullArg, void *ws) {
  return kws_run(nullArg == 0 ? NULL : x, nullArg == 1 ? NULL : lengths,
                 nullArg == 2 ? NULL : y, nullArg == 3 ? NULL : fc,
                 nullArg == 4 ? NULL : fh, nullArg == 5 ? NULL : bc,
                 nullArg == 6 ? NULL : bh, nullArg == 7 ? NULL : ws);
}

int main(void) {
  float got[Y_SIZE + 4 * C_SIZE];
  int i, failures = 0;
  size_t offset;
  int32_t status;
  for (i = 0; i < X_SIZE; ++i)
    x[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;

  printf("KWS_WORKSPACE %s\n",
         (uintptr_t)workspace % KWS_WORKSPACE_ALIGNMENT == 0 ? "aligned"
                                                             : "misaligned");
  poison();
  status = call(-1, workspace);
  printf("all arguments: status %d\n", (int)status);
  gather(expected);

  for (i = 0; i < NUM_ARGS; ++i) {
    poison();
    status = call(i, workspace);
    printf("NULL %s: %s, outputs %s\n", names[i],
           status == KWS_ERROR_ARGUMENT ? "KWS_ERROR_ARGUMENT" : "other status",
           untouched() ? "untouched" : "written");
  }

  for (offset = 1; offset < KWS_WORKSPACE_ALIGNMENT; ++offset) {
    poison();
    status = call(-1, shifted + offset);
    if (offset % KWS_WORKSPACE_MIN_ALIGNMENT) {
      if (status != KWS_ERROR_ARGUMENT || !untouched()) {
        printf("workspace at offset %d: status %d, outputs %s\n", (int)offset,
               (int)status, untouched() ? "untouched" : "written");
        ++failures;
      }
      continue;
    }
    gather(got);
    if (status != KWS_OK || memcmp(got, expected, sizeof got)) {
      printf("workspace at offset %d: status %d, outputs differ\n",
             (int)offset, (int)status);
      ++failures;
    }
  }
  printf("misaligned workspaces: %d failures\n", failures);
  return failures;
}
