/* example_util.h: small helpers shared by the examples' main.c files:
 * comparing outputs with expected values, timing, aligning a workspace and
 * checking the error-status contract. Include it first: on POSIX systems it
 * asks for clock_gettime, which strict C99 headers hide otherwise.
 *
 * Portable to bare-metal C libraries (newlib, picolibc): nothing here needs
 * more than C99's <stdio.h>, <string.h>, <math.h> and <time.h>, and sizes
 * print as unsigned long (newlib-nano has no %zu). Timing is a hook: define
 * EXAMPLE_NOW() as an expression giving seconds as a double (say, a cycle
 * counter over the clock rate) before including this file; without it,
 * POSIX systems use clock_gettime(CLOCK_MONOTONIC) and others C's clock(). */
#ifndef EXAMPLE_UTIL_H
#define EXAMPLE_UTIL_H

#if !defined(EXAMPLE_NOW) && (defined(__unix__) || defined(__APPLE__)) && \
    !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 199309L
#endif

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* How many runs the examples time (the median is printed); emulated runs
 * build with -DEXAMPLE_RUNS=1. */
#ifndef EXAMPLE_RUNS
#define EXAMPLE_RUNS 25
#endif

/* The generated code computes in float32; the expected values come from a
 * float64 numpy model of Flax's maths. */
#define EXAMPLE_ATOL 1e-5
#define EXAMPLE_RTOL 1e-4

/* Totals over every compared array. */
typedef struct {
  size_t compared;
  size_t mismatches;
  double maxError;
} ExampleCheck;

/* Compares got[0..n) with want[0..n): |got - want| <= ATOL + RTOL*|want|.
 * Prints the first few mismatches, and accumulates into *check. */
static inline void exampleCompare(ExampleCheck *check, const char *what,
                                  const float *got, const float *want,
                                  size_t n) {
  size_t i;
  for (i = 0; i < n; ++i) {
    double err = fabs((double)got[i] - (double)want[i]);
    int ok = err <= EXAMPLE_ATOL + EXAMPLE_RTOL * fabs((double)want[i]);
    if (!(err <= check->maxError)) /* also catches NaN */
      check->maxError = isnan(err) ? INFINITY : err;
    if (!ok && check->mismatches++ < 5)
      printf("  MISMATCH %s[%lu]: got %.9g, expected %.9g\n", what,
             (unsigned long)i,
             (double)got[i], (double)want[i]);
  }
  check->compared += n;
}

/* Prints the line the lit test checks; returns the process exit status. */
static inline int exampleReport(const char *name, const ExampleCheck *check) {
  if (check->mismatches == 0) {
    printf("%s: all %lu outputs match the numpy model of Flax "
           "(max abs error %.2g)\n",
           name, (unsigned long)check->compared, check->maxError);
    return 0;
  }
  printf("%s: FAILED: %lu of %lu outputs differ from the numpy model of Flax "
         "(max abs error %.2g)\n",
         name, (unsigned long)check->mismatches,
         (unsigned long)check->compared, check->maxError);
  return 1;
}

/* Seconds since some fixed point. */
static inline double exampleNow(void) {
#if defined(EXAMPLE_NOW)
  return EXAMPLE_NOW();
#elif defined(__unix__) || defined(__APPLE__)
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#else
  return (double)clock() / CLOCKS_PER_SEC;
#endif
}

/* The median of times[0..n), n <= 64; sorts times. */
static inline double exampleMedian(double *times, int n) {
  int i, j;
  for (i = 1; i < n; ++i)
    for (j = i; j > 0 && times[j - 1] > times[j]; --j) {
      double t = times[j];
      times[j] = times[j - 1];
      times[j - 1] = t;
    }
  return n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
}

/* The first address in buffer aligned to alignment (a power of two). The
 * buffer must have alignment - 1 spare bytes. */
static inline void *exampleAlign(unsigned char *buffer, size_t alignment) {
  uintptr_t p = (uintptr_t)buffer;
  return buffer + ((alignment - p % alignment) % alignment);
}

/* A byte pattern no computed output has, to see whether a call wrote an
 * output buffer. */
#define EXAMPLE_POISON 0xA5

static inline void examplePoison(float *buffer, size_t n) {
  memset(buffer, EXAMPLE_POISON, n * sizeof(float));
}

/* Whether buffer[0..n) still holds the poison pattern. */
static inline int exampleUntouched(const float *buffer, size_t n) {
  const unsigned char *bytes = (const unsigned char *)buffer;
  size_t i;
  for (i = 0; i < n * sizeof(float); ++i)
    if (bytes[i] != EXAMPLE_POISON)
      return 0;
  return 1;
}

#endif /* EXAMPLE_UTIL_H */
