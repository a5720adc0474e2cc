"""From the recorded layer calls to a spec, its weights and the names of
the model's inputs and outputs."""

import numpy as np

import jax
import jax.numpy as jnp

from ._cells import (_carry_parts, _cell_spec, _feature_axes, _scan_options,
                     _scan_time_major, _scan_transform)
from ._common import (RECURRENT_KINDS, ExportError, _describe, _leaves, _same)
from ._functions import _merge_name
from ._layers import _append_bridge, _bridge, _extra_layer
from ._recording import _explain


class _SpecBuilder:
    def __init__(self, layout, calls, args, kwargs, out, flat, arg_leaves,
                 arg_treedef):
        self.layout = layout
        self.calls = calls
        self.args = args
        self.kwargs = kwargs
        self.out = out
        self.flat = flat
        # The arguments' leaves as they were before the run: a model may
        # store its new carries into a list it was given (the seed model).
        self.arg_leaves = arg_leaves
        self.arg_treedef = arg_treedef
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
        self.seq_lengths = None
        self.time_major = None
        prev_output = None
        prev_scan = None     # (layer, call) of the closest recurrent layer
        has_time = True
        carry_outputs = {}   # id(leaf) -> rnnc output name
        x0 = None
        for k, call in enumerate(self.calls):
            where = "%s %s" % ("nn.scan" if call.kind == "Scan" else call.kind,
                               call.path or "<root>")
            inputs = _call_input(call)
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
            elif not _same(inputs, prev_output):
                bridge = _bridge(prev_output, inputs, self.time_major, has_time,
                                 prev_scan)
                if bridge is None:
                    prev = self.calls[k - 1]
                    raise _explain(self,
                        "%s: its input is not the output of the previous layer %s %s: "
                        "an operation between the two layers (%s) that rnnc cannot "
                        "express" % (where, prev.kind, prev.path or "<root>",
                                     _describe(inputs)))
                has_time = _append_bridge(layers, bridge, has_time, names_taken)
            if call.kind in RECURRENT_KINDS and not has_time:
                raise ExportError("%s reads a value without a time axis (after "
                                  "pooling over time)" % where)
            if call.kind == "Embed" and k != 0:
                raise ExportError("%s: rnnc's Embed can only be the first layer" % where)
            lname = _c_layer_name(call, k, names_taken)
            call._rnnc_lengths, call._rnnc_name = None, lname
            if call.kind not in RECURRENT_KINDS:
                layer, output, prefixes = _extra_layer(call, lname, where, self.layout)
                layers.append(layer)
                used_prefixes += prefixes
                prev_output = output
                continue
            self._check_time_major(call, where)
            lengths = self._lengths(call, where)
            layer, output, carries, prefixes = self._layer(call, lname, where, lengths)
            call._rnnc_layer, call._rnnc_carries = layer, carries
            layers.append(layer)
            used_prefixes += prefixes
            for leaf, cname in carries:
                carry_outputs[id(leaf)] = cname
            prev_output = output
            prev_scan = (layer, call, carries)
            call._rnnc_lengths = lengths
        self._check_lengths_everywhere(layers)
        y_leaf = self._returned_sequence(prev_output, carry_outputs, layers,
                                         has_time, prev_scan, names_taken)

        def name_output(leaf):
            if _same(leaf, y_leaf):
                return "y"
            if id(leaf) in carry_outputs:
                return carry_outputs[id(leaf)]
            raise _explain(self,
                "the model returns a value that is neither the last layer's "
                "output nor a layer's carry (%s): an operation after the layers "
                "that rnnc cannot express" % _describe(leaf))

        output_names = jax.tree_util.tree_map(name_output, self.out)
        returned = {id(leaf) for leaf in _leaves(self.out)}
        for call in self.calls:
            if call.kind == "Scan" and any(id(leaf) in returned
                                           for leaf, _ in call._rnnc_carries):
                call._rnnc_layer["return_carry"] = True
        input_names = self.arg_treedef.unflatten(
            [self.input_role.get(id(leaf)) for leaf in self.arg_leaves])
        spec = {"rnnc": 1, "name": model_name, "params_layout": self.layout,
                "input": self._input(x0, layers), "layers": layers}
        return spec, self._weights(used_prefixes), input_names, output_names

    def _returned_sequence(self, last, carry_outputs, layers, has_time,
                           prev_scan, names_taken):
        """The leaf of the return value that is rnnc's `y`: the last layer's
        output, or a pooling / activation of it (appended as layers)."""
        leaves = _leaves(self.out)
        if any(_same(leaf, last) for leaf in leaves):
            return last
        others = [leaf for leaf in leaves if id(leaf) not in carry_outputs]
        if len(others) == 1:
            bridge = _bridge(last, others[0], self.time_major, has_time, prev_scan)
            if bridge is not None:
                _append_bridge(layers, bridge, has_time, names_taken)
                return others[0]
        return last

    def _check_time_major(self, call, where):
        if call.kind == "Scan":
            tm = _scan_time_major(call, where)
        else:
            tm = bool(self._opt(call, "time_major", call.module.time_major))
        if self.time_major is None:
            self.time_major = tm
        elif tm != self.time_major:
            raise ExportError("%s: time_major=%s, but an earlier layer has "
                              "time_major=%s; rnnc's model has one layout"
                              % (where, tm, self.time_major))

    def _lengths(self, call, where):
        lengths = call.kwargs.get("seq_lengths") if call.kind != "Scan" else None
        if lengths is None:
            return None
        if not self._is_arg(lengths):
            raise _explain(self, "%s: seq_lengths is computed inside the model "
                              "(%s); pass it as an argument" % (where, _describe(lengths)))
        if self.seq_lengths is None:
            self.seq_lengths = lengths
        elif not _same(lengths, self.seq_lengths):
            raise ExportError("%s: seq_lengths differ from an earlier "
                              "layer's; rnnc's model has one" % where)
        self._name_input(lengths, "seq_lengths", where)
        return lengths

    def _check_lengths_everywhere(self, layers):
        """Layers called without seq_lengths while the model has them."""
        if self.seq_lengths is None:
            return
        for call in self.calls:
            if call.kind not in RECURRENT_KINDS or call._rnnc_lengths is not None:
                continue
            layer = call._rnnc_layer
            if call.kind == "Scan" or layer.get("return_carry") or \
                    layer.get("reverse") or layer["type"] == "Bidirectional":
                raise ExportError(
                    "%s %s is called without seq_lengths, but another layer "
                    "uses them; in rnnc the lengths apply to every layer, and "
                    "this layer's result would change" % (call.kind, call.path))

    def _input(self, x0, layers):
        x = np.asarray(x0)
        first = layers[0]
        if first["type"] == "Embed":
            if x.dtype != np.int32:
                raise ExportError("the input x (token ids of the Embed layer) is "
                                  "%s; rnnc takes int32 ids" % x.dtype)
            nf = 0
        else:
            if x.dtype != np.float32:
                raise ExportError("the input x is %s; rnnc models take float32" % x.dtype)
            nf = _feature_axes(_first_cell(layers)) if first["type"] in (
                "RNN", "Bidirectional") else 1
        if x.ndim < nf + 1:
            raise ExportError("the input x has shape %s: too few dims" % (x.shape,))
        feats = list(x.shape[x.ndim - nf:])
        if self.time_major:
            time, batch = x.shape[0], list(x.shape[1:x.ndim - nf])
        else:
            time, batch = x.shape[x.ndim - nf - 1], list(x.shape[:x.ndim - nf - 1])
        if self.seq_lengths is not None:
            sl = np.asarray(self.seq_lengths)
            if tuple(sl.shape) != tuple(batch):
                raise ExportError("seq_lengths has shape %s; rnnc needs the batch "
                                  "shape %s" % (sl.shape, tuple(batch)))
            if not np.issubdtype(sl.dtype, np.integer):
                raise ExportError("seq_lengths is %s, not an integer array" % sl.dtype)
        spec = {"batch": [int(b) for b in batch], "time": int(time)}
        if nf:
            spec["features"] = int(feats[0]) if nf == 1 else [int(f) for f in feats]
        spec["time_major"] = bool(self.time_major)
        spec["seq_lengths"] = self.seq_lengths is not None
        return spec

    def _weights(self, used_prefixes):
        """Exactly the params under the layers' paths."""
        weights = {}
        for key, value in self.flat.items():
            if any(key == p or key.startswith(p + "/") for p in used_prefixes):
                weights[key] = np.asarray(value, dtype=np.float32) \
                    if value.dtype != np.float32 else value
        unused = sorted(k for k in self.flat if k not in weights)
        if unused:
            raise ExportError("params %s are not read by any layer rnnc exports "
                              "(a module rnnc does not see?)" % ", ".join(unused[:6]))
        return weights

    def _cell(self, rnn_call, where):
        if rnn_call.cell is None:
            raise ExportError("%s: its cell was never called" % where)
        cell, cpath = rnn_call.cell
        lifted = _scan_transform(type(cell))
        spec = _cell_spec(cell, cpath, self.layout, lifted[0] if lifted else None)
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

    def _scan_layer(self, call, lname, where):
        """nn.scan(CellClass, variable_broadcast='params', ...)(...)(carry, x):
        an RNN layer whose params sit at the scan module's path."""
        cell, cpath = self._cell(call, where)
        _, reverse, unroll = _scan_options(call, where)
        layer = {"type": "RNN", "name": lname, "cell": cell}
        if reverse:
            # lax.scan(reverse=True) keeps the outputs in input order.
            layer["reverse"] = True
            layer["keep_order"] = True
        if unroll != 1:
            layer["unroll"] = unroll
        parts = _carry_parts(cell["type"])
        layer["initial_carry"] = self._initial(call.args[0], [parts], [lname], where)
        carry, y = call.output
        carries = list(zip(_leaves(carry), ["carry/%s/%s" % (lname, p) for p in parts]))
        return layer, y, carries, [cpath]

    def _layer(self, call, lname, where, lengths):
        if call.kind == "Scan":
            return self._scan_layer(call, lname, where)
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


def _call_input(call):
    """The sequence (or array) a layer call reads: a lifted scan's second
    argument (its first is the carry), every other layer's first."""
    if call.kind == "Scan":
        return call.args[1] if len(call.args) > 1 else None
    return call.args[0] if call.args else call.kwargs.get("inputs")


def _first_cell(layers):
    first = layers[0]
    return first["cell"] if first["type"] == "RNN" else first["forward_rnn"]["cell"]


def _c_layer_name(call, k, taken):
    base = call.path.split("/")[-1] if call.path else call.kind.lower()
    name = base if base else "layers_%d" % k
    if name in taken:
        name = call.path.replace("/", "_") or "layers_%d" % k
    while name in taken:
        name += "_"
    taken.add(name)
    return name
