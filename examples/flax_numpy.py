"""A small numpy model of Flax's recurrent layers, for the examples' data.

The examples' make_data.py scripts use it to compute the outputs that the
C programs compare rnnc's generated code against. It is written from
/work/shared/reference/flax-recurrent-semantics.md (flax.linen), shares no
code with rnnc, and computes in float64 from float32 weights and inputs:

  * cells: LSTMCell (gates i, f, g, o; biases on the h-side only),
    GRUCell (h' = (1 - z) * n + z * h), ConvLSTMCell (gates i, g, f, o,
    f = sigmoid(f + 1), SAME cross-correlation with a bias on both convs);
  * nn.RNN: the cell runs over all T steps, padding included (outputs at
    padded steps are computed, not masked); reverse flips each row with
    flip_sequences, keep_order flips the outputs back; the final carry of
    row b is the carry after step L_b - 1 (L_b = 0 gives the initial carry,
    rnnc's documented fix of Flax, which would give the carry after T steps);
  * nn.Bidirectional: forward RNN, backward RNN with reverse and keep_order,
    outputs merged by concatenation.

Arrays are batch-major with exactly one batch dim: x is (B, T, *features).
It also writes the examples' data files reproducibly (write_npz, CHeader).
"""

import io
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


def lstm_step(p, carry, x):
    c, h = carry

    def gate(g):
        return x @ _w(p, "i" + g + "/kernel") + (
            h @ _w(p, "h" + g + "/kernel") + _w(p, "h" + g + "/bias"))

    i, f, g, o = sigmoid(gate("i")), sigmoid(gate("f")), np.tanh(gate("g")), \
        sigmoid(gate("o"))
    c = f * c + i * g
    h = o * np.tanh(c)
    return (c, h), h


def gru_step(p, carry, x):
    (h,) = carry
    r = sigmoid((x @ _w(p, "ir/kernel") + _w(p, "ir/bias")) + h @ _w(p, "hr/kernel"))
    z = sigmoid((x @ _w(p, "iz/kernel") + _w(p, "iz/bias")) + h @ _w(p, "hz/kernel"))
    n = np.tanh((x @ _w(p, "in/kernel") + _w(p, "in/bias"))
                + r * (h @ _w(p, "hn/kernel") + _w(p, "hn/bias")))
    h = (1.0 - z) * n + z * h
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
