"""Models with run-time batch sizes: `input.batch` entries `{max: N}`
(runtime-batch.test).

For each model and path (LLVM object, C), one build with run-time batch
sizes is called through rnnc.compile (python/rnnc) with x of several actual
batch sizes (1, random ones, the maxima; random steps too when time is
run-time) and compared with a static build of those sizes, which the rest of
the suite checks against the reference (the equivalence suite compares the
run-time builds with the reference directly). Then, through the raw entry
point: a size outside [1, max] returns ERROR_ARGUMENT and writes nothing.
"""
import itertools
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import runtime_time  # noqa: E402
from runtime_time import rnnc, weights  # noqa: E402

# name: (batch maxima (0: static, size in `static`), static sizes, time,
# time_major, features, layers, carries in)
MODELS = {
    # An LSTM with initial carries and a Dense head; 5 rows take the
    # blocks of 4 and 1.
    "lstm_rows": ((8,), (0,), 9, False, 5, """
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
    # Time-major, a static dim between two run-time ones.
    "gru_dims": ((3, 0, 4), (0, 2, 0), 6, True, 3, """
  - type: RNN
    name: enc
    cell: {type: GRUCell, features: 70}
    return_carry: true
""", False),
    # Bidirectional (both scans) and the layers after it on the actual
    # rows: merge, LayerNorm, Dense, Activation.
    "bidi_head": ((8,), (0,), 6, False, 5, """
  - type: Bidirectional
    name: enc
    forward_rnn: {cell: {type: LSTMCell, features: 6}}
    backward_rnn: {cell: {type: GRUCell, features: 5}}
    return_carry: true
  - {type: LayerNorm, name: norm}
  - {type: Dense, name: head, features: 4}
  - {type: Activation, name: act, fn: tanh}
""", False),
    # Time-major, merge add, then Pool over the time axis and a Dense head.
    "bidi_pool": ((6,), (0,), 5, True, 3, """
  - type: Bidirectional
    name: enc
    merge_fn: add
    forward_rnn: {cell: {type: GRUCell, features: 4}}
    backward_rnn: {cell: {type: GRUCell, features: 4}}
  - {type: Pool, fn: mean}
  - {type: Dense, name: head, features: 2}
""", False),
    # Run-time batch and run-time time.
    "stack_both": ((32,), (0,), "{max: 21}", False, 8, """
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
    return (f"rnnc: 1\nname: {name}\ninput: {{batch: [{batch}], time: {time}, "
            f"features: {features}, time_major: {str(time_major).lower()}}}\n"
            f"layers:{layers}")


def batch_text(maxima, static):
    return ", ".join("{max: %d}" % m if m else str(s)
                     for m, s in zip(maxima, static))


def main():
    tolerance = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
    cache = Path(tempfile.mkdtemp(prefix="rnnc-runtime-batch-"))
    failures = 0
    for seed, (name, (maxima, static, time, tm, features, layers, carries)) in \
            enumerate(MODELS.items()):
        rng = np.random.default_rng(seed)
        w = weights(rng, layers, features)
        runtime_time_steps = isinstance(time, str)
        tmax = int(time.strip("{max: }")) if runtime_time_steps else time
        for emit in ("object", "c"):
            m = rnnc.compile(spec(name, batch_text(maxima, static), time, tm,
                                  features, layers), w, emit, cache_dir=cache)
            # Per run-time dim: 1, the maximum and a random size, in every
            # combination when there are few.
            choices = [sorted({1, mx, int(rng.integers(1, mx + 1))})
                       if mx else [s] for mx, s in zip(maxima, static)]
            calls = list(itertools.product(*choices))
            worst = 0.0
            for sizes in calls:
                steps = int(rng.integers(1, tmax + 1)) if runtime_time_steps else tmax
                shape = ((steps, *sizes, features) if tm
                         else (*sizes, steps, features))
                x = rng.standard_normal(shape).astype(np.float32)
                init = {}
                if carries:
                    init = {k.split("/", 1)[1]:
                            rng.standard_normal((*sizes, *s[len(sizes):])).astype(np.float32)
                            for k, (s, _) in m.info["inputs"].items()
                            if k.startswith("initial_carry/")}
                got = m(x, **init)
                fixed = rnnc.compile(spec(name, ", ".join(map(str, sizes)),
                                          steps, tm, features, layers), w,
                                     emit, cache_dir=cache)
                want = fixed(x, **init)
                for k in want:
                    if got[k].shape != want[k].shape:
                        print(f"{name} {emit} sizes {sizes}: {k} shape "
                              f"{got[k].shape} != {want[k].shape}")
                        worst = np.inf
                        continue
                    worst = max(worst, float(np.max(np.abs(got[k] - want[k]),
                                                    initial=0.0)))
            ok = worst <= tolerance
            failures += not ok
            print(f"{name} {emit}: {len(calls)} batch sizes as static builds: "
                  f"{'ok' if ok else 'MISMATCH %g' % worst}")
            out_of_range(m, name, emit, maxima)
    return 1 if failures else 0


def out_of_range(m, name, emit, maxima):
    """Raw calls with a bad size of the first run-time dim: ERROR_ARGUMENT,
    outputs untouched."""
    d = next(i for i, mx in enumerate(maxima) if mx)
    results = []
    for rows in (maxima[d] + 1, 0, -1, 1 << 30):
        args, outputs = [], []
        def size(dim):
            if dim is None:  # the run-time steps: room for the most
                return m.info["time"]
            return maxima[int(dim[6:])] if isinstance(dim, str) else dim
        for n, dtype, shape in m._inputs:
            if n == "batch_%d" % d:
                a = np.array(rows, np.int32)
            elif n.startswith("batch_"):
                a = np.array(1, np.int32)
            elif n == "steps":
                a = np.array(1, np.int32)
            else:
                a = np.ones([size(s) for s in shape], dtype)
            outputs.append(a)
            args.append(a.ctypes.data)
        written = []
        for n, dtype, shape in m._outputs:
            a = np.full([size(s) for s in shape], 7.0, dtype)
            written.append(a)
            args.append(a.ctypes.data)
        args.append(m._workspace)
        status = m._fn(*args)
        untouched = all(np.all(a == 7.0) for a in written)
        results.append(f"{rows}->{m.info['status_codes'].get(status, status)}"
                       f"{'' if untouched else ' (WROTE)'}")
    print(f"{name} {emit}: out of range: {', '.join(results)}")


def cli(out):
    """`rnnc run`'s files: a {max: 16} spec and its static twin of batch 3,
    weights, and x of batch 3 (plus one of 17 rows, above the maximum)."""
    out = Path(out)
    layers = """
  - {type: RNN, name: enc, cell: {type: LSTMCell, features: 6}, return_carry: true}
  - {type: Dense, name: head, features: 2}
"""
    rng = np.random.default_rng(8)
    (out / "max.yaml").write_text(spec("cli", "{max: 16}", 5, False, 3, layers))
    (out / "static.yaml").write_text(spec("cli", "3", 5, False, 3, layers))
    np.savez(out / "w.npz", **weights(rng, layers, 3))
    np.savez(out / "x3.npz", x=rng.standard_normal((3, 5, 3)).astype(np.float32))
    np.savez(out / "x17.npz", x=rng.standard_normal((17, 5, 3)).astype(np.float32))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "cli":
        cli(sys.argv[2])
    elif len(sys.argv) > 1 and sys.argv[1] == "same":
        runtime_time.same(sys.argv[2], sys.argv[3])
    else:
        sys.exit(main())
