"""rnnc.compile / rnnc.Model: cache, info, names, checks, errors, per-call cost.
Needs only numpy (no jax): runs on Debian's python3."""

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "python"))
import rnnc  # noqa: E402

work = Path(tempfile.mkdtemp(prefix="rnnc-python-api-"))
cache = work / "cache"
rng = np.random.default_rng(0)

SPEC = """rnnc: 1
name: api
input: {batch: [3], time: 6, features: 4, seq_lengths: true}
layers:
  - type: Bidirectional
    name: enc
    forward_rnn: {cell: {type: LSTMCell, features: 5}}
    backward_rnn: {cell: {type: GRUCell, features: 5}}
    return_carry: true
    initial_carry: input
  - type: RNN
    name: dec
    cell: {type: GRUCell, features: 3}
    return_carry: true
"""


def lstm(prefix, i, h):
    d = {}
    for g in "ifgo":
        d["%s/i%s/kernel" % (prefix, g)] = rng.normal(size=(i, h)).astype(np.float32) * 0.4
        d["%s/h%s/kernel" % (prefix, g)] = rng.normal(size=(h, h)).astype(np.float32) * 0.4
        d["%s/h%s/bias" % (prefix, g)] = rng.normal(size=(h,)).astype(np.float32) * 0.1
    return d


def gru(prefix, i, h):
    d = {}
    for g in "rzn":
        d["%s/i%s/kernel" % (prefix, g)] = rng.normal(size=(i, h)).astype(np.float32) * 0.4
        d["%s/i%s/bias" % (prefix, g)] = rng.normal(size=(h,)).astype(np.float32) * 0.1
        d["%s/h%s/kernel" % (prefix, g)] = rng.normal(size=(h, h)).astype(np.float32) * 0.4
    d["%s/hn/bias" % prefix] = rng.normal(size=(h,)).astype(np.float32) * 0.1
    return d


weights = {}
weights.update(lstm("enc/forward_rnn/cell", 4, 5))
weights.update(gru("enc/backward_rnn/cell", 4, 5))
weights.update(gru("dec/cell", 10, 3))
(work / "api.yaml").write_text(SPEC)
np.savez(work / "api.npz", **weights)

# Compile: once, then from the cache.
t0 = time.perf_counter()
m = rnnc.compile(work / "api.yaml", work / "api.npz", cache_dir=cache)
first = time.perf_counter() - t0
t0 = time.perf_counter()
m2 = rnnc.compile(str(work / "api.yaml"), weights, cache_dir=cache)  # a dict of arrays
again = time.perf_counter() - t0
t0 = time.perf_counter()
m3 = rnnc.compile(work / "api.yaml", work / "api.npz", cache_dir=cache)
cached = time.perf_counter() - t0
print("cache: same directory %s" % (m3.directory == m.directory))
print("compile %.2f s, from a dict of arrays %.2f s, cached %.4f s"
      % (first, again, cached), file=sys.stderr)
print("cached compile faster than 0.1 s: %s" % (cached < 0.1))

# info: the header's sizes.
info = m.info
print("info: time %d input_features %d output_features %d batch_dim_0 %d num_batch_dims %d"
      % (info["time"], info["input_features"], info["output_features"],
         info["batch_dim_0"], info["num_batch_dims"]))
print("info: carry_enc_forward_c_size %d carry_dec_h_size %d workspace_size>0 %s"
      % (info["carry_enc_forward_c_size"], info["carry_dec_h_size"],
         info["workspace_size"] > 0))
print("inputs: " + " ".join("%s%s:%s" % (n, list(s), d) for n, (s, d) in info["inputs"].items()))
print("outputs: " + " ".join("%s%s" % (n, list(s)) for n, (s, _) in info["outputs"].items()))
print("status codes: %s" % sorted(info["status_codes"].items()))

# The same outputs, under the same names, as `rnnc run`.
x = rng.normal(size=(3, 6, 4)).astype(np.float32)
lens = np.array([6, 2, 4], np.int32)
c0 = rng.normal(size=(3, 5)).astype(np.float32)
h0 = rng.normal(size=(3, 5)).astype(np.float32)
hb = rng.normal(size=(3, 5)).astype(np.float32)
out = m(x, seq_lengths=lens, initial_carry={"enc": {"forward": (c0, h0), "backward": hb}})
np.savez(work / "in.npz", x=x, seq_lengths=lens, **{
    "initial_carry/enc/forward/c": c0, "initial_carry/enc/forward/h": h0,
    "initial_carry/enc/backward/h": hb})
rnnc_bin = os.environ.get("RNNC", str(ROOT / "build" / "bin" / "rnnc"))
subprocess.run([rnnc_bin, "run", str(work / "api.yaml"), "--weights", str(work / "api.npz"),
                "--inputs", str(work / "in.npz"), "--output", str(work / "out.npz")],
               check=True)
ref = np.load(work / "out.npz")
print("names as rnnc run: %s" % (sorted(ref.files) == sorted(out)))
print("values as rnnc run: %s" % all(np.array_equal(ref[k], out[k]) for k in ref.files))
out2 = m2(x, seq_lengths=lens, **{"enc/forward/c": c0, "enc/forward/h": h0,
                                   "enc/backward/h": hb})
print("keyword carries: %s" % all(np.array_equal(out[k], out2[k]) for k in out))
mc = rnnc.compile(work / "api.yaml", work / "api.npz", emit="c", cache_dir=cache)
outc = mc(x, seq_lengths=lens, initial_carry={"enc": {"forward": (c0, h0), "backward": hb}})
print("C path within 1e-5: %s" % all(np.allclose(out[k], outc[k], atol=1e-5) for k in out))


def expect_error(what, fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        print("%s: %s: %s" % (what, type(e).__name__, e))
    else:
        print("%s: no error" % what)


carries = {"enc": {"forward": (c0, h0), "backward": hb}}
expect_error("float64 x", lambda: m(x.astype(np.float64), seq_lengths=lens, initial_carry=carries))
expect_error("wrong shape", lambda: m(x[:, :5], seq_lengths=lens, initial_carry=carries))
expect_error("int64 lengths", lambda: m(x, seq_lengths=lens.astype(np.int64), initial_carry=carries))
expect_error("missing carry", lambda: m(x, seq_lengths=lens))
expect_error("unknown input", lambda: m(x, seq_lengths=lens, initial_carry=carries, bogus=x))
expect_error("length above T", lambda: m(x, seq_lengths=np.array([7, 2, 4], np.int32),
                                         initial_carry=carries))
expect_error("negative length", lambda: m(x, seq_lengths=np.array([6, -1, 4], np.int32),
                                          initial_carry=carries))
expect_error("bad spec", lambda: rnnc.compile("rnnc: 1\nname: bad\n", weights, cache_dir=cache))
expect_error("bad emit", lambda: rnnc.compile(work / "api.yaml", weights, emit="asm"))
try:
    m(x, seq_lengths=np.array([7, 2, 4], np.int32), initial_carry=carries)
except rnnc.RunError as e:
    print("RunError status %d code %s" % (e.status, e.code))

# Per-call cost: a call costs microseconds, not a recompilation.
args = dict(seq_lengths=lens, initial_carry=carries)
for _ in range(200):
    m(x, **args)
times = []
for _ in range(7):
    n = 2000
    t0 = time.perf_counter()
    for _ in range(n):
        m(x, **args)
    times.append((time.perf_counter() - t0) / n)
per_call = sorted(times)[len(times) // 2]
print("per call: %.1f us (median of 7 x 2000 calls; first compile %.2f s)"
      % (per_call * 1e6, first), file=sys.stderr)
print("per call under 1 ms: %s" % (per_call < 1e-3))
