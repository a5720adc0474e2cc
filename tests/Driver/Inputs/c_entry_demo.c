/* Calls a model compiled by `rnnc compile --emit=c` through its header, and
 * the same model compiled by rnnc's LLVM path under the name `llvm_model`,
 * on the same inputs, and compares them.
 *
 * Build: -DMODEL=<name> -DPREFIX=<NAME> -DMODEL_HEADER='"<name>.h"'
 * -DCARRY_SIZE=<floats per carry>. The model takes x, seq_lengths, y, four
 * carries of CARRY_SIZE floats and the workspace (an LSTM stack of two
 * layers, or a Bidirectional LSTM). Plain C99. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include MODEL_HEADER

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define RUN CAT(MODEL, _run)
#define M(name) CAT(PREFIX, name)

enum {
  BATCH = M(_BATCH_DIM_0),
  TIME = M(_TIME),
  IN = M(_INPUT_FEATURES),
  OUT = M(_OUTPUT_FEATURES),
  WORKSPACE = M(_WORKSPACE_SIZE),
  NUM_OUTPUTS = BATCH * TIME * OUT + 4 * CARRY_SIZE
};

typedef int32_t (*entry_fn)(const float *, const int32_t *, float *, float *,
                            float *, float *, float *, void *);

/* The same model through the LLVM path. */
int32_t llvm_model_run(const float *x, const int32_t *seq_lengths, float *y,
                       float *c0, float *c1, float *c2, float *c3,
                       void *workspace);

static float x[BATCH * TIME * IN];
static int32_t lengths[BATCH];
static unsigned char raw[WORKSPACE + 64];

/* y, then the four carries, contiguous. */
static float outputs[2][NUM_OUTPUTS];

static int32_t run(entry_fn fn, float *out) {
  float *carry = out + BATCH * TIME * OUT;
  /* The header asks for a workspace aligned to 64 bytes. */
  unsigned char *workspace = raw + (64 - (uintptr_t)raw % 64) % 64;
  return fn(x, lengths, out, carry, carry + CARRY_SIZE, carry + 2 * CARRY_SIZE,
            carry + 3 * CARRY_SIZE, workspace);
}

int main(void) {
  entry_fn c = RUN, llvm = llvm_model_run;
  int i, b, bad = 0, untouched = 1;
  float biggest = 0.0f;
  for (i = 0; i < BATCH * TIME * IN; ++i)
    x[i] = (float)sin(0.37 * i + 0.1);
  /* Row 0 is full, row 1 one step long, row 2 empty (keeps the initial
   * carry), the rest in between. */
  for (b = 0; b < BATCH; ++b)
    lengths[b] = b == 0 ? TIME : b == 1 ? 1 : b == 2 ? 0 : (b % TIME) + 1;

  if (run(c, outputs[0]) != M(_OK) || run(llvm, outputs[1]) != M(_OK)) {
    printf("unexpected status\n");
    return 1;
  }
  for (i = 0; i < NUM_OUTPUTS; ++i) {
    float got = outputs[0][i], want = outputs[1][i];
    if (!(fabsf(got - want) <= 1e-5f + 1e-4f * fabsf(want))) {
      if (bad++ < 5)
        printf("output %d: c %.8g, llvm %.8g\n", i, got, want);
    }
    if (fabsf(want) > biggest)
      biggest = fabsf(want);
  }
  printf("c matches llvm: %d of %d outputs differ\n", bad, NUM_OUTPUTS);
  printf("outputs are not trivial: %s\n", biggest > 0.05f ? "yes" : "no");

  /* Row 2 has length 0: each final carry is the initial (zero) one. */
  for (i = 0; i < 4; ++i) {
    const float *row = outputs[0] + BATCH * TIME * OUT + i * CARRY_SIZE +
                       2 * (CARRY_SIZE / BATCH);
    int k;
    for (k = 0; k < CARRY_SIZE / BATCH; ++k)
      if (row[k] != 0.0f)
        untouched = 0;
  }
  printf("empty row keeps the initial carry: %s\n", untouched ? "yes" : "no");

  /* A bad length is an error, and nothing is written. */
  lengths[1] = TIME + 1;
  for (i = 0; i < NUM_OUTPUTS; ++i)
    outputs[0][i] = 42.0f;
  untouched = run(c, outputs[0]) == M(_ERROR_SEQ_LENGTH);
  for (i = 0; i < NUM_OUTPUTS; ++i)
    if (outputs[0][i] != 42.0f)
      untouched = 0;
  printf("bad length: %s\n", untouched ? "error, outputs untouched" : "wrong");
  return bad != 0 || !untouched;
}
