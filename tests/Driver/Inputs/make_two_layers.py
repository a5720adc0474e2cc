"""Writes weights for two_layers.yaml: PREFIX.good.npz matches it;
PREFIX.bad.npz drops enc/cell/hi/bias, reshapes dec/cell/hn/kernel and adds
dec/cell/hz/bias; PREFIX.partial.npz only has the first two mistakes."""
import sys

import numpy as np

prefix = sys.argv[1]
rng = np.random.default_rng(0)
good = {}
for g in "ifgo":
    good[f"enc/cell/i{g}/kernel"] = rng.standard_normal((4, 5))
    good[f"enc/cell/h{g}/kernel"] = rng.standard_normal((5, 5))
    good[f"enc/cell/h{g}/bias"] = rng.standard_normal(5)
for g in "rzn":
    good[f"dec/cell/i{g}/kernel"] = rng.standard_normal((5, 3))
    good[f"dec/cell/i{g}/bias"] = rng.standard_normal(3)
    good[f"dec/cell/h{g}/kernel"] = rng.standard_normal((3, 3))
good["dec/cell/hn/bias"] = rng.standard_normal(3)
good = {k: v.astype(np.float32) for k, v in good.items()}
np.savez(prefix + ".good.npz", **good)

partial = dict(good)
del partial["enc/cell/hi/bias"]
partial["dec/cell/hn/kernel"] = np.zeros((3, 4), np.float32)
np.savez(prefix + ".partial.npz", **partial)
bad = dict(partial)
bad["dec/cell/hz/bias"] = np.zeros(3, np.float32)
np.savez(prefix + ".bad.npz", **bad)
