"""Activations, merge functions and pooling, recognised by identity or by
their values (a lambda that computes tanh is tanh; x[:, -1] is Pool last)."""

import functools

import numpy as np

import jax
import jax.numpy as jnp

from ._common import ExportError


def _activation_table():
    """(name, function) for every activation of docs/SpecFormat.md, and a
    table of known function objects (aliases) by id."""
    import flax.linen as nn
    table = [
        ("sigmoid", jax.nn.sigmoid), ("hard_sigmoid", jax.nn.hard_sigmoid),
        ("tanh", jnp.tanh), ("hard_tanh", jax.nn.hard_tanh),
        ("relu", jax.nn.relu), ("elu", jax.nn.elu), ("silu", jax.nn.silu),
        ("identity", lambda v: v),
        ("gelu", functools.partial(jax.nn.gelu, approximate=True)),
        ("gelu_exact", functools.partial(jax.nn.gelu, approximate=False)),
        ("softplus", jax.nn.softplus), ("leaky_relu", jax.nn.leaky_relu),
        ("softmax", jax.nn.softmax), ("log_softmax", jax.nn.log_softmax),
    ]
    by_id = {}
    for name, fn in table:
        by_id[id(fn)] = name
    for alias, name in ((nn.sigmoid, "sigmoid"), (nn.tanh, "tanh"),
                        (jax.numpy.tanh, "tanh"), (nn.relu, "relu"),
                        (nn.elu, "elu"), (nn.silu, "silu"),
                        (nn.swish, "silu"), (jax.nn.swish, "silu"),
                        (nn.hard_sigmoid, "hard_sigmoid"),
                        (nn.hard_tanh, "hard_tanh"), (jax.lax.logistic, "sigmoid"),
                        (jax.lax.tanh, "tanh"), (jax.nn.gelu, "gelu"),
                        (nn.gelu, "gelu"), (nn.softplus, "softplus"),
                        (nn.leaky_relu, "leaky_relu"), (nn.softmax, "softmax"),
                        (nn.log_softmax, "log_softmax")):
        by_id[id(alias)] = name
    return table, by_id


_PROBE = np.concatenate([np.linspace(-9, 9, 1801), [-60.0, -25.0, 25.0, 60.0]]
                        ).astype(np.float32)


def _activation_name(fn, where):
    table, by_id = _activation_table()
    if id(fn) in by_id:
        return by_id[id(fn)]
    try:
        got = np.asarray(fn(jnp.asarray(_PROBE)), dtype=np.float64)
    except Exception as e:  # noqa: BLE001
        raise ExportError("%s: cannot evaluate %r (%s)" % (where, fn, e))
    for name, ref in table:
        want = np.asarray(ref(jnp.asarray(_PROBE)), dtype=np.float64)
        if got.shape == want.shape and np.allclose(got, want, rtol=1e-6, atol=1e-6):
            return name
    raise ExportError("%s: %r is not an activation rnnc has (%s)"
                      % (where, fn, ", ".join(name for name, _ in table)))


def _merge_name(fn, where):
    rng = np.random.default_rng(0)
    a = rng.normal(size=(2, 3, 4)).astype(np.float32)
    b = rng.normal(size=(2, 3, 4)).astype(np.float32)
    try:
        got = np.asarray(fn(jnp.asarray(a), jnp.asarray(b)), dtype=np.float64)
    except Exception as e:  # noqa: BLE001
        raise ExportError("%s: cannot evaluate merge_fn %r (%s)" % (where, fn, e))
    for name, want in (("concat", np.concatenate([a, b], -1)), ("add", a + b),
                       ("mul", a * b), ("mean", (a + b) / 2)):
        if got.shape == want.shape and np.allclose(got, want, rtol=1e-6, atol=1e-6):
            return name
    raise ExportError("%s: merge_fn %r is none of rnnc's concat (on the last "
                      "axis), add, mul, mean" % (where, fn))


def _activation_between(a, b):
    """Which of rnnc's activations maps array `a` to array `b` (by value)."""
    try:
        a32 = jnp.asarray(np.asarray(a, np.float32))
        want = np.asarray(b, np.float64)
    except Exception:  # noqa: BLE001
        return None
    if a32.shape != want.shape:
        return None
    table, _ = _activation_table()
    for name, fn in table:
        if name == "identity":
            continue
        got = np.asarray(fn(a32), np.float64)
        if np.allclose(got, want, rtol=1e-5, atol=1e-6):
            return name
    return None


POOL_FNS = ("last", "first", "mean", "max", "sum")


def _pool(a, fn, axis):
    """rnnc's Pool `fn` of array `a` over `axis`, as the Flax expression
    computes it (x[:, -1], x[:, 0], jnp.mean/max/sum(x, axis))."""
    if fn in ("last", "first"):
        return np.take(a, -1 if fn == "last" else 0, axis)
    return getattr(a, fn)(axis)


def _pool_fn(seq, pooled, time_major):
    """Which of rnnc's Pool functions turns `seq` into `pooled` (over the
    time axis), judged on the values; None if none does."""
    try:
        a = np.asarray(seq, np.float64)
        b = np.asarray(pooled, np.float64)
    except Exception:  # noqa: BLE001
        return None
    if time_major is None or a.ndim < 2:
        return None
    axis = 0 if time_major else a.ndim - 2
    for fn in POOL_FNS:
        want = _pool(a, fn, axis)
        if want.shape == b.shape and np.allclose(want, b, rtol=1e-6, atol=1e-6):
            return fn
    return None
    if time_major is None or a.ndim < 2:
        return None
    axis = 0 if time_major else a.ndim - 2
    for fn, want in (("last", np.take(a, -1, axis)), ("first", np.take(a, 0, axis)),
                     ("mean", a.mean(axis)), ("max", a.max(axis)), ("sum", a.sum(axis))):
        if want.shape == b.shape and np.allclose(want, b, rtol=1e-6, atol=1e-6):
            return fn
    return None
