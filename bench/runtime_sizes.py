#!/usr/bin/env python3
"""Run-time sizes against a static build (docs/Performance.md).

  bench/runtime_sizes.py [--rounds N] [--build DIR]

For LSTM H=256 and GRU H=64 (input size = H, LLVM path), builds a static
`batch: [1], time: 10`, a `batch: [1], time: {max: 100}` and a
`batch: [{max: 32}], time: {max: 100}` with rnnc, links the three into one
C program and times them interleaved (round-robin, one call of each per
iteration, medians over the rounds) at batch 1 and 10 steps: the machine
may be loaded by other work, which then slows all alike. Prints each
build's median and its ratio to the static one.
"""
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

CASES = [("lstm", "LSTMCell", 256), ("gru", "GRUCell", 64)]
STEPS, MAX, MAX_BATCH = 10, 100, 32

MAIN = r"""
#include "NAME_static.h"
#include "NAME_dynamic.h"
#include "NAME_both.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}
static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static float x[STEPS * FEATURES], y[STEPS * HIDDEN];
static UPPER_STATIC_WORKSPACE(ws_static);
static UPPER_DYNAMIC_WORKSPACE(ws_dynamic);
static UPPER_BOTH_WORKSPACE(ws_both);
int main(int argc, char **argv) {
  int rounds = atoi(argv[1]), inner = atoi(argv[2]), r, i;
  int32_t steps = STEPS, rows = 1;
  double *ts = malloc(sizeof(double) * rounds);
  double *td = malloc(sizeof(double) * rounds);
  double *tb = malloc(sizeof(double) * rounds);
  for (i = 0; i < STEPS * FEATURES; ++i)
    x[i] = (float)((i * 37) % 101) / 101.0f - 0.5f;
  for (r = 0; r < rounds; ++r) {
    double t0 = now();
    for (i = 0; i < inner; ++i)
      NAME_static_run(x, y, ws_static);
    double t1 = now();
    for (i = 0; i < inner; ++i)
      NAME_dynamic_run(x, &steps, y, ws_dynamic);
    double t2 = now();
    for (i = 0; i < inner; ++i)
      NAME_both_run(x, &rows, &steps, y, ws_both);
    double t3 = now();
    ts[r] = (t1 - t0) / inner;
    td[r] = (t2 - t1) / inner;
    tb[r] = (t3 - t2) / inner;
  }
  qsort(ts, rounds, sizeof(double), cmp);
  qsort(td, rounds, sizeof(double), cmp);
  qsort(tb, rounds, sizeof(double), cmp);
  printf("%.3f %.3f %.3f\n", ts[rounds / 2] / 1e3, td[rounds / 2] / 1e3,
         tb[rounds / 2] / 1e3);
  return 0;
}
"""


def weights(cell, h):
    rng = np.random.default_rng(0)
    p = {}
    gates = "ifgo" if cell == "LSTMCell" else "rzn"
    for g in gates:
        p[f"enc/cell/i{g}/kernel"] = rng.standard_normal((h, h))
        p[f"enc/cell/h{g}/kernel"] = rng.standard_normal((h, h))
        if cell == "LSTMCell":
            p[f"enc/cell/h{g}/bias"] = rng.standard_normal(h)
        else:
            p[f"enc/cell/i{g}/bias"] = rng.standard_normal(h)
    if cell == "GRUCell":
        p["enc/cell/hn/bias"] = rng.standard_normal(h)
    return {k: (0.1 * v).astype(np.float32) for k, v in p.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=301)
    ap.add_argument("--build", default=str(ROOT / "build"))
    args = ap.parse_args()
    rnnc = Path(args.build) / "bin" / "rnnc"
    lib = Path(args.build) / "lib"
    work = Path(tempfile.mkdtemp(prefix="rnnc-runtime-sizes-"))
    print(f"| model | static B=1, T={STEPS} (us) | time {{max: {MAX}}} (us) | ratio "
          f"| batch {{max: {MAX_BATCH}}}, time {{max: {MAX}}} (us) | ratio |")
    print("|---|---|---|---|---|---|")
    for name, cell, h in CASES:
        np.savez(work / f"{name}.npz", **weights(cell, h))
        objs = []
        for kind, batch, time in (("static", "1", str(STEPS)),
                                  ("dynamic", "1", f"{{max: {MAX}}}"),
                                  ("both", f"{{max: {MAX_BATCH}}}",
                                   f"{{max: {MAX}}}")):
            model = f"{name}_{kind}"
            spec = work / f"{model}.yaml"
            spec.write_text(
                f"rnnc: 1\nname: {model}\ninput: {{batch: [{batch}], time: {time}, "
                f"features: {h}}}\nlayers:\n  - {{type: RNN, name: enc, "
                f"cell: {{type: {cell}, features: {h}}}}}\n")
            subprocess.run([str(rnnc), "compile", str(spec), "--weights",
                            str(work / f"{name}.npz"), "-o", str(work)],
                           check=True, stdout=subprocess.DEVNULL)
            objs.append(str(work / f"{model}.o"))
        src = work / f"{name}_main.c"
        src.write_text(MAIN.replace("UPPER_", name.upper() + "_")
                       .replace("NAME", name).replace("STEPS", str(STEPS))
                       .replace("FEATURES", str(h)).replace("HIDDEN", str(h)))
        exe = work / f"{name}_main"
        subprocess.run(["cc", "-O2", "-I", str(work), str(src), *objs,
                        f"-L{lib}", "-lrnnrt", "-lm", "-o", str(exe)], check=True)
        inner = 20 if cell == "LSTMCell" else 200
        out = subprocess.run([str(exe), str(args.rounds), str(inner)],
                             check=True, capture_output=True, text=True).stdout
        static, dynamic, both = map(float, out.split())
        print(f"| {cell} H={h} | {static:.2f} | {dynamic:.2f} | "
              f"{dynamic / static:.3f} | {both:.2f} | {both / static:.3f} |")


if __name__ == "__main__":
    sys.exit(main())
