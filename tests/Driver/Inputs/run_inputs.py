"""Writes an --inputs file for `rnnc run` from a torch fixture's .io.npz.

Usage: run_inputs.py FIXTURE.io.npz OUT.npz [EXPR ...]
Keeps the fixture's inputs (x, seq_lengths, initial_carry/...), drops the
expected outputs, then runs each EXPR (Python, with `d` the dict of arrays
and `np` numpy) before saving, e.g. "d['x'] = d['x'].astype(np.float64)".
"""
import sys

import numpy as np

io = np.load(sys.argv[1])
d = {k: io[k] for k in io.files
     if k in ("x", "seq_lengths") or k.startswith("initial_carry/")}
for expr in sys.argv[3:]:
    exec(expr)
np.savez(sys.argv[2], **d)
