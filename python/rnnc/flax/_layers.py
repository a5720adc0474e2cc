"""The layers that are not recurrences: Dense, Embed, LayerNorm and
Dropout modules, and the Pool / Activation layers found between two layers
from the values ("bridges")."""

import numpy as np

from ._common import ExportError, _check_f32, _same
from ._functions import POOL_FNS, _activation_between, _pool, _pool_fn


def _final_h(prev_scan, value):
    """"final_carry" when `value` is the final h of the closest recurrent
    layer (its h leaf, or both directions' h merged as its outputs are)."""
    if prev_scan is None:
        return None
    layer, _, carries = prev_scan
    named = {cname.rsplit("/", 2)[-2] + "/" + cname.rsplit("/", 1)[-1]
             if layer["type"] == "Bidirectional" else cname.rsplit("/", 1)[-1]: leaf
             for leaf, cname in carries}
    if layer["type"] != "Bidirectional":
        return "final_carry" if _same(named.get("h"), value) else None
    fwd, bwd = named.get("forward/h"), named.get("backward/h")
    if fwd is None or bwd is None:
        return None
    a, b = np.asarray(fwd, np.float64), np.asarray(bwd, np.float64)
    merged = {"concat": lambda: np.concatenate([a, b], -1), "add": lambda: a + b,
              "mul": lambda: a * b, "mean": lambda: (a + b) / 2}[layer["merge_fn"]]()
    got = np.asarray(value, np.float64)
    if got.shape == merged.shape and np.allclose(got, merged, rtol=1e-6, atol=1e-6):
        return "final_carry"
    return None


def _bridge(prev, value, time_major, has_time, prev_scan):
    """The layers (a Pool and/or an Activation, as [("Pool", fn) |
    ("Activation", fn)]) that turn `prev` into `value`, found from the
    values; None if there are none. `prev_scan`'s carries give final_carry."""
    if has_time and _final_h(prev_scan, value):
        return [("Pool", "final_carry")]
    if has_time:
        fn = _pool_fn(prev, value, time_major)
        if fn:
            return [("Pool", fn)]
    act = _activation_between(prev, value)
    if act:
        return [("Activation", act)]
    if not has_time:
        return None
    # A pooling, then an activation of the pooled value.
    try:
        a = np.asarray(prev, np.float32)
    except Exception:  # noqa: BLE001
        return None
    axis = 0 if time_major else a.ndim - 2
    for fn in POOL_FNS:
        act = _activation_between(_pool(a, fn, axis), value)
        if act and act not in ("softmax", "log_softmax"):
            return [("Pool", fn), ("Activation", act)]
    return None


def _append_bridge(layers, bridge, has_time, names_taken):
    """Appends a bridge's layers (an activation straight after a Dense
    without one becomes that Dense's `activation`); returns whether the
    value still has a time axis."""
    for kind, fn in bridge:
        last = layers[-1] if layers else None
        if kind == "Activation" and last is not None and last["type"] == "Dense" \
                and "activation" not in last:
            last["activation"] = fn
            continue
        name = "%s_%d" % ("pool" if kind == "Pool" else "act", len(layers))
        while name in names_taken:
            name += "_"
        names_taken.add(name)
        layers.append({"type": kind, "name": name, "fn": fn})
        if kind == "Pool":
            has_time = False
    return has_time


def _last_axis(axes, where, what):
    axes = tuple(axes) if isinstance(axes, (list, tuple)) else (axes,)
    if axes != (-1,):
        raise ExportError("%s: %s=%r; rnnc's LayerNorm normalizes the last axis"
                          % (where, what, axes))


def _extra_layer(call, lname, where, layout):
    """The layers that are not recurrences: Dense (linen nn.Dense, nnx.Linear),
    Embed, LayerNorm and Dropout, each on the last axis."""
    mod = call.module
    _check_f32(mod, where)
    if call.kind == "Dense":
        features = mod.out_features if layout == "nnx" else mod.features
        if not isinstance(features, int):
            raise ExportError("%s: features %r: rnnc's Dense has one output axis"
                              % (where, features))
        layer = {"type": "Dense", "name": lname, "features": int(features),
                 "use_bias": bool(mod.use_bias), "params": call.path}
        return layer, call.output, [call.path]
    if call.kind == "Embed":
        layer = {"type": "Embed", "name": lname,
                 "num_embeddings": int(mod.num_embeddings),
                 "features": int(mod.features), "params": call.path}
        return layer, call.output, [call.path]
    if call.kind == "LayerNorm":
        _last_axis(mod.reduction_axes, where, "reduction_axes")
        _last_axis(mod.feature_axes, where, "feature_axes")
        layer = {"type": "LayerNorm", "name": lname, "epsilon": float(mod.epsilon),
                 "use_scale": bool(mod.use_scale), "use_bias": bool(mod.use_bias),
                 "params": call.path}
        return layer, call.output, [call.path]
    if call.kind == "Dropout":
        deterministic = call.kwargs.get("deterministic")
        if deterministic is None and len(call.args) > 1:
            deterministic = call.args[1]
        if deterministic is None:
            deterministic = mod.deterministic
        if not deterministic and float(mod.rate) != 0.0:
            raise ExportError("%s: drops values at random in this call "
                              "(deterministic=False); rnnc compiles inference: "
                              "call it with deterministic=True%s"
                              % (where, " (model.eval())" if layout == "nnx" else ""))
        layer = {"type": "Dropout", "name": lname, "rate": float(mod.rate)}
        return layer, call.output, []
    raise ExportError("%s: rnnc's spec has no %s layer" % (where, call.kind))
