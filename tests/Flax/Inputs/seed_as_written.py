"""The seed model (../shared/seeds/004) exactly as its author wrote it:
`@nn.scan(variable_broadcast=..., ...)` over a nested `def scan_step(carry,
xt)`. flax 0.12 refuses it: nn.scan takes its target as the first
argument, it is no decorator factory (`functools.partial(nn.scan, ...)` is,
and then lifts a function whose first argument is the module,
`def step(module, carry, xt)`). model_cases.py has the same model in the
form flax 0.12 runs: nn.scan of the LSTMCell class.
Prints what Flax raised, so that a flax that accepts the code shows here."""

from typing import Sequence

import jax
import jax.numpy as jnp
from flax import linen as nn


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
        if x.ndim == 2:
            x = jnp.expand_dims(x, axis=-1)
        for i in range(self.num_lstm_layers):
            lstm_cell = nn.LSTMCell(features=self.lstm_hidden_size, name=f'lstm_cell_{i}')

            @nn.scan(variable_broadcast='params', split_rngs={'params': False},
                     in_axes=1, out_axes=1)
            def scan_step(carry, xt):
                new_carry, yt = lstm_cell(carry, xt)
                return new_carry, yt

            carry[i], outputs = scan_step(carry[i], x)
            x = outputs
        x = jnp.mean(x, axis=1) if self.mean_aggregation else x[:, -1, :]
        for size in self.linear_layer_sizes:
            x = nn.Dense(features=size)(x)
            x = nn.elu(x)
        return nn.Dense(features=1)(x)


model = LSTMModel(64, 2, [32, 16], False)
key = jax.random.PRNGKey(0)
dummy_input = jax.random.normal(key, (32, 10, 1))
try:
    params = model.init(key, dummy_input, model.initialize_carry(32))
    print("flax ran the seed as written: outputs",
          model.apply(params, dummy_input, model.initialize_carry(32)).shape)
except Exception as e:  # noqa: BLE001
    print("flax refuses the seed as written: %s: %s" % (type(e).__name__, e))
