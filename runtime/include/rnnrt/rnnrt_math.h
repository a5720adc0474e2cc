/*===- rnnrt_math.h - Gate maths for generated C, without libm ---*- C -*-===//
 *
 * Header-only, plain C99: the exponential and tanh that rnnc's C calls
 * for the gates (sigmoid is written 1 / (1 + rnnrt_expf(-x))), and the
 * multiply-add of its matmuls. They never set errno and need no libm, so
 * the compiler inlines them and a program links without -lm; bit casts go
 * through memcpy, which compilers turn into register moves.
 *
 * Accuracy (float32, measured over the whole range against double):
 *  - rnnrt_expf: relative error below 2.5e-7 from -86.9 (e^x = 2^-125.5)
 *    to 88.72 (FLT_MAX), 0 below and infinity above; NaN stays NaN.
 *  - 1 / (1 + rnnrt_expf(-x)): absolute error below 1e-7, relative 3e-7.
 *  - rnnrt_tanhf: absolute error below 2e-7, relative 2e-6 (an odd
 *    polynomial below 1/16, where 1 - 2 / (1 + e^2x) loses relative
 *    accuracy); exactly -1 and 1 far out.
 * These assume float arithmetic in float (FLT_EVAL_METHOD 0: every target
 * rnnc supports; not x87).
 *
 *===----------------------------------------------------------------------===*/

#ifndef RNNRT_RNNRT_MATH_H
#define RNNRT_RNNRT_MATH_H

#include <stdint.h>
#include <string.h>

/* RNNRT_MULADDF(a, b, c) is a * b + c, rounded once where the core has a
 * fused multiply-add as fast as a multiply (GCC and Clang say so with
 * __FP_FAST_FMAF: Cortex-M4F/M7/M33, NEON, x86 with FMA), else written as
 * a multiply and an add the compiler may contract. GCC in ISO C mode
 * (-std=c99) never contracts a * b + c on its own. Define it before
 * including this header to choose otherwise. */
#ifndef RNNRT_MULADDF
#if defined(__GNUC__) && defined(__FP_FAST_FMAF)
#define RNNRT_MULADDF(a, b, c) __builtin_fmaf((a), (b), (c))
#else
#define RNNRT_MULADDF(a, b, c) ((a) * (b) + (c))
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** e^x: x = n ln 2 + r with n = round(x log2 e) in [-126, 128], e^r by a
 * degree-5 minimax polynomial on [-ln 2 / 2, ln 2 / 2] (its coefficients
 * doubled), times 2^(n - 1) from its exponent bits: 2^128 overflows in
 * the product, not in the bits, and n = -126 gives exactly 0. */
static inline float rnnrt_expf(float x) {
  /* 1.5 * 2^23 + 126: adding it rounds x log2 e to an integer n, held in
   * the low mantissa bits biased by 126, so that the bits shifted left by
   * 23 are those of the float 2^(n - 1). */
  const float rounder = 12583038.0f;
  float t, n, r, p, scale;
  uint32_t bits;
  /* Clamped so that n stays in [-126, 128]; a NaN compares false and is
   * kept. One test (|x| < 87) leaves the clamps to the rare values beyond,
   * where the gates saturate. */
  if (!(x * x < 7569.0f)) {
    x = x > 88.72283935546875f ? 88.72283935546875f : x;
    x = x < -87.33654022216797f ? -87.33654022216797f : x;
  }
  t = RNNRT_MULADDF(x, 1.44269504088896341f, rounder);
  n = t - rounder;
  /* r = x - n ln 2, with ln 2 in two parts (Cody and Waite): n times the
   * first is exact. */
  r = RNNRT_MULADDF(n, -0.693359375f, x);
  r = RNNRT_MULADDF(n, 2.12194440e-4f, r);
  p = RNNRT_MULADDF(0.016595548018813133f, r, 0.083831287920475f);
  p = RNNRT_MULADDF(p, r, 0.3333514928817749f);
  p = RNNRT_MULADDF(p, r, 0.9999778270721436f);
  p = RNNRT_MULADDF(p, r, 1.9999994039535522f);
  p = RNNRT_MULADDF(p, r, 2.000000238418579f);
  memcpy(&bits, &t, sizeof bits);
  bits <<= 23;
  memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

/** tanh(x) = 1 - 2 / (1 + e^2x), and x (1 - x^2 / 3 + 2 x^4 / 15) for
 * |x| < 1/16. */
static inline float rnnrt_tanhf(float x) {
  float x2 = x * x;
  float small = x * RNNRT_MULADDF(RNNRT_MULADDF(x2, 0.133333333f,
                                                -0.333333333f),
                                  x2, 1.0f);
  float large = 1.0f - 2.0f / (1.0f + rnnrt_expf(x + x));
  return x2 < 0.00390625f ? small : large;
}

#ifdef __cplusplus
}
#endif

#endif /* RNNRT_RNNRT_MATH_H */
