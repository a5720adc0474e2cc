/* <name>_run_parallel against <name>_run at batch 1 (parallel-columns.test),
 * for a model compiled with -DMODEL=<name> -include <name>.h taking x and
 * writing y, then with -DCARRIES=1 h or -DCARRIES=2 c and h: the pool of 2
 * threads, the serial hook and fn == NULL all give every output bit for
 * bit as _run does; a misaligned workspace gives _run's status and writes
 * nothing. */
#include "rnnrt/rnnrt.h"

#include <stdio.h>
#include <string.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define RUN CAT(MODEL, _run)
#define RUN_PARALLEL CAT(MODEL, _run_parallel)
#ifndef CARRIES
#define CARRIES 0
#endif
#if CARRIES == 2
#define OUTPUTS(s) y##s, c##s, h##s
#elif CARRIES == 1
#define OUTPUTS(s) y##s, h##s
#else
#define OUTPUTS(s) y##s
#endif

enum {
  X = PREFIX(TIME) * PREFIX(INPUT_FEATURES),
  Y = PREFIX(OUTPUT_SIZE),
  H = PREFIX(OUTPUT_FEATURES)
};

static float x[X], y0[Y], y1[Y], c0[H], c1[H], h0[H], h1[H];
static PREFIX(PARALLEL_WORKSPACE)(workspace);

static unsigned state = 12345;
static float uniform(void) {
  state = state * 1103515245u + 12345u;
  return (float)((state >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static int same(void) {
  return memcmp(y0, y1, sizeof y0) == 0 && memcmp(c0, c1, sizeof c0) == 0 &&
         memcmp(h0, h1, sizeof h0) == 0;
}

/* The outputs a call writes, set to a value no call writes. */
static void scribble(void) {
  memset(y1, 0xab, sizeof y1);
#if CARRIES == 2
  memset(c1, 0xab, sizeof c1);
#endif
#if CARRIES >= 1
  memset(h1, 0xab, sizeof h1);
#endif
}

int main(void) {
  static char pool_memory[4096];
  rnnrt_pool *pool = rnnrt_pool_size(2) <= sizeof pool_memory
                         ? rnnrt_pool_init(pool_memory, 2)
                         : NULL;
  int i, identical = 1, untouched = 1;
  int32_t status;
  if (!pool)
    return 2;
  (void)c0, (void)c1, (void)h0, (void)h1;
  printf("tasks %d, split from %d rows\n", PREFIX(PARALLEL_TASKS),
         PREFIX(PARALLEL_MIN_ROWS));
  for (i = 0; i < X; ++i)
    x[i] = uniform();
  status = RUN(x, OUTPUTS(0), workspace);
  scribble();
  status |= RUN_PARALLEL(x, OUTPUTS(1), workspace, rnnrt_pool_parallel_for,
                         pool);
  identical &= same();
  scribble();
  status |= RUN_PARALLEL(x, OUTPUTS(1), workspace, rnnrt_serial_for, NULL);
  identical &= same();
  scribble();
  status |= RUN_PARALLEL(x, OUTPUTS(1), workspace, NULL, NULL);
  identical &= same();
  printf("status %d, %s\n", status, identical ? "bit-identical" : "DIFFERENT");
  scribble();
  status = RUN_PARALLEL(x, OUTPUTS(1), (char *)workspace + 1,
                        rnnrt_pool_parallel_for, pool);
  for (i = 0; i < Y; ++i)
    untouched &= ((const unsigned char *)y1)[4 * i] == 0xab;
  printf("misaligned: %d, y %s\n", status, untouched ? "untouched" : "WRITTEN");
  rnnrt_pool_destroy(pool);
  return !identical;
}
