#!/usr/bin/env python3
"""Run-time sizes against a static build (docs/Performance.md).

  bench/runtime_sizes.py [--rounds N] [--build DIR] [--only NAME,...]

Per case (input size = H, LLVM path), builds a static one of batch 1 and 10
steps and the run-time variants below with rnnc, links them into one C
program and times them interleaved (round-robin, one call of each per
iteration, medians over the rounds) at batch 1 and 10 steps: the machine
may be loaded by other work, which then slows all alike. Prints each
build's median and its ratio to the static one.

- lstm, gru: an LSTM H=256 / GRU H=64 layer; `time: {max: 100}`, and
  `batch: [{max: 32}], time: {max: 100}`.
- bidi: a Bidirectional LSTM H=256 (concat) and a Dense head of 16;
  `batch: [{max: 32}]` (a Bidirectional layer needs the whole sequence, so
  its time is static).
- dims: a GRU H=64 with two batch dims; `batch: [{max: 32}, {max: 4}],
  time: {max: 100}` against a static `batch: [1, 1]`.
"""
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
STEPS = 10


def rnn_layer(name, cell, h):
    return f"  - {{type: RNN, name: {name}, cell: {{type: {cell}, features: {h}}}}}\n"


# name: (features, layers, weights [(prefix, cell)], head, [(kind, batch
# entries, time)]); the first build is the static one.
CASES = {
    "lstm": (256, rnn_layer("enc", "LSTMCell", 256), [("enc", "LSTMCell")], 0,
             [("static", ["1"], str(STEPS)),
              ("time", ["1"], "{max: 100}"),
              ("both", ["{max: 32}"], "{max: 100}")]),
    "gru": (64, rnn_layer("enc", "GRUCell", 64), [("enc", "GRUCell")], 0,
            [("static", ["1"], str(STEPS)),
             ("time", ["1"], "{max: 100}"),
             ("both", ["{max: 32}"], "{max: 100}")]),
    "bidi": (256, "  - {type: Bidirectional, name: enc, merge_fn: concat, "
             "forward_rnn: {cell: {type: LSTMCell, features: 256}}, "
             "backward_rnn: {cell: {type: LSTMCell, features: 256}}}\n"
             "  - {type: Dense, name: head, features: 16}\n",
             [("enc/forward_rnn", "LSTMCell"), ("enc/backward_rnn", "LSTMCell")],
             16,
             [("static", ["1"], str(STEPS)),
              ("batch", ["{max: 32}"], str(STEPS))]),
    "dims": (64, rnn_layer("enc", "GRUCell", 64), [("enc", "GRUCell")], 0,
             [("static", ["1", "1"], str(STEPS)),
              ("both", ["{max: 32}", "{max: 4}"], "{max: 100}")]),
}

MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
INCLUDES
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}
static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static float x[STEPS * FEATURES], y[STEPS * OUTPUTS];
WORKSPACES
int main(int argc, char **argv) {
  int rounds = atoi(argv[1]), inner = atoi(argv[2]), r, i, k;
  int32_t steps = STEPS, rows = 1;
  double *t[BUILDS];
  for (k = 0; k < BUILDS; ++k)
    t[k] = malloc(sizeof(double) * rounds);
  for (i = 0; i < STEPS * FEATURES; ++i)
    x[i] = (float)((i * 37) % 101) / 101.0f - 0.5f;
  for (r = 0; r < rounds; ++r) {
    double t0, t1;
CALLS
  }
  for (k = 0; k < BUILDS; ++k) {
    qsort(t[k], rounds, sizeof(double), cmp);
    printf("%.3f ", t[k][rounds / 2] / 1e3);
  }
  printf("\n");
  return 0;
}
"""


def weights(prefixes, h, head):
    rng = np.random.default_rng(0)
    p = {}
    for prefix, cell in prefixes:
        gates = "ifgo" if cell == "LSTMCell" else "rzn"
        for g in gates:
            p[f"{prefix}/cell/i{g}/kernel"] = rng.standard_normal((h, h))
            p[f"{prefix}/cell/h{g}/kernel"] = rng.standard_normal((h, h))
            if cell == "LSTMCell":
                p[f"{prefix}/cell/h{g}/bias"] = rng.standard_normal(h)
            else:
                p[f"{prefix}/cell/i{g}/bias"] = rng.standard_normal(h)
        if cell == "GRUCell":
            p[f"{prefix}/cell/hn/bias"] = rng.standard_normal(h)
    if head:
        p["head/kernel"] = rng.standard_normal((len(prefixes) * h, head))
        p["head/bias"] = rng.standard_normal(head)
    return {k: (0.1 * v).astype(np.float32) for k, v in p.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=301)
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--only", default=",".join(CASES))
    args = ap.parse_args()
    rnnc = Path(args.build) / "bin" / "rnnc"
    lib = Path(args.build) / "lib"
    work = Path(tempfile.mkdtemp(prefix="rnnc-runtime-sizes-"))
    print("| model | build | B=1, T=10 (us) | ratio to static |")
    print("|---|---|---|---|")
    for name in args.only.split(","):
        h, layers, prefixes, head, builds = CASES[name]
        np.savez(work / f"{name}.npz", **weights(prefixes, h, head))
        objs, includes, workspaces, calls = [], [], [], []
        for k, (kind, batch, time) in enumerate(builds):
            model = f"{name}_{kind}"
            spec = work / f"{model}.yaml"
            spec.write_text(
                f"rnnc: 1\nname: {model}\ninput: {{batch: [{', '.join(batch)}], "
                f"time: {time}, features: {h}}}\nlayers:\n{layers}")
            subprocess.run([str(rnnc), "compile", str(spec), "--weights",
                            str(work / f"{name}.npz"), "-o", str(work)],
                           check=True, stdout=subprocess.DEVNULL)
            objs.append(str(work / f"{model}.o"))
            includes.append(f'#include "{model}.h"')
            workspaces.append(f"static {model.upper()}_WORKSPACE(ws_{kind});")
            sizes = ["&rows" for b in batch if b.startswith("{")]
            if time.startswith("{"):
                sizes.append("&steps")
            call = ", ".join(["x", *sizes, "y", f"ws_{kind}"])
            calls.append(f"    t0 = now();\n    for (i = 0; i < inner; ++i)\n"
                         f"      {model}_run({call});\n    t1 = now();\n"
                         f"    t[{k}][r] = (t1 - t0) / inner;")
        outputs = 2 * h if name == "bidi" and not head else (head or h)
        src = work / f"{name}_main.c"
        src.write_text(MAIN.replace("INCLUDES", "\n".join(includes))
                       .replace("WORKSPACES", "\n".join(workspaces))
                       .replace("CALLS", "\n".join(calls))
                       .replace("BUILDS", str(len(builds)))
                       .replace("STEPS", str(STEPS))
                       .replace("FEATURES", str(h))
                       .replace("OUTPUTS", str(outputs)))
        exe = work / f"{name}_main"
        subprocess.run(["cc", "-O2", "-I", str(work), str(src), *objs,
                        f"-L{lib}", "-lrnnrt", "-lm", "-o", str(exe)], check=True)
        inner = 20 if h >= 256 else 200
        out = subprocess.run([str(exe), str(args.rounds), str(inner)],
                             check=True, capture_output=True, text=True).stdout
        times = list(map(float, out.split()))
        for (kind, batch, time), t in zip(builds, times):
            print(f"| {name} H={h} | batch [{', '.join(batch)}], time {time} "
                  f"| {t:.2f} | {t / times[0]:.3f} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
