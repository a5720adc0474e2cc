"""Random whole models over the spec language, for random_models.py --whole.

draw(rng, case) returns one random valid model with its weights, inputs and
the outputs the numpy model of Flax (examples/flax_numpy.py) gives for
them. It draws every cell (LSTMCell, OptimizedLSTMCell, GRUCell, MGUCell
with or without reset gate, SimpleCell with or without residual, each with
a gate_fn and activation_fn; ConvLSTMCell in a model of its own), every
nn.RNN option (time_major, reverse, keep_order, unroll, return_carry,
seq_lengths, initial carries), Bidirectional layers with mixed cells and
every merge_fn, stacks of up to three recurrent layers, and the layers
around them (Embed first, Dense, LayerNorm, Activation, Dropout between
and after, a Pool with every fn, valid_only, then a head), sizes small.

With `padded_outputs: zeros` the outputs at padded steps are skipped by
the comparison (`valid` masks them), and only the pools that read valid
steps are drawn: zeros changes nothing else.
"""
import functools

import numpy as np

import flax_numpy as fn

GATES = ["sigmoid", "hard_sigmoid"]
ACTS = ["tanh", "hard_tanh", "silu", "identity"]
# Activations for Dense and Activation layers, by spec name.
LAYER_ACTS = [None, "relu", "elu", "tanh", "sigmoid", "gelu", "gelu_exact",
              "softmax", "log_softmax", "softplus", "leaky_relu", "silu"]
CELLS = ["LSTMCell", "OptimizedLSTMCell", "GRUCell", "MGUCell", "SimpleCell"]


def pick(rng, options):
    return options[int(rng.integers(len(options)))]


def yaml_bool(b):
    return "true" if b else "false"


class Model:
    """The spec, weights, inputs and expected outputs being built."""

    def __init__(self, rng, B, T, lengths):
        self.rng, self.B, self.T, self.L = rng, B, T, lengths
        self.layers, self.weights, self.inputs, self.want = [], {}, {}, {}
        self.desc = []


def draw_cell(m, in_features, features):
    """A random non-conv cell: (spec text, step, params, carry names)."""
    rng = m.rng
    kind = pick(rng, CELLS)
    yaml = [f"type: {kind}", f"features: {features}"]
    act = pick(rng, ACTS) if rng.random() < 0.4 else "tanh"
    gate = pick(rng, GATES) if rng.random() < 0.3 else "sigmoid"
    if act != "tanh":
        yaml.append(f"activation_fn: {act}")
    if kind == "SimpleCell":
        residual = bool(rng.random() < 0.5)
        yaml.append(f"residual: {yaml_bool(residual)}")
        step = functools.partial(fn.simple_step, activation_fn=act,
                                 residual=residual)
        return ("{" + ", ".join(yaml) + "}", step,
                fn.simple_params(rng, in_features, features), ["h"],
                f"Simple(res={residual},{act})")
    if gate != "sigmoid":
        yaml.append(f"gate_fn: {gate}")
    if kind in ("LSTMCell", "OptimizedLSTMCell"):
        step = functools.partial(fn.lstm_step, gate_fn=gate, activation_fn=act)
        params, names = fn.lstm_params(rng, in_features, features), ["c", "h"]
    elif kind == "GRUCell":
        step = functools.partial(fn.gru_step, gate_fn=gate, activation_fn=act)
        params, names = fn.gru_params(rng, in_features, features), ["h"]
    else:
        reset = bool(rng.random() < 0.5)
        yaml.append(f"reset_gate: {yaml_bool(reset)}")
        step = functools.partial(fn.mgu_step, gate_fn=gate, activation_fn=act)
        params, names = fn.mgu_params(rng, in_features, features, reset), ["h"]
        kind = f"MGUCell(reset={reset})"
    return ("{" + ", ".join(yaml) + "}", step, params, names,
            f"{kind}({gate},{act})")


def initial_carry(m, prefix, names, shape):
    """Zeros, or (drawn) values the caller passes as `prefix/<name>`."""
    if m.rng.random() < 0.35:
        carry = tuple(m.rng.uniform(-1, 1, shape).astype(np.float32)
                      for _ in names)
        for n, v in zip(names, carry):
            m.inputs[f"initial_carry/{prefix}/{n}"] = v
        return True, carry
    return False, tuple(np.zeros(shape) for _ in names)


def add_rnn(m, name, x, features):
    """An nn.RNN layer over x (B, T, I); returns (y, final h)."""
    rng = m.rng
    yaml, step, params, names, what = draw_cell(m, x.shape[-1], features)
    reverse = bool(rng.random() < 0.4)
    keep_order = reverse and bool(rng.random() < 0.6)
    unroll = int(rng.integers(1, m.T + 3))
    ret = bool(rng.random() < 0.6)
    init, c0 = initial_carry(m, name, names, (m.B, features))
    m.weights.update(fn.prefixed(f"{name}/cell", params))
    spec = [f"  - type: RNN", f"    name: {name}", f"    cell: {yaml}",
            f"    reverse: {yaml_bool(reverse)}",
            f"    keep_order: {yaml_bool(keep_order)}",
            f"    unroll: {unroll}", f"    return_carry: {yaml_bool(ret)}"]
    if init:
        spec.append("    initial_carry: input")
    m.layers += spec
    y, carry = fn.rnn(step, params, x, c0, m.L, reverse, keep_order)
    if ret:
        for n, v in zip(names, carry):
            m.want[f"carry/{name}/{n}"] = v
    m.desc.append(f"RNN[{what} rev={reverse} keep={keep_order} "
                  f"unroll={unroll} init={init} carry={ret}]")
    return y, carry[-1]


MERGES = {"concat": lambda a, b: np.concatenate([a, b], axis=-1),
          "add": lambda a, b: a + b, "mul": lambda a, b: a * b,
          "mean": lambda a, b: (a + b) / 2.0}


def add_bidirectional(m, name, x, features):
    """An nn.Bidirectional layer with two random cells and a merge_fn."""
    rng = m.rng
    merge = pick(rng, list(MERGES))
    back_features = features if merge != "concat" or rng.random() < 0.5 \
        else int(rng.integers(1, 7))
    fy, fstep, fp, fnames, fwhat = draw_cell(m, x.shape[-1], features)
    by, bstep, bp, bnames, bwhat = draw_cell(m, x.shape[-1], back_features)
    ret = bool(rng.random() < 0.6)
    init = bool(rng.random() < 0.35)
    cf = tuple(np.zeros((m.B, features)) for _ in fnames)
    cb = tuple(np.zeros((m.B, back_features)) for _ in bnames)
    if init:
        cf = tuple(rng.uniform(-1, 1, (m.B, features)).astype(np.float32)
                   for _ in fnames)
        cb = tuple(rng.uniform(-1, 1, (m.B, back_features)).astype(np.float32)
                   for _ in bnames)
        for n, v in zip(fnames, cf):
            m.inputs[f"initial_carry/{name}/forward/{n}"] = v
        for n, v in zip(bnames, cb):
            m.inputs[f"initial_carry/{name}/backward/{n}"] = v
    uf, ub = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    m.weights.update(fn.prefixed(f"{name}/forward_rnn/cell", fp))
    m.weights.update(fn.prefixed(f"{name}/backward_rnn/cell", bp))
    spec = ["  - type: Bidirectional", f"    name: {name}",
            f"    forward_rnn: {{cell: {fy}, unroll: {uf}}}",
            f"    backward_rnn: {{cell: {by}, unroll: {ub}}}",
            f"    merge_fn: {merge}", f"    return_carry: {yaml_bool(ret)}"]
    if init:
        spec.append("    initial_carry: input")
    m.layers += spec
    y_f, c_f = fn.rnn(fstep, fp, x, cf, m.L)
    y_b, c_b = fn.rnn(bstep, bp, x, cb, m.L, reverse=True, keep_order=True)
    if ret:
        for n, v in zip(fnames, c_f):
            m.want[f"carry/{name}/forward/{n}"] = v
        for n, v in zip(bnames, c_b):
            m.want[f"carry/{name}/backward/{n}"] = v
    m.desc.append(f"Bi[{fwhat} | {bwhat} {merge} init={init} carry={ret}]")
    return MERGES[merge](y_f, y_b), MERGES[merge](c_f[-1], c_b[-1])


def add_pointwise(m, name, x):
    """A Dense, LayerNorm, Activation or Dropout layer on the last axis."""
    rng = m.rng
    kind = pick(rng, ["Dense", "Dense", "LayerNorm", "Activation", "Dropout"])
    if kind == "Dense":
        features = int(rng.integers(1, 9))
        use_bias = bool(rng.random() < 0.7)
        act = pick(rng, LAYER_ACTS)
        p = fn.dense_params(rng, x.shape[-1], features, use_bias)
        m.weights.update(fn.prefixed(name, p))
        text = f"{{type: Dense, name: {name}, features: {features}, " \
               f"use_bias: {yaml_bool(use_bias)}"
        m.layers.append("  - " + text + (f", activation: {act}}}" if act else "}"))
        m.desc.append(f"Dense({features},{use_bias},{act})")
        return fn.dense(p, x, act)
    if kind == "LayerNorm":
        scale, bias = bool(rng.random() < 0.7), bool(rng.random() < 0.7)
        eps = pick(rng, [1e-6, 1e-5, 0.01])
        p = {}
        if scale:
            p["scale"] = fn.f32(rng.normal(1.0, 0.2, x.shape[-1]))
        if bias:
            p["bias"] = fn.f32(rng.normal(0.0, 0.2, x.shape[-1]))
        m.weights.update(fn.prefixed(name, p))
        m.layers.append(f"  - {{type: LayerNorm, name: {name}, epsilon: {eps}, "
                        f"use_scale: {yaml_bool(scale)}, "
                        f"use_bias: {yaml_bool(bias)}}}")
        m.desc.append(f"LayerNorm({scale},{bias},{eps})")
        return fn.layer_norm(p, x, eps)
    if kind == "Activation":
        act = pick(rng, LAYER_ACTS[1:])
        m.layers.append(f"  - {{type: Activation, name: {name}, fn: {act}}}")
        m.desc.append(f"Activation({act})")
        return fn.activation(act, x)
    rate = pick(rng, [0.0, 0.1, 0.5])
    m.layers.append(f"  - {{type: Dropout, name: {name}, rate: {rate}}}")
    m.desc.append("Dropout")
    return fn.dropout(x, rate)


def add_pool(m, name, x, final_h, zeros):
    rng = m.rng
    lengths = m.inputs.get("seq_lengths") is not None
    fns = ["final_carry"]
    if lengths:
        fns += ["last_valid"]
    if not zeros:
        fns += ["last", "first", "mean", "max", "sum"]
    if lengths:
        fns += ["valid:last", "valid:first", "valid:mean", "valid:max",
                "valid:sum"]
    choice = pick(rng, fns)
    valid_only = choice.startswith("valid:")
    pool_fn = choice.split(":")[-1]
    text = f"{{type: Pool, name: {name}, fn: {pool_fn}"
    m.layers.append("  - " + text + (", valid_only: true}" if valid_only else "}"))
    m.desc.append(f"Pool({choice})")
    return fn.pool(pool_fn, x, m.L, valid_only, final_h)


def draw(rng, case):
    """One random whole model: (spec text, weights, inputs, want, valid,
    description). `valid` maps output names to masks of the entries to
    compare (None: all)."""
    B = int(rng.choice([1, 2, 3, 4, 5]))
    T = int(rng.integers(1, 9))
    lengths = bool(rng.random() < 0.6)
    zeros = lengths and bool(rng.random() < 0.4)
    time_major = bool(rng.random() < 0.3)
    L = rng.integers(0, T + 1, B).astype(np.int32) if lengths \
        else np.full(B, T, np.int32)
    if lengths:
        L[0] = T
    m = Model(rng, B, T, L)
    if lengths:
        m.inputs["seq_lengths"] = L
    if rng.random() < 0.15:
        return draw_conv(m, case, lengths, zeros, time_major)

    embed = rng.random() < 0.2
    spec = ["rnnc: 1", f"name: wz{case}"]
    if zeros:
        spec.append("padded_outputs: zeros")
    if embed:
        n, I = int(rng.integers(2, 12)), int(rng.integers(1, 7))
        ids = rng.integers(0, n, (B, T)).astype(np.int32)
        p = {"embedding": fn.f32(rng.normal(0, 1, (n, I)))}
        m.weights.update(fn.prefixed("emb", p))
        m.layers.append(f"  - {{type: Embed, name: emb, num_embeddings: {n}, "
                        f"features: {I}}}")
        m.desc.append(f"Embed({n},{I})")
        x = fn.embed(p, ids)
        m.inputs["x"] = ids.T.copy() if time_major else ids
        features_key = ""
    else:
        I = int(rng.choice([1, 2, 3, 5]))
        xin = rng.uniform(-1, 1, (B, T, I)).astype(np.float32)
        m.inputs["x"] = np.transpose(xin, (1, 0, 2)).copy() if time_major else xin
        x = xin
        features_key = f", features: {I}"
    spec.append(f"input: {{batch: [{B}], time: {T}{features_key}, "
                f"time_major: {yaml_bool(time_major)}, "
                f"seq_lengths: {yaml_bool(lengths)}}}")
    k = len(m.layers)
    if rng.random() < 0.3:
        x = add_pointwise(m, f"l{k}", x); k += 1
    final_h = None
    for r in range(int(rng.integers(1, 4))):
        features = int(rng.choice([1, 2, 3, 4, 6]))
        if rng.random() < 0.35:
            x, final_h = add_bidirectional(m, f"l{k}", x, features)
        else:
            x, final_h = add_rnn(m, f"l{k}", x, features)
        k += 1
        if zeros:
            # Each recurrent layer's padded outputs are zeros, and the
            # layers after it read them.
            x = np.where((np.arange(T)[None, :] < L[:, None])[..., None], x, 0.0)
        if rng.random() < 0.3:
            x = add_pointwise(m, f"l{k}", x); k += 1
    pooled = rng.random() < 0.45
    if pooled:
        x = add_pool(m, f"l{k}", x, final_h, zeros); k += 1
        while rng.random() < 0.4:
            x = add_pointwise(m, f"l{k}", x); k += 1
    desc = (f"B={B} T={T} len={lengths} zeros={zeros} tm={time_major}: "
            + " ".join(m.desc))
    return finish(m, spec, x, pooled, zeros, time_major, desc)


def draw_conv(m, case, lengths, zeros, time_major):
    """A ConvLSTMCell model: x (B, T, H, W, C) through one or two ConvLSTM
    RNN layers, then optionally a Dense on the channels and a Pool."""
    rng, B, T, L = m.rng, m.B, m.T, m.L
    Hs, Ws, C = int(rng.integers(1, 4)), int(rng.integers(1, 4)), \
        int(rng.integers(1, 3))
    x = rng.uniform(-1, 1, (B, T, Hs, Ws, C)).astype(np.float32)
    m.inputs["x"] = np.swapaxes(x, 0, 1).copy() if time_major else x
    spec = ["rnnc: 1", f"name: wz{case}"]
    if zeros:
        spec.append("padded_outputs: zeros")
    spec.append(f"input: {{batch: [{B}], time: {T}, features: [{Hs}, {Ws}, "
                f"{C}], time_major: {yaml_bool(time_major)}, "
                f"seq_lengths: {yaml_bool(lengths)}}}")
    final_h = None
    for k in range(int(rng.integers(1, 3))):
        name = f"l{k}"
        F = int(rng.integers(1, 4))
        kernel = [int(rng.choice([1, 2, 3])), int(rng.choice([1, 2, 3]))]
        use_bias = bool(rng.random() < 0.7)
        p = fn.convlstm_params(rng, kernel, x.shape[-1], F)
        if not use_bias:
            p["ih/bias"] = np.zeros_like(p["ih/bias"])
            p["hh/bias"] = np.zeros_like(p["hh/bias"])
            m.weights.update(fn.prefixed(f"{name}/cell",
                                         {key: v for key, v in p.items()
                                          if not key.endswith("bias")}))
        else:
            m.weights.update(fn.prefixed(f"{name}/cell", p))
        reverse = bool(rng.random() < 0.4)
        keep_order = reverse and bool(rng.random() < 0.6)
        ret = bool(rng.random() < 0.6)
        init, c0 = initial_carry(m, name, ["c", "h"], (B, Hs, Ws, F))
        m.layers += [f"  - type: RNN", f"    name: {name}",
                     f"    cell: {{type: ConvLSTMCell, features: {F}, "
                     f"kernel_size: [{kernel[0]}, {kernel[1]}], "
                     f"use_bias: {yaml_bool(use_bias)}}}",
                     f"    reverse: {yaml_bool(reverse)}",
                     f"    keep_order: {yaml_bool(keep_order)}",
                     f"    unroll: {int(rng.integers(1, 4))}",
                     f"    return_carry: {yaml_bool(ret)}"]
        if init:
            m.layers.append("    initial_carry: input")
        x, carry = fn.rnn(fn.convlstm_step, p, x, c0, L, reverse, keep_order)
        final_h = carry[-1]
        if ret:
            m.want[f"carry/{name}/c"], m.want[f"carry/{name}/h"] = carry
        if zeros:
            mask = (np.arange(T)[None, :] < L[:, None])
            x = np.where(mask[:, :, None, None, None], x, 0.0)
        m.desc.append(f"ConvLSTM(F={F},k={kernel},bias={use_bias},rev={reverse},"
                      f"keep={keep_order},init={init},carry={ret})")
    k = len(m.layers)
    if rng.random() < 0.4:
        x = add_pointwise(m, f"d{k}", x)
    pooled = rng.random() < 0.4
    if pooled:
        x = add_pool(m, f"p{k}", x, final_h, zeros)
    desc = (f"B={B} T={T} {Hs}x{Ws}x{C} len={lengths} zeros={zeros} "
            f"tm={time_major}: " + " ".join(m.desc))
    return finish(m, spec, x, pooled, zeros, time_major, desc)


def finish(m, spec, x, pooled, zeros, time_major, desc):
    """The drawn case: `x` (batch-major) is the expected `y`; with
    zero-padded outputs only each row's valid steps are compared."""
    valid = {}
    if not pooled:
        if zeros:
            mask = np.arange(m.T)[None, :] < m.L[:, None]
            valid["y"] = mask.reshape(mask.shape + (1,) * (x.ndim - 2)) \
                & np.ones(x.shape, bool)
        if time_major:
            x = np.swapaxes(x, 0, 1)
            if "y" in valid:
                valid["y"] = np.swapaxes(valid["y"], 0, 1)
    m.want["y"] = x
    text = "\n".join(spec + ["layers:"] + m.layers) + "\n"
    return text, m.weights, m.inputs, m.want, valid, desc
