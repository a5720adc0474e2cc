"""What every part of rnnc.flax.export shares: the layer kinds, the error,
small pytree helpers."""

import numpy as np

import jax


LAYER_KINDS = ("RNN", "Bidirectional", "Scan", "Dense", "Embed", "LayerNorm",
               "Dropout")


RECURRENT_KINDS = ("RNN", "Bidirectional", "Scan")


class ExportError(ValueError):
    """The model cannot be expressed as an rnnc spec."""


def _path_str(path):
    return "/".join(str(p) for p in path)


def _leaves(tree):
    return jax.tree_util.tree_leaves(tree)


def _same(a, b):
    return a is b


def _describe(value):
    try:
        a = np.asarray(value)
        return "a %s array of shape %s" % (a.dtype, a.shape)
    except Exception:  # noqa: BLE001
        return type(value).__name__


def _is_f32(dtype):
    return dtype is None or np.dtype(dtype) == np.float32


def _is_bf16(dtype):
    return dtype is not None and np.dtype(dtype).name == "bfloat16"


def _check_f32(mod, where, bf16_params=False):
    """Refuses a module that computes in anything but float32, or keeps its
    params in anything but float32 (or, where `bf16_params`, a cell rnnc
    stores as bf16 and computes in bf16 too: bfloat16 for either). Returns
    the spec keys of the cell's types that are not float32 ({"dtype":
    "bfloat16", "param_dtype": "bfloat16"} or a part of it)."""
    keys = {}
    for attr in ("dtype", "param_dtype"):
        value = getattr(mod, attr, None)
        if _is_f32(value):
            continue
        if bf16_params and _is_bf16(value):
            keys[attr] = "bfloat16"
            continue
        raise ExportError("%s: %s %s is not supported; rnnc computes in "
                          "float32%s" % (where, attr, value,
                                         " (or bfloat16)" if bf16_params
                                         else ""))
    return keys
