#!/usr/bin/python3
"""Writes ../rnn-to-linalg-run.mlir: every cell kind and merge kind run on
constant data through --convert-rnn-to-linalg and the LLVM JIT, with the
printed results checked against an independent NumPy reference.

Usage: /usr/bin/python3 gen_run_test.py   (deterministic; rerun after edits)

The reference follows Flax's per-gate formulas
(/work/shared/reference/flax-recurrent-semantics.md sections 1-2) on the
fused weight layout of compiler/include/rnn/Weights/Params.h, and computes
ConvLSTM's SAME convolution with explicit loops over kernel offsets. Data are
multiples of 1/32, exact in f32 and in the MLIR text.

Expected values: printMemrefF32 prints like C's "%g" (6 significant digits).
Each value is evaluated twice, in float64 (the expected value) and in
float32 (to measure how far f32 rounding can move it). Every "%g" rendering
of a value within max(8 * |f64 - f32|, 4e-6 * |v|, 1e-7) of the float64
value is accepted, as a FileCheck regex alternation, which pins about 5 to 6
significant digits. Any wrong gate, bias, activation or padding moves values
by far more.
"""

import os

import numpy as np

rng = np.random.RandomState(2)


def data(*shape, scale=1.0):
    """Multiples of 1/32 in [-scale, scale], exact in f32."""
    steps = int(32 * scale)
    return (rng.randint(-steps, steps + 1, size=shape) / 32.0).astype(np.float32)


# ---------------------------------------------------------------- reference

HITS = set()  # activation branches exercised (in float64), to assert coverage


def act(name, x):
    one = x.dtype.type(1)
    if name == "sigmoid":
        return one / (one + np.exp(-x))
    if name == "hard_sigmoid":
        HITS.update({"hard_sigmoid>3"} if (x > 3).any() else set())
        HITS.update({"hard_sigmoid<-3"} if (x < -3).any() else set())
        return np.minimum(np.maximum(x + x.dtype.type(3), 0), 6) / x.dtype.type(6)
    if name == "tanh":
        return np.tanh(x)
    if name == "hard_tanh":
        HITS.update({"hard_tanh>1"} if (x > 1).any() else set())
        HITS.update({"hard_tanh<-1"} if (x < -1).any() else set())
        return np.minimum(np.maximum(x, -one), one)
    if name == "relu":
        HITS.update({"relu<0"} if (x < 0).any() else set())
        return np.maximum(x, 0)
    if name == "elu":
        HITS.update({"elu<0"} if (x < 0).any() else set())
        return np.where(x > 0, x, np.expm1(x))
    if name == "silu":
        return x * act("sigmoid", x)
    if name == "identity":
        return x
    raise ValueError(name)


def dense(x, w, b, k, H):
    """Gate block k of x @ w (+ b), as Flax's per-gate Dense computes it."""
    y = x @ w[:, k * H:(k + 1) * H]
    return y if b is None else y + b[k * H:(k + 1) * H]


def lstm(x, c, h, wi, wh, bi, bh, gate="sigmoid", actf="tanh"):
    H = h.shape[-1]
    y = [dense(x, wi, bi, k, H) + dense(h, wh, bh, k, H) for k in range(4)]
    i, f, g, o = act(gate, y[0]), act(gate, y[1]), act(actf, y[2]), act(gate, y[3])
    new_c = f * c + i * g
    return new_c, o * act(actf, new_c)


def gru(x, h, wi, wh, bi, bh, gate="sigmoid", actf="tanh"):
    H = h.shape[-1]
    r = act(gate, dense(x, wi, bi, 0, H) + dense(h, wh, bh, 0, H))
    z = act(gate, dense(x, wi, bi, 1, H) + dense(h, wh, bh, 1, H))
    n = act(actf, dense(x, wi, bi, 2, H) + r * dense(h, wh, bh, 2, H))
    return (1.0 - z) * n + z * h


def mgu(x, h, wi, wh, bi, bh, reset_gate=True, gate="sigmoid", actf="tanh"):
    H = h.shape[-1]
    f = act(gate, dense(x, wi, bi, 0, H) + dense(h, wh, bh, 0, H))
    u = dense(h, wh, bh, 1, H)
    if reset_gate:
        u = u * f
    n = act(actf, dense(x, wi, bi, 1, H) + u)
    return (1.0 - f) * n + f * h


def simple(x, h, wi, wh, bi, bh, actf="tanh", residual=False):
    s = dense(x, wi, bi, 0, h.shape[-1]) + dense(h, wh, bh, 0, h.shape[-1])
    if residual:
        s = s + h
    return act(actf, s)


def conv_same(v, w):
    """SAME (low (k-1)//2, high k//2), stride-1 cross-correlation of
    v (N, *S, C) with w (*K, C, O)."""
    spatial = v.shape[1:-1]
    ks = w.shape[:-2]
    out = np.zeros(v.shape[:-1] + (w.shape[-1],), dtype=v.dtype)
    for pos in np.ndindex(*spatial):
        for off in np.ndindex(*ks):
            src = [p + o - (k - 1) // 2 for p, o, k in zip(pos, off, ks)]
            if all(0 <= s < n for s, n in zip(src, spatial)):
                idx = (slice(None),) + tuple(src)
                out[(slice(None),) + pos] += v[idx] @ w[off]
    return out


def conv_lstm(x, c, h, wi, wh, bi, bh, batch_dims):
    """Batch dims folded to one (a unit one when none), as Flax does."""
    lead = x.shape[:batch_dims]
    fold = lambda v: v.reshape((-1,) + v.shape[batch_dims:])
    y = conv_same(fold(x), wi) + conv_same(fold(h), wh)
    if bi is not None:
        y = y + bi
    if bh is not None:
        y = y + bh
    F = h.shape[-1]
    i, g, f, o = (y[..., k * F:(k + 1) * F] for k in range(4))
    one = y.dtype.type(1)
    new_c = act("sigmoid", f + one) * fold(c) + act("sigmoid", i) * np.tanh(g)
    new_h = act("sigmoid", o) * np.tanh(new_c)
    unfold = lambda v: v.reshape(lead + v.shape[1:])
    return unfold(new_c), unfold(new_h)


# ---------------------------------------------------------------- emission


def ty(a):
    return "tensor<" + "".join(f"{d}x" for d in a.shape) + "f32>"


def literal(a):
    def rec(v):
        if isinstance(v, list):
            return "[" + ", ".join(rec(e) for e in v) + "]"
        return repr(float(v))
    return f"dense<{rec(a.tolist())}> : {ty(a)}"


def fmt(v):
    s = "%g" % v
    return "0" if s == "-0" else s


def leading(s, d):
    """A regex for the "%g" renderings whose first d significant digits are
    those of the rendering s (trailing zeros count, since %g strips them)."""
    mant, _, exp = s.partition("e")
    sign, mant = ("-", mant[1:]) if mant.startswith("-") else ("", mant)
    whole, _, frac = mant.partition(".")
    assert len(whole) <= d, s
    digits = whole + frac
    keep = len(digits) - len(digits.lstrip("0")) + d
    digits = digits.ljust(keep, "0")[:keep]
    kept = sign + digits[:len(whole)] + "." + digits[len(whole):]
    short = kept.rstrip("0").rstrip(".")
    esc = lambda text: text.replace(".", r"\.")
    tail = esc(kept[len(short):])
    regex = esc(short) + (f"({tail}[0-9]*)?" if tail else "[0-9]*")
    return regex + (f"e{exp}" if exp else "")


def accepted(v64, v32):
    """The %g renderings of values within tolerance of v64, as a regex that
    pins as many significant digits (6 down to 4) as the tolerance allows.
    An exact zero (relu, hard_tanh of a clipped gate...) must print as 0."""
    if v64 == 0 and v32 == 0:
        return "{{-?0}}"
    tol = max(8 * abs(v64 - v32), 4e-6 * abs(v64), 1e-7)
    seen = []
    for v in np.linspace(v64 - tol, v64 + tol, 4001):
        s = fmt(v)
        if s not in seen:
            seen.append(s)
    for d in (6, 5, 4):
        alts = []
        for s in seen:
            if leading(s, d) not in alts:
                alts.append(leading(s, d))
        if len(alts) <= 3:
            return "{{(" + "|".join(alts) + ")}}"
    raise AssertionError(f"{v64} (f32: {v32}) is not stable to 4 digits")


class Test:
    def __init__(self):
        self.body, self.checks, self.n = [], [], 0

    def const(self, a):
        self.n += 1
        name = f"%k{self.n}"
        self.body.append(f"  {name} = arith.constant {literal(a)}")
        return name

    def print(self, label, value, v64, v32):
        """Prints `value` (an SSA name of v64's shape) as a 2-D memref."""
        rows = v64.reshape(-1, v64.shape[-1]) if v64.ndim else v64.reshape(1, 1)
        r32 = v32.reshape(rows.shape)
        self.n += 1
        flat = f"%p{self.n}"
        rank, shape2 = v64.ndim, f"tensor<{rows.shape[0]}x{rows.shape[1]}xf32>"
        if rank == 1:
            self.body.append(f"  {flat} = tensor.expand_shape {value} [[0, 1]] "
                             f"output_shape [1, {rows.shape[1]}] : {ty(v64)} into {shape2}")
        elif rank > 2:
            groups = list(range(rank - 1))
            self.body.append(f"  {flat} = tensor.collapse_shape {value} "
                             f"[{groups}, [{rank - 1}]] : {ty(v64)} into {shape2}")
        else:
            flat = value
        self.body.append(f"  %d{self.n} = tensor.cast {flat} : {shape2} to tensor<?x?xf32>")
        self.body.append(f"  vector.print str \"{label}\\n\"")
        self.body.append(f"  call @print2d(%d{self.n}) : (tensor<?x?xf32>) -> ()")
        self.checks.append(f"// CHECK-LABEL: {label}")
        self.checks.append(f"// CHECK-NEXT: sizes = [{rows.shape[0]}, {rows.shape[1]}]")
        for r in range(rows.shape[0]):
            cells = ", ".join(accepted(float(a), float(b)) for a, b in zip(rows[r], r32[r]))
            open_ = "{{\\[\\[}}" if r == 0 else "{{\\[}}"
            close = "{{\\]\\]}}" if r == rows.shape[0] - 1 else "{{\\]}},"
            self.checks.append(f"// CHECK-NEXT: {open_}{cells}{close}")


def run(fn, *args, **kw):
    """fn on float64 and on float32 copies of the arrays in args."""
    conv = lambda dt: [a.astype(dt) if isinstance(a, np.ndarray) else a for a in args]
    return fn(*conv(np.float64), **kw), fn(*conv(np.float32), **kw)


def main():
    t = Test()

    # LSTM: two steps, one batch dim, hidden bias (Flax LSTMCell).
    x1, x2, c0, h0 = data(2, 3), data(2, 3), data(2, 2), data(2, 2)
    wi, wh, bh = data(3, 8), data(2, 8), data(8)
    (c1, h1), (c1f, h1f) = run(lstm, x1, c0, h0, wi, wh, None, bh)
    (c2, h2), _ = run(lstm, x2, c1, h1, wi, wh, None, bh)
    _, (c2f, h2f) = run(lstm, x2, c1f, h1f, wi, wh, None, bh)
    n = [t.const(a) for a in (x1, x2, c0, h0, wi, wh, bh)]
    sig = f"{ty(x1)}, {ty(c0)}, {ty(wi)}, {ty(wh)}"
    t.body.append(f"  %lc1, %lh1 = rnn.lstm_cell({n[0]}, {n[2]}, {n[3]}) kernels({n[4]}, {n[5]}) "
                  f"hidden_bias({n[6]} : {ty(bh)}) : {sig}")
    t.body.append(f"  %lc2, %lh2 = rnn.lstm_cell({n[1]}, %lc1, %lh1) kernels({n[4]}, {n[5]}) "
                  f"hidden_bias({n[6]} : {ty(bh)}) : {sig}")
    t.print("lstm step 1 h", "%lh1", h1, h1f)
    t.print("lstm step 2 c", "%lc2", c2, c2f)
    t.print("lstm step 2 h", "%lh2", h2, h2f)

    # LSTM unbatched, both biases, hard_sigmoid gates and elu.
    x, c, h = data(3, scale=2), data(2), data(2)
    wi, wh, bi, bh = data(3, 8, scale=2), data(2, 8, scale=2), data(8), data(8)
    (nc, nh), (ncf, nhf) = run(lstm, x, c, h, wi, wh, bi, bh, gate="hard_sigmoid", actf="elu")
    n = [t.const(a) for a in (x, c, h, wi, wh, bi, bh)]
    t.body.append(f"  %uc, %uh = rnn.lstm_cell({n[0]}, {n[1]}, {n[2]}) kernels({n[3]}, {n[4]}) "
                  f"input_bias({n[5]} : {ty(bi)}) hidden_bias({n[6]} : {ty(bh)}) "
                  f"gate_fn<hard_sigmoid> activation_fn<elu> : {ty(x)}, {ty(h)}, {ty(wi)}, {ty(wh)}")
    t.print("lstm unbatched c", "%uc", nc, ncf)
    t.print("lstm unbatched h", "%uh", nh, nhf)

    # GRU (linen): two batch dims, bi and bh = [0, 0, bhn].
    x, h = data(2, 2, 3), data(2, 2, 2)
    wi, wh, bi = data(3, 6), data(2, 6), data(6)
    bh = np.concatenate([np.zeros(4, np.float32), data(2)])
    r64, r32 = run(gru, x, h, wi, wh, bi, bh)
    n = [t.const(a) for a in (x, h, wi, wh, bi, bh)]
    t.body.append(f"  %g1 = rnn.gru_cell({n[0]}, {n[1]}) kernels({n[2]}, {n[3]}) "
                  f"input_bias({n[4]} : {ty(bi)}) hidden_bias({n[5]} : {ty(bh)}) "
                  f": {ty(x)}, {ty(h)}, {ty(wi)}, {ty(wh)}")
    t.print("gru linen", "%g1", r64, r32)

    # GRU (nnx): no hidden bias, hard_sigmoid and hard_tanh.
    x, h = data(2, 3, scale=2), data(2, 2)
    wi, wh, bi = data(3, 6, scale=2), data(2, 6, scale=2), data(6)
    r64, r32 = run(gru, x, h, wi, wh, bi, None, gate="hard_sigmoid", actf="hard_tanh")
    n = [t.const(a) for a in (x, h, wi, wh, bi)]
    t.body.append(f"  %g2 = rnn.gru_cell({n[0]}, {n[1]}) kernels({n[2]}, {n[3]}) "
                  f"input_bias({n[4]} : {ty(bi)}) gate_fn<hard_sigmoid> activation_fn<hard_tanh> "
                  f": {ty(x)}, {ty(h)}, {ty(wi)}, {ty(wh)}")
    t.print("gru nnx", "%g2", r64, r32)

    # MGU with reset gate (bh = [0, bhn]) and silu; without (no bh).
    x, h = data(2, 3), data(2, 2)
    wi, wh, bi = data(3, 4), data(2, 4), data(4)
    bh = np.concatenate([np.zeros(2, np.float32), data(2)])
    r64, r32 = run(mgu, x, h, wi, wh, bi, bh, actf="silu")
    s64, s32 = run(mgu, x, h, wi, wh, bi, None, reset_gate=False)
    n = [t.const(a) for a in (x, h, wi, wh, bi, bh)]
    sig = f"{ty(x)}, {ty(h)}, {ty(wi)}, {ty(wh)}"
    t.body.append(f"  %m1 = rnn.mgu_cell({n[0]}, {n[1]}) kernels({n[2]}, {n[3]}) "
                  f"input_bias({n[4]} : {ty(bi)}) hidden_bias({n[5]} : {ty(bh)}) "
                  f"activation_fn<silu> : {sig}")
    t.body.append(f"  %m2 = rnn.mgu_cell({n[0]}, {n[1]}) kernels({n[2]}, {n[3]}) "
                  f"input_bias({n[4]} : {ty(bi)}) {{reset_gate = false}} : {sig}")
    t.print("mgu reset", "%m1", r64, r32)
    t.print("mgu no reset", "%m2", s64, s32)

    # Simple: relu with an input bias; unbatched residual identity with both.
    x, h = data(2, 3), data(2, 2)
    wi, wh, bi = data(3, 2), data(2, 2), data(2)
    r64, r32 = run(simple, x, h, wi, wh, bi, None, actf="relu")
    n = [t.const(a) for a in (x, h, wi, wh, bi)]
    t.body.append(f"  %s1 = rnn.simple_cell({n[0]}, {n[1]}) kernels({n[2]}, {n[3]}) "
                  f"input_bias({n[4]} : {ty(bi)}) activation_fn<relu> "
                  f": {ty(x)}, {ty(h)}, {ty(wi)}, {ty(wh)}")
    t.print("simple relu", "%s1", r64, r32)
    x, h = data(3), data(2)
    wi, wh, bi, bh = data(3, 2), data(2, 2), data(2), data(2)
    r64, r32 = run(simple, x, h, wi, wh, bi, bh, actf="identity", residual=True)
    n = [t.const(a) for a in (x, h, wi, wh, bi, bh)]
    t.body.append(f"  %s2 = rnn.simple_cell({n[0]}, {n[1]}) kernels({n[2]}, {n[3]}) "
                  f"input_bias({n[4]} : {ty(bi)}) hidden_bias({n[5]} : {ty(bh)}) "
                  f"activation_fn<identity> residual : {ty(x)}, {ty(h)}, {ty(wi)}, {ty(wh)}")
    t.print("simple residual", "%s2", r64, r32)

    # ConvLSTM: 1-D with an even kernel (pads 0 before, 1 after) and biases;
    # 2-D unbatched with a 3x2 kernel, no bias; 2-D with two batch dims;
    # 3-D.
    conv_cases = [
        ("conv1d", (2,), (5,), 2, 2, (2,), True),
        ("conv2d unbatched", (), (4, 3), 2, 2, (3, 2), False),
        ("conv2d two batch dims", (2, 1), (3, 3), 1, 1, (3, 3), True),
        ("conv3d", (1,), (2, 3, 2), 1, 2, (2, 3, 1), True),
    ]
    for i, (label, batch, spatial, C, F, ks, bias) in enumerate(conv_cases):
        x, c, h = data(*batch, *spatial, C), data(*batch, *spatial, F), data(*batch, *spatial, F)
        wi, wh = data(*ks, C, 4 * F, scale=0.5), data(*ks, F, 4 * F, scale=0.5)
        bi, bh = (data(4 * F), data(4 * F)) if bias else (None, None)
        (nc, nh), (ncf, nhf) = run(conv_lstm, x, c, h, wi, wh, bi, bh, batch_dims=len(batch))
        n = [t.const(a) for a in (x, c, h, wi, wh)]
        biases = f"input_bias({t.const(bi)} : {ty(bi)}) hidden_bias({t.const(bh)} : {ty(bh)}) " if bias else ""
        t.body.append(f"  %cc{i}, %ch{i} = rnn.conv_lstm_cell({n[0]}, {n[1]}, {n[2]}) kernels({n[3]}, {n[4]}) "
                      f"{biases}: {ty(x)}, {ty(h)}, {ty(wi)}, {ty(wh)}")
        t.print(f"{label} c", f"%cc{i}", nc, ncf)
        t.print(f"{label} h", f"%ch{i}", nh, nhf)

    # Merges.
    a, b = data(2, 3), data(2, 3)
    na, nb = t.const(a), t.const(b)
    results = {
        "concat": (np.concatenate([a, b], axis=-1), "tensor<2x6xf32>"),
        "add": (a.astype(np.float64) + b, ty(a)),
        "mul": (a.astype(np.float64) * b, ty(a)),
        "mean": ((a.astype(np.float64) + b) / 2, ty(a)),
    }
    for kind, (ref, rty) in results.items():
        t.body.append(f"  %merge_{kind} = rnn.merge <{kind}> {na}, {nb} : {ty(a)}, {ty(b)} -> {rty}")
        t.print(f"merge {kind}", f"%merge_{kind}", ref, ref)

    missing = {"hard_sigmoid>3", "hard_sigmoid<-3", "hard_tanh>1", "hard_tanh<-1",
               "relu<0", "elu<0"} - HITS
    assert not missing, f"activation branches not exercised: {missing}"
    return t


# The lowering and a run of its result on the CPU, once per option set of
# convert-rnn-to-linalg.
RUN = """\
// RUN: rnn-opt %s --convert-rnn-to-linalg{options} \\
// RUN:   --one-shot-bufferize="bufferize-function-boundaries" \\
// RUN:   --buffer-deallocation-pipeline --convert-linalg-to-loops \\
// RUN:   --convert-scf-to-cf --expand-strided-metadata --lower-affine \\
// RUN:   --finalize-memref-to-llvm --convert-math-to-libm --convert-math-to-llvm \\
// RUN:   --convert-vector-to-llvm --convert-arith-to-llvm --convert-func-to-llvm \\
// RUN:   --convert-cf-to-llvm --reconcile-unrealized-casts \\
// RUN: | mlir-runner -e main -entry-point-result=void \\
// RUN:   -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \\
// RUN: | FileCheck %s
"""

HEADER = """\
// Generated by Inputs/gen_run_test.py (do not edit; rerun the script).
// Runs every cell kind and merge kind on constant data and checks the
// printed results against a NumPy reference of Flax's formulas, also with
// the LSTM cells' products and biases summed by one matmul
// (fuse-projections, RAM-lean code on scalar targets).
//
{runs}
func.func private @printMemrefF32(memref<*xf32>)

/// Prints a 2-D tensor (each row on one line) without a RaW conflict: the
/// callee only reads its buffer.
func.func @print2d(%t: tensor<?x?xf32>) {
  %m = bufferization.to_buffer %t read_only : tensor<?x?xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  %u = memref.cast %m : memref<?x?xf32, strided<[?, ?], offset: ?>> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
"""
HEADER = HEADER.replace("{runs}", "".join(
    RUN.replace("{options}", options) for options in ("", "=fuse-projections=true")))


def render(t):
    lines = [HEADER, "func.func @main() {"]
    lines += t.body
    lines += ["  return", "}", ""]
    lines += t.checks
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rnn-to-linalg-run.mlir")
    with open(out, "w") as f:
        f.write(render(main()))
