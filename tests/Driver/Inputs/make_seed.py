"""Writes checkpoints of the seed model (seed.yaml) as Flax saves them.

The model (issue 16): two nn.LSTMCell(64) named lstm_cell_0 and lstm_cell_1,
each run with nn.scan(variable_broadcast='params', split_rngs={'params':
False}, in_axes=1, out_axes=1) over x of shape (32, 10, 1), then x[:, -1, :],
Dense(32) + elu, Dense(16) + elu, Dense(1). nn.scan over a bare cell saves
the cell's params directly under its name (no `cell/` level), so the
checkpoint holds

  params/lstm_cell_0/{ii,if,ig,io}/kernel          (in, 64)
  params/lstm_cell_0/{hi,hf,hg,ho}/{kernel, bias}  (64, 64), (64)
  params/lstm_cell_1/...                           (64, 64) inputs
  params/Dense_0/{kernel (64, 32), bias (32)}, Dense_1 (32, 16), Dense_2 (16, 1)

Usage: make_seed.py PREFIX. Writes
  PREFIX.npz        exactly those params (flax.traverse_util.flatten_dict
                    with sep='/' of {'params': ...}, saved with np.savez)
  PREFIX.extra.npz  the same plus a train state's extras: params/Dense_3/
                    {kernel, bias} (a head the spec does not have) and an
                    int32 `step` counter
  PREFIX.dense1.npz Dense_1 missing entirely (its params renamed to
                    Dense_7)
"""
import sys

import numpy as np

prefix = sys.argv[1]
rng = np.random.default_rng(16)


def array(*shape):
    return (rng.standard_normal(shape) * 0.1).astype(np.float32)


params = {}
for name, features_in in (("lstm_cell_0", 1), ("lstm_cell_1", 64)):
    for g in "ifgo":
        params[f"params/{name}/i{g}/kernel"] = array(features_in, 64)
        params[f"params/{name}/h{g}/kernel"] = array(64, 64)
        params[f"params/{name}/h{g}/bias"] = array(64)
for name, (fin, fout) in (("Dense_0", (64, 32)), ("Dense_1", (32, 16)),
                          ("Dense_2", (16, 1))):
    params[f"params/{name}/kernel"] = array(fin, fout)
    params[f"params/{name}/bias"] = array(fout)
np.savez(prefix + ".npz", **params)

extra = dict(params)
extra["params/Dense_3/kernel"] = array(1, 1)
extra["params/Dense_3/bias"] = array(1)
extra["step"] = np.array(1200, np.int32)
np.savez(prefix + ".extra.npz", **extra)

renamed = {k.replace("Dense_1/", "Dense_7/"): v for k, v in params.items()}
np.savez(prefix + ".dense1.npz", **renamed)
