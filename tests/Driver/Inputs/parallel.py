"""Specs and weights for parallel.test: an LSTM and a GRU over a run-time
batch of up to 16 rows, an LSTM of up to 128 rows and 64 steps, the LSTM
with a static batch of 4 (serial) and static batches that split (STATIC)."""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runtime_time import weights  # noqa: E402

LAYERS = {
    "lstm": """
  - type: RNN
    name: enc
    cell: {type: LSTMCell, features: 40}
  - type: Dense
    name: head
    features: 3
""",
    "gru": """
  - type: RNN
    name: enc
    cell: {type: GRUCell, features: 70}
""",
    # Enough rows and steps that, with alternating sweeps, a task's 32 of
    # 64 rows would sum some steps in another order than the whole call.
    "rows128": """
  - type: RNN
    name: enc
    cell: {type: LSTMCell, features: 128}
""",
}
SIZES = {"rows128": ("{max: 128}", 64, 16)}
# Static batches that split (file: model, batch, time, features): 16 rows
# in two parts of 8; 12 in parts of 8 and 4 (two part entry points); and
# 64 rows of 64 steps, where a part of 32 rows alone would take other
# blocks of steps (and so other sweep directions) than the whole.
STATIC = {
    "static16": ("lstm", 16, 7, 5),
    "static12": ("gru", 12, 7, 5),
    "static64": ("rows128", 64, 64, 16),
}


def main():
    out = Path(sys.argv[1])
    for seed, (name, layers) in enumerate(LAYERS.items()):
        batch, time, features = SIZES.get(name, ("{max: 16}", 7, 5))
        for file, batch in ((name, batch), ("static", "4")):
            if file == "static" and name != "lstm":
                continue
            (out / f"{file}.yaml").write_text(
                f"rnnc: 1\nname: {name}\ninput: {{batch: [{batch}], time: {time}, "
                f"features: {features}}}\nlayers:{layers}")
        for file, (model, rows, steps, feats) in STATIC.items():
            if model == name:
                (out / f"{file}.yaml").write_text(
                    f"rnnc: 1\nname: {file}\ninput: {{batch: [{rows}], "
                    f"time: {steps}, features: {feats}}}\nlayers:{layers}")
        rng = np.random.default_rng(seed)
        np.savez(out / f"{name}.npz", **weights(rng, layers, features))


main()
