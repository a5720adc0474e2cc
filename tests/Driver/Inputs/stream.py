"""The models and C programs of stream.test.

  stream.py models DIR
      writes DIR/<v>.yaml and DIR/<v>.weights.npz for each variant <v>,
      all with `input.stream: true`.
  stream.py harness HEADER > main.c
      writes a strict C99 program for the model HEADER declares that runs
      one sequence of <NAME>_TIME steps through <name>_stream in one chunk
      and in 30 random chunkings (chunks of 0..TIME steps), and prints
      whether the outputs and the final state are bit-identical, that the
      state changed, and what a chunk of TIME + 1 or -1 steps returns (and
      whether it wrote anything). -DBREAK_CHUNKS perturbs the state between
      two chunks, which the comparison must catch.
"""
import sys
from pathlib import Path

VARIANTS = {
    # name: (batch, time, time_major, features, layers)
    "s_lstm": ("[3]", 19, False, 5, """
  - {type: RNN, name: enc, cell: {type: LSTMCell, features: 24}, unroll: 2}
  - {type: Dense, name: head, features: 4}
"""),
    "s_gru_tm": ("[2]", 13, True, 3, """
  - {type: RNN, name: enc, cell: {type: GRUCell, features: 70}}
"""),
    "s_stack_b1": ("[1]", 37, False, 8, """
  - {type: RNN, name: l1, cell: {type: LSTMCell, features: 16}}
  - {type: RNN, name: l2, cell: {type: GRUCell, features: 9}}
"""),
}


def models(out):
    import numpy as np
    import yaml
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from runtime_time import weights
    for seed, (name, (batch, time, tm, features, layers)) in enumerate(
            VARIANTS.items()):
        rng = np.random.default_rng(seed)
        spec = (f"rnnc: 1\nname: {name}\ninput: {{batch: {batch}, time: {time}, "
                f"features: {features}, time_major: {str(tm).lower()}, "
                f"stream: true}}\nlayers:{layers}")
        yaml.safe_load(spec)
        (Path(out) / f"{name}.yaml").write_text(spec)
        np.savez(Path(out) / f"{name}.weights.npz", **weights(rng, layers, features))


HARNESS = r"""
#include "NAME.h"

#include <stdio.h>
#include <string.h>

#define B (UPPER_NUM_BATCH_DIMS ? UPPER_BATCH_DIM_0 : 1)
#define T UPPER_TIME
#define F UPPER_INPUT_FEATURES
#define O UPPER_OUTPUT_FEATURES

static float x[B * T * F], xc[B * T * F];
static float y_whole[B * T * O], y_chunked[B * T * O], yc[(B * T + 1) * O];
static float carries[UPPER_STATE_FLOATS];
static UPPER_WORKSPACE(workspace);
static unsigned seed = 12345u;

static unsigned next(void) {
  seed = seed * 1103515245u + 12345u;
  return (seed >> 16) & 0x7fff;
}

static float value(void) { return (float)next() / 16384.0f - 1.0f; }

/* The steps [t0, t0 + n) of a (B, T, K) or (T, B, K) array, dense. */
static void gather(float *dst, const float *src, int t0, int n, int k) {
  int b;
  if (UPPER_TIME_MAJOR) {
    memcpy(dst, src + (size_t)t0 * B * k, sizeof(float) * n * B * k);
    return;
  }
  for (b = 0; b < B; ++b)
    memcpy(dst + (size_t)b * n * k, src + ((size_t)b * T + t0) * k,
           sizeof(float) * n * k);
}

static void scatter(float *dst, const float *src, int t0, int n, int k) {
  int b;
  if (UPPER_TIME_MAJOR) {
    memcpy(dst + (size_t)t0 * B * k, src, sizeof(float) * n * B * k);
    return;
  }
  for (b = 0; b < B; ++b)
    memcpy(dst + ((size_t)b * T + t0) * k, src + (size_t)b * n * k,
           sizeof(float) * n * k);
}

int main(void) {
  NAME_state whole, chunked, before;
  int i, trial, same = 1, changed = 0;
  int32_t status[2];
  for (i = 0; i < B * T * F; ++i)
    x[i] = value();
  for (i = 0; i < UPPER_STATE_FLOATS; ++i)
    carries[i] = 0.5f * value();
  if (NAME_state_init(&whole, carries) != UPPER_OK ||
      NAME_stream(&whole, x, T, y_whole, workspace) != UPPER_OK)
    return 1;
  for (i = 0; i < UPPER_STATE_FLOATS; ++i)
    changed += whole.carries[i] != carries[i];
  for (trial = 0; trial < 30; ++trial) {
    int t0 = 0;
#ifdef BREAK_CHUNKS
    int chunk = 0;
#endif
    NAME_state_init(&chunked, carries);
    memset(y_chunked, 0, sizeof y_chunked);
    while (t0 < T) {
      int n = (int)(next() % (unsigned)(T / (1 + trial % 4) + 1));
      if (n > T - t0)
        n = T - t0;
      gather(xc, x, t0, n, F);
      if (NAME_stream(&chunked, xc, n, yc, workspace) != UPPER_OK)
        return 1;
      scatter(y_chunked, yc, t0, n, O);
#ifdef BREAK_CHUNKS
      if (chunk++ == 0)
        chunked.carries[0] += 1e-3f;
#endif
      t0 += n;
    }
    same &= memcmp(y_chunked, y_whole, sizeof y_whole) == 0 &&
            memcmp(chunked.carries, whole.carries, sizeof whole.carries) == 0;
  }
  printf("NAME: 30 random chunkings %s one call\n",
         same ? "bit-identical to" : "differ from");
  printf("NAME: state changed: %d of %d\n", changed, UPPER_STATE_FLOATS);
  /* Out of range: an error, and neither the state nor y is written. */
  before = chunked;
  for (i = 0; i < (B * T + 1) * O; ++i)
    yc[i] = 7.0f;
  status[0] = NAME_stream(&chunked, x, T + 1, yc, workspace);
  status[1] = NAME_stream(&chunked, x, -1, yc, workspace);
  for (i = 0; i < (B * T + 1) * O; ++i)
    same &= yc[i] == 7.0f;
  same &= memcmp(&before, &chunked, sizeof before) == 0;
  printf("NAME: steps T+1 -> %d, -1 -> %d, wrote nothing: %s\n",
         (int)status[0], (int)status[1], same ? "yes" : "NO");
  return same ? 0 : 2;
}
"""


def harness(header):
    name = Path(header).stem
    sys.stdout.write(HARNESS.replace("UPPER_", name.upper() + "_")
                     .replace("NAME", name))


if __name__ == "__main__":
    if sys.argv[1] == "models":
        models(sys.argv[2])
    else:
        harness(sys.argv[2])
