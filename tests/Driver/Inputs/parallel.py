"""Specs and weights for parallel.test: an LSTM and a GRU over a run-time
batch of up to 16 rows (and the LSTM with a static batch)."""
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
}


def main():
    out = Path(sys.argv[1])
    for seed, (name, layers) in enumerate(LAYERS.items()):
        for file, batch in ((name, "{max: 16}"), ("static", "4")):
            if file == "static" and name != "lstm":
                continue
            (out / f"{file}.yaml").write_text(
                f"rnnc: 1\nname: {name}\ninput: {{batch: [{batch}], time: 7, "
                f"features: 5}}\nlayers:{layers}")
        rng = np.random.default_rng(seed)
        np.savez(out / f"{name}.npz", **weights(rng, layers, 5))


main()
