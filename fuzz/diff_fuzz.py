#!/usr/bin/env python3
"""The structure-aware differential fuzzer (scripts/fuzz diff SECONDS).

  diff_fuzz.py RNNC SRC_ROOT SECONDS [FIRST_SEED]

Draws random valid models (tests/Driver/Inputs/random_models.py: LSTM and
GRU cells, RNN or Bidirectional, lengths, zero padding, time-major, unroll,
initial carries, length-sorted row blocks, and every fourth batch long
sequences with blocked time loops), compiles each through `rnnc run` on
both code paths, and compares every output with the numpy model of Flax
(examples/flax_numpy.py), batch after batch of fresh seeds until SECONDS
have passed. A failing seed is printed with the command that replays it.
Exits 1 on any mismatch or compiler failure.
"""
import os
import subprocess
import sys
import time

rnnc, src, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
seed = int(sys.argv[4]) if len(sys.argv) > 4 else int(time.time()) % 1000000
script = os.path.join(src, "tests", "Driver", "Inputs", "random_models.py")
deadline = time.monotonic() + seconds
batches = models = failures = 0
while time.monotonic() < deadline:
    large = batches % 4 == 3
    count = 1 if large else 4
    cmd = [sys.executable, script, rnnc, src, str(seed), str(count)]
    if large:
        cmd.append("--large")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    models += count
    if proc.returncode != 0:
        failures += 1
        print(f"diff_fuzz: seed {seed} failed; replay: {' '.join(cmd)}")
        sys.stdout.write(proc.stdout)
        sys.stdout.write(proc.stderr)
    batches += 1
    seed += 1
print(f"diff_fuzz: {models} random models in {batches} batches, "
      f"{failures} failing batches")
sys.exit(1 if failures else 0)
