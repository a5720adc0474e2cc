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


def _check_f32(mod, where):
    for attr in ("dtype", "param_dtype"):
        if not _is_f32(getattr(mod, attr, None)):
            raise ExportError("%s: %s %s is not supported; rnnc computes in "
                              "float32" % (where, attr, getattr(mod, attr)))
