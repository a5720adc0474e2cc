"""A small numpy model of Flax's recurrent layers, for the examples' data.

The examples' make_data.py scripts use it to compute the outputs that the
C programs compare rnnc's generated code against. It is written from
/work/shared/reference/flax-recurrent-semantics.md (flax.linen), shares no
code with rnnc, and computes in float64 from float32 weights and inputs:

  * cells: LSTMCell (gates i, f, g, o; biases on the h-side only; also
    OptimizedLSTMCell, the same maths and params in linen), GRUCell
    (h' = (1 - z) * n + z * h), MGUCell (with or without reset gate),
    SimpleCell (with or without residual), each with its gate_fn and
    activation_fn; ConvLSTMCell (gates i, g, f, o, f = sigmoid(f + 1), SAME
    cross-correlation with a bias on both convs);
  * nn.RNN: the cell runs over all T steps, padding included (outputs at
    padded steps are computed, not masked); reverse flips each row with
    flip_sequences, keep_order flips the outputs back; the final carry of
    row b is the carry after step L_b - 1 (L_b = 0 gives the initial carry,
    rnnc's documented fix of Flax, which would give the carry after T steps);
  * nn.Bidirectional: forward RNN, backward RNN with reverse and keep_order,
    outputs merged by concatenation.

It also models whole networks (issue 16, whole-models-design.md), with
jax semantics:

  * nn.Dense (kernel (in, features), bias (features)) on the last axis,
    then an optional activation; nn.LayerNorm (use_fast_variance:
    var = max(0, mean(x^2) - mean(x)^2)); nn.Embed (embedding
    (num_embeddings, features), ids must lie in [0, num_embeddings));
    nn.Dropout at inference (the identity);
  * the activations of jax.nn by their spec names (ACTIVATIONS), softmax
    and log_softmax over the last axis;
  * pooling over the time axis as the spec's Pool layer does: x[:, -1],
    x[:, 0], jnp.mean/max/sum(x, axis=1), the last valid step, a recurrent
    layer's final h; valid_only reduces over each row's valid steps (zeros
    for a row of length 0);
  * seed_model: the issue's stacked LSTM (two LSTMCell layers scanned over
    x, x[:, -1], Dense(32) + elu, Dense(16) + elu, Dense(1)) straight from a
    Flax-style checkpoint dict (params/lstm_cell_0/ii/kernel, ...,
    params/Dense_0/kernel, ...), which seed_checkpoint makes.

Arrays are batch-major with exactly one batch dim: x is (B, T, *features).
It also writes the examples' data files reproducibly (write_npz, CHeader).
"""

import io
import math
import zipfile

import numpy as np


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def f32(a):
    return np.asarray(a, dtype=np.float32)


# ----------------------------------------------------------------------------
# Parameters, with the names and shapes of flax.linen.

def lstm_params(rng, in_features, features):
    """LSTMCell params: {ii,if,ig,io}/kernel (I,H), {hi,hf,hg,ho}/kernel (H,H)
    and /bias (H,). Scaled like lecun_normal, biases small but non-zero."""
    p = {}
    for g in "ifgo":
        p["i" + g + "/kernel"] = rng.normal(0, in_features ** -0.5,
                                            (in_features, features))
        p["h" + g + "/kernel"] = rng.normal(0, features ** -0.5,
                                            (features, features))
        p["h" + g + "/bias"] = rng.normal(0, 0.1, (features,))
    return {k: f32(v) for k, v in p.items()}


def gru_params(rng, in_features, features):
    """GRUCell params: {ir,iz,in}/kernel (I,H) and /bias (H,); {hr,hz}/kernel
    (H,H); hn/kernel (H,H) and hn/bias (H,)."""
    p = {}
    for g in "rzn":
        p["i" + g + "/kernel"] = rng.normal(0, in_features ** -0.5,
                                            (in_features, features))
        p["i" + g + "/bias"] = rng.normal(0, 0.1, (features,))
        p["h" + g + "/kernel"] = rng.normal(0, features ** -0.5,
                                            (features, features))
    p["hn/bias"] = rng.normal(0, 0.1, (features,))
    return {k: f32(v) for k, v in p.items()}


def mgu_params(rng, in_features, features, reset_gate=True):
    """MGUCell params: if/kernel (I,H) and /bias; hf/kernel (H,H); hn/kernel
    (H,H) (and /bias iff reset_gate); in/kernel (I,H) and /bias."""
    p = {"if/kernel": rng.normal(0, in_features ** -0.5, (in_features, features)),
         "if/bias": rng.normal(1.0, 0.1, (features,)),
         "hf/kernel": rng.normal(0, features ** -0.5, (features, features)),
         "hn/kernel": rng.normal(0, features ** -0.5, (features, features)),
         "in/kernel": rng.normal(0, in_features ** -0.5, (in_features, features)),
         "in/bias": rng.normal(0, 0.1, (features,))}
    if reset_gate:
        p["hn/bias"] = rng.normal(0, 0.1, (features,))
    return {k: f32(v) for k, v in p.items()}


def simple_params(rng, in_features, features):
    """SimpleCell params: i/kernel (I,H), i/bias (H,), h/kernel (H,H)."""
    p = {"i/kernel": rng.normal(0, in_features ** -0.5, (in_features, features)),
         "i/bias": rng.normal(0, 0.1, (features,)),
         "h/kernel": rng.normal(0, 0.5 * features ** -0.5, (features, features))}
    return {k: f32(v) for k, v in p.items()}


def convlstm_params(rng, kernel_size, in_channels, features):
    """ConvLSTMCell params: ih/kernel (*k, C, 4F), ih/bias (4F,),
    hh/kernel (*k, F, 4F), hh/bias (4F,)."""
    taps = int(np.prod(kernel_size))
    k = tuple(kernel_size)
    p = {
        "ih/kernel": rng.normal(0, (taps * in_channels) ** -0.5,
                                k + (in_channels, 4 * features)),
        "ih/bias": rng.normal(0, 0.1, (4 * features,)),
        "hh/kernel": rng.normal(0, (taps * features) ** -0.5,
                                k + (features, 4 * features)),
        "hh/bias": rng.normal(0, 0.1, (4 * features,)),
    }
    return {key: f32(v) for key, v in p.items()}


def prefixed(prefix, params):
    """Flax param paths under `prefix` (a '/'-joined path)."""
    return {prefix + "/" + k: v for k, v in params.items()}


# ----------------------------------------------------------------------------
# Cells: step(params, carry, x) -> (new_carry, y). Params are float32, the
# maths float64. A carry is a tuple of arrays: (c, h) or (h,).

def _w(p, name):
    return p[name].astype(np.float64)


def lstm_step(p, carry, x, gate_fn="sigmoid", activation_fn="tanh"):
    c, h = carry

    def gate(g):
        return x @ _w(p, "i" + g + "/kernel") + (
            h @ _w(p, "h" + g + "/kernel") + _w(p, "h" + g + "/bias"))

    i, f, o = (activation(gate_fn, gate(g)) for g in "ifo")
    g = activation(activation_fn, gate("g"))
    c = f * c + i * g
    h = o * activation(activation_fn, c)
    return (c, h), h


def gru_step(p, carry, x, gate_fn="sigmoid", activation_fn="tanh"):
    (h,) = carry
    r = activation(gate_fn, (x @ _w(p, "ir/kernel") + _w(p, "ir/bias"))
                   + h @ _w(p, "hr/kernel"))
    z = activation(gate_fn, (x @ _w(p, "iz/kernel") + _w(p, "iz/bias"))
                   + h @ _w(p, "hz/kernel"))
    n = activation(activation_fn, (x @ _w(p, "in/kernel") + _w(p, "in/bias"))
                   + r * (h @ _w(p, "hn/kernel") + _w(p, "hn/bias")))
    h = (1.0 - z) * n + z * h
    return (h,), h


def mgu_step(p, carry, x, gate_fn="sigmoid", activation_fn="tanh"):
    """f = gate(x Wif + bif + h Whf); n = act(x Win + bin + u) with
    u = f * (h Whn + bhn) when the cell has a reset gate (p has hn/bias),
    else u = h Whn; h' = (1 - f) n + f h."""
    (h,) = carry
    f = activation(gate_fn, (x @ _w(p, "if/kernel") + _w(p, "if/bias"))
                   + h @ _w(p, "hf/kernel"))
    u = h @ _w(p, "hn/kernel")
    if "hn/bias" in p:
        u = (u + _w(p, "hn/bias")) * f
    n = activation(activation_fn, (x @ _w(p, "in/kernel") + _w(p, "in/bias")) + u)
    h = (1.0 - f) * n + f * h
    return (h,), h


def simple_step(p, carry, x, activation_fn="tanh", residual=False):
    """h' = act(x Wi + bi + h Wh (+ h if residual))."""
    (h,) = carry
    s = (x @ _w(p, "i/kernel") + _w(p, "i/bias")) + h @ _w(p, "h/kernel")
    if residual:
        s = s + h
    h = activation(activation_fn, s)
    return (h,), h


def conv2d_same(x, kernel, bias):
    """lax.conv_general_dilated with NHWC/HWIO, stride 1, 'SAME' padding
    (low (k-1)//2, high k//2 per dim): a cross-correlation plus bias."""
    kh, kw = kernel.shape[:2]
    b, hh, ww, _ = x.shape
    xp = np.pad(x, ((0, 0), ((kh - 1) // 2, kh // 2), ((kw - 1) // 2, kw // 2),
                    (0, 0)))
    out = np.zeros((b, hh, ww, kernel.shape[3]))
    for di in range(kh):
        for dj in range(kw):
            out += xp[:, di:di + hh, dj:dj + ww, :] @ kernel[di, dj]
    return out + bias


def convlstm_step(p, carry, x):
    c, h = carry
    gates = conv2d_same(x, _w(p, "ih/kernel"), _w(p, "ih/bias")) + \
        conv2d_same(h, _w(p, "hh/kernel"), _w(p, "hh/bias"))
    i, g, f, o = np.split(gates, 4, axis=-1)
    f = sigmoid(f + 1.0)
    c = f * c + sigmoid(i) * np.tanh(g)
    h = sigmoid(o) * np.tanh(c)
    return (c, h), h


# ----------------------------------------------------------------------------
# Layers.

def flip_sequences(x, lengths):
    """Flax's flip_sequences for batch-major x (B, T, ...):
    out[b, t] = x[b, (T-1-t+L_b) mod T]: each row's valid prefix reversed,
    and the padding block reversed in place after it."""
    t_len = x.shape[1]
    out = np.empty_like(x)
    for b, length in enumerate(lengths):
        for t in range(t_len):
            out[b, t] = x[b, (t_len - 1 - t + length) % t_len]
    return out


def rnn(step, params, x, carry0, lengths, reverse=False, keep_order=False):
    """nn.RNN over x (B, T, ...) from carry0 (a tuple of (B, ...) arrays).
    Returns (outputs (B, T, ...), final carry)."""
    if reverse:
        x = flip_sequences(x, lengths)
    carry = tuple(np.asarray(c, dtype=np.float64) for c in carry0)
    final = [c.copy() for c in carry]
    ys = []
    for t in range(x.shape[1]):
        carry, y = step(params, carry, x[:, t].astype(np.float64))
        ys.append(y)
        for b, length in enumerate(lengths):
            if t == length - 1:
                for k, c in enumerate(carry):
                    final[k][b] = c[b]
    ys = np.stack(ys, axis=1)
    if reverse and keep_order:
        ys = flip_sequences(ys, lengths)
    return ys, tuple(final)


def bidirectional(step_f, params_f, step_b, params_b, x, carry_f, carry_b,
                  lengths):
    """nn.Bidirectional with merge_fn concat. Returns (outputs, carry_f,
    carry_b)."""
    y_f, c_f = rnn(step_f, params_f, x, carry_f, lengths)
    y_b, c_b = rnn(step_b, params_b, x, carry_b, lengths, reverse=True,
                   keep_order=True)
    return np.concatenate([y_f, y_b], axis=-1), c_f, c_b


# ----------------------------------------------------------------------------
# Activations (jax.nn), by their spec names.

def _softmax(x):
    s = x - np.max(x, axis=-1, keepdims=True)
    e = np.exp(s)
    return e / np.sum(e, axis=-1, keepdims=True)


def _log_softmax(x):
    s = x - np.max(x, axis=-1, keepdims=True)
    return s - np.log(np.sum(np.exp(s), axis=-1, keepdims=True))


_erf = np.vectorize(math.erf, otypes=[np.float64])

ACTIVATIONS = {
    "sigmoid": sigmoid,
    "hard_sigmoid": lambda x: np.minimum(np.maximum(x + 3.0, 0.0), 6.0) / 6.0,
    "tanh": np.tanh,
    "hard_tanh": lambda x: np.clip(x, -1.0, 1.0),
    "relu": lambda x: np.maximum(x, 0.0),
    # jnp.where(x > 0, x, alpha * jnp.expm1(jnp.where(x > 0, 0, x))), alpha 1
    "elu": lambda x: np.where(x > 0, x, np.expm1(np.where(x > 0, 0.0, x))),
    "silu": lambda x: x * sigmoid(x),
    "identity": lambda x: x,
    # jax.nn.gelu(approximate=True)
    "gelu": lambda x: 0.5 * x * (1.0 + np.tanh(
        np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3))),
    # jax.nn.gelu(approximate=False)
    "gelu_exact": lambda x: x * (1.0 + _erf(x / np.sqrt(2.0))) / 2.0,
    "softmax": _softmax,
    "log_softmax": _log_softmax,
    "softplus": lambda x: np.logaddexp(x, 0.0),
    "leaky_relu": lambda x: np.where(x >= 0, x, 0.01 * x),
}


def activation(name, x):
    """jax.nn's `name` applied to x (None: no activation)."""
    return x if name is None else ACTIVATIONS[name](np.asarray(x, np.float64))


# ----------------------------------------------------------------------------
# Non-recurrent layers. `p` holds one module's params (keys relative to it).

def dense_params(rng, in_features, features, use_bias=True):
    """nn.Dense params: kernel (in, features), bias (features)."""
    p = {"kernel": rng.normal(0, in_features ** -0.5, (in_features, features))}
    if use_bias:
        p["bias"] = rng.normal(0, 0.1, (features,))
    return {k: f32(v) for k, v in p.items()}


def dense(p, x, fn=None):
    """nn.Dense on the last axis of x (any leading dims), then `fn`."""
    y = np.asarray(x, np.float64) @ _w(p, "kernel")
    if "bias" in p:
        y = y + _w(p, "bias")
    return activation(fn, y)


def layer_norm(p, x, epsilon=1e-6):
    """nn.LayerNorm over the last axis (use_fast_variance=True); `scale`
    and `bias` are applied when p has them."""
    x = np.asarray(x, np.float64)
    mean = np.mean(x, axis=-1, keepdims=True)
    var = np.maximum(0.0, np.mean(x * x, axis=-1, keepdims=True) - mean * mean)
    mul = 1.0 / np.sqrt(var + epsilon)
    if "scale" in p:
        mul = mul * _w(p, "scale")
    y = (x - mean) * mul
    if "bias" in p:
        y = y + _w(p, "bias")
    return y


def embed(p, ids):
    """nn.Embed: the rows of `embedding` (num_embeddings, features) for
    integer token ids of any shape; an id outside the table is an error
    (jnp.take would clip or fill it silently)."""
    ids = np.asarray(ids)
    table = _w(p, "embedding")
    assert np.issubdtype(ids.dtype, np.integer), ids.dtype
    assert ids.size == 0 or (ids.min() >= 0 and ids.max() < table.shape[0]), \
        "token id out of range"
    return table[ids]


def dropout(x, rate):
    """nn.Dropout(rate, deterministic=True): the identity."""
    del rate
    return x


def pool(fn, x, lengths=None, valid_only=False, final_h=None):
    """The spec's Pool layer on x (B, T, ...): reduces the time axis.

    last, first, mean, max, sum: x[:, -1], x[:, 0], jnp.mean/max/sum(x,
    axis=1), padding included; with valid_only over steps [0, L_b) of each
    row instead (last = the last valid step; all zeros for L_b = 0).
    last_valid: step L_b - 1 (zeros for L_b = 0). final_carry: `final_h`,
    the preceding recurrent layer's final h (already merged for
    Bidirectional)."""
    x = np.asarray(x, np.float64)
    if fn == "final_carry":
        return np.asarray(final_h, np.float64)
    if fn == "last_valid" or (valid_only and fn == "last"):
        out = np.zeros((x.shape[0],) + x.shape[2:])
        for b, length in enumerate(lengths):
            if length > 0:
                out[b] = x[b, length - 1]
        return out
    if not valid_only:
        return {"last": lambda: x[:, -1], "first": lambda: x[:, 0],
                "mean": lambda: np.mean(x, axis=1),
                "max": lambda: np.max(x, axis=1),
                "sum": lambda: np.sum(x, axis=1)}[fn]()
    out = np.zeros((x.shape[0],) + x.shape[2:])
    for b, length in enumerate(lengths):
        if length == 0:
            continue
        v = x[b, :length]
        out[b] = {"first": lambda: v[0], "mean": lambda: np.mean(v, axis=0),
                  "max": lambda: np.max(v, axis=0),
                  "sum": lambda: np.sum(v, axis=0)}[fn]()
    return out


# ----------------------------------------------------------------------------
# Whole models.

def _unprefixed(key):
    """A checkpoint key without its optional leading `params/`."""
    return key[len("params/"):] if key.startswith("params/") else key


def subtree(checkpoint, prefix):
    """The params under `prefix` of a flat Flax checkpoint dict, keys
    relative to it."""
    return {_unprefixed(key)[len(prefix) + 1:]: value
            for key, value in checkpoint.items()
            if _unprefixed(key).startswith(prefix + "/")}


def seed_checkpoint(rng, in_features=1, hidden=64, heads=(32, 16, 1)):
    """A Flax-style checkpoint of the seed model, as nn.scan over bare
    LSTMCells and nn.Dense save it: params/lstm_cell_<k>/..., params/Dense_<k>/
    {kernel, bias}."""
    ckpt = {}
    sizes = [in_features, hidden, hidden]
    for k in range(2):
        ckpt.update(prefixed("params/lstm_cell_%d" % k,
                             lstm_params(rng, sizes[k], hidden)))
    sizes = [hidden] + list(heads)
    for k in range(len(heads)):
        ckpt.update(prefixed("params/Dense_%d" % k,
                             dense_params(rng, sizes[k], sizes[k + 1])))
    return ckpt


def seed_model(checkpoint, x, pool_fn="last", lengths=None):
    """The issue-16 seed model: lstm_cell_0 and lstm_cell_1 scanned over x
    (B, T, I) from zero carries, x[:, -1] (or another pool_fn, e.g. "mean"
    for jnp.mean(x, axis=1)), then Dense_0 + elu, Dense_1 + elu, ...,
    and the last Dense without an activation. Returns (y, carries), carries
    {"lstm_cell_<k>": (c, h)}."""
    x = np.asarray(x, np.float64)
    batch = x.shape[0]
    if lengths is None:
        lengths = [x.shape[1]] * batch
    carries = {}
    for k in range(2):
        p = subtree(checkpoint, "lstm_cell_%d" % k)
        hidden = p["hi/kernel"].shape[0]
        zero = (np.zeros((batch, hidden)), np.zeros((batch, hidden)))
        x, carries["lstm_cell_%d" % k] = rnn(lstm_step, p, x, zero, lengths)
    y = pool(pool_fn, x, lengths, final_h=carries["lstm_cell_1"][1])
    heads = sorted({int(_unprefixed(key).split("/")[0][len("Dense_"):])
                    for key in checkpoint
                    if _unprefixed(key).startswith("Dense_")})
    for k in heads:
        fn = "elu" if k != heads[-1] else None
        y = dense(subtree(checkpoint, "Dense_%d" % k), y, fn)
    return y, carries


# ----------------------------------------------------------------------------
# Files.

def write_npz(path, arrays):
    """np.savez, but byte-for-byte reproducible (fixed timestamps, sorted
    entries), so regenerating does not churn git."""
    with zipfile.ZipFile(path, "w") as z:
        for key in sorted(arrays):
            info = zipfile.ZipInfo(key + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.ascontiguousarray(arrays[key]))
            z.writestr(info, buf.getvalue())


def _c_float(v, exact):
    """A C float literal. Exact: the shortest decimal that reads back as the
    same float32 (for inputs). Otherwise 7 significant digits, within 5e-7
    relative of the float32 value (for expected outputs, which are compared
    with a tolerance far above that), to keep the headers small."""
    v = np.float32(v)
    if exact:
        s = str(v)
        assert np.float32(s) == v, s
    else:
        s = "%.7g" % v
        assert abs(float(s) - float(v)) <= 5e-7 * abs(float(v)), s
        if "." not in s and "e" not in s:
            s += ".0"
    return s + "f"


class CHeader:
    """Collects static const arrays and #defines into a C header."""

    def __init__(self, guard, comment):
        self.guard = guard
        self.parts = ["/* " + line if i == 0 else " * " + line
                      for i, line in enumerate(comment.strip().splitlines())]
        self.parts[-1] += " */"
        self.parts += ["#ifndef " + guard, "#define " + guard, "",
                       "#include <stdint.h>", ""]

    def define(self, name, value):
        self.parts.append("#define %s %s" % (name, value))

    def raw(self, text):
        self.parts.append(text)

    def floats(self, name, array, comment, exact=False):
        """exact: print values that read back as the same float32 (inputs);
        otherwise 7 significant digits (expected outputs)."""
        a = np.asarray(array, dtype=np.float32)
        self._array("float", name, a, comment,
                    [_c_float(v, exact) for v in a.ravel()], 6)

    def ints(self, name, array, comment):
        a = np.asarray(array)
        self._array("int32_t", name, a, comment, [str(int(v)) for v in a.ravel()], 16)

    def _array(self, ctype, name, a, comment, values, per_line):
        dims = "".join("[%d]" % d for d in a.shape)
        self.parts.append("")
        self.parts.append("/* %s %s */" % (comment, dims or "(scalar)"))
        self.parts.append("static const %s %s[%d] = {" % (ctype, name, max(a.size, 1)))
        for i in range(0, len(values), per_line):
            self.parts.append("    " + ", ".join(values[i:i + per_line]) + ",")
        self.parts.append("};")

    def write(self, path):
        with open(path, "w") as f:
            f.write("\n".join(self.parts + ["", "#endif /* %s */" % self.guard, ""]))
