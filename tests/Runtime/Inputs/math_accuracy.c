/* Measures rnnrt_math.h against libm's double functions over the whole
 * float range that matters and prints the largest errors; exits non-zero
 * past the bounds the header states. */
#include "rnnrt/rnnrt_math.h"

#include <math.h>
#include <stdio.h>

static double relative(double got, double want) {
  return want == 0.0 ? fabs(got) : fabs(got - want) / fabs(want);
}

int main(void) {
  double exp_rel = 0, sig_abs = 0, sig_rel = 0, tanh_abs = 0, tanh_rel = 0;
  int bad = 0;
  long i;
  for (i = 0; i <= 4000000; ++i) {
    float x = -88.0f + 176.5f * (float)i / 4000000.0f;
    double e = exp((double)x);
    if (x > -86.9f && e < 3.4e38)
      exp_rel = fmax(exp_rel, relative(rnnrt_expf(x), e));
  }
  for (i = 0; i <= 4000000; ++i) {
    float x = -40.0f + 80.0f * (float)i / 4000000.0f;
    double s = 1.0 / (1.0 + exp(-(double)x));
    float got = 1.0f / (1.0f + rnnrt_expf(-x));
    double t = tanh((double)x);
    sig_abs = fmax(sig_abs, fabs(got - s));
    if (s > 1.2e-38)
      sig_rel = fmax(sig_rel, relative(got, s));
    tanh_abs = fmax(tanh_abs, fabs(rnnrt_tanhf(x) - t));
    if (t != 0.0)
      tanh_rel = fmax(tanh_rel, relative(rnnrt_tanhf(x), t));
  }
  /* The ends and NaN. */
  bad |= rnnrt_expf(-100.0f) != 0.0f || !isinf(rnnrt_expf(100.0f));
  bad |= isinf(rnnrt_expf(88.72f)) || rnnrt_expf(-87.0f) != 0.0f;
  bad |= rnnrt_tanhf(-30.0f) != -1.0f || rnnrt_tanhf(30.0f) != 1.0f;
  bad |= rnnrt_tanhf(0.0f) != 0.0f;
  bad |= !isnan(rnnrt_expf(NAN)) || !isnan(rnnrt_tanhf(NAN));
  printf("expf relative %.2g\nsigmoid absolute %.2g relative %.2g\n"
         "tanhf absolute %.2g relative %.2g\n",
         exp_rel, sig_abs, sig_rel, tanh_abs, tanh_rel);
  bad |= exp_rel > 2.5e-7 || sig_abs > 1e-7 || sig_rel > 3e-7 ||
         tanh_abs > 2e-7 || tanh_rel > 2e-6;
  return bad;
}
