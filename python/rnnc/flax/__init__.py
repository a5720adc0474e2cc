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

import re
from pathlib import Path

import numpy as np

import jax

from ._builder import _SpecBuilder
from ._common import RECURRENT_KINDS, ExportError
from ._files import _write_safetensors, _yaml
from ._recording import _record_linen, _record_nnx

__all__ = ["export", "Export", "ExportError"]


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

    arg_leaves, arg_treedef = jax.tree_util.tree_flatten((example_args, example_kwargs))
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
    if not any(call.kind in RECURRENT_KINDS for call in rec.calls):
        raise ExportError("%s calls no nn.RNN, nn.Bidirectional or nn.scan of a "
                          "cell: nothing for rnnc to compile" % type(module).__name__)
    builder = _SpecBuilder(layout, rec.calls, example_args, example_kwargs, out,
                           flat, arg_leaves, arg_treedef)
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
