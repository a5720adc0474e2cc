"""Data for bf16-params.test (param_dtype: bfloat16).

  bf16_params.py write DIR   DIR/w.f32.npz (float32 weights, rounded by
                             rnnc), DIR/w.bf16.safetensors (the same
                             weights rounded here, stored as BF16), and
                             DIR/in.npz (x)
  bf16_params.py write-wide DIR
                             DIR/wide.npz (float32 weights of a B=1,
                             I=64, H=128 LSTM), DIR/wide.rounded.npz (the
                             same rounded here, float32) and DIR/wide.in.npz
  bf16_params.py same A.npz B.npz
                             whether y is the same bits in both
  bf16_params.py check DIR OUT.npz
                             compares rnnc run's y with examples/flax_numpy.py
                             on the rounded weights (f32 maths: within the
                             equivalence tolerance) and shows that the
                             unrounded weights would not pass

The rounding here is numpy's own (round to nearest even on the float32 bit
pattern), independent of rnnc's."""
import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "examples"))
import flax_numpy as fx  # noqa: E402

B, T, I, H = 2, 5, 3, 8


def weights():
    rng = np.random.default_rng(7)
    p = fx.lstm_params(rng, I, H)
    return {"l0/cell/" + k: v for k, v in p.items()}


def bf16_bits(a):
    bits = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return bits.astype(np.uint16)


def rounded(a):
    return (bf16_bits(a).astype(np.uint32) << 16).view(np.float32)


def write_safetensors(path, arrays):
    header, data, offset = {}, b"", 0
    for key, a in sorted(arrays.items()):
        raw = bf16_bits(a).tobytes()
        header[key] = {"dtype": "BF16", "shape": list(a.shape),
                       "data_offsets": [offset, offset + len(raw)]}
        data += raw
        offset += len(raw)
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def reference(params):
    x = np.load(sys.argv[2] + "/in.npz")["x"]
    cell = {k[len("l0/cell/"):]: v for k, v in params.items()}
    carry = (np.zeros((B, H)), np.zeros((B, H)))
    y, _ = fx.rnn(fx.lstm_step, cell, x, carry, [T] * B)
    return y


if sys.argv[1] == "write-wide":
    d = sys.argv[2]
    rng = np.random.default_rng(9)
    w = {"l0/cell/" + k: v for k, v in fx.lstm_params(rng, 64, 128).items()}
    np.savez(d + "/wide.npz", **w)
    np.savez(d + "/wide.rounded.npz", **{k: rounded(v) for k, v in w.items()})
    x = rng.uniform(-1, 1, (1, 4, 64)).astype(np.float32)
    np.savez(d + "/wide.in.npz", x=x)
elif sys.argv[1] == "same":
    a, b = (np.load(f)["y"].view(np.uint32) for f in sys.argv[2:4])
    print("same bits" if np.array_equal(a, b) else
          "%d of %d differ" % (np.sum(a != b), a.size))
elif sys.argv[1] == "write":
    d = sys.argv[2]
    w = weights()
    np.savez(d + "/w.f32.npz", **w)
    write_safetensors(d + "/w.bf16.safetensors", w)
    x = np.random.default_rng(8).uniform(-1, 1, (B, T, I)).astype(np.float32)
    np.savez(d + "/in.npz", x=x)
else:
    y = np.load(sys.argv[3])["y"].astype(np.float64)
    w = weights()
    want = reference({k: rounded(v) for k, v in w.items()})
    error = np.abs(y - want)
    tolerance = 1e-5 + 1e-4 * np.abs(want)
    print("rounded weights: within tolerance" if np.all(error <= tolerance)
          else "rounded weights: off by %g" % error.max())
    unrounded = np.abs(y - reference(w))
    print("unrounded weights: %s" % ("outside tolerance"
                                     if np.any(unrounded > tolerance)
                                     else "within tolerance"))
