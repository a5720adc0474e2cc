"""rnnc.compile: a compiled model as a Python callable (ctypes)."""

import ctypes
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

_PACKAGE_DIR = Path(__file__).resolve().parent
# A source checkout: python/rnnc/ -> the repository root.
_SOURCE_ROOT = _PACKAGE_DIR.parent.parent


class CompileError(RuntimeError):
    """rnnc (or cc) rejected the model; the message holds its diagnostics."""


class RunError(RuntimeError):
    """<name>_run returned an error status; `status` and `code` say which."""

    def __init__(self, message, status, code):
        super().__init__(message)
        self.status = status
        self.code = code


def _build_dir():
    env = os.environ.get("RNN_BUILD_DIR")
    return Path(env) if env else _SOURCE_ROOT / "build"


def find_rnnc():
    """The rnnc binary: $RNNC, this checkout's build/bin/rnnc, or PATH."""
    env = os.environ.get("RNNC")
    if env:
        return Path(env)
    built = _build_dir() / "bin" / "rnnc"
    if built.exists():
        return built
    found = shutil.which("rnnc")
    if found:
        return Path(found)
    raise CompileError("cannot find the rnnc binary: build it (scripts/build "
                       "rnnc), or set $RNNC")


def find_runtime():
    """(librnnrt.a, runtime include dir): $RNNC_RUNTIME_LIB and
    $RNNC_RUNTIME_INCLUDE, or this checkout's build/lib and runtime/include."""
    lib = Path(os.environ.get("RNNC_RUNTIME_LIB",
                              _build_dir() / "lib" / "librnnrt.a"))
    inc = Path(os.environ.get("RNNC_RUNTIME_INCLUDE",
                              _SOURCE_ROOT / "runtime" / "include"))
    if not lib.exists():
        raise CompileError("cannot find librnnrt.a at %s: build it (scripts/"
                           "build rnnrt), or set $RNNC_RUNTIME_LIB" % lib)
    return lib, inc


def _cache_root():
    env = os.environ.get("RNNC_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg) / "rnnc" if xdg else Path.home() / ".cache" / "rnnc"


def _read_source(value, what):
    """Bytes of a spec/weights argument: a path, or (spec) YAML/JSON text or
    a dict, or (weights) a dict of arrays."""
    if isinstance(value, dict):
        if what == "spec":
            return json.dumps(value, indent=1).encode(), None
        return None, value
    if isinstance(value, bytes):
        return value, None
    if isinstance(value, os.PathLike) or (isinstance(value, str) and "\n" not in value
                                          and what == "weights"):
        return Path(value).read_bytes(), Path(value)
    if isinstance(value, str):
        if "\n" not in value and Path(value).exists():
            return Path(value).read_bytes(), Path(value)
        if what == "spec":
            return value.encode(), None
    raise TypeError("expected a path%s for the %s, found %r" % (
        ", YAML text or a dict" if what == "spec" else " or a dict of arrays",
        what, type(value).__name__))


def _npz_bytes(arrays):
    import io
    buf = io.BytesIO()
    np.savez(buf, **{k: np.asarray(v) for k, v in arrays.items()})
    return buf.getvalue()


def compile(spec, weights, emit="object", *, options=(), cache_dir=None,
            rnnc=None):
    """Compiles `spec` (a path, YAML text or a dict) with `weights` (a path to
    .npz/.safetensors, or a dict of arrays keyed by '/'-joined param paths)
    into a shared library, once, and loads it.

    emit: "object" (rnnc's LLVM path: an object file) or "c" (the C99
    path, built with cc -std=c99). options: more `rnnc compile` arguments
    (e.g. ["--cpu=x86-64-v3"]). The library is cached by content in
    cache_dir ($RNNC_CACHE_DIR, default ~/.cache/rnnc)."""
    if emit not in ("object", "c"):
        raise ValueError("emit must be 'object' or 'c', found %r" % (emit,))
    rnnc_bin = Path(rnnc) if rnnc else find_rnnc()
    runtime_lib, runtime_inc = find_runtime()
    spec_bytes, _ = _read_source(spec, "spec")
    weights_bytes, weights_path = None, None
    weights_arrays = None
    data, path_or_arrays = _read_source(weights, "weights")
    if data is None:
        weights_arrays = path_or_arrays
        weights_bytes = _npz_bytes(weights_arrays)
        suffix = ".npz"
    else:
        weights_bytes, weights_path = data, path_or_arrays
        suffix = weights_path.suffix if weights_path else ".npz"
    st = rnnc_bin.stat()
    key = hashlib.sha256()
    for part in (spec_bytes, weights_bytes, suffix.encode(), emit.encode(),
                 "\0".join(options).encode(),
                 ("%s:%d:%d" % (rnnc_bin.resolve(), st.st_size, st.st_mtime_ns)).encode(),
                 ("%d" % runtime_lib.stat().st_mtime_ns).encode()):
        key.update(hashlib.sha256(part).digest())
    root = Path(cache_dir) if cache_dir else _cache_root()
    entry = root / key.hexdigest()[:32]
    if not (entry / "ok").exists():
        root.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix="build-", dir=root))
        try:
            _build(work, spec_bytes, weights_bytes, suffix, emit, options,
                   rnnc_bin, runtime_lib, runtime_inc)
            try:
                os.rename(work, entry)
            except OSError:  # built concurrently by another process
                shutil.rmtree(work, ignore_errors=True)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
    return Model(entry)


def _run(argv, what):
    proc = subprocess.run([str(a) for a in argv], capture_output=True, text=True)
    if proc.returncode != 0:
        raise CompileError("%s failed:\n%s%s" % (what, proc.stderr, proc.stdout))
    return proc


def _build(work, spec_bytes, weights_bytes, suffix, emit, options, rnnc_bin,
           runtime_lib, runtime_inc):
    (work / "spec.yaml").write_bytes(spec_bytes)
    (work / ("weights" + suffix)).write_bytes(weights_bytes)
    out = work / "out"
    argv = [rnnc_bin, "compile", work / "spec.yaml", "--weights",
            work / ("weights" + suffix), "-o", out]
    if emit == "c":
        argv.append("--emit=c")
    argv += list(options)
    _run(argv, "rnnc compile")
    headers = list(out.glob("*.h"))
    if len(headers) != 1:
        raise CompileError("rnnc compile wrote %d headers in %s" % (len(headers), out))
    name = headers[0].stem
    source = out / (name + (".c" if emit == "c" else ".o"))
    cc = os.environ.get("CC", "cc")
    argv = [cc, "-shared", "-fPIC", "-O2", "-o", work / "model.so", source,
            runtime_lib, "-lm"]
    if emit == "c":
        argv[1:1] = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic",
                     "-I", runtime_inc]
    _run(argv, "cc")
    (work / "ok").write_text(name + "\n")


# ----------------------------------------------------------------------------
# The header: sizes, status codes, and the entry point's parameters.

_DEFINE = re.compile(r"^#define (\w+) (-?\d+)(?: /\* (.*) \*/)?$")
# "[*steps]" is the run-time number of steps (input.time: {max: N}),
# "[*batch_<d>]" a run-time batch size (an input.batch entry {max: N}); a
# remark in parentheses may follow.
_PARAM = re.compile(r"^ \*   (\w+) (float|int32_t)((?:\[(?:\d+|\*steps|\*batch_\d+)\])+|\(scalar\))"
                    r"( \(written\))?(?: \(.*\))?$")


# The streaming state's layout (input.stream: true): " *   carry/enc/c: floats 0..71".
_STATE_PART = re.compile(r"^ \*   (\S+): floats (\d+)\.\.(\d+)$")


def _parse_state_layout(text):
    """{"carry/enc/c": (first, end), ...} of <name>_state's carries; empty
    without input.stream."""
    layout, in_layout = {}, False
    for line in text.splitlines():
        if "Layout (for " in line and "_state_init" in line:
            in_layout = True
            continue
        if in_layout:
            m = _STATE_PART.match(line)
            if not m:
                break
            layout[m.group(1)] = (int(m.group(2)), int(m.group(3)) + 1)
    return layout


def _parse_header(text, name):
    prefix = name.upper() + "_"
    defines, statuses, params = {}, {}, []
    in_params = False
    for line in text.splitlines():
        m = _DEFINE.match(line)
        if m and m.group(1).startswith(prefix):
            key = m.group(1)[len(prefix):]
            value = int(m.group(2))
            if key == "OK" or key.startswith("ERROR_"):
                statuses[value] = (key, m.group(3) or "")
            else:
                defines[key.lower()] = value
            continue
        if line.startswith("/* Runs the model."):
            in_params = True
            continue
        if in_params:
            m = _PARAM.match(line)
            if m:
                shape = () if m.group(3) == "(scalar)" else tuple(
                    None if d == "*steps" else d[1:] if d.startswith("*")
                    else int(d)
                    for d in re.findall(r"\[([^\]]+)\]", m.group(3)))
                params.append((m.group(1), np.float32 if m.group(2) == "float"
                               else np.int32, shape, bool(m.group(4))))
            elif line.startswith(" * Returns"):
                in_params = False
    return defines, statuses, params


def _carry_names(cell_type):
    return ("c", "h") if cell_type in ("LSTMCell", "OptimizedLSTMCell",
                                       "ConvLSTMCell") else ("h",)


def _array_names(spec_text):
    """Mangled C parameter name -> the name `rnnc run` uses, from the spec."""
    names = {"x": "x", "seq_lengths": "seq_lengths", "y": "y"}
    try:
        import yaml
        spec = yaml.safe_load(spec_text)
        layers = spec.get("layers") or []
    except Exception:
        return names
    for k, layer in enumerate(layers):
        if not isinstance(layer, dict):
            continue
        lname = layer.get("name", "layers_%d" % k)
        if layer.get("type") == "RNN":
            dirs = [(lname, (layer.get("cell") or {}).get("type"))]
        elif layer.get("type") == "Bidirectional":
            dirs = [(lname + "/forward", ((layer.get("forward_rnn") or {}).get("cell") or {}).get("type")),
                    (lname + "/backward", ((layer.get("backward_rnn") or {}).get("cell") or {}).get("type"))]
        else:
            continue
        for key, cell_type in dirs:
            for part in _carry_names(cell_type):
                for kind in ("initial_carry", "carry"):
                    full = "%s/%s/%s" % (kind, key, part)
                    names[re.sub(r"[^A-Za-z0-9]", "_", full)] = full
    return names


class Model:
    """A compiled model loaded from its cache directory. Call it with the
    model's inputs; it returns a dict of numpy arrays named as `rnnc run`
    names them ("y", "carry/<layer>/<c|h>", ".../forward/...")."""

    def __init__(self, directory):
        self.directory = Path(directory)
        self.name = (self.directory / "ok").read_text().strip()
        header = (self.directory / "out" / (self.name + ".h")).read_text()
        self.header = header
        defines, self._statuses, params = _parse_header(header, self.name)
        names = _array_names((self.directory / "spec.yaml").read_text())
        self._inputs, self._outputs = [], []
        for cname, dtype, shape, written in params:
            full = names.get(cname, cname)
            (self._outputs if written else self._inputs).append(
                (full, np.dtype(dtype), shape))
        self.info = dict(defines)
        self.info["inputs"] = {n: (s, d.name) for n, d, s in self._inputs}
        self.info["outputs"] = {n: (s, d.name) for n, d, s in self._outputs}
        self.info["status_codes"] = {v: k for v, (k, _) in self._statuses.items()}
        self._lib = ctypes.CDLL(str(self.directory / "model.so"))
        self._fn = getattr(self._lib, self.name + "_run")
        n = len(self._inputs) + len(self._outputs) + 1
        self._fn.argtypes = [ctypes.c_void_p] * n
        self._fn.restype = ctypes.c_int32
        size = defines["workspace_size"]
        align = defines.get("workspace_alignment", 64)
        self._workspace_buf = np.zeros(size + align, dtype=np.uint8)
        off = (-self._workspace_buf.ctypes.data) % align
        self._workspace = self._workspace_buf.ctypes.data + off
        # input.time: {max: N}: x gives the steps of a call; `steps` is
        # passed for the caller.
        # An input.batch entry {max: N}: x gives that dim's rows, passed as
        # `batch_<d>`.
        self._runtime_time = any(n == "steps" for n, _, _ in self._inputs)
        self._size_args = {n for n, _, _ in self._inputs
                           if n == "steps" or re.match(r"batch_\d+$", n)}
        self._inputs_given = [i for i in self._inputs
                              if i[0] not in self._size_args]
        self._input_names = [n for n, _, _ in self._inputs_given]
        self._has_lengths = "seq_lengths" in self._input_names
        self._simple_inputs = set(self._input_names) <= {"x", "seq_lengths"}
        self._state_layout = _parse_state_layout(header)
        # x's shape as the header declares it (None: the run-time steps).
        self._x_shape = next((sh for n, _, sh in self._inputs if n == "x"), None)

    @property
    def inputs(self):
        return list(self._input_names)

    @property
    def outputs(self):
        return [n for n, _, _ in self._outputs]

    def _gather(self, x, seq_lengths, initial_carry, extra):
        given = {"x": x}
        if seq_lengths is not None:
            given["seq_lengths"] = seq_lengths
        for key, value in _flatten_carry(initial_carry).items():
            full = "initial_carry/" + key
            # A GRU-like carry is one array, not a tuple: {"dec": h}.
            if full not in self._input_names and full + "/h" in self._input_names:
                full += "/h"
            given[full] = value
        for key, value in extra.items():
            given[key if key.startswith("initial_carry/") or key in (
                "x", "seq_lengths") else "initial_carry/" + key] = value
        unknown = sorted(set(given) - set(self._input_names))
        if unknown:
            raise TypeError("%s has no input %s; its inputs are %s" % (
                self.name, ", ".join(map(repr, unknown)),
                ", ".join(self._input_names)))
        missing = [n for n in self._input_names if n not in given]
        if missing:
            raise TypeError("%s needs input %s" % (
                self.name, ", ".join(map(repr, missing))))
        return given

    def __call__(self, x, seq_lengths=None, initial_carry=None, **carries):
        """x: float32 of the spec's input shape; seq_lengths: int32 of the
        batch shape; initial_carry: {"<layer>/<c|h>": array} (or nested
        {"<layer>": {"forward": (c, h), ...}}, or keyword arguments named
        like the arrays). Returns {name: array}."""
        if initial_carry is None and not carries and self._simple_inputs:
            given = {"x": x, "seq_lengths": seq_lengths}  # the common case, fast
            if (seq_lengths is None) == self._has_lengths:
                given = self._gather(x, seq_lengths, initial_carry, carries)
        else:
            given = self._gather(x, seq_lengths, initial_carry, carries)
        args = []
        keep = []
        sizes = {}
        if self._size_args:
            # The run-time sizes of this call: x's, within the maxima.
            xshape = self._x_shape
            xa = np.asarray(given["x"])
            if xa.ndim != len(xshape):
                raise ValueError("%s: input 'x' must have %d dims, found %s" % (
                    self.name, len(xshape), xa.shape))
            for d, dim in enumerate(xshape):
                if dim is None:
                    steps = xa.shape[d]
                    if steps > self.info["time"]:
                        raise ValueError(
                            "%s: x has %d steps, more than the compiled "
                            "maximum %d" % (self.name, steps, self.info["time"]))
                    sizes[None] = steps
                    given = dict(given, steps=np.array(steps, np.int32))
                elif isinstance(dim, str):
                    rows, most = xa.shape[d], self.info[dim.replace("batch_", "batch_dim_")]
                    if not 1 <= rows <= most:
                        raise ValueError(
                            "%s: x has %d rows on axis %d, outside the compiled "
                            "1..%d" % (self.name, rows, d, most))
                    sizes[dim] = rows
                    given = dict(given, **{dim: np.array(rows, np.int32)})

        def call_shape(shape):
            return tuple(sizes[d] if d is None or isinstance(d, str) else d
                         for d in shape)

        for name, dtype, shape in self._inputs:
            shape = call_shape(shape)
            a = given[name]
            if not isinstance(a, np.ndarray):
                a = np.asarray(a)
            if a.dtype != dtype:
                raise TypeError("%s: input %r must be %s, found %s" % (
                    self.name, name, dtype.name, a.dtype.name))
            if a.shape != shape:
                raise ValueError("%s: input %r must have shape %s, found %s" % (
                    self.name, name, shape, a.shape))
            if not a.flags.c_contiguous:
                a = np.ascontiguousarray(a)
            keep.append(a)
            args.append(a.ctypes.data)
        outputs = {}
        for name, dtype, shape in self._outputs:
            a = np.empty(call_shape(shape), dtype)
            outputs[name] = a
            args.append(a.ctypes.data)
        self._invoke(args)
        return outputs

    def _invoke(self, args):
        """<name>_run on `args` (every buffer but the workspace); a status
        other than OK raises RunError."""
        status = self._fn(*args, self._workspace)
        if status != 0:
            code, what = self._statuses.get(status, ("status %d" % status, ""))
            raise RunError("%s_run returned %s%s" % (
                self.name, code, " (%s)" % what if what else ""), status, code)

    def stream(self, initial_carry=None, **carries):
        """A Stream over this model (compiled with `input.stream: true`):
        feed it a sequence chunk by chunk; the carries stay in its state.
        initial_carry as for a call (zeros where not given)."""
        if not self._state_layout:
            raise TypeError("%s was not compiled for streaming (input.stream: "
                            "true in the spec)" % self.name)
        return Stream(self, initial_carry, carries)

    def __repr__(self):
        return "<rnnc.Model %s: inputs %s, outputs %s>" % (
            self.name, self.info["inputs"], self.info["outputs"])


class Stream:
    """A sequence fed chunk by chunk through <name>_run with the carries kept
    in a state, as the header's <name>_stream does (the state is passed as
    both the initial and the final carries): any chunking gives bit for bit
    the outputs of one call over the whole sequence. `stream(x_chunk)`
    returns the chunk's outputs ({"y": ...}); a chunk of more steps than
    the compiled maximum runs as several. `carry` is the current state."""

    def __init__(self, model, initial_carry=None, carries=None):
        self.model = model
        floats = max(end for _, end in model._state_layout.values())
        self._state = np.zeros(floats, np.float32)
        self._axis = model._x_shape.index(None)
        self.reset(initial_carry, **(carries or {}))

    def reset(self, initial_carry=None, **carries):
        """Starts a new sequence from `initial_carry` (zeros where not given)."""
        m = self.model
        self._state[:] = 0
        given = {}
        for key, value in _flatten_carry(initial_carry).items():
            given[key] = value
        given.update(carries)
        for key, value in given.items():
            name = key[len("initial_carry/"):] if key.startswith("initial_carry/") else key
            part = m._state_layout.get("carry/" + name) or m._state_layout.get(
                "carry/" + name + "/h")
            if part is None:
                raise TypeError("%s has no carry %r; its carries are %s" % (
                    m.name, key, ", ".join(k[len("carry/"):] for k in m._state_layout)))
            a = np.asarray(value)
            if a.dtype != np.float32:
                raise TypeError("%s: carry %r must be float32, found %s" % (
                    m.name, key, a.dtype.name))
            if a.size != part[1] - part[0]:
                raise ValueError("%s: carry %r must have %d elements, found shape %s"
                                 % (m.name, key, part[1] - part[0], a.shape))
            self._state[part[0]:part[1]] = a.reshape(-1)

    @property
    def carry(self):
        """{"carry/<layer>/<c|h>": array} after the chunks fed so far."""
        shapes = {n: s for n, _, s in self.model._outputs}
        return {name: self._state[a:b].reshape(shapes.get(name, (b - a,))).copy()
                for name, (a, b) in self.model._state_layout.items()}

    def __call__(self, x_chunk):
        m = self.model
        x = np.asarray(x_chunk)
        if x.dtype != np.float32:
            raise TypeError("%s: input 'x' must be float32, found %s" % (
                m.name, x.dtype.name))
        xshape = m._x_shape
        if x.ndim != len(xshape):
            raise ValueError("%s: input 'x' must have %d dims, found %s" % (
                m.name, len(xshape), x.shape))
        total, most = x.shape[self._axis], m.info["time"]
        expected = tuple(total if d is None else d for d in xshape)
        if x.shape != expected:
            raise ValueError("%s: input 'x' must have shape %s, found %s" % (
                m.name, expected, x.shape))
        pieces = [self._run(np.take(x, range(a, min(a + most, total)), axis=self._axis))
                  for a in range(0, total, most)] or [self._run(x)]
        out = {}
        for name, _, shape in m._outputs:
            if name in m._state_layout:
                continue
            axis = shape.index(None)
            out[name] = np.concatenate([p[name] for p in pieces], axis=axis)
        return out

    def _run(self, x):
        m = self.model
        x = np.ascontiguousarray(x)
        steps = x.shape[self._axis]
        state = self._state.ctypes.data
        args, keep, outputs = [], [x], {}
        for name, dtype, shape in m._inputs:
            if name == "x":
                args.append(x.ctypes.data)
            elif name == "steps":
                keep.append(np.array(steps, np.int32))
                args.append(keep[-1].ctypes.data)
            else:  # initial_carry/...: the state, updated in place
                first, _ = m._state_layout["carry/" + name[len("initial_carry/"):]]
                args.append(state + 4 * first)
        for name, dtype, shape in m._outputs:
            if name in m._state_layout:
                args.append(state + 4 * m._state_layout[name][0])
            else:
                a = np.empty(tuple(steps if d is None else d for d in shape), dtype)
                outputs[name] = a
                args.append(a.ctypes.data)
        m._invoke(args)
        return outputs


def _flatten_carry(tree, prefix=""):
    """{"enc": {"forward": (c, h)}} -> {"enc/forward/c": c, ...}; keys that
    already hold the whole path pass through."""
    if tree is None:
        return {}
    if not isinstance(tree, dict):
        raise TypeError("initial_carry must be a dict keyed by layer, found %s"
                        % type(tree).__name__)
    flat = {}
    for key, value in tree.items():
        path = prefix + key
        if isinstance(value, dict):
            flat.update(_flatten_carry(value, path + "/"))
        elif isinstance(value, (tuple, list)):
            parts = ("c", "h") if len(value) == 2 else ("h",)
            if len(value) not in (1, 2):
                raise TypeError("initial_carry %r: expected (c, h) or (h,)" % path)
            for part, v in zip(parts, value):
                flat[path + "/" + part] = v
        else:
            flat[path] = value
    return flat
