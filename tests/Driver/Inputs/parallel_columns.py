"""Specs and weights for parallel-columns.test: batch-1 models whose
<name>_run_parallel splits the gate columns (an LSTM; a GRU and an LSTM
that return their carries; H=256; bf16 params, int8 weights, dynamic int8
activations at H=512 and H=640) and some that stay serial (H=128, a Dense
head after the RNN, bf16 compute, dynamic int8 at H=256)."""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runtime_time import weights  # noqa: E402

HEAD = """  - type: Dense
    name: head
    features: 3
"""

# file: (cell, H, return_carry, more layers, top-level keys)
MODELS = {
    "lstm": ("LSTMCell", 256, False, "", ""),
    "gru": ("GRUCell", 256, True, "", ""),
    "carries": ("LSTMCell", 256, True, "", ""),
    "small": ("LSTMCell", 128, False, "", ""),
    "head": ("GRUCell", 256, False, HEAD, ""),
    "bf16": ("LSTMCell", 256, False, "", "param_dtype: bfloat16\n"),
    "int8": ("GRUCell", 256, True, "", "quantize: {weights: int8}\n"),
    "int8d": ("LSTMCell", 512, False, "",
              "quantize: {weights: int8, activations: dynamic}\n"),
    "int8d256": ("GRUCell", 256, True, "",
                 "quantize: {weights: int8, activations: dynamic}\n"),
    "int8d640": ("GRUCell", 640, True, "",
                 "quantize: {weights: int8, activations: dynamic}\n"),
    "bf16c": ("LSTMCell", 256, False, "", "dtype: bfloat16\n"),
}


# Input features: 5, or (dynamic int8) a multiple of 4, so that the input
# projection runs on the int8 kernels too.
FEATURES = {"int8d": 16, "int8d256": 16, "int8d640": 16}


def main():
    out = Path(sys.argv[1])
    for seed, (name, (cell, hidden, carry, more, top)) in enumerate(
            MODELS.items()):
        layers = ("\n  - type: RNN\n    name: enc\n"
                  + ("    return_carry: true\n" if carry else "")
                  + f"    cell: {{type: {cell}, features: {hidden}}}\n" + more)
        features = FEATURES.get(name, 5)
        (out / f"{name}.yaml").write_text(
            f"rnnc: 1\nname: {name}\n{top}input: {{batch: [1], time: 7, "
            f"features: {features}}}\nlayers:{layers}")
        rng = np.random.default_rng(seed)
        np.savez(out / f"{name}.npz", **weights(rng, layers, features))


main()
