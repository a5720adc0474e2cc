#!/usr/bin/python3
"""Writes ../layers-run.mlir: rnn.dense, rnn.activation, rnn.layer_norm,
rnn.pool and rnn.embed run on constant data through --convert-rnn-to-linalg
and the LLVM JIT, the printed results checked against NumPy.

Usage: /usr/bin/python3 gen_layers_run_test.py   (deterministic)

The NumPy reference follows jax.nn and Flax (Dense, LayerNorm with its fast
variance, jnp.mean/max/sum over time, masked by the lengths with
valid_only) and shares no code with rnnc. Expected values use
gen_run_test.py's tolerance rendering (about 5 significant digits).
"""

import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_run_test as g  # noqa: E402

ty = g.ty


def activation(name, x):
    one = x.dtype.type(1)
    if name == "gelu":
        c = x.dtype.type(math.sqrt(2 / math.pi))
        return x * (x.dtype.type(0.5) * (one + np.tanh(c * (x + x.dtype.type(0.044715) * x ** 3))))
    if name == "gelu_exact":
        erf = np.vectorize(math.erf)
        return x * (erf(x / x.dtype.type(math.sqrt(2))).astype(x.dtype) + one) / x.dtype.type(2)
    if name == "softplus":
        return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))
    if name == "leaky_relu":
        return np.where(x >= 0, x, x.dtype.type(0.01) * x)
    if name == "softmax":
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    if name == "log_softmax":
        s = x - x.max(axis=-1, keepdims=True)
        return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))
    return g.act(name, x)


def dense(x, k, b, fn):
    y = np.tensordot(x, k, axes=([x.ndim - 1], [0]))
    if b is not None:
        y = y + b
    return activation(fn, y) if fn else y


def layer_norm(x, scale, bias, eps):
    mean = x.mean(axis=-1, keepdims=True)
    var = np.maximum(0, (x * x).mean(axis=-1, keepdims=True) - mean * mean)
    mul = x.dtype.type(1) / np.sqrt(var + x.dtype.type(eps))
    if scale is not None:
        mul = mul * scale
    y = (x - mean) * mul
    return y + bias if bias is not None else y


def pool(x, kind, lengths, time_axis):
    """x with the time axis moved first; lengths per (flattened) row."""
    x = np.moveaxis(x, time_axis, 0)
    steps = x.shape[0]
    if lengths is None:
        return {"last": x[-1], "first": x[0], "mean": x.mean(axis=0),
                "max": x.max(axis=0), "sum": x.sum(axis=0)}[kind]
    out = np.zeros(x.shape[1:], x.dtype)
    for b, length in enumerate(lengths):
        valid = x[:length, b]
        if length == 0:
            continue
        out[b] = {"last": valid[-1], "first": valid[0],
                  "mean": valid.sum(axis=0) / x.dtype.type(length),
                  "max": valid.max(axis=0), "sum": valid.sum(axis=0)}[kind]
    return out


def int_const(t, values):
    t.n += 1
    name = f"%i{t.n}"
    shape = "x".join(str(d) for d in np.shape(values))
    t.body.append(f"  {name} = arith.constant dense<{np.asarray(values).tolist()}> "
                  f": tensor<{shape}xi32>")
    return name


def main():
    t = g.Test()
    run = g.run

    # Dense per step (two leading dims) with each element-wise activation
    # and with none; an unbatched Dense without a bias.
    x, k, b = g.data(2, 3, 4, scale=2), g.data(4, 3), g.data(3)
    n = [t.const(a) for a in (x, k, b)]
    for i, fn in enumerate(["elu", "gelu", "gelu_exact", "softplus", "leaky_relu", None]):
        r64, r32 = run(dense, x, k, b, fn)
        act = f" activation <{fn}>" if fn else ""
        t.body.append(f"  %dn{i} = rnn.dense {n[0]}, {n[1]} bias({n[2]} : {ty(b)}){act} "
                      f": {ty(x)}, {ty(k)} -> {ty(r64)}")
        t.print(f"dense {fn or 'none'}", f"%dn{i}", r64, r32)
    v = g.data(4, scale=2)
    r64, r32 = run(dense, v, k, None, None)
    nv = t.const(v)
    t.body.append(f"  %du = rnn.dense {nv}, {n[1]} : {ty(v)}, {ty(k)} -> {ty(r64)}")
    t.print("dense unbatched", "%du", r64, r32)

    # softmax and log_softmax in a Dense and as layers.
    r64, r32 = run(dense, x, k, b, "softmax")
    t.body.append(f"  %ds = rnn.dense {n[0]}, {n[1]} bias({n[2]} : {ty(b)}) activation <softmax> "
                  f": {ty(x)}, {ty(k)} -> {ty(r64)}")
    t.print("dense softmax", "%ds", r64, r32)
    for fn in ("log_softmax", "softmax", "gelu", "hard_tanh"):
        r64, r32 = run(activation, fn, x)
        t.body.append(f"  %a_{fn} = rnn.activation <{fn}> {n[0]} : {ty(x)}")
        t.print(f"activation {fn}", f"%a_{fn}", r64, r32)

    # LayerNorm with scale and bias, and with neither.
    s, bb = g.data(4), g.data(4)
    ns, nb = t.const(s), t.const(bb)
    r64, r32 = run(layer_norm, x, s, bb, 1e-6)
    t.body.append(f"  %ln1 = rnn.layer_norm {n[0]} scale({ns} : {ty(s)}) bias({nb} : {ty(bb)}) "
                  f"epsilon 1.0e-06 : {ty(x)}")
    t.print("layer_norm", "%ln1", r64, r32)
    r64, r32 = run(layer_norm, x, None, None, 0.5)
    t.body.append(f"  %ln2 = rnn.layer_norm {n[0]} epsilon 5.0e-01 : {ty(x)}")
    t.print("layer_norm plain eps", "%ln2", r64, r32)

    # Pool: every kind, over all steps and over valid steps (a length of 0,
    # 1 and T included), batch-major and time-major.
    seq = g.data(4, 5, 3, scale=2)            # (B, T, F)
    lengths = [5, 0, 1, 3]
    nseq, nlen = t.const(seq), int_const(t, lengths)
    tm = np.ascontiguousarray(np.moveaxis(seq, 1, 0))  # (T, B, F)
    ntm = t.const(tm)
    for kind in ("last", "first", "mean", "max", "sum"):
        r64, r32 = run(pool, seq, kind, None, 1)
        t.body.append(f"  %p_{kind} = rnn.pool <{kind}> {nseq} {{num_batch_dims = 1 : i64}} "
                      f": {ty(seq)} -> {ty(r64)}")
        t.print(f"pool {kind}", f"%p_{kind}", r64, r32)
        r64, r32 = run(pool, seq, kind, lengths, 1)
        t.body.append(f"  %pv_{kind} = rnn.pool <{kind}> {nseq} lengths({nlen} : tensor<4xi32>) "
                      f"{{num_batch_dims = 1 : i64}} : {ty(seq)} -> {ty(r64)}")
        t.print(f"pool valid {kind}", f"%pv_{kind}", r64, r32)
        r64, r32 = run(pool, tm, kind, lengths, 0)
        t.body.append(f"  %pt_{kind} = rnn.pool <{kind}> {ntm} lengths({nlen} : tensor<4xi32>) "
                      f"time_major {{num_batch_dims = 1 : i64}} : {ty(tm)} -> {ty(r64)}")
        t.print(f"pool time major valid {kind}", f"%pt_{kind}", r64, r32)

    # Embed: ids of shape (2, 3) into a table of 5 x 4.
    table = g.data(5, 4)
    ids = [[0, 4, 2], [3, 3, 1]]
    ntable, nids = t.const(table), int_const(t, ids)
    ref = table[np.array(ids)]
    t.body.append(f"  %e = rnn.embed {nids}, {ntable} : tensor<2x3xi32>, {ty(table)} -> {ty(ref)}")
    t.print("embed", "%e", ref.astype(np.float64), ref)
    return t


HEADER = g.HEADER.replace("rnn-to-linalg-run.mlir", "layers-run.mlir").replace(
    "Inputs/gen_run_test.py", "Inputs/gen_layers_run_test.py").replace(
    "Runs every cell kind and merge kind on constant data and checks the\n"
    "// printed results against a NumPy reference of Flax's formulas.",
    "Runs every non-recurrent layer op on constant data and checks the\n"
    "// printed results against a NumPy reference of jax.nn and Flax.")

if __name__ == "__main__":
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "layers-run.mlir")
    with open(out, "w") as f:
        f.write(g.render(main()).replace(g.HEADER, HEADER))
