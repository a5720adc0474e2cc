"""rnnc.Model.stream: a sequence fed chunk by chunk from Python, the
carries kept in the stream's state, against one call over the whole
sequence (bit for bit), on both code paths. Needs only numpy."""

import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "python"))
import rnnc  # noqa: E402

work = Path(tempfile.mkdtemp(prefix="rnnc-python-stream-"))
rng = np.random.default_rng(1)
TIME = 7

SPEC = """rnnc: 1
name: pstream
input: {batch: [2], time: %d, features: 3, stream: true}
layers:
  - {type: RNN, name: enc, cell: {type: LSTMCell, features: 6}}
  - {type: RNN, name: dec, cell: {type: GRUCell, features: 4}}
  - {type: Dense, name: head, features: 2}
""" % TIME


def w(*shape):
    return (rng.normal(size=shape) * 0.4).astype(np.float32)


weights = {}
for g in "ifgo":
    weights["enc/cell/i%s/kernel" % g] = w(3, 6)
    weights["enc/cell/h%s/kernel" % g] = w(6, 6)
    weights["enc/cell/h%s/bias" % g] = w(6)
for g in "rzn":
    weights["dec/cell/i%s/kernel" % g] = w(6, 4)
    weights["dec/cell/i%s/bias" % g] = w(4)
    weights["dec/cell/h%s/kernel" % g] = w(4, 4)
weights["dec/cell/hn/bias"] = w(4)
weights["head/kernel"] = w(4, 2)
weights["head/bias"] = w(2)

total = 3 * TIME + 2
x = rng.normal(size=(2, total, 3)).astype(np.float32)
c0 = {"enc": (w(2, 6), w(2, 6)), "dec": w(2, 4)}


def chunked(stream, x, sizes):
    ys, at = [], 0
    for n in sizes:
        ys.append(stream(x[:, at:at + n])["y"])
        at += n
    return np.concatenate(ys, axis=1)


def random_sizes(total, most):
    sizes, left = [], total
    while left:
        n = int(rng.integers(0, min(left, most) + 1))
        sizes.append(n)
        left -= n
    return sizes


for emit in ("object", "c"):
    m = rnnc.compile(SPEC, weights, emit=emit, cache_dir=work / "cache")
    # One call over the first TIME steps is the reference for a stream
    # of them; the state starts from the same carries.
    one = m(x[:, :TIME], initial_carry=c0)
    s = m.stream(initial_carry=c0)
    y = chunked(s, x[:, :TIME], [2, 0, 4, 1])
    print("%s: the state moved from the initial carries: %s" % (
        emit, not np.array_equal(s.carry["carry/dec/h"], c0["dec"])))
    print("%s: chunks of one call's steps bit-identical: %s" % (
        emit, np.array_equal(y, one["y"]) and all(
            np.array_equal(s.carry[k], one[k]) for k in s.carry)))
    # A sequence longer than the compiled maximum: in steps of TIME, then
    # in random chunkings (some longer than TIME, which run as several).
    s.reset(initial_carry=c0)
    whole = chunked(s, x, [TIME] * (total // TIME) + [total % TIME])
    final = s.carry
    same = True
    for trial in range(20):
        s.reset(initial_carry=c0)
        sizes = random_sizes(total, 2 * TIME + 1)
        same &= np.array_equal(chunked(s, x, sizes), whole) and all(
            np.array_equal(s.carry[k], final[k]) for k in final)
    print("%s: 20 random chunkings of %d steps bit-identical: %s" % (emit, total, same))
    s.reset(initial_carry=c0)
    print("%s: one stream call of %d steps bit-identical: %s" % (
        emit, total, np.array_equal(s(x)["y"], whole)))
    s.reset()
    print("%s: reset() starts from zeros: %s" % (
        emit, all(not v.any() for v in s.carry.values())))
    print("%s: carries: %s" % (emit, " ".join(
        "%s%s" % (k, list(v.shape)) for k, v in s.carry.items())))


def expect_error(what, fn):
    try:
        fn()
        print("%s: no error" % what)
    except (TypeError, ValueError, rnnc.RunError) as e:
        print("%s: %s: %s" % (what, type(e).__name__, e))


expect_error("float64 chunk", lambda: m.stream()(x.astype(np.float64)))
expect_error("wrong features", lambda: m.stream()(x[:, :, :2]))
expect_error("unknown carry", lambda: m.stream(initial_carry={"bogus": w(2, 4)}))
expect_error("misshapen carry", lambda: m.stream(initial_carry={"dec": w(2, 5)}))
plain = rnnc.compile(SPEC.replace(", stream: true", ""), weights,
                     cache_dir=work / "cache")
expect_error("not a stream model", lambda: plain.stream())
