"""What rnnc.flax.export refuses, and the message it gives: one line per
model, "<case>: ExportError: <message>" (or "<case>: exported" if it did
not refuse)."""

import sys
import tempfile

import numpy as np

import jax
import jax.numpy as jnp
import flax.linen as nn
from flax import nnx

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[3] / "python"))
import rnnc.flax  # noqa: E402

KEY = jax.random.key(0)
X = np.random.default_rng(0).normal(size=(2, 5, 3)).astype(np.float32)
LENS = np.array([5, 2], np.int32)
OUT = tempfile.mkdtemp(prefix="rnnc-export-errors-")


class OpBetweenLayers(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.RNN(nn.LSTMCell(4), name="enc")(x)
        x = jnp.tanh(x) * 2.0
        return nn.RNN(nn.GRUCell(4), name="dec")(x)


class OpBeforeFirstLayer(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.RNN(nn.LSTMCell(4), name="enc")(x[:, ::-1])


class OpAfterLastLayer(nn.Module):
    @nn.compact
    def __call__(self, x):
        # A mean over the features (over time it would be a Pool).
        return jnp.mean(nn.RNN(nn.LSTMCell(4), name="enc")(x), axis=-1)


class ConvHead(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.RNN(nn.LSTMCell(4), name="enc")(x)
        return nn.Conv(2, kernel_size=(3,), name="head")(x)


def scan_of(**options):
    class ScanModel(nn.Module):
        @nn.compact
        def __call__(self, x):
            cell = nn.scan(nn.LSTMCell, **options)(4, name="lstm")
            carry = cell.initialize_carry(jax.random.key(0), x[:, 0].shape)
            return cell(carry, x)[1]
    return ScanModel()


class LayerNormOverTime(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.RNN(nn.GRUCell(4), name="enc")(x)
        return nn.LayerNorm(reduction_axes=(-2, -1))(x)


class PythonLoop(nn.Module):
    @nn.compact
    def __call__(self, x):
        cell = nn.GRUCell(4, name="cell")
        h = jnp.zeros((x.shape[0], 4))
        ys = []
        for t in range(x.shape[1]):
            h, y = cell(h, x[:, t])
            ys.append(y)
        return jnp.stack(ys, 1)


class CustomCell(nn.GRUCell):
    pass


class ComputedLengths(nn.Module):
    @nn.compact
    def __call__(self, x, lengths):
        return nn.RNN(nn.GRUCell(4), return_carry=True)(x, seq_lengths=lengths - 1)


class MixedLayouts(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.RNN(nn.GRUCell(4))(x)
        return nn.RNN(nn.GRUCell(4), time_major=True)(x)


class LengthsOnOneLayer(nn.Module):
    @nn.compact
    def __call__(self, x, lengths):
        x = nn.RNN(nn.GRUCell(4))(x, seq_lengths=lengths)
        return nn.RNN(nn.GRUCell(4), return_carry=True)(x)


class CarryOnes(nn.Module):
    @nn.compact
    def __call__(self, x):
        h = jnp.ones((x.shape[0], 4))
        return nn.RNN(nn.GRUCell(4))(x, initial_carry=h)


class CarryZerosInModel(nn.Module):
    @nn.compact
    def __call__(self, x):
        cell = nn.LSTMCell(4)
        carry = cell.initialize_carry(jax.random.key(1), x[:, 0].shape)
        return nn.RNN(cell)(x, initial_carry=carry)


def linen(name, module, *args, **kwargs):
    try:
        variables = module.init(KEY, *args, **kwargs)
        rnnc.flax.export(module, variables, *args, path=OUT + "/" + name, **kwargs)
        print("%s: exported" % name)
    except rnnc.flax.ExportError as e:
        print("%s: ExportError: %s" % (name, e))


def nnx_case(name, model, *args, **kwargs):
    try:
        rnnc.flax.export(model, None, *args, path=OUT + "/" + name, **kwargs)
        print("%s: exported" % name)
    except rnnc.flax.ExportError as e:
        print("%s: ExportError: %s" % (name, e))


linen("op_between_layers", OpBetweenLayers(), X)
linen("op_before_first_layer", OpBeforeFirstLayer(), X)
linen("op_after_last_layer", OpAfterLastLayer(), X)
linen("conv_head", ConvHead(), X)
linen("scan_params_per_step", scan_of(variable_axes={"params": 1},
                                      split_rngs={"params": True}, in_axes=1, out_axes=1), X)
linen("scan_axes_differ", scan_of(variable_broadcast="params",
                                  split_rngs={"params": False}, in_axes=1, out_axes=0), X)
linen("layer_norm_over_time", LayerNormOverTime(), X)
linen("python_loop", PythonLoop(), X)
linen("custom_cell", nn.RNN(CustomCell(4)), X)
linen("unknown_activation", nn.RNN(nn.SimpleCell(4, activation_fn=jnp.sin)), X)
linen("partial_elu", nn.RNN(nn.SimpleCell(4, activation_fn=lambda v: jax.nn.elu(v, 0.5))), X)
linen("merge_fn_sub", nn.Bidirectional(nn.RNN(nn.GRUCell(4)), nn.RNN(nn.GRUCell(4)),
                                       merge_fn=lambda a, b: a - b), X)
linen("carry_init_ones", nn.RNN(nn.GRUCell(4, carry_init=nn.initializers.ones)), X)
linen("float16_cell", nn.RNN(nn.GRUCell(4, dtype=jnp.float16)), X)
linen("computed_lengths", ComputedLengths(), X, LENS)
linen("mixed_layouts", MixedLayouts(), X)
linen("lengths_on_one_layer", LengthsOnOneLayer(), X, LENS)
linen("float64_input", nn.RNN(nn.GRUCell(4)), X.astype(np.float64))
nnx_case("nnx_op_between_layers", nnx.Sequential(
    nnx.RNN(nnx.GRUCell(3, 4, rngs=nnx.Rngs(0))), lambda v: jnp.tanh(v) * 2.0,
    nnx.RNN(nnx.GRUCell(4, 4, rngs=nnx.Rngs(1)))), X)
nnx_case("nnx_conv_head", nnx.Sequential(
    nnx.RNN(nnx.GRUCell(3, 4, rngs=nnx.Rngs(0))),
    nnx.Conv(4, 2, kernel_size=3, rngs=nnx.Rngs(1))), X)
nnx_case("nnx_dropout_training", nnx.Sequential(
    nnx.RNN(nnx.GRUCell(3, 4, rngs=nnx.Rngs(0))),
    nnx.Dropout(0.5, rngs=nnx.Rngs(2))), X)
linen("initial_carry_ones", CarryOnes(), X)
# Accepted: a lambda that is tanh is tanh; zeros made in the model are
# initial_carry: zeros; a Sequential of two RNNs.
linen("initial_carry_zeros_in_model", CarryZerosInModel(), X)
linen("lambda_tanh", nn.RNN(nn.SimpleCell(4, activation_fn=lambda v: jnp.tanh(v))), X)
nnx_case("nnx_sequential", nnx.Sequential(
    nnx.RNN(nnx.GRUCell(3, 4, rngs=nnx.Rngs(0))),
    nnx.RNN(nnx.LSTMCell(4, 4, rngs=nnx.Rngs(1)))), X)
