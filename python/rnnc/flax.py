"""rnnc.flax.export: a Flax model (linen or NNX) as an rnnc spec + weights.

    import rnnc.flax
    ex = rnnc.flax.export(module, variables, x, seq_lengths=lengths,
                          path="out/kws")           # linen: module + variables
    ex = rnnc.flax.export(model, None, x, path="out/kws")  # nnx: the model
    ex.spec_path, ex.weights_path                   # out/kws.yaml, out/kws.npz
    m = rnnc.compile(ex.spec_path, ex.weights_path)
    flax_like = ex.outputs_like_flax(m(**ex.rnnc_inputs(x, seq_lengths=lengths)))

export runs the model once on the example arguments, recording every layer
call (linen: nn.intercept_methods; NNX: the layer classes' __call__,
patched for the duration of that one call), and checks that the model is a
chain rnnc can express: each layer reads the previous layer's output (the
first one reads an argument), seq_lengths and initial carries are
arguments (or zeros), and what the model returns are layer outputs and
carries. Anything else — a module rnnc has no layer for, an operation
between layers, a cell called outside nn.RNN — raises ExportError naming
the module path and the operation. It never writes a model that computes
something else.
"""

import functools
import re
from pathlib import Path

import numpy as np

import jax
import jax.numpy as jnp

__all__ = ["export", "Export", "ExportError"]

# Layer types the spec may accept beyond RNN and Bidirectional. Dense and
# Pool export is written (see _dense_layer); it is switched on once rnnc's
# spec takes those layers.
ENABLED_EXTRA_LAYERS = set()


class ExportError(ValueError):
    """The model cannot be expressed as an rnnc spec."""


# ----------------------------------------------------------------------------
# Activations and merge functions, recognised by identity or, failing that,
# by their values (a lambda that computes tanh is tanh).

def _activation_table():
    import flax.linen as nn
    table = [
        ("sigmoid", jax.nn.sigmoid), ("hard_sigmoid", jax.nn.hard_sigmoid),
        ("tanh", jnp.tanh), ("hard_tanh", jax.nn.hard_tanh),
        ("relu", jax.nn.relu), ("elu", jax.nn.elu), ("silu", jax.nn.silu),
        ("identity", lambda v: v),
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
                        (jax.lax.tanh, "tanh")):
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
    raise ExportError("%s: %r is not an activation rnnc has (sigmoid, "
                      "hard_sigmoid, tanh, hard_tanh, relu, elu, silu, "
                      "identity)" % (where, fn))


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


# ----------------------------------------------------------------------------
# Cells.

_CELLS = ("LSTMCell", "OptimizedLSTMCell", "GRUCell", "MGUCell", "SimpleCell",
          "ConvLSTMCell")


def _is_f32(dtype):
    return dtype is None or np.dtype(dtype) == np.float32


def _cell_spec(cell, path, layout):
    """The spec mapping of one cell (without `params`)."""
    kind = type(cell).__name__
    where = "cell %s (%s)" % (path or "<root>", kind)
    if kind not in _CELLS or type(cell).__module__.split(".")[0] != "flax":
        raise ExportError("%s: rnnc has no cell of this type (it has %s; a "
                          "subclass of one may compute something else)"
                          % (where, ", ".join(_CELLS)))
    for attr in ("dtype", "param_dtype"):
        if hasattr(cell, attr) and not _is_f32(getattr(cell, attr)):
            raise ExportError("%s: %s %s is not supported; rnnc computes in "
                              "float32" % (where, attr, getattr(cell, attr)))
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
    return spec


def _carry_parts(kind):
    return ("c", "h") if kind in ("LSTMCell", "OptimizedLSTMCell",
                                  "ConvLSTMCell") else ("h",)


def _feature_axes(cell_spec):
    return len(cell_spec["kernel_size"]) + 1 if cell_spec["type"] == "ConvLSTMCell" else 1


# ----------------------------------------------------------------------------
# Recording one run.

class _Call:
    """One recorded layer call."""

    def __init__(self, kind, module, path, args, kwargs):
        self.kind = kind          # "RNN", "Bidirectional", "Dense", ...
        self.module = module
        self.path = path          # "enc/forward_rnn" ("" for the root)
        self.args = args
        self.kwargs = kwargs
        self.output = None
        self.cell = None          # (cell module, path) for RNN
        self.children = []        # nested RNN calls of a Bidirectional


def _path_str(path):
    return "/".join(str(p) for p in path)


def _leaves(tree):
    return jax.tree_util.tree_leaves(tree)


def _same(a, b):
    return a is b


class _Recorder:
    def __init__(self, layout, classify, static_cell=None):
        self.layout = layout
        self.classify = classify
        # nnx: an RNN's cell is its `cell` attribute (inside the scan, nnx
        # calls a copy of it).
        self.static_cell = static_cell  # module -> "RNN" | "Bidirectional" | "cell" | "flax" | "user"
        self.calls = []
        self.stack = []
        self.errors = []

    def around(self, module, path, method, args, kwargs, call_next):
        kind = self.classify(module)
        active = self.stack[-1] if self.stack else None
        if active is not None:
            if active.kind == "RNN" and kind == "cell" and active.cell is None \
                    and method == "__call__":
                active.cell = (module, path)
            elif active.kind == "Bidirectional" and kind == "RNN" and method == "__call__":
                child = _Call("RNN", module, path, args, kwargs)
                if self.static_cell:
                    child.cell = self.static_cell(module)
                active.children.append(child)
                self.stack.append(child)
                try:
                    child.output = call_next()
                finally:
                    self.stack.pop()
                return child.output
            return call_next()
        if method != "__call__":
            return call_next()
        if kind in ("RNN", "Bidirectional") or kind in ENABLED_EXTRA_LAYERS:
            call = _Call(kind, module, path, args, kwargs)
            if kind == "RNN" and self.static_cell:
                call.cell = self.static_cell(module)
            self.calls.append(call)
            self.stack.append(call)
            try:
                call.output = call_next()
            finally:
                self.stack.pop()
            return call.output
        if kind == "cell":
            self.errors.append(
                "cell %s (%s) is called outside nn.RNN (a Python loop over "
                "time or an nn.scan of the cell); rnnc exports cells inside "
                "nn.RNN / nn.Bidirectional" % (path or "<root>", type(module).__name__))
        elif kind != "user":
            self.errors.append(
                "module %s (%s) has no rnnc layer (rnnc has RNN and "
                "Bidirectional%s)" % (path or "<root>", type(module).__name__,
                                      "".join(", " + k for k in sorted(ENABLED_EXTRA_LAYERS))))
        return call_next()


def _linen_classify(module):
    import flax.linen as nn
    if type(module) is nn.RNN:
        return "RNN"
    if type(module) is nn.Bidirectional:
        return "Bidirectional"
    if isinstance(module, nn.RNNCellBase):
        return "cell"
    if type(module) is nn.Dense:
        return "Dense"
    if type(module) is nn.Sequential:
        return "user"  # a container: its layers are seen one by one
    top = type(module).__module__.split(".")[0]
    return "flax" if top == "flax" else "user"


def _nnx_classify(module):
    from flax import nnx
    if type(module) is nnx.RNN:
        return "RNN"
    if type(module) is nnx.Bidirectional:
        return "Bidirectional"
    if isinstance(module, nnx.RNNCellBase):
        return "cell"
    if type(module) is nnx.Linear:
        return "Dense"
    if type(module) is nnx.Sequential:
        return "user"
    top = type(module).__module__.split(".")[0]
    return "flax" if top == "flax" else "user"


def _record_linen(module, variables, args, kwargs):
    import flax.linen as nn
    rec = _Recorder("linen", _linen_classify)

    def interceptor(next_fun, a, kw, context):
        mod = context.module
        path = _path_str(mod.path) if mod.scope is not None else ""
        return rec.around(mod, path, context.method_name, a, kw,
                          lambda: next_fun(*a, **kw))

    with nn.intercept_methods(interceptor):
        out = module.apply(variables, *args, **kwargs)
    return rec, out


def _record_nnx(model, args, kwargs):
    from flax import nnx
    paths = {}
    for path, node in nnx.graph.iter_graph(model):
        if isinstance(node, nnx.Module):
            paths.setdefault(id(node), _path_str(path))
    rec = _Recorder("nnx", _nnx_classify,
                    lambda rnn: (rnn.cell, paths.get(id(rnn.cell), "")))
    classes = set()
    for _, node in nnx.graph.iter_graph(model):
        if isinstance(node, nnx.Module):
            classes.add(type(node))
    originals = {}

    def patch(cls):
        orig = cls.__dict__.get("__call__")
        if orig is None:
            return

        @functools.wraps(orig)
        def wrapper(self, *a, **kw):
            if id(self) not in paths:  # a module made during the call
                return orig(self, *a, **kw)
            return rec.around(self, paths[id(self)], "__call__", a, kw,
                              lambda: orig(self, *a, **kw))
        originals[cls] = orig
        cls.__call__ = wrapper

    # Patch every class on the MRO that defines __call__, so subclasses that
    # call super() are seen once (the outermost wins: the stack check).
    for cls in classes:
        for base in cls.__mro__:
            if base in originals or base is object:
                continue
            if "__call__" in base.__dict__ and issubclass(base, nnx.Module):
                patch(base)
    try:
        out = model(*args, **kwargs)
    finally:
        for cls, orig in originals.items():
            cls.__call__ = orig
    return rec, out


def _outside_ops(module, variables, args, kwargs):
    """The operations of the model that run outside every layer and depend
    on its arguments, as "primitive (file:line)": the model traced to a
    jaxpr with each layer call in a named scope of its own."""
    from flax import nnx
    import flax.linen as nn
    from jax._src import source_info_util

    tag = "rnnc_export_layer"
    depth = [0]

    def scoped(kind, call_next):
        if depth[0] or kind not in ("RNN", "Bidirectional") and kind not in ENABLED_EXTRA_LAYERS:
            return call_next()
        depth[0] += 1
        try:
            with jax.named_scope(tag):
                return call_next()
        finally:
            depth[0] -= 1

    if isinstance(module, nnx.Module):
        graphdef, state = nnx.split(module)
        originals = {}
        for cls in (nnx.RNN, nnx.Bidirectional):
            orig = cls.__dict__["__call__"]
            originals[cls] = orig

            def wrapper(self, *a, _orig=orig, **kw):
                return scoped(_nnx_classify(self), lambda: _orig(self, *a, **kw))
            cls.__call__ = wrapper

        def fn(state, a, kw):
            return nnx.merge(graphdef, state)(*a, **kw)
        try:
            jaxpr = jax.make_jaxpr(fn)(state, args, kwargs)
        finally:
            for cls, orig in originals.items():
                cls.__call__ = orig
    else:
        def interceptor(next_fun, a, kw, context):
            if context.method_name != "__call__":
                return next_fun(*a, **kw)
            return scoped(_linen_classify(context.module), lambda: next_fun(*a, **kw))

        def fn(a, kw):
            with nn.intercept_methods(interceptor):
                return module.apply(variables, *a, **kw)
        jaxpr = jax.make_jaxpr(fn)(args, kwargs)
    live = set(jaxpr.jaxpr.invars)
    found = []
    for eqn in jaxpr.jaxpr.eqns:
        if not any(v in live for v in eqn.invars if hasattr(v, "aval") and
                   not hasattr(v, "val")):
            continue
        live.update(eqn.outvars)
        if tag in str(eqn.source_info.name_stack):
            continue
        found.append("%s (%s)" % (eqn.primitive.name,
                                  source_info_util.summarize(eqn.source_info)))
    return found


def _explain(builder, message):
    """`message`, plus the operations outside the layers, when they can be found."""
    try:
        ops = _outside_ops(builder.root, builder.variables, builder.args, builder.kwargs)
    except Exception:  # noqa: BLE001
        ops = []
    if ops:
        message += "; the operation%s outside the layers: %s" % (
            "s" if len(ops) > 1 else "", ", ".join(ops[:4]))
    return ExportError(message)


# ----------------------------------------------------------------------------
# From the recorded calls to a spec.

class Export:
    """What export wrote: `spec` (a dict), `spec_path`, `weights_path`,
    `weights` ({key: array}), `input_names` (a pytree like the example
    arguments, each leaf the rnnc input name it feeds, or None) and
    `output_names` (a pytree like the model's return value, each leaf the
    rnnc output name holding it)."""

    def __init__(self, spec, weights, input_names, output_names, spec_path,
                 weights_path):
        self.spec = spec
        self.weights = weights
        self.input_names = input_names
        self.output_names = output_names
        self.spec_path = spec_path
        self.weights_path = weights_path

    def rnnc_inputs(self, *args, **kwargs):
        """The example arguments' layout, as keyword arguments of an
        rnnc.Model call: {"x": ..., "seq_lengths": ..., "<layer>/c": ...}."""
        given = jax.tree_util.tree_leaves((args, kwargs), is_leaf=lambda v: v is None)
        names = jax.tree_util.tree_leaves(self.input_names, is_leaf=lambda v: v is None)
        if len(given) != len(names):
            raise ValueError("expected arguments shaped like the example arguments")
        out = {}
        for name, value in zip(names, given):
            if name is None:
                continue
            key = name[len("initial_carry/"):] if name.startswith("initial_carry/") else name
            out[key] = np.asarray(value)
        return out

    def outputs_like_flax(self, outputs):
        """rnnc.Model outputs rearranged like the Flax model's return value."""
        return jax.tree_util.tree_map(lambda name: outputs[name], self.output_names)


def _c_identifier(text):
    name = re.sub(r"[^A-Za-z0-9_]", "_", text)
    if not name or name[0].isdigit():
        name = "m_" + name
    return name


def export(module, variables, *example_args, path, name=None,
           weights_format=None, **example_kwargs):
    """Exports a Flax model to `path`.yaml and `path`.npz (or .safetensors:
    weights_format="safetensors", or a path ending in it).

    linen: `module` is the nn.Module and `variables` what init returned
    ({"params": ...}); nnx: `module` is the nnx.Module and `variables` is
    None (or nnx.state(model, nnx.Param)). The model is run once on
    `example_args` / `example_kwargs` (as module.apply / model(...) takes
    them); the inputs' shapes become the spec's static shapes."""
    from flax import nnx
    from flax import traverse_util
    path = Path(path)
    if path.suffix in (".yaml", ".npz", ".safetensors"):
        if path.suffix == ".safetensors" and weights_format is None:
            weights_format = "safetensors"
        path = path.with_suffix("")
    weights_format = weights_format or "npz"
    if weights_format not in ("npz", "safetensors"):
        raise ValueError("weights_format must be 'npz' or 'safetensors'")

    if isinstance(module, nnx.Module):
        layout = "nnx"
        rec, out = _record_nnx(module, example_args, example_kwargs)
        state = nnx.state(module, nnx.Param)
        flat = {"/".join(map(str, k)): v for k, v in
                traverse_util.flatten_dict(nnx.to_pure_dict(state)).items()}
        default_name = type(module).__name__
    else:
        layout = "linen"
        rec, out = _record_linen(module, variables, example_args, example_kwargs)
        params = variables.get("params", variables) if hasattr(variables, "get") else variables
        flat = traverse_util.flatten_dict(dict(params), sep="/") if params else {}
        default_name = type(module).__name__
    flat = {str(k): np.asarray(v) for k, v in flat.items()}
    if rec.errors:
        raise ExportError(rec.errors[0])
    if not rec.calls:
        raise ExportError("%s calls no nn.RNN or nn.Bidirectional: nothing for "
                          "rnnc to compile" % type(module).__name__)
    builder = _SpecBuilder(layout, rec.calls, example_args, example_kwargs, out, flat)
    builder.root, builder.variables = module, variables
    spec, weights, input_names, output_names = builder.build(
        _c_identifier(name or default_name.lower()))

    path.parent.mkdir(parents=True, exist_ok=True)
    spec_path = path.with_suffix(".yaml")
    spec_path.write_text(_yaml(spec))
    if weights_format == "npz":
        weights_path = path.with_suffix(".npz")
        np.savez(weights_path, **weights)
    else:
        weights_path = path.with_suffix(".safetensors")
        _write_safetensors(weights_path, weights)
    return Export(spec, weights, input_names, output_names, spec_path, weights_path)


class _SpecBuilder:
    def __init__(self, layout, calls, args, kwargs, out, flat):
        self.layout = layout
        self.calls = calls
        self.args = args
        self.kwargs = kwargs
        self.out = out
        self.flat = flat
        self.arg_leaves = jax.tree_util.tree_leaves((args, kwargs))
        self.input_role = {}   # id(leaf) -> rnnc input name

    def _is_arg(self, value):
        return any(_same(value, leaf) for leaf in self.arg_leaves)

    def _name_input(self, value, name, where):
        prev = self.input_role.get(id(value))
        if prev is not None and prev != name:
            raise ExportError("%s: argument used both as %s and as %s" % (where, prev, name))
        self.input_role[id(value)] = name

    def _opt(self, call, key, attr_default):
        value = call.kwargs.get(key)
        return attr_default if value is None else value

    def build(self, model_name):
        layers, used_prefixes = [], []
        names_taken = set()
        seq_lengths = None
        time_major = None
        prev_output = None
        carry_outputs = {}   # id(leaf) -> rnnc output name
        x0 = None
        for k, call in enumerate(self.calls):
            where = "%s %s" % (call.kind, call.path or "<root>")
            inputs = call.args[0] if call.args else call.kwargs.get("inputs")
            if inputs is None:
                raise ExportError("%s: called without inputs" % where)
            if k == 0:
                if not self._is_arg(inputs):
                    raise _explain(self,
                        "%s: its input is computed from the model's arguments by "
                        "an operation outside any layer (%s); rnnc's model input "
                        "is the first layer's input" % (where, _describe(inputs)))
                self._name_input(inputs, "x", where)
                x0 = inputs
            elif not _same(inputs, prev_output) and "Pool" in ENABLED_EXTRA_LAYERS and \
                    _pool_fn(prev_output, inputs, time_major) is not None:
                # x[:, -1], jnp.mean(x, axis=1), ... between two layers.
                layers.append({"type": "Pool", "name": "pool_%d" % k,
                               "fn": _pool_fn(prev_output, inputs, time_major)})
            elif not _same(inputs, prev_output):
                prev = self.calls[k - 1]
                raise _explain(self,
                    "%s: its input is not the output of the previous layer %s %s: "
                    "an operation between the two layers (%s) that rnnc cannot "
                    "express" % (where, prev.kind, prev.path or "<root>",
                                 _describe(inputs)))
            mod = call.module
            if call.kind not in ("RNN", "Bidirectional"):
                lname = _c_layer_name(call, k, names_taken)
                layer, output, prefixes = _extra_layer(call, lname, where, self.layout)
                layers.append(layer)
                used_prefixes += prefixes
                prev_output = output
                call._rnnc_lengths, call._rnnc_name = None, lname
                continue
            # Options shared by every layer kind that scans.
            tm = bool(self._opt(call, "time_major", mod.time_major))
            if time_major is None:
                time_major = tm
            elif tm != time_major:
                raise ExportError("%s: time_major=%s, but an earlier layer has "
                                  "time_major=%s; rnnc's model has one layout"
                                  % (where, tm, time_major))
            lengths = call.kwargs.get("seq_lengths")
            if lengths is not None:
                if not self._is_arg(lengths):
                    raise _explain(self, "%s: seq_lengths is computed inside the model "
                                      "(%s); pass it as an argument" % (where, _describe(lengths)))
                if seq_lengths is None:
                    seq_lengths = lengths
                elif not _same(lengths, seq_lengths):
                    raise ExportError("%s: seq_lengths differ from an earlier "
                                      "layer's; rnnc's model has one" % where)
                self._name_input(lengths, "seq_lengths", where)
            lname = _c_layer_name(call, k, names_taken)
            layer, output, carries, prefixes = self._layer(call, lname, where, lengths)
            layers.append(layer)
            used_prefixes += prefixes
            for leaf, cname in carries:
                carry_outputs[id(leaf)] = cname
            prev_output = output
            call._rnnc_lengths = lengths
            call._rnnc_name = lname
        # Layers called without seq_lengths while the model has them.
        if seq_lengths is not None:
            scans = [layer for layer in layers if layer["type"] in ("RNN", "Bidirectional")]
            for call, layer in zip([c for c in self.calls
                                    if c.kind in ("RNN", "Bidirectional")], scans):
                if call._rnnc_lengths is None and (layer.get("return_carry") or
                                                   layer.get("reverse") or
                                                   layer["type"] == "Bidirectional"):
                    raise ExportError(
                        "%s %s is called without seq_lengths, but another layer "
                        "uses them; in rnnc the lengths apply to every layer, and "
                        "this layer's result would change" % (call.kind, call.path))
        # The return value: layer outputs and carries only.
        y_name = {id(prev_output): "y"}

        def name_output(leaf):
            if id(leaf) in y_name:
                return "y"
            if id(leaf) in carry_outputs:
                return carry_outputs[id(leaf)]
            raise _explain(self,
                "the model returns a value that is neither the last layer's "
                "output nor a layer's carry (%s): an operation after the layers "
                "that rnnc cannot express" % _describe(leaf))

        output_names = jax.tree_util.tree_map(name_output, self.out)
        # Drop return_carry on layers whose carry is not returned? No: keep
        # what Flax returns; unreturned carries are still outputs of rnnc.

        # Every argument leaf is an rnnc input or unused.
        input_names = jax.tree_util.tree_map(
            lambda leaf: self.input_role.get(id(leaf)), (self.args, self.kwargs))

        # Shapes.
        x = np.asarray(x0)
        if x.dtype != np.float32:
            raise ExportError("the input x is %s; rnnc models take float32" % x.dtype)
        first = layers[0]
        cell0 = first["cell"] if first["type"] == "RNN" else first["forward_rnn"]["cell"]
        nf = _feature_axes(cell0)
        if x.ndim < nf + 1:
            raise ExportError("the input x has shape %s: too few dims" % (x.shape,))
        feats = list(x.shape[x.ndim - nf:])
        if time_major:
            time, batch = x.shape[0], list(x.shape[1:x.ndim - nf])
        else:
            time, batch = x.shape[x.ndim - nf - 1], list(x.shape[:x.ndim - nf - 1])
        if seq_lengths is not None:
            sl = np.asarray(seq_lengths)
            if tuple(sl.shape) != tuple(batch):
                raise ExportError("seq_lengths has shape %s; rnnc needs the batch "
                                  "shape %s" % (sl.shape, tuple(batch)))
            if not np.issubdtype(sl.dtype, np.integer):
                raise ExportError("seq_lengths is %s, not an integer array" % sl.dtype)
        spec = {
            "rnnc": 1,
            "name": model_name,
            "params_layout": self.layout,
            "input": {
                "batch": [int(b) for b in batch],
                "time": int(time),
                "features": int(feats[0]) if nf == 1 else [int(f) for f in feats],
                "time_major": bool(time_major),
                "seq_lengths": seq_lengths is not None,
            },
            "layers": layers,
        }
        # Weights: exactly the params under the cells' paths.
        weights = {}
        for key, value in self.flat.items():
            if any(key == p or key.startswith(p + "/") for p in used_prefixes):
                weights[key] = np.asarray(value, dtype=np.float32) \
                    if value.dtype != np.float32 else value
        unused = sorted(k for k in self.flat if k not in weights)
        if unused:
            raise ExportError("params %s are not read by any layer rnnc exports "
                              "(a module rnnc does not see?)" % ", ".join(unused[:6]))
        return spec, weights, input_names, output_names

    def _cell(self, rnn_call, where):
        if rnn_call.cell is None:
            raise ExportError("%s: its cell was never called" % where)
        cell, cpath = rnn_call.cell
        spec = _cell_spec(cell, cpath, self.layout)
        spec["params"] = cpath
        return spec, cpath

    def _initial(self, init, parts_per_dir, key_per_dir, where):
        """initial_carry of one layer: "zeros" or "input" (naming the args)."""
        if init is None:
            return "zeros"
        leaves = _leaves(init)
        if all(self._is_arg(leaf) for leaf in leaves):
            names = []
            for key, parts in zip(key_per_dir, parts_per_dir):
                names += ["initial_carry/%s/%s" % (key, p) for p in parts]
            if len(names) != len(leaves):
                raise ExportError("%s: initial_carry has %d arrays, expected %d"
                                  % (where, len(leaves), len(names)))
            for leaf, name in zip(leaves, names):
                self._name_input(leaf, name, where)
            return "input"
        if all(not isinstance(leaf, jax.core.Tracer) and
               not np.any(np.asarray(leaf)) for leaf in leaves):
            return "zeros"
        raise ExportError("%s: initial_carry is neither an argument of the model "
                          "nor zeros (%s)" % (where, _describe(leaves[0])))

    def _check_carry_init(self, cell, where):
        init = getattr(cell, "carry_init", None)
        if init is None:
            return
        value = np.asarray(init(jax.random.key(0), (2, 3), jnp.float32))
        if np.any(value):
            raise ExportError("%s: carry_init gives a non-zero initial carry; pass "
                              "it as initial_carry instead" % where)

    def _layer(self, call, lname, where, lengths):
        mod = call.module
        return_carry = bool(self._opt(call, "return_carry", mod.return_carry))
        output = call.output
        if call.kind == "RNN":
            cell, cpath = self._cell(call, where)
            reverse = bool(self._opt(call, "reverse", mod.reverse))
            keep_order = bool(self._opt(call, "keep_order", mod.keep_order))
            layer = {"type": "RNN", "name": lname, "cell": cell}
            if reverse:
                layer["reverse"] = True
                if keep_order:
                    layer["keep_order"] = True
            unroll = int(mod.unroll)
            if unroll != 1:
                layer["unroll"] = unroll
            parts = _carry_parts(cell["type"])
            init = call.kwargs.get("initial_carry")
            if init is None:
                self._check_carry_init(call.cell[0], where)
            layer["initial_carry"] = self._initial(init, [parts], [lname], where)
            carries = []
            if return_carry:
                layer["return_carry"] = True
                carry, y = output
                carries = list(zip(_leaves(carry),
                                   ["carry/%s/%s" % (lname, p) for p in parts]))
            else:
                y = output
            return layer, y, carries, [cpath]
        if call.kind == "Bidirectional":
            if len(call.children) != 2:
                raise ExportError("%s: expected a forward and a backward RNN call, "
                                  "saw %d" % (where, len(call.children)))
            dirs, prefixes, parts_all = [], [], []
            for child, dname in zip(call.children, ("forward_rnn", "backward_rnn")):
                cwhere = "%s %s" % (where, dname)
                cell, cpath = self._cell(child, cwhere)
                d = {"cell": cell}
                if int(child.module.unroll) != 1:
                    d["unroll"] = int(child.module.unroll)
                dirs.append(d)
                prefixes.append(cpath)
                parts_all.append(_carry_parts(cell["type"]))
                if call.kwargs.get("initial_carry") is None:
                    self._check_carry_init(child.cell[0], cwhere)
            layer = {"type": "Bidirectional", "name": lname,
                     "forward_rnn": dirs[0], "backward_rnn": dirs[1],
                     "merge_fn": _merge_name(mod.merge_fn, where)}
            layer["initial_carry"] = self._initial(
                call.kwargs.get("initial_carry"), parts_all,
                [lname + "/forward", lname + "/backward"], where)
            carries = []
            if return_carry:
                layer["return_carry"] = True
                (cf, cb), y = output
                carries = list(zip(_leaves(cf), ["carry/%s/forward/%s" % (lname, p)
                                                 for p in parts_all[0]]))
                carries += list(zip(_leaves(cb), ["carry/%s/backward/%s" % (lname, p)
                                                  for p in parts_all[1]]))
            else:
                y = output
            return layer, y, carries, prefixes
        raise ExportError("%s: rnnc's spec has no %s layer yet" % (where, call.kind))


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
    for fn, want in (("last", np.take(a, -1, axis)), ("first", np.take(a, 0, axis)),
                     ("mean", a.mean(axis)), ("max", a.max(axis)), ("sum", a.sum(axis))):
        if want.shape == b.shape and np.allclose(want, b, rtol=1e-6, atol=1e-6):
            return fn
    return None


def _extra_layer(call, lname, where, layout):
    """Layers other than scans (behind ENABLED_EXTRA_LAYERS): Dense (linen
    nn.Dense, nnx.Linear) on the last axis."""
    mod = call.module
    if call.kind == "Dense":
        for attr in ("dtype", "param_dtype"):
            if not _is_f32(getattr(mod, attr, None)):
                raise ExportError("%s: %s %s is not supported" % (where, attr,
                                                                getattr(mod, attr)))
        features = mod.out_features if layout == "nnx" else mod.features
        if not isinstance(features, int):
            raise ExportError("%s: features %r: rnnc's Dense has one output axis"
                              % (where, features))
        layer = {"type": "Dense", "name": lname, "features": int(features),
                 "use_bias": bool(mod.use_bias), "params": call.path}
        return layer, call.output, [call.path]
    raise ExportError("%s: rnnc's spec has no %s layer yet" % (where, call.kind))


def _c_layer_name(call, k, taken):
    base = call.path.split("/")[-1] if call.path else call.kind.lower()
    name = base if base else "layers_%d" % k
    if name in taken:
        name = call.path.replace("/", "_") or "layers_%d" % k
    while name in taken:
        name += "_"
    taken.add(name)
    return name


def _describe(value):
    try:
        a = np.asarray(value)
        return "a %s array of shape %s" % (a.dtype, a.shape)
    except Exception:  # noqa: BLE001
        return type(value).__name__


# ----------------------------------------------------------------------------
# Files.

def _yaml(value, indent=0):
    """A small YAML writer for the spec (block mappings, flow lists)."""
    pad = "  " * indent
    lines = []
    if isinstance(value, dict):
        for key, v in value.items():
            if isinstance(v, dict):
                lines.append("%s%s:" % (pad, key))
                lines.append(_yaml(v, indent + 1))
            elif isinstance(v, list) and v and isinstance(v[0], dict):
                lines.append("%s%s:" % (pad, key))
                for item in v:
                    body = _yaml(item, indent + 2).splitlines()
                    lines.append("%s  - %s" % (pad, body[0].strip()))
                    lines += body[1:]
            else:
                lines.append("%s%s: %s" % (pad, key, _scalar(v)))
        return "\n".join(lines) + ("\n" if indent == 0 else "")
    raise TypeError(value)


def _scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, list):
        return "[" + ", ".join(_scalar(x) for x in v) + "]"
    text = str(v)
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_/]*", text) and text.lower() not in (
            "true", "false", "null", "yes", "no", "on", "off", "y", "n"):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _write_safetensors(path, arrays):
    import json
    header, offset, blobs = {}, 0, []
    for key in sorted(arrays):
        a = np.ascontiguousarray(arrays[key], dtype=np.float32)
        data = a.tobytes()
        header[key] = {"dtype": "F32", "shape": list(a.shape),
                       "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little"))
        f.write(text)
        for data in blobs:
            f.write(data)
