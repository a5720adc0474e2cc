"""Data and checks for bf16-dtype.test (dtype: bfloat16).

  bf16_dtype.py write DIR        DIR/<case>.yaml, DIR/<case>.npz (float32
                                 weights, which rnnc rounds to bf16) and
                                 DIR/in.npz (x), for every case
  bf16_dtype.py write-dot DIR    the same for DOT_CASES (B=16, I=H=256,
                                 T=8: K even, so vdpbf16ps runs them)
  bf16_dtype.py check-dot DIR PREFIX
                                 compares them with the emulation within
                                 DOT_TOLERANCE, the vdpbf16ps one
  bf16_dtype.py check DIR PREFIX compares PREFIX<case>.npz (rnnc run's y)
                                 with this file's emulation of Flax's bf16
                                 cells, and shows that float32 maths on the
                                 same (rounded) weights would not pass

The emulation is numpy only (no jax, no rnnc code): float32 operations with
a round to bfloat16 (nearest even) at exactly the points
docs/Semantics.md#bfloat16-compute lists, which were found against live
Flax. Its dot is float64 rounded once (XLA CPU accumulates bf16 dots in
f32), its exp and tanh are numpy's float32 ones; on these inputs no value
lands on the other side of a bf16 rounding boundary from rnnc's, so the
tolerance is the float32 one, which float32 maths exceeds."""
import sys

import numpy as np

B, T, I, H = 4, 6, 5, 16
f32 = np.float32

# name: (cell type, extra cell keys, bf16 carries (param_dtype bfloat16))
CASES = {
    "lstm_bf16": ("LSTMCell", "", True),
    "optimized_lstm_f32_carry": ("OptimizedLSTMCell", "", False),
    "gru_bf16": ("GRUCell", "", True),
    "gru_f32_carry": ("GRUCell", "", False),
    "mgu_bf16": ("MGUCell", "", True),
    "mgu_f32_carry": ("MGUCell", "", False),
    "mgu_no_reset_bf16": ("MGUCell", ", reset_gate: false", True),
    "simple_bf16": ("SimpleCell", "", True),
    "simple_residual_f32_carry": ("SimpleCell", ", residual: true", False),
}

PARAMS = {
    "LSTMCell": [("ii", 0), ("if", 0), ("ig", 0), ("io", 0),
                 ("hi", 1), ("hf", 1), ("hg", 1), ("ho", 1)],
    "GRUCell": [("ir", 1), ("iz", 1), ("in", 1), ("hr", 0), ("hz", 0),
                ("hn", 1)],
    "MGUCell": [("if", 1), ("hf", 0), ("hn", 1), ("in", 1)],
    "SimpleCell": [("i", 1), ("h", 0)],
}
PARAMS["OptimizedLSTMCell"] = PARAMS["LSTMCell"]


def R(a):
    """Round float32 to bfloat16 (nearest, ties to even), kept as float32."""
    bits = np.asarray(a, f32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000)
    return bits.astype(np.uint32).view(f32)


def weights(case):
    cell = CASES[case][0]
    rng = np.random.default_rng(sum(map(ord, case)))
    out = {}
    for name, bias in PARAMS[cell]:
        rows = I if name[0] == "i" else H
        out["l0/cell/%s/kernel" % name] = (
            rng.standard_normal((rows, H)) / np.sqrt(rows)).astype(f32)
        # MGUCell without the reset gate has no hn bias.
        if bias and not (name == "hn" and "reset_gate: false" in
                         CASES[case][1]):
            out["l0/cell/%s/bias" % name] = (
                0.3 * rng.standard_normal(H)).astype(f32)
    return out


def emulate(case, w, x, bf16):
    """bf16=False: float32 maths on the same rounded weights (what the test
    must tell apart)."""
    cell, extra, bf16_carries = CASES[case]
    P = {k.split("/")[2] + "/" + k.split("/")[3]: R(v) for k, v in w.items()}
    r = R if bf16 else (lambda v: np.asarray(v, f32))

    def dot(v, name):
        y = r((v.astype(np.float64) @ P[name + "/kernel"]).astype(f32))
        if name + "/bias" in P:
            y = r(y + P[name + "/bias"])
        return y

    def sig_u(p):  # XLA's bf16 logistic, without its last rounding
        return (f32(1) / r(f32(1) + r(np.exp(-p)))).astype(f32)

    def sig(p):
        return r(sig_u(p))

    def th(p):
        return r(np.tanh(p))

    c = np.zeros((B, H), f32)
    h = np.zeros((B, H), f32)
    ys = []
    for t in range(T):
        xt, hb = r(x[:, t]), r(h)

        def pre(i, hn):
            return r(dot(xt, i) + dot(hb, hn))
        if cell.endswith("LSTMCell"):
            i, g = sig(pre("ii", "hi")), th(pre("ig", "hg"))
            if bf16_carries or not bf16:
                f, o = sig(pre("if", "hf")), sig(pre("io", "ho"))
                c = r(r(f * c) + r(i * g))
                h = r(o * th(c))
            else:
                f, o = sig_u(pre("if", "hf")), sig_u(pre("io", "ho"))
                c = (f * c + i * g).astype(f32)
                h = (o * np.tanh(c)).astype(f32)
        elif cell in ("GRUCell", "MGUCell"):
            if cell == "GRUCell":
                rr = sig(pre("ir", "hr"))
                zu = sig_u(pre("iz", "hz"))
                n = th(r(dot(xt, "in") + r(rr * dot(hb, "hn"))))
            else:
                zu = sig_u(pre("if", "hf"))
                u = dot(hb, "hn")
                if "reset_gate: false" not in extra:
                    u = r(u * r(zu))
                n = th(r(dot(xt, "in") + u))
            z = r(zu)
            keep = r(f32(1) - z)
            if bf16_carries or not bf16:
                h = r(r(keep * n) + r(z * r(h)))
            else:
                h = (keep * n + zu * h).astype(f32)
        else:
            if bf16_carries or not bf16:
                s = pre("i", "h")
                if "residual" in extra:
                    s = r(s + r(h))
                h = th(s)
            else:
                h = np.tanh(dot(xt, "i") + dot(hb, "h") + h).astype(f32)
        ys.append(h)
    return np.stack(ys, 1)


# The vdpbf16ps kernels (docs/Semantics.md#bfloat16-compute): a bf16 dot
# summed in another order (and with denormals flushed) can land one bf16
# ulp (2^-8 relative) from the emulation's, and the step carries it on.
DOT_CASES = ["lstm_bf16", "gru_f32_carry"]
DOT_SIZES = (16, 8, 256, 256)  # B, T, I, H
DOT_ATOL, DOT_RTOL = 2e-2, 2e-2


def tolerance(want):
    # The float32 one: rnnc rounds where this emulation does, and float32
    # maths on the same weights is far outside it.
    return 1e-5 + 1e-4 * np.abs(want)




def write_case(prefix, case, sizes):
    """<prefix><case>.npz and .yaml: the case's weights and its spec."""
    b, t, i, h = sizes
    cell, extra, bf16_carries = CASES[case]
    np.savez("%s%s.npz" % (prefix, case), **weights(case))
    with open("%s%s.yaml" % (prefix, case), "w") as f:
        f.write("rnnc: 1\nname: %s\ndtype: bfloat16\n" % case)
        if bf16_carries:
            f.write("param_dtype: bfloat16\n")
        f.write("input: {batch: [%d], time: %d, features: %d}\n"
                "layers:\n  - {name: l0, type: RNN, cell: {type: %s, "
                "features: %d%s}}\n" % (b, t, i, cell, h, extra))


if __name__ != "__main__":
    pass
elif sys.argv[1] in ("write-dot", "check-dot"):
    B, T, I, H = DOT_SIZES
    d = sys.argv[2]
    if sys.argv[1] == "write-dot":
        x = np.random.default_rng(4).uniform(-2, 2, (B, T, I)).astype(f32)
        np.savez(d + "/dot_in.npz", x=x)
    for case in DOT_CASES:
        cell, extra, bf16_carries = CASES[case]
        if sys.argv[1] == "write-dot":
            write_case(d + "/dot_", case, (B, T, I, H))
            continue
        x = np.load(d + "/dot_in.npz")["x"]
        y = np.load("%s%s.npz" % (sys.argv[3], case))["y"]
        want = emulate(case, weights(case), x, True)
        err = np.abs(y - want)
        ok = np.all(err <= DOT_ATOL + DOT_RTOL * np.abs(want))
        print("%s: bit-exact %.3f, max |d| %.3g, max |d|/(|ref|+1) %.3g"
              % (case, np.mean(y == want), err.max(),
                 (err / (np.abs(want) + 1)).max()), file=sys.stderr)
        print("%s: %s" % (case, "within the dot tolerance" if ok
                          else "OUTSIDE the dot tolerance"))
elif sys.argv[1] == "write":
    d = sys.argv[2]
    x = np.random.default_rng(3).uniform(-2, 2, (B, T, I)).astype(f32)
    np.savez(d + "/in.npz", x=x)
    for case in CASES:
        write_case(d + "/", case, (B, T, I, H))
else:
    d, prefix = sys.argv[2], sys.argv[3]
    x = np.load(d + "/in.npz")["x"]
    for case in CASES:
        y = np.load("%s%s.npz" % (prefix, case))["y"]
        w = weights(case)
        want = emulate(case, w, x, True)
        err = np.abs(y - want)
        exact = np.mean(y == want)
        f32err = np.abs(y - emulate(case, w, x, False))
        ok = np.all(err <= tolerance(want))
        print("%s: %s (bit-exact %.3f, max |d| %.3g), float32 maths %s"
              % (case, "within tolerance" if ok else "OUTSIDE tolerance",
                 exact, err.max(),
                 "outside" if np.any(f32err > tolerance(want)) else "WITHIN"),
              file=sys.stderr)
        print("%s: %s; float32 maths: %s" % (
            case, "within tolerance" if ok else "outside tolerance",
            "outside tolerance" if np.any(f32err > tolerance(want))
            else "within tolerance"))
