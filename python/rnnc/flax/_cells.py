"""Cells: a Flax cell module as a spec cell, and the options of a linen
nn.scan(CellClass, ...) that makes a cell a recurrence."""

import numpy as np

from ._common import ExportError, _check_f32
from ._functions import _activation_name


_CELLS = ("LSTMCell", "OptimizedLSTMCell", "GRUCell", "MGUCell", "SimpleCell",
          "ConvLSTMCell")


def _cell_spec(cell, path, layout, cls=None):
    """The spec mapping of one cell (without `params`); `cls` is the cell's
    class when `cell` is an instance of a lifted (nn.scan) subclass of it."""
    cls = cls or type(cell)
    kind = cls.__name__
    where = "cell %s (%s)" % (path or "<root>", kind)
    if kind not in _CELLS or cls.__module__.split(".")[0] != "flax":
        raise ExportError("%s: rnnc has no cell of this type (it has %s; a "
                          "subclass of one may compute something else)"
                          % (where, ", ".join(_CELLS)))
    # param_dtype=bfloat16: rnnc stores the params as bf16 and computes in
    # f32 as Flax does; dtype=bfloat16: it computes in bf16 as Flax does
    # (ConvLSTMCell keeps float32 in rnnc).
    dtypes = _check_f32(cell, where, bf16_params=kind != "ConvLSTMCell")
    spec = {"type": kind}
    if layout == "nnx":
        spec["features"] = int(cell.hidden_features)
    else:
        spec["features"] = int(cell.features)
    if kind in ("LSTMCell", "OptimizedLSTMCell", "GRUCell", "MGUCell"):
        spec["gate_fn"] = _activation_name(cell.gate_fn, where + " gate_fn")
    if kind != "ConvLSTMCell":
        spec["activation_fn"] = _activation_name(cell.activation_fn,
                                                 where + " activation_fn")
    if kind == "MGUCell":
        spec["reset_gate"] = bool(cell.reset_gate)
    if kind == "SimpleCell":
        spec["residual"] = bool(cell.residual)
    if kind == "ConvLSTMCell":
        spec["kernel_size"] = [int(k) for k in cell.kernel_size]
        strides = cell.strides
        if strides is not None and any(int(s) != 1 for s in np.atleast_1d(strides)):
            raise ExportError("%s: strides %s; rnnc supports stride 1" % (where, strides))
        if not (isinstance(cell.padding, str) and cell.padding.upper() == "SAME"):
            raise ExportError("%s: padding %r; rnnc supports 'SAME'" % (where, cell.padding))
        spec["use_bias"] = bool(cell.use_bias)
    spec.update(dtypes)
    return spec


def _carry_parts(kind):
    return ("c", "h") if kind in ("LSTMCell", "OptimizedLSTMCell",
                                  "ConvLSTMCell") else ("h",)


def _feature_axes(cell_spec):
    return len(cell_spec["kernel_size"]) + 1 if cell_spec["type"] == "ConvLSTMCell" else 1


def _scan_transform(cls):
    """The trafo kwargs of a linen nn.scan(CellClass, ...) class (and the
    class it lifts), or None. Flax builds such a class with a __call__
    that closes over the transform and its arguments."""
    fn = getattr(cls, "__dict__", {}).get("__call__")
    fn = getattr(fn, "_rnnc_lifted", fn)  # patched by _lifted_scan_calls
    closure = getattr(fn, "__closure__", None)
    if not closure:
        return None
    free = dict(zip(fn.__code__.co_freevars, closure))
    try:
        transform = free["transform"].cell_contents
    except (KeyError, ValueError):
        return None
    from flax.core import lift
    if transform is not lift.scan:
        return None
    return (free["module_class"].cell_contents,
            dict(free["trafo_kwargs"].cell_contents),
            tuple(free["trafo_args"].cell_contents))


def _scan_options(call, where):
    """(time axis, reverse, unroll) of an nn.scan(CellClass, ...) call,
    after checking that it is a recurrence over one sequence with the
    cell's params shared by every step."""
    _, kw, trafo_args = _scan_transform(type(call.module))
    if trafo_args:
        raise ExportError("%s: nn.scan with positional options %r" % (where, trafo_args))
    broadcast = kw.get("variable_broadcast", False)
    if not (broadcast is True or broadcast == "params" or
            isinstance(broadcast, (list, tuple)) and "params" in broadcast):
        raise ExportError("%s: variable_broadcast=%r; rnnc's cells use one set of "
                          "params at every step: variable_broadcast='params'"
                          % (where, broadcast))
    for key in ("variable_axes", "variable_carry"):
        if kw.get(key):
            raise ExportError("%s: %s=%r: rnnc's cells have no per-step or carried "
                              "variables" % (where, key, kw[key]))
    for key in ("data_transform", "methods"):
        if kw.get(key) is not None:
            raise ExportError("%s: nn.scan with %s is not supported" % (where, key))
    if len(call.args) != 2 or call.kwargs:
        raise ExportError("%s: called with %d arguments; rnnc's scan of a cell "
                          "takes (carry, inputs)" % (where, len(call.args)))
    xs, ys = np.asarray(call.args[1]), call.output[1]
    axes = []
    for key in ("in_axes", "out_axes"):
        axis = kw.get(key, 0)
        if isinstance(axis, (list, tuple)):
            axis = axis[0] if len(axis) == 1 else None
        if not isinstance(axis, int):
            raise ExportError("%s: %s=%r; rnnc scans one sequence over one axis"
                              % (where, key, kw.get(key)))
        axes.append(axis % xs.ndim if key == "in_axes" else axis % np.ndim(ys))
    if axes[0] != axes[1]:
        raise ExportError("%s: in_axes=%d but out_axes=%d; rnnc's outputs keep "
                          "the inputs' time axis" % (where, axes[0], axes[1]))
    length = kw.get("length")
    if length is not None and length != xs.shape[axes[0]]:
        raise ExportError("%s: length=%r is not the sequence length %d"
                          % (where, length, xs.shape[axes[0]]))
    return axes[0], bool(kw.get("reverse", False)), int(kw.get("unroll", 1))


def _scan_time_major(call, where):
    axis, _, _ = _scan_options(call, where)
    cls, _, _ = _scan_transform(type(call.module))
    nf = len(call.module.kernel_size) + 1 if cls.__name__ == "ConvLSTMCell" else 1
    ndim = np.ndim(call.args[1])
    if axis == ndim - nf - 1:
        return False
    if axis == 0:
        return True
    raise ExportError("%s: in_axes=%d; rnnc's time axis is the first "
                      "(time-major) or the one before the features" % (where, axis))
