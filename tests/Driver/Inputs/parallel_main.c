/* <name>_run_parallel against <name>_run (parallel.test), for a model
 * compiled with -DMODEL=<name> -include <name>.h: x, batch_0, y. For
 * several row counts (1, below the split, the split's edge, odd, the
 * maximum), random inputs: the pool of 2 threads, the
 * serial hook and fn == NULL all give y bit for bit as _run does; a count
 * above the maximum or 0 gives _run's status and writes nothing. With
 * -DSTATIC_BATCH, a model of a static batch (x, y): the same at its rows,
 * and a misaligned workspace. */
#include "rnnrt/rnnrt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define RUN CAT(MODEL, _run)
#define RUN_PARALLEL CAT(MODEL, _run_parallel)
#ifdef STATIC_BATCH
#define ROWS_ARG(rows)
#else
#define ROWS_ARG(rows) rows,
#endif

enum {
  ROWS = PREFIX(BATCH_DIM_0),
  X_ROW = PREFIX(TIME) * PREFIX(INPUT_FEATURES),
  Y_ROW = PREFIX(OUTPUT_SIZE) / PREFIX(BATCH_DIM_0)
};

static float x[ROWS * X_ROW], y0[ROWS * Y_ROW], y1[ROWS * Y_ROW];
static PREFIX(PARALLEL_WORKSPACE)(workspace);

static unsigned state = 12345;
static float uniform(void) {
  state = state * 1103515245u + 12345u;
  return (float)((state >> 8) & 0xffff) / 32768.0f - 1.0f;
}

int main(void) {
#ifdef STATIC_BATCH
  static const int32_t counts[] = {ROWS};
#else
  static const int32_t counts[] = {1, 3, 8, 9, 13, 16, 48, 64};
#endif
  static char pool_memory[4096];
  rnnrt_pool *pool = rnnrt_pool_size(2) <= sizeof pool_memory
                         ? rnnrt_pool_init(pool_memory, 2)
                         : NULL;
  size_t k;
  int i, failures = 0;
  int32_t status;
  if (!pool)
    return 2;
  printf("tasks %d, split from %d rows\n", PREFIX(PARALLEL_TASKS),
         PREFIX(PARALLEL_MIN_ROWS));
  for (k = 0; k < sizeof counts / sizeof counts[0]; ++k) {
    int32_t rows = counts[k];
    int same = 1;
    if (rows > ROWS)
      break;
    for (i = 0; i < rows * X_ROW; ++i)
      x[i] = uniform();
    status = RUN(x, ROWS_ARG(&rows) y0, workspace);
    memset(y1, 0xff, sizeof y1);
    status |= RUN_PARALLEL(x, ROWS_ARG(&rows) y1, workspace,
                           rnnrt_pool_parallel_for, pool);
    same &= memcmp(y0, y1, (size_t)rows * Y_ROW * sizeof(float)) == 0;
    memset(y1, 0xff, sizeof y1);
    status |= RUN_PARALLEL(x, ROWS_ARG(&rows) y1, workspace,
                           rnnrt_serial_for, NULL);
    same &= memcmp(y0, y1, (size_t)rows * Y_ROW * sizeof(float)) == 0;
    memset(y1, 0xff, sizeof y1);
    status |= RUN_PARALLEL(x, ROWS_ARG(&rows) y1, workspace, NULL, NULL);
    same &= memcmp(y0, y1, (size_t)rows * Y_ROW * sizeof(float)) == 0;
    printf("rows %d: status %d, %s\n", rows, status,
           same ? "bit-identical" : "DIFFERENT");
    failures += !same || status != 0;
  }
  {
    int32_t over = ROWS + 1, none = 0;
    int untouched = 1;
    memset(y1, 0xab, sizeof y1);
#ifndef STATIC_BATCH
    status = RUN_PARALLEL(x, &over, y1, workspace, rnnrt_pool_parallel_for,
                          pool);
    printf("%d rows: %d, ", over, status);
    status = RUN_PARALLEL(x, &none, y1, workspace, rnnrt_pool_parallel_for,
                          pool);
    printf("0 rows: %d, ", status);
    over = ROWS;
#else
    (void)over;
    (void)none;
#endif
    status = RUN_PARALLEL(x, ROWS_ARG(&over) y1, (char *)workspace + 1,
                          rnnrt_pool_parallel_for, pool);
    printf("misaligned: %d", status);
    for (i = 0; i < ROWS * Y_ROW; ++i)
      untouched &= ((const unsigned char *)y1)[4 * i] == 0xab;
    printf(", y %s\n", untouched ? "untouched" : "WRITTEN");
  }
  rnnrt_pool_destroy(pool);
  return failures != 0;
}
