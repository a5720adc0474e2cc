"""Data and checks for int8-weights.test (quantize: {weights: int8}).

  int8_weights.py write DIR        DIR/w.npz (float32 weights of
                                   int8_weights.yaml) and DIR/in.npz (x)
  int8_weights.py check DIR OUT.npz
                                   compares rnnc run's y with
                                   examples/flax_numpy.py on the weights
                                   quantized here (scale = max|w| / 127 per
                                   column, round half to even, clip to 127):
                                   within the f32 tolerance; and reports how
                                   far the float weights' outputs are
  int8_weights.py bound LIMIT     reads 'rnnc check --quantize' output
                                   on stdin: "max |deviation| <= LIMIT for
                                   all N outputs", else the first above
  int8_weights.py nans CLEAN.npz NAN.npz
                                   the outputs of DIR/in.npz and of
                                   DIR/nan.npz (the same x with one NaN,
                                   written by `write`, in row 1 at step
                                   2): row 0 the same, row 1 NaN from step
                                   2 on (a NaN's row quantizes to NaN)
  int8_weights.py sample SPEC OUT.npz
                                   random inputs for SPEC (the arrays of
                                   'rnnc run SPEC --list-arrays', read from
                                   stdin): floats in [-1, 1], lengths in
                                   [1, T], token ids below num_embeddings

The quantization here is numpy's own, independent of rnnc's C++."""
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "examples"))
import flax_numpy as fx  # noqa: E402

B, T, I, H, O = 2, 6, 3, 8, 5


def weights():
    rng = np.random.default_rng(11)
    w = {"l0/cell/" + k: v for k, v in fx.lstm_params(rng, I, H).items()}
    w.update({"l1/cell/" + k: v for k, v in fx.gru_params(rng, H, H).items()})
    w.update({"head/" + k: v for k, v in fx.dense_params(rng, H, O).items()})
    # A zero column: scale 1, exact.
    w["l1/cell/hr/kernel"][:, 0] = 0
    return w


def quantized(kernel):
    k = np.asarray(kernel, np.float32)
    scale = (np.abs(k).max(axis=0) / np.float32(127)).astype(np.float32)
    scale[scale == 0] = 1
    q = np.clip(np.rint(k / scale), -127, 127)
    return (q * scale).astype(np.float32)


def reference(w):
    x = np.load(sys.argv[2] + "/in.npz")["x"]
    sub = lambda p: {k[len(p):]: v for k, v in w.items() if k.startswith(p)}
    zeros = np.zeros((B, H))
    y, _ = fx.rnn(fx.lstm_step, sub("l0/cell/"), x, (zeros, zeros), [T] * B)
    y, _ = fx.rnn(fx.gru_step, sub("l1/cell/"), y, (zeros,), [T] * B)
    return fx.dense(sub("head/"), y)


def sample(spec, out):
    text = open(spec).read()
    vocab = re.search(r"num_embeddings:\s*(\d+)", text)
    rng = np.random.default_rng(5)
    arrays, time = {}, None
    for line in sys.stdin:
        m = re.match(r"\s+(\S+)\s+(float32|int32)\s+\[([\d, ]*)\]", line)
        if not m or line.startswith("outputs"):
            continue
        name, dtype = m.group(1), m.group(2)
        shape = [int(d) for d in m.group(3).split(",") if d.strip()]
        if name == "x" and dtype == "int32":
            arrays[name] = rng.integers(0, int(vocab.group(1)), shape,
                                        dtype=np.int32)
        elif name == "seq_lengths":
            arrays[name] = rng.integers(1, int(time) + 1, shape,
                                        dtype=np.int32)
        elif name.startswith(("x", "initial_carry")):
            arrays[name] = rng.uniform(-1, 1, shape).astype(np.float32)
        if name == "x":
            time = re.search(r"time:\s*(?:\{max:\s*)?(\d+)", text).group(1)
    np.savez(out, **arrays)


def bound(limit):
    rows, seen = [], False
    for line in sys.stdin:
        if line.lstrip().startswith("output "):
            seen = True
        elif seen and line.strip():
            name, deviation = line.split()[:2]
            rows.append((name, float(deviation)))
    worst = [r for r in rows if not r[1] <= limit]
    print(("max |deviation| <= %g for all %d outputs" % (limit, len(rows)))
          if rows and not worst else "above %g: %s" % (limit, worst or rows))


if sys.argv[1] == "bound":
    bound(float(sys.argv[2]))
elif sys.argv[1] == "write":
    d = sys.argv[2]
    np.savez(d + "/w.npz", **weights())
    x = np.random.default_rng(12).uniform(-1, 1, (B, T, I)).astype(np.float32)
    np.savez(d + "/in.npz", x=x)
    x[1, 2, 0] = np.nan
    np.savez(d + "/nan.npz", x=x)
elif sys.argv[1] == "nans":
    clean, nan = (np.load(f)["y"] for f in sys.argv[2:4])
    print("row 0: %s" % ("the same" if np.array_equal(clean[0], nan[0])
                         else "changed"))
    steps = [t for t in range(T) if np.all(np.isnan(nan[1, t]))]
    print("row 1: NaN at steps %s" % steps)
elif sys.argv[1] == "sample":
    sample(sys.argv[2], sys.argv[3])
else:
    y = np.load(sys.argv[3])["y"].astype(np.float64)
    w = weights()
    int8 = {k: quantized(v) if k.endswith("kernel") else v
            for k, v in w.items()}
    want = reference(int8)
    error = np.abs(y - want)
    tolerance = 1e-5 + 1e-4 * np.abs(want)
    print("dequantized weights: within tolerance" if np.all(error <= tolerance)
          else "dequantized weights: off by %g" % error.max())
    deviation = np.abs(y - reference(w)).max()
    print("float weights: %s" % ("deviation within 1e-2" if deviation <= 1e-2
                                 else "deviation %g" % deviation))
    print("float weights: %s" % ("outside tolerance"
                                 if np.any(np.abs(y - reference(w)) > tolerance)
                                 else "within tolerance"))
