#!/usr/bin/env python3
"""Runs every torch fixture through `rnnc run` and compares with torch.

Usage: run_fixtures.py RNNC FIXTURE_DIR [--emit-path llvm|c]
Every output and final carry must be within 1e-5 + 1e-4 * |expected| of the
values torch computed (tests/fixtures/torch/make_fixtures.py). Prints one
line per fixture, then the worst error; exits 1 on any mismatch.
"""
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np


def main():
    rnnc, fixture_dir = sys.argv[1], sys.argv[2]
    extra = sys.argv[3:]
    specs = sorted(glob.glob(os.path.join(fixture_dir, "*.yaml")))
    if not specs:
        sys.exit("no fixtures in " + fixture_dir)
    worst, failures = 0.0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for spec in specs:
            base = spec[: -len(".yaml")]
            name = os.path.basename(base)
            out = os.path.join(tmp, name + ".out.npz")
            # The fixture holds the expected outputs too; `rnnc run` takes
            # only the model's inputs (an unexpected array is an error).
            io = np.load(base + ".io.npz")
            inputs = os.path.join(tmp, name + ".in.npz")
            np.savez(inputs, **{k: io[k] for k in io.files
                                if k in ("x", "seq_lengths")
                                or k.startswith("initial_carry/")})
            # Models without params (activations alone) ship no weights.
            weights = base + ".weights.npz"
            if not os.path.exists(weights):
                weights = os.path.join(tmp, name + ".weights.npz")
                np.savez(weights)
            cmd = [rnnc, "run", spec, "--weights", weights,
                   "--inputs", inputs, "--output", out] + extra
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode != 0:
                print(f"FAIL {name}: rnnc run failed:\n{run.stderr}")
                failures += 1
                continue
            got, want = np.load(out), np.load(base + ".io.npz")
            error = 0.0
            for key in got.files:
                expected = want[key]
                mask = want[f"mask/{key}"] if f"mask/{key}" in want.files else True
                excess = np.abs(got[key] - expected) - (1e-5 + 1e-4 * np.abs(expected))
                if np.any((excess > 0) & mask):
                    print(f"FAIL {name}: '{key}' differs by up to "
                          f"{np.max(np.abs(got[key] - expected)):.3e}")
                    failures += 1
                error = max(error, float(np.max(np.abs(got[key] - expected) * mask)))
            missing = [k for k in want.files
                       if (k == "y" or k.startswith("carry/")) and k not in got.files]
            if missing:
                print(f"FAIL {name}: missing outputs {missing}")
                failures += 1
            worst = max(worst, error)
            print(f"ok {name}: {len(got.files)} arrays, max abs error {error:.2e}")
    print(f"{len(specs) - failures} of {len(specs)} fixtures match torch; "
          f"worst abs error {worst:.2e}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
