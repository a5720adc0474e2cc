#!/usr/bin/env python3
"""The structure-aware differential fuzzer (scripts/fuzz diff SECONDS).

  diff_fuzz.py RNNC SRC_ROOT SECONDS [FIRST_SEED]

Draws random valid models from tests/Driver/Inputs/random_models.py, in a
cycle of four batches: two of whole models over the spec language
(--whole, random_whole.py: every cell, RNN option, Bidirectional merge,
stacks, Embed, Dense, LayerNorm, Activation, Dropout, Pool), one of LSTM
and GRU layers at larger sizes (batches that run in length-sorted row
blocks), and one of long sequences with blocked time loops (--large).
Each model goes through `rnnc run` on both code paths and every output is
compared with the numpy model of Flax (examples/flax_numpy.py), batch
after batch of fresh seeds until SECONDS have passed. A failing seed is
printed with the command that replays it. Exits 1 on any mismatch or
compiler failure.
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
    kind = ("--whole", "", "--whole", "--large")[batches % 4]
    count = 1 if kind == "--large" else 4
    cmd = [sys.executable, script, rnnc, src, str(seed), str(count)]
    if kind:
        cmd.append(kind)
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
