"""The conformance harness: live Flax against rnnc, on both code paths and
through both a hand-written spec and rnnc.flax.export.

A case builds a real flax.linen or flax.nnx model, initialises it with a
fixed seed, flattens its params as users do
(flax.traverse_util.flatten_dict(params, sep='/'), or nnx.state(model,
nnx.Param) for NNX), and gives a hand-written spec plus the rnnc inputs
and the expected rnnc outputs derived from the Flax result. The harness
compiles the case with rnnc.compile (emit="object": the LLVM path; emit="c":
the C path), runs it in process, and compares every output with the Flax
result within 1e-5 + 1e-4*|ref|; then it exports the same model with
rnnc.flax.export, compiles that on both paths, and compares again (the
export's own output names map rnnc's outputs back onto Flax's return value).

Prints one line per case and path, then "<n> of <n> cases match live Flax"
and the worst error of each path.
"""

import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent.parent
sys.path.insert(0, str(ROOT / "python"))

import numpy as np  # noqa: E402

import jax  # noqa: E402
import rnnc  # noqa: E402
import rnnc.flax  # noqa: E402
from flax import nnx, traverse_util  # noqa: E402

jax.config.update("jax_platforms", "cpu")

ATOL, RTOL = 1e-5, 1e-4


def _savable(a):
    """numpy cannot store bfloat16 in an .npz: bf16 params are saved widened
    to float32, which is exact (rnnc then finds nothing to round)."""
    a = np.asarray(a)
    return a.astype(np.float32) if a.dtype.name == "bfloat16" else a


def linen_weights(variables):
    """What a linen user saves: the flattened 'params' collection."""
    return {k: _savable(v) for k, v in
            traverse_util.flatten_dict(variables["params"], sep="/").items()}


def nnx_weights(model):
    """What an NNX user saves: the flattened nnx.Param state (list indices,
    such as an nnx.List's, are ints in the path: joined as text)."""
    state = nnx.state(model, nnx.Param)
    return {"/".join(map(str, k)): np.asarray(v) for k, v in
            traverse_util.flatten_dict(nnx.to_pure_dict(state)).items()}


class Case:
    """model: a linen module (with variables) or an nnx module (variables
    None); args/kwargs: the Flax call; spec: the hand-written YAML;
    inputs: rnnc.Model call arguments for the hand-written spec; expect:
    flax_output -> {rnnc output name: expected array}; check: an optional
    extra assertion over (flax_output, rnnc outputs) that returns a list of
    failure messages (documented Flax bugs)."""

    def __init__(self, name, model, variables, args, spec, inputs, expect,
                 kwargs=None, check=None, reference=None, export=True,
                 partial=False, tolerance=(ATOL, RTOL)):
        self.name = name
        self.model = model
        self.variables = variables
        self.args = args
        self.kwargs = kwargs or {}
        self.spec = spec
        self.inputs = inputs
        self.expect = expect
        self.check = check
        self.reference = reference  # overrides running the model (Flax bugs)
        self.export = export
        # partial: `expect` names only what rnnc must match (the rest is a
        # documented difference asserted by `check`), on both routes.
        self.partial = partial
        # (atol, rtol): every element within atol + rtol * |Flax's|.
        self.tolerance = tolerance

    def fresh_args(self):
        """The call's arguments in new containers (the same arrays): a model
        may store into a list it is given (the seed model writes its new
        carries into its `carry` argument), and every run must start from
        the same arguments."""
        return jax.tree_util.tree_map(lambda v: v, (self.args, self.kwargs))

    def run_flax(self):
        if self.reference is not None:
            return self.reference()
        args, kwargs = self.fresh_args()
        if self.variables is None:
            return self.model(*args, **kwargs)
        return self.model.apply(self.variables, *args, **kwargs)

    def weights(self):
        if self.variables is None:
            return nnx_weights(self.model)
        return linen_weights(self.variables)


def max_error(got, want, tolerance=(ATOL, RTOL)):
    """(worst |got-want|, worst excess over the tolerance) for two arrays."""
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    if got.shape != want.shape:
        return float("inf"), float("inf")
    err = np.abs(got - want)
    excess = err - (tolerance[0] + tolerance[1] * np.abs(want))
    return float(err.max(initial=0.0)), float(excess.max(initial=-1.0))


def compare(outputs, expected, where, tolerance=(ATOL, RTOL)):
    worst, failures = 0.0, []
    for name, want in expected.items():
        if name not in outputs:
            failures.append("%s: rnnc has no output %r (has %s)" % (
                where, name, ", ".join(outputs)))
            continue
        err, excess = max_error(outputs[name], want, tolerance)
        worst = max(worst, err)
        if excess > 0:
            failures.append("%s: %s differs from Flax by %.3g (shape %s vs %s)" % (
                where, name, err, np.shape(outputs[name]), np.shape(want)))
    return worst, failures


class Runner:
    def __init__(self):
        self.cache = tempfile.mkdtemp(prefix="rnnc-flax-cache-")
        self.work = Path(tempfile.mkdtemp(prefix="rnnc-flax-"))
        self.worst = {}
        self.cases = 0
        self.passed = 0
        self.rows = []
        # rnnc compile options of the object (LLVM) path: --cpu=NAME pins
        # its code to a CPU this host runs (bf16 compute's bit-exact
        # emulation on a host with vdpbf16ps: --cpu=x86-64-v3).
        self.object_options = ()

    def compile(self, spec, weights, emit):
        options = self.object_options if emit == "object" else ()
        return rnnc.compile(spec, weights, emit=emit, options=options,
                            cache_dir=self.cache)

    def run_case(self, case):
        """Compiles the case's four models (hand-written spec and export, on
        both paths) concurrently, then runs and compares each."""
        from concurrent.futures import ThreadPoolExecutor
        self.cases += 1
        failures = []
        row = [case.name, None, None, None, None]
        try:
            ref = case.run_flax()
            expected = {k: np.asarray(v) for k, v in case.expect(ref).items()}
            weights_path = self.work / (case.name + ".npz")
            np.savez(weights_path, **case.weights())
            routes = [("spec", case.spec, weights_path, expected, case.inputs)]
            if case.export:
                args, kwargs = case.fresh_args()
                ex = rnnc.flax.export(case.model, case.variables, *args,
                                      path=self.work / ("export_" + case.name),
                                      **kwargs)
                flat_ref = jax.tree_util.tree_leaves(ref)
                flat_names = jax.tree_util.tree_leaves(ex.output_names)
                exp2 = dict(zip(flat_names, (np.asarray(v) for v in flat_ref)))
                if case.partial:
                    exp2 = expected
                args, kwargs = case.fresh_args()
                routes.append(("export", ex.spec_path, ex.weights_path, exp2,
                               ex.rnnc_inputs(*args, **kwargs)))
            jobs = [(route, emit) for route in routes for emit in ("object", "c")]
            with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
                models = list(pool.map(
                    lambda job: self.compile(job[0][1], job[0][2], job[1]), jobs))
            for i, ((route, _, _, want, inputs), emit) in enumerate(jobs):
                where = "%s [%s, %s]" % (case.name, route, emit)
                out = models[i](**inputs)
                worst, f = compare(out, want, where, case.tolerance)
                failures += f
                if case.check:
                    failures += ["%s: %s" % (where, m)
                                 for m in case.check(ref, out, models[i], inputs)]
                self.note(route + "/" + emit, worst)
                row[1 + i] = worst
        except Exception as e:  # noqa: BLE001
            import traceback
            failures.append("%s: %s: %s\n%s" % (case.name, type(e).__name__, e,
                                                traceback.format_exc()))
        self.rows.append(row)
        if failures:
            for f in failures:
                print("FAIL " + f)
        else:
            self.passed += 1
        cells = ["%.2e" % v if v is not None else "-" for v in row[1:]]
        print("%-4s %-40s spec llvm %s c %s | export llvm %s c %s" % (
            "ok" if not failures else "FAIL", case.name, *cells))
        sys.stdout.flush()

    def note(self, path, err):
        self.worst[path] = max(self.worst.get(path, 0.0), err)

    def summary(self, group):
        print("%d of %d %s cases match live Flax" % (self.passed, self.cases, group))
        for path in ("spec/object", "spec/c", "export/object", "export/c"):
            if path in self.worst:
                print("worst error %s: %.3g" % (path, self.worst[path]))
        return 0 if self.passed == self.cases else 1


def main(groups):
    group = sys.argv[1] if len(sys.argv) > 1 else "all"
    runner = Runner()
    runner.object_options = tuple(a for a in sys.argv[2:]
                                  if a.startswith("--cpu="))
    start = time.time()
    for gname, builders in groups.items():
        if group not in ("all", gname):
            continue
        for build in builders:
            case = build()
            runner.run_case(case)
    status = runner.summary(group)
    import shutil
    shutil.rmtree(runner.cache, ignore_errors=True)
    shutil.rmtree(runner.work, ignore_errors=True)
    print("time %.1f s" % (time.time() - start), file=sys.stderr)
    return status


def rng_inputs(seed, *shape):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


