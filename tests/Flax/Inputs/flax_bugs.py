"""Where Flax is buggy and rnnc deliberately differs (docs/Semantics.md).

Each case asserts both sides, so that a change in either shows: what live
Flax does (the bug, as documented) and what rnnc does instead.
"""

import numpy as np

import jax
import flax.linen as nn

import rnnc
from cases import init, lengths, rng_inputs, spec
from harness import ATOL, RTOL, Case


def close(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= ATOL + RTOL * np.abs(b)))


GRU_LAYER = """  - type: RNN
    name: rnn
    cell: {type: GRUCell, features: 3, params: cell}
    return_carry: true
"""


def case_length_zero():
    """Flax: a length of 0 selects index -1, the carry after all T padded
    steps. rnnc: the initial carry (zeros here), no step was taken."""
    x = rng_inputs(50, 3, 4, 2)
    lens = lengths(0, 2, 4)
    module = nn.RNN(nn.GRUCell(3), return_carry=True)
    variables = init(module, x, seq_lengths=lens)
    full_carry, _ = module.apply(variables, x)  # no lengths: after T steps

    def expect(out):
        carry, y = out
        return {"y": y}

    def check(ref, out, model, inputs):
        carry, _ = ref
        msgs = []
        if not close(carry[0], full_carry[0]) or close(carry[0], np.zeros(3)):
            msgs.append("Flax no longer returns the carry after T steps for length 0 "
                        "(its documented bug); revisit docs/Semantics.md")
        got = out["carry/rnn/h"]
        if np.any(got[0] != 0):
            msgs.append("rnnc's carry for length 0 is not the initial carry: %s" % got[0])
        if not close(got[1:], carry[1:]):
            msgs.append("rnnc's carries for lengths 2, 4 differ from Flax's")
        return msgs
    return Case("length_zero", module, variables, (x,),
                spec("length_zero", (3,), 4, 2, GRU_LAYER, seq_lengths=True),
                {"x": x, "seq_lengths": lens}, expect, kwargs={"seq_lengths": lens},
                check=check, partial=True)


def _per_row_reference(module, variables, x, lens):
    """Flax run on the batch dims flattened to one (where its carry selection
    works), reshaped back: the carry each row should get."""
    batch = lens.shape
    xf = x.reshape((-1,) + x.shape[len(batch):])
    carry, y = module.apply(variables, xf, seq_lengths=lens.reshape(-1))
    return (carry.reshape(batch + carry.shape[1:]), y.reshape(batch + y.shape[1:]))


def case_two_batch_dims_lengths_square():
    """Flax with batch (2, 2) and lengths: the carry comes back with shape
    (2, 2, 2, 3) (advanced indices broadcast wrongly). rnnc: per row, (2, 2, 3)."""
    x = rng_inputs(51, 2, 2, 5, 2)
    lens = np.array([[5, 2], [1, 4]], np.int32)
    module = nn.RNN(nn.GRUCell(3), return_carry=True)
    variables = init(module, x)
    ref_carry, ref_y = _per_row_reference(module, variables, x, lens)

    def expect(out):
        _, y = out
        return {"y": y, "carry/rnn/h": ref_carry}

    def check(ref, out, model, inputs):
        carry, y = ref
        msgs = []
        if np.shape(carry) != (2, 2, 2, 3):
            msgs.append("Flax's carry shape is %s, no longer its documented wrong "
                        "(2, 2, 2, 3); revisit docs/Semantics.md" % (np.shape(carry),))
        if not close(y, ref_y):
            msgs.append("Flax's outputs differ from the per-row reference")
        return msgs
    return Case("two_batch_dims_lengths_square", module, variables, (x,),
                spec("two_batch_dims_lengths_square", (2, 2), 5, 2, GRU_LAYER,
                     seq_lengths=True),
                {"x": x, "seq_lengths": lens}, expect, kwargs={"seq_lengths": lens},
                check=check, partial=True)


def case_two_batch_dims_lengths():
    """Flax with batch (2, 3) and lengths raises (carry selection assumes one
    batch dim). rnnc selects per row. Export runs the model once, and Flax
    raises on this call, so this case has only the hand-written spec."""
    x = rng_inputs(52, 2, 3, 5, 2)
    lens = np.array([[5, 2, 3], [1, 4, 5]], np.int32)
    module = nn.RNN(nn.GRUCell(3), return_carry=True)
    variables = init(module, x)

    def reference():
        try:
            module.apply(variables, x, seq_lengths=lens)
        except ValueError as e:
            if "Incompatible shapes for broadcasting" not in str(e):
                raise
        else:
            raise AssertionError("Flax no longer raises for two batch dims with "
                                 "lengths (its documented bug); revisit "
                                 "docs/Semantics.md")
        return _per_row_reference(module, variables, x, lens)

    def expect(out):
        carry, y = out
        return {"y": y, "carry/rnn/h": carry}
    return Case("two_batch_dims_lengths", module, variables, (x,),
                spec("two_batch_dims_lengths", (2, 3), 5, 2, GRU_LAYER, seq_lengths=True),
                {"x": x, "seq_lengths": lens}, expect, kwargs={"seq_lengths": lens},
                reference=reference, export=False, partial=True)


def case_lengths_out_of_range():
    """Flax does not validate lengths: L > T gives the carry after T steps (XLA
    clamps the gather), L < 0 indexes from the end. rnnc rejects both with
    <NAME>_ERROR_SEQ_LENGTH and writes nothing."""
    x = rng_inputs(53, 3, 4, 2)
    lens = lengths(4, 2, 3)
    module = nn.RNN(nn.GRUCell(3), return_carry=True)
    variables = init(module, x, seq_lengths=lens)
    full_carry, _ = module.apply(variables, x)

    def expect(out):
        carry, y = out
        return {"y": y, "carry/rnn/h": carry}

    def check(ref, out, model, inputs):
        msgs = []
        over, _ = module.apply(variables, x, seq_lengths=lengths(5, 2, 3))
        if not close(over[0], full_carry[0]):
            msgs.append("Flax's carry for L > T is no longer the carry after T steps")
        module.apply(variables, x, seq_lengths=lengths(-1, 2, 3))  # Flax: no error
        for bad in (lengths(5, 2, 3), lengths(-1, 2, 3)):
            try:
                model(**dict(inputs, seq_lengths=bad))
            except rnnc.RunError as e:
                if e.code != "ERROR_SEQ_LENGTH":
                    msgs.append("rnnc raised %s for lengths %s" % (e.code, bad))
            else:
                msgs.append("rnnc accepted lengths %s" % bad)
        return msgs
    return Case("lengths_out_of_range", module, variables, (x,),
                spec("lengths_out_of_range", (3,), 4, 2, GRU_LAYER, seq_lengths=True),
                {"x": x, "seq_lengths": lens}, expect, kwargs={"seq_lengths": lens},
                check=check)


CASES = [case_length_zero, case_two_batch_dims_lengths_square,
         case_two_batch_dims_lengths, case_lengths_out_of_range]
