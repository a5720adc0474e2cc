#!/usr/bin/python3
"""Checks examples/flax_numpy.py's whole-model layers against torch.

Usage: flax_numpy_layers.py <rnnc source root>

Every case of tests/fixtures/torch/layers/ (expected values computed with
torch.nn.functional by make_fixtures.py) is recomputed with flax_numpy's
numpy model of Flax (Dense, LayerNorm, activations, Embed, Pool,
bidirectional LSTMs and the seed model from its params/... checkpoint)
and must match within 1e-10; every pool mode is also checked on a small
hand-worked case. Prints one line per case and the totals.
"""

import os
import sys

import numpy as np

ROOT = sys.argv[1]
sys.path.insert(0, os.path.join(ROOT, "examples"))
import flax_numpy as fx  # noqa: E402

LAYERS = os.path.join(ROOT, "tests", "fixtures", "torch", "layers")


def load(name):
    weights_path = os.path.join(LAYERS, name + ".weights.npz")
    weights = dict(np.load(weights_path)) if os.path.exists(weights_path) \
        else {}
    return weights, dict(np.load(os.path.join(LAYERS, name + ".io.npz")))


def zeros(batch, hidden):
    return (np.zeros((batch, hidden)), np.zeros((batch, hidden)))


def bilstm(w, x, lengths):
    f = fx.subtree(w, "enc/forward_rnn/cell")
    b = fx.subtree(w, "enc/backward_rnn/cell")
    hidden = f["hi/kernel"].shape[0]
    y, _, _ = fx.bidirectional(fx.lstm_step, f, fx.lstm_step, b, x,
                               zeros(x.shape[0], hidden),
                               zeros(x.shape[0], hidden), lengths)
    return y


def compute(name, w, io):
    """flax_numpy's y (and carries) for case `name`."""
    x = io["x"]
    carries = {}
    if name.startswith("act_"):
        y = fx.activation(name[len("act_"):], x)
    elif name == "dense_bias":
        y = fx.dense(fx.subtree(w, "dense"), x)
    elif name == "dense_softmax":
        y = fx.dense(fx.subtree(w, "dense"), x, "softmax")
    elif name == "dense_nobias_leaky_relu_time_major":
        y = fx.dense(fx.subtree(w, "dense"), x, "leaky_relu")
    elif name == "layernorm":
        y = fx.layer_norm(fx.subtree(w, "norm"), x, 1e-6)
    elif name == "layernorm_bias_only":
        y = fx.layer_norm(fx.subtree(w, "norm"), x, 1e-2)
    elif name.startswith("embed"):
        y = fx.embed(fx.subtree(w, "embed"), x)
    elif name == "seed_lstm_dense_head":
        y, state = fx.seed_model(w, x)
        for layer, (c, h) in state.items():
            carries[f"carry/{layer}/c"], carries[f"carry/{layer}/h"] = c, h
    elif name == "lstm_final_carry_softmax":
        p = fx.subtree(w, "enc/cell")
        lengths = io["seq_lengths"]
        _, (c, h) = fx.rnn(fx.lstm_step, p, x, zeros(x.shape[0], 5), lengths)
        carries = {"carry/enc/c": c, "carry/enc/h": h}
        y = fx.dense(fx.subtree(w, "head"),
                     fx.pool("final_carry", None, final_h=h), "softmax")
    elif name in ("bilstm_mean_valid_layernorm", "bilstm_max_valid_layernorm"):
        lengths = io["seq_lengths"]
        fn = name.split("_")[1]
        y = fx.layer_norm(fx.subtree(w, "norm"),
                          fx.pool(fn, bilstm(w, x, lengths), lengths,
                                  valid_only=True))
    else:
        raise KeyError(name)
    return y, carries


def check_pool():
    """Every pool mode, with and without valid_only, on three rows of 4
    steps with lengths [3, 2, 0], against values worked out by hand."""
    x = np.array([[[1, -1], [3, 5], [2, 0], [-4, 2]],
                  [[-2, 2], [-1, 7], [9, -9], [6, 1]],
                  [[5, 5], [1, 1], [2, 2], [3, 3]]], dtype=np.float64)
    lengths = [3, 2, 0]
    cases = [
        ("last", False, [[-4, 2], [6, 1], [3, 3]]),
        ("first", False, [[1, -1], [-2, 2], [5, 5]]),
        ("sum", False, [[2, 6], [12, 1], [11, 11]]),
        ("mean", False, [[0.5, 1.5], [3, 0.25], [2.75, 2.75]]),
        ("max", False, [[3, 5], [9, 7], [5, 5]]),
        ("last_valid", False, [[2, 0], [-1, 7], [0, 0]]),
        ("last", True, [[2, 0], [-1, 7], [0, 0]]),
        ("first", True, [[1, -1], [-2, 2], [0, 0]]),
        ("sum", True, [[6, 4], [-3, 9], [0, 0]]),
        ("mean", True, [[2, 4 / 3], [-1.5, 4.5], [0, 0]]),
        ("max", True, [[3, 5], [-1, 7], [0, 0]]),
        ("last_valid", True, [[2, 0], [-1, 7], [0, 0]]),
    ]
    passed = 0
    for fn, valid_only, want in cases:
        got = fx.pool(fn, x, lengths, valid_only=valid_only)
        ok = np.allclose(got, want, rtol=0, atol=1e-12)
        label = fn + (" valid_only" if valid_only else "")
        print(f"{'ok  ' if ok else 'FAIL'} pool {label}")
        passed += ok
    print(f"{passed} of {len(cases)} pool modes match")


def main():
    check_pool()
    names = sorted(f[:-len(".io.npz")] for f in os.listdir(LAYERS)
                   if f.endswith(".io.npz"))
    passed = 0
    for name in names:
        w, io = load(name)
        y, carries = compute(name, w, io)
        expected = {k: v for k, v in io.items()
                    if k == "y" or k.startswith("carry/")}
        got = dict(carries, y=y)
        worst, ok = 0.0, set(got) == set(expected)
        for key in expected:
            if key not in got or np.shape(got[key]) != expected[key].shape:
                ok = False
                continue
            err = np.abs(got[key] - expected[key])
            worst = max(worst, float(err.max()))
            ok = ok and bool(np.all(err <= 1e-10 + 1e-10 *
                                    np.abs(expected[key])))
        print(f"{'ok  ' if ok else 'FAIL'} {name}: max abs error {worst:.3g}")
        passed += ok
    print(f"{passed} of {len(names)} layer fixtures match flax_numpy")


if __name__ == "__main__":
    main()
