"""Recording one run of the model: every layer call (linen:
nn.intercept_methods, plus the lifted nn.scan classes it does not see;
NNX: the layer classes' __call__, patched for that one call), and the
operations outside the layers, for error messages."""

import contextlib
import functools

import jax

from ._cells import _scan_transform
from ._common import LAYER_KINDS, ExportError, _path_str


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

    def _run(self, call, call_next):
        """Runs the layer with `call` innermost on the stack; records its output."""
        self.stack.append(call)
        try:
            call.output = call_next()
        finally:
            self.stack.pop()
        return call.output

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
                return self._run(child, call_next)
            return call_next()
        if method != "__call__":
            return call_next()
        if kind in LAYER_KINDS:
            call = _Call(kind, module, path, args, kwargs)
            if kind == "RNN" and self.static_cell:
                call.cell = self.static_cell(module)
            if kind == "Scan":
                call.cell = (module, path)
            self.calls.append(call)
            return self._run(call, call_next)
        if kind == "cell":
            self.errors.append(
                "cell %s (%s) is called outside nn.RNN (a Python loop over "
                "time or a function scanned over time); rnnc exports cells inside "
                "nn.RNN / nn.Bidirectional, or a cell class lifted by nn.scan"
                % (path or "<root>", type(module).__name__))
        elif kind != "user":
            self.errors.append(
                "module %s (%s) has no rnnc layer (rnnc has RNN, Bidirectional, "
                "nn.scan of a cell, Dense, Embed, LayerNorm, Dropout, and "
                "activations and pooling over time between them)"
                % (path or "<root>", type(module).__name__))
        return call_next()


def _classify(module, kinds, cell_base):
    kind = kinds.get(type(module))
    if kind is not None:
        return kind
    if _scan_transform(type(module)) is not None:
        return "Scan"
    if isinstance(module, cell_base):
        return "cell"
    top = type(module).__module__.split(".")[0]
    return "flax" if top == "flax" else "user"


def _linen_classify(module):
    import flax.linen as nn
    return _classify(module, {
        nn.RNN: "RNN", nn.Bidirectional: "Bidirectional", nn.Dense: "Dense",
        nn.Embed: "Embed", nn.LayerNorm: "LayerNorm", nn.Dropout: "Dropout",
        nn.Sequential: "user",  # a container: its layers are seen one by one
    }, nn.RNNCellBase)


def _nnx_classify(module):
    from flax import nnx
    return _classify(module, {
        nnx.RNN: "RNN", nnx.Bidirectional: "Bidirectional", nnx.Linear: "Dense",
        nnx.Embed: "Embed", nnx.LayerNorm: "LayerNorm", nnx.Dropout: "Dropout",
        nnx.Sequential: "user",
    }, nnx.RNNCellBase)


@contextlib.contextmanager
def _lifted_scan_calls(hook):
    """Calls hook(module, args, kwargs, call_next) around every call of a
    linen nn.scan(CellClass, ...) module made during the block.
    nn.intercept_methods does not see those calls (flax copies the lifted
    method's "already wrapped" flag from the cell's), so each such class
    whose instance is created is patched for the duration."""
    import flax.linen as nn
    patched = {}
    post_init = nn.Module.__post_init__

    def patched_post_init(self, *a, **kw):
        cls = type(self)
        if cls not in patched and _scan_transform(cls) is not None:
            original = cls.__dict__["__call__"]

            @functools.wraps(original)
            def call(module, *args, **kwargs):
                return hook(module, args, kwargs,
                            lambda: original(module, *args, **kwargs))
            call._rnnc_lifted = original
            patched[cls] = original
            cls.__call__ = call
        return post_init(self, *a, **kw)

    nn.Module.__post_init__ = patched_post_init
    try:
        yield
    finally:
        nn.Module.__post_init__ = post_init
        for cls, original in patched.items():
            cls.__call__ = original


def _record_linen(module, variables, args, kwargs):
    import flax.linen as nn
    rec = _Recorder("linen", _linen_classify)

    def path_of(mod):
        return _path_str(mod.path) if mod.scope is not None else ""

    def interceptor(next_fun, a, kw, context):
        return rec.around(context.module, path_of(context.module),
                          context.method_name, a, kw, lambda: next_fun(*a, **kw))

    def scan_hook(mod, a, kw, call_next):
        return rec.around(mod, path_of(mod), "__call__", a, kw, call_next)

    with nn.intercept_methods(interceptor), _lifted_scan_calls(scan_hook):
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
        if depth[0] or kind not in LAYER_KINDS:
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
        for cls in (nnx.RNN, nnx.Bidirectional, nnx.Linear, nnx.Embed,
                    nnx.LayerNorm, nnx.Dropout):
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
            with nn.intercept_methods(interceptor), _lifted_scan_calls(
                    lambda mod, a_, kw_, call_next: scoped("Scan", call_next)):
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
