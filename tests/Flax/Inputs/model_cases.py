"""Whole models against live Flax: the seed model of
../shared/seeds/004 (a stacked LSTM through nn.scan with its Dense head, as
its author wrote it, in the form flax 0.12 runs), and a model per layer
type of docs/SpecFormat.md (Dense, Pool, Embed, LayerNorm, Activation,
Dropout), linen and NNX. Each is compiled through a hand-written spec and
through rnnc.flax.export, on both code paths (harness.py).
"""

import sys
from typing import Sequence

import numpy as np

import harness
from harness import Case, rng_inputs
from cases import init, lengths

import jax
import jax.numpy as jnp
import flax.linen as nn
from flax import nnx


def head(name, batch, time, features, *, seq_lengths=False, time_major=False,
         layout="linen"):
    """A spec's head; `features` None for an Embed model (token ids)."""
    text = "rnnc: 1\nname: %s\nparams_layout: %s\ninput:\n  batch: %s\n  time: %d\n" % (
        name, layout, list(batch), time)
    if features is not None:
        text += "  features: %s\n" % features
    return text + "  time_major: %s\n  seq_lengths: %s\nlayers:\n" % (
        str(time_major).lower(), str(seq_lengths).lower())


def y_only(out):
    return {"y": out}


# ----------------------------------------------------------------------------
# The seed model: the user's LSTMModel. Its author wrote
# `@nn.scan(...) def scan_step(carry, xt)` inside the loop, which flax 0.12
# refuses (seed_as_written.py shows it); this is the same model written as
# flax 0.12 runs it: nn.scan of the cell class, the carries passed in.

class LSTMModel(nn.Module):
    lstm_hidden_size: int
    num_lstm_layers: int
    linear_layer_sizes: Sequence[int]
    mean_aggregation: bool

    def initialize_carry(self, batch_size, feature_size=1):
        return [(jnp.zeros((batch_size, self.lstm_hidden_size)),
                 jnp.zeros((batch_size, self.lstm_hidden_size)))
                for _ in range(self.num_lstm_layers)]

    @nn.compact
    def __call__(self, x, carry=None):
        if carry is None:
            raise ValueError("Carry must be initialized explicitly using `initialize_carry`.")
        if x.ndim == 2:
            x = jnp.expand_dims(x, axis=-1)
        for i in range(self.num_lstm_layers):
            scan_cell = nn.scan(nn.LSTMCell, variable_broadcast='params',
                                split_rngs={'params': False}, in_axes=1, out_axes=1)
            carry[i], outputs = scan_cell(features=self.lstm_hidden_size,
                                          name=f'lstm_cell_{i}')(carry[i], x)
            x = outputs
        if self.mean_aggregation:
            x = jnp.mean(x, axis=1)
        else:
            x = x[:, -1, :]
        for size in self.linear_layer_sizes:
            x = nn.Dense(features=size)(x)
            x = nn.elu(x)
        x = nn.Dense(features=1)(x)
        return x


def seed_case(name, mean_aggregation, batch=32, time=10, hidden=64):
    model = LSTMModel(hidden, 2, [32, 16], mean_aggregation)
    x = np.asarray(jax.random.normal(jax.random.PRNGKey(0), (batch, time, 1)))
    variables = model.init(jax.random.PRNGKey(0), x, model.initialize_carry(batch))
    carry = model.initialize_carry(batch)
    layers = """  - {type: RNN, name: lstm0, cell: {type: LSTMCell, features: %d, params: lstm_cell_0}, initial_carry: input}
  - {type: RNN, name: lstm1, params: lstm_cell_1, cell: {type: LSTMCell, features: %d}, initial_carry: input}
  - {type: Pool, fn: %s}
  - {type: Dense, features: 32, activation: elu, params: Dense_0}
  - {type: Dense, features: 16, activation: elu, params: Dense_1}
  - {type: Dense, features: 1, params: Dense_2}
""" % (hidden, hidden, "mean" if mean_aggregation else "last")
    # The carry the user builds is (h, c) by its comments; LSTMCell reads
    # the pair as (c, h): the first array is the cell state.
    inputs = {"x": x}
    for i, (first, second) in enumerate(carry):
        inputs["lstm%d/c" % i] = np.asarray(first)
        inputs["lstm%d/h" % i] = np.asarray(second)
    return Case(name, model, variables, (x, carry),
                head(name, (batch,), time, 1) + layers, inputs, y_only)


def case_seed():
    return seed_case("seed", False)


def case_seed_mean_aggregation():
    return seed_case("seed_mean_aggregation", True, batch=5, time=7, hidden=12)


class ScanInsideCarry(nn.Module):
    """The docs' form: the carry made inside the model, reverse scans."""

    @nn.compact
    def __call__(self, x):
        cell = nn.scan(nn.GRUCell, variable_broadcast='params',
                       split_rngs={'params': False}, in_axes=1, out_axes=1,
                       reverse=True)(6, name="gru")
        carry = cell.initialize_carry(jax.random.key(0), x[:, 0].shape)
        final, y = cell(carry, x)
        return final, nn.Dense(3, name="out")(y)


def case_scan_reverse_carry():
    x = rng_inputs(60, 3, 5, 4)
    model = ScanInsideCarry()
    variables = init(model, x)
    layers = """  - type: RNN
    name: gru
    cell: {type: GRUCell, features: 6, params: gru}
    reverse: true
    keep_order: true
    return_carry: true
  - {type: Dense, name: out, features: 3}
"""

    def expect(out):
        final, y = out
        return {"y": y, "carry/gru/h": final}
    return Case("scan_reverse_carry", model, variables, (x,),
                head("scan_reverse_carry", (3,), 5, 4) + layers, {"x": x}, expect)


# ----------------------------------------------------------------------------
# A model per layer type (linen).

class FinalCarryClassifier(nn.Module):
    """Pool final_carry, Dense with softmax: the keyword-spotting head."""

    @nn.compact
    def __call__(self, x, seq_lengths):
        carry, _ = nn.RNN(nn.LSTMCell(8), return_carry=True, name="enc")(
            x, seq_lengths=seq_lengths)
        return nn.softmax(nn.Dense(4, name="cls")(carry[1]))


def case_final_carry_classifier():
    x = rng_inputs(61, 3, 6, 5)
    lens = lengths(6, 2, 4)
    model = FinalCarryClassifier()
    variables = init(model, x, lens)
    layers = """  - {type: RNN, name: enc, cell: {type: LSTMCell, features: 8, params: LSTMCell_0}}
  - {type: Pool, fn: final_carry}
  - {type: Dense, name: cls, features: 4, activation: softmax}
"""
    return Case("final_carry_classifier", model, variables, (x, lens),
                head("final_carry_classifier", (3,), 6, 5, seq_lengths=True) + layers,
                {"x": x, "seq_lengths": lens}, y_only)


class BidirectionalMaxPool(nn.Module):
    @nn.compact
    def __call__(self, x, seq_lengths):
        y = nn.Bidirectional(nn.RNN(nn.GRUCell(4)), nn.RNN(nn.LSTMCell(5)),
                             name="bi")(x, seq_lengths=seq_lengths)
        return nn.log_softmax(nn.Dense(3, name="cls")(jnp.max(y, axis=1)))


def case_bidirectional_max_pool():
    x = rng_inputs(62, 2, 5, 3)
    lens = lengths(5, 3)
    model = BidirectionalMaxPool()
    variables = init(model, x, lens)
    layers = """  - type: Bidirectional
    name: bi
    forward_rnn: {cell: {type: GRUCell, features: 4, params: GRUCell_0}}
    backward_rnn: {cell: {type: LSTMCell, features: 5, params: LSTMCell_0}}
  - {type: Pool, fn: max}
  - {type: Dense, name: cls, features: 3, activation: log_softmax}
"""
    return Case("bidirectional_max_pool", model, variables, (x, lens),
                head("bidirectional_max_pool", (2,), 5, 3, seq_lengths=True) + layers,
                {"x": x, "seq_lengths": lens}, y_only)


class CharLM(nn.Module):
    """Embed, a GRU, a per-step Dense: a character language model."""

    @nn.compact
    def __call__(self, ids):
        x = nn.Embed(20, 8, name="embed")(ids)
        x = nn.RNN(nn.GRUCell(16), name="rnn")(x)
        return nn.log_softmax(nn.Dense(20, name="logits")(x))


def case_char_lm():
    ids = np.random.default_rng(63).integers(0, 20, size=(2, 7)).astype(np.int32)
    model = CharLM()
    variables = init(model, ids)
    text = head("char_lm", (2,), 7, None) + """  - {type: Embed, name: embed, num_embeddings: 20, features: 8}
  - {type: RNN, name: rnn, cell: {type: GRUCell, features: 16, params: GRUCell_0}}
  - {type: Dense, name: logits, features: 20, activation: log_softmax}
"""
    return Case("char_lm", model, variables, (ids,), text, {"x": ids}, y_only)


class NormDropoutStack(nn.Module):
    """LayerNorm, Dropout (inference) and an activation between two RNNs;
    Pool first; Dense without bias."""

    @nn.compact
    def __call__(self, x):
        x = nn.RNN(nn.LSTMCell(6), name="l0")(x)
        x = nn.LayerNorm(epsilon=1e-5)(x)
        x = nn.Dropout(0.3)(x, deterministic=True)
        x = nn.relu(x)
        x = nn.RNN(nn.GRUCell(5), name="l1")(x)
        return nn.Dense(2, use_bias=False)(x[:, 0])


def case_norm_dropout_stack():
    x = rng_inputs(64, 3, 4, 3)
    model = NormDropoutStack()
    variables = init(model, x)
    layers = """  - {type: RNN, name: l0, cell: {type: LSTMCell, features: 6, params: LSTMCell_0}}
  - {type: LayerNorm, epsilon: 1e-5, params: LayerNorm_0}
  - {type: Dropout, rate: 0.3}
  - {type: Activation, fn: relu}
  - {type: RNN, name: l1, cell: {type: GRUCell, features: 5, params: GRUCell_0}}
  - {type: Pool, fn: first}
  - {type: Dense, features: 2, use_bias: false, params: Dense_0}
"""
    return Case("norm_dropout_stack", model, variables, (x,),
                head("norm_dropout_stack", (3,), 4, 3) + layers, {"x": x}, y_only)


class ProjectSumGelu(nn.Module):
    """A Dense before the recurrence, a sum over time and an activation
    after it (the model returns it: the last layers have no module)."""

    @nn.compact
    def __call__(self, x):
        x = jnp.tanh(nn.Dense(8, name="proj")(x))
        x = nn.RNN(nn.SimpleCell(6), name="rnn")(x)
        return nn.gelu(jnp.sum(x, axis=1))


def case_project_sum_gelu():
    x = rng_inputs(65, 2, 5, 4)
    model = ProjectSumGelu()
    variables = init(model, x)
    layers = """  - {type: Dense, name: proj, features: 8, activation: tanh}
  - {type: RNN, name: rnn, cell: {type: SimpleCell, features: 6, params: SimpleCell_0}}
  - {type: Pool, fn: sum}
  - {type: Activation, fn: gelu}
"""
    return Case("project_sum_gelu", model, variables, (x,),
                head("project_sum_gelu", (2,), 5, 4) + layers, {"x": x}, y_only)


class TimeMajorMeanHead(nn.Module):
    @nn.compact
    def __call__(self, x):
        y = nn.RNN(nn.OptimizedLSTMCell(7), time_major=True, name="rnn")(x)
        h = nn.silu(nn.Dense(5, name="hidden")(jnp.mean(y, axis=0)))
        return nn.Dense(1, name="out")(h)


def case_time_major_mean_head():
    x = rng_inputs(66, 6, 3, 4)  # (T, B, I)
    model = TimeMajorMeanHead()
    variables = init(model, x)
    layers = """  - {type: RNN, name: rnn, cell: {type: OptimizedLSTMCell, features: 7, params: OptimizedLSTMCell_0}}
  - {type: Pool, fn: mean}
  - {type: Dense, name: hidden, features: 5, activation: silu}
  - {type: Dense, name: out, features: 1}
"""
    return Case("time_major_mean_head", model, variables, (x,),
                head("time_major_mean_head", (3,), 6, 4, time_major=True) + layers,
                {"x": x}, y_only)


# ----------------------------------------------------------------------------
# NNX.

class NnxCharTagger(nnx.Module):
    def __init__(self, rngs):
        self.embed = nnx.Embed(12, 6, rngs=rngs)
        self.rnn = nnx.RNN(nnx.LSTMCell(6, 8, rngs=rngs))
        self.norm = nnx.LayerNorm(8, rngs=rngs)
        self.drop = nnx.Dropout(0.25, rngs=rngs)
        self.out = nnx.Linear(8, 3, rngs=rngs)

    def __call__(self, ids, seq_lengths):
        x = self.rnn(self.embed(ids), seq_lengths=seq_lengths)
        x = self.drop(self.norm(x))
        return jax.nn.softplus(self.out(x[:, -1]))


def case_nnx_char_tagger():
    ids = np.random.default_rng(67).integers(0, 12, size=(3, 5)).astype(np.int32)
    lens = lengths(5, 2, 4)
    model = NnxCharTagger(nnx.Rngs(3))
    model.eval()  # Dropout: deterministic
    text = head("nnx_char_tagger", (3,), 5, None, seq_lengths=True, layout="nnx") + """\
  - {type: Embed, name: embed, num_embeddings: 12, features: 6}
  - {type: RNN, name: rnn, cell: {type: LSTMCell, features: 8, params: rnn/cell}}
  - {type: LayerNorm, name: norm}
  - {type: Dropout, rate: 0.25}
  - {type: Pool, fn: last}
  - {type: Dense, name: out, features: 3, activation: softplus}
"""
    return Case("nnx_char_tagger", model, None, (ids, lens), text,
                {"x": ids, "seq_lengths": lens}, y_only)


class NnxMeanClassifier(nnx.Module):
    def __init__(self, rngs):
        self.rnn = nnx.RNN(nnx.GRUCell(4, 6, rngs=rngs))
        self.hidden = nnx.Linear(6, 5, rngs=rngs)
        self.out = nnx.Linear(5, 2, rngs=rngs)

    def __call__(self, x):
        h = jax.nn.leaky_relu(self.hidden(jnp.mean(self.rnn(x), axis=1)))
        return self.out(h)


def case_nnx_mean_classifier():
    x = rng_inputs(68, 3, 5, 4)
    model = NnxMeanClassifier(nnx.Rngs(4))
    text = head("nnx_mean_classifier", (3,), 5, 4, layout="nnx") + """\
  - {type: RNN, name: rnn, cell: {type: GRUCell, features: 6, params: rnn/cell}}
  - {type: Pool, fn: mean}
  - {type: Dense, name: hidden, features: 5, activation: leaky_relu}
  - {type: Dense, name: out, features: 2}
"""
    return Case("nnx_mean_classifier", model, None, (x,), text, {"x": x}, y_only)


MODELS = [case_seed, case_seed_mean_aggregation, case_scan_reverse_carry,
          case_final_carry_classifier, case_bidirectional_max_pool, case_char_lm,
          case_norm_dropout_stack, case_project_sum_gelu,
          case_time_major_mean_head, case_nnx_char_tagger,
          case_nnx_mean_classifier]

if __name__ == "__main__":
    sys.exit(harness.main({"models": MODELS}))
