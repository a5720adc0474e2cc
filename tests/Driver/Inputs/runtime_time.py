"""Models with `input.time: {max: N}` (runtime-time.test).

For each model and path (LLVM object, C), one build with a run-time number
of steps is called through rnnc.compile (python/rnnc) with x of several
actual step counts (0, 1, random ones, the maximum) and compared with a
static build of that many steps (`time: <steps>`), which the rest of the
suite checks against the reference. The comparison is exact unless
`--tolerance` is given. Then, through the raw entry point: a count outside
[0, max] returns ERROR_ARGUMENT and writes nothing.
"""
import ctypes
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "python"))
import rnnc  # noqa: E402

# name: (batch, max steps, time_major, features, layers, carries)
MODELS = {
    "lstm_b3": ("[3]", 20, False, 5, """
  - type: RNN
    name: enc
    cell: {type: LSTMCell, features: 24}
    unroll: 2
    return_carry: true
    initial_carry: input
  - type: Dense
    name: head
    features: 4
""", True),
    "gru_tm": ("[2]", 13, True, 3, """
  - type: RNN
    name: enc
    cell: {type: GRUCell, features: 70}
    return_carry: true
""", False),
    "stack_b1": ("[1]", 37, False, 8, """
  - type: RNN
    name: l1
    cell: {type: LSTMCell, features: 16}
  - type: RNN
    name: l2
    cell: {type: GRUCell, features: 9}
    return_carry: true
""", False),
}


def spec(name, batch, time, time_major, features, layers):
    return (f"rnnc: 1\nname: {name}\ninput: {{batch: {batch}, time: {time}, "
            f"features: {features}, time_major: {str(time_major).lower()}}}\n"
            f"layers:{layers}")


def weights(rng, layers, features):
    """Random weights for the layers above (LSTM, GRU, Bidirectional of
    them, Dense, LayerNorm; Pool and Activation have none)."""
    import yaml
    params = {}
    width = features
    for layer in yaml.safe_load("l:" + layers)["l"]:
        n = layer.get("name")
        if layer["type"] == "Dense":
            params[f"{n}/kernel"] = rng.standard_normal((width, layer["features"]))
            params[f"{n}/bias"] = rng.standard_normal(layer["features"])
            width = layer["features"]
            continue
        if layer["type"] == "LayerNorm":
            params[f"{n}/scale"] = rng.standard_normal(width)
            params[f"{n}/bias"] = rng.standard_normal(width)
            continue
        if layer["type"] in ("Pool", "Activation"):
            continue
        if layer["type"] == "Bidirectional":
            merged = 0
            for d in ("forward_rnn", "backward_rnn"):
                sub = dict(layer[d], type="RNN", name=f"{n}/{d}")
                params.update(weights(rng, "\n  - " + yaml.safe_dump(
                    sub, default_flow_style=True), width))
                merged += layer[d]["cell"]["features"]
            if layer.get("merge_fn", "concat") != "concat":
                merged = layer["forward_rnn"]["cell"]["features"]
            width = merged
            continue
        cell, h = layer["cell"]["type"], layer["cell"]["features"]
        p = f"{n}/cell"
        if cell == "LSTMCell":
            for g in "ifgo":
                params[f"{p}/i{g}/kernel"] = rng.standard_normal((width, h))
                params[f"{p}/h{g}/kernel"] = rng.standard_normal((h, h))
                params[f"{p}/h{g}/bias"] = rng.standard_normal(h)
        else:
            for g in "rzn":
                params[f"{p}/i{g}/kernel"] = rng.standard_normal((width, h))
                params[f"{p}/i{g}/bias"] = rng.standard_normal(h)
                params[f"{p}/h{g}/kernel"] = rng.standard_normal((h, h))
            params[f"{p}/hn/bias"] = rng.standard_normal(h)
        width = h
    return {k: (0.4 * v).astype(np.float32) for k, v in params.items()}


def main():
    tolerance = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
    cache = Path(tempfile.mkdtemp(prefix="rnnc-runtime-time-"))
    failures = 0
    for seed, (name, (batch, tmax, tm, features, layers, carries)) in \
            enumerate(MODELS.items()):
        rng = np.random.default_rng(seed)
        w = weights(rng, layers, features)
        rows = int(batch.strip("[]"))
        for emit in ("object", "c"):
            m = rnnc.compile(spec(name, batch, "{max: %d}" % tmax, tm,
                                  features, layers), w, emit, cache_dir=cache)
            counts = sorted({0, 1, tmax, *rng.integers(2, tmax, 3).tolist()})
            worst = 0.0
            for steps in counts:
                shape = (steps, rows, features) if tm else (rows, steps, features)
                x = rng.standard_normal(shape).astype(np.float32)
                init = {}
                if carries:
                    init = {k.split("/", 1)[1]: rng.standard_normal(s).astype(np.float32)
                            for k, (s, _) in m.info["inputs"].items()
                            if k.startswith("initial_carry/")}
                got = m(x, **init)
                if steps == 0:
                    # Nothing runs: empty y, the initial (or zero) carries.
                    ok = got["y"].size == 0
                    for k, v in got.items():
                        if k.startswith("carry/"):
                            want = init.get(k.split("/", 1)[1], 0.0)
                            ok &= bool(np.all(v == want))
                    worst = max(worst, 0.0 if ok else np.inf)
                    continue
                static = rnnc.compile(spec(name, batch, steps, tm, features,
                                           layers), w, emit, cache_dir=cache)
                want = static(x, **init)
                for k in want:
                    if got[k].shape != want[k].shape:
                        print(f"{name} {emit} steps {steps}: {k} shape "
                              f"{got[k].shape} != {want[k].shape}")
                        worst = np.inf
                        continue
                    worst = max(worst, float(np.max(np.abs(got[k] - want[k]),
                                                    initial=0.0)))
            ok = worst <= tolerance
            failures += not ok
            print(f"{name} {emit}: steps {counts} as static builds: "
                  f"{'ok' if ok else 'MISMATCH %g' % worst}")
            out_of_range(m, name, emit, tmax)
    return 1 if failures else 0


def out_of_range(m, name, emit, tmax):
    """Raw calls with a bad count: ERROR_ARGUMENT, outputs untouched."""
    results = []
    for steps in (tmax + 1, -1, 1 << 30):
        args, outputs = [], []
        for n, dtype, shape in m._inputs:
            if n == "steps":
                a = np.array(steps, np.int32)
            else:
                a = np.ones([tmax if d is None else d for d in shape], dtype)
            outputs.append(a)
            args.append(a.ctypes.data)
        written = []
        for n, dtype, shape in m._outputs:
            a = np.full([tmax + 1 if d is None else d for d in shape], 7.0,
                        dtype)
            written.append(a)
            args.append(a.ctypes.data)
        args.append(m._workspace)
        status = m._fn(*args)
        untouched = all(np.all(a == 7.0) for a in written)
        results.append(f"{steps}->{m.info['status_codes'].get(status, status)}"
                       f"{'' if untouched else ' (WROTE)'}")
    print(f"{name} {emit}: out of range: {', '.join(results)}")


def cli(out):
    """`rnnc run`'s files: a {max: 30} spec and its static twin of 7 steps,
    weights, and x of 7 steps (plus one of 31, above the maximum)."""
    out = Path(out)
    layers = """
  - {type: RNN, name: enc, cell: {type: GRUCell, features: 6}, return_carry: true}
  - {type: Dense, name: head, features: 2}
"""
    rng = np.random.default_rng(7)
    (out / "max.yaml").write_text(spec("cli", "[2]", "{max: 30}", False, 3, layers))
    (out / "static.yaml").write_text(spec("cli", "[2]", 7, False, 3, layers))
    np.savez(out / "w.npz", **weights(rng, layers, 3))
    np.savez(out / "x7.npz", x=rng.standard_normal((2, 7, 3)).astype(np.float32))
    np.savez(out / "x31.npz", x=rng.standard_normal((2, 31, 3)).astype(np.float32))


def same(a, b):
    """Prints each array of npz `a` with its shape and whether `b` has it
    bit for bit."""
    a, b = np.load(a), np.load(b)
    for k in sorted(a):
        print(f"{k} {list(a[k].shape)} {'same' if np.array_equal(a[k], b[k]) else 'DIFFERS'}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "cli":
        cli(sys.argv[2])
    elif len(sys.argv) > 1 and sys.argv[1] == "same":
        same(sys.argv[2], sys.argv[3])
    else:
        sys.exit(main())
