"""rnnc from Python.

    import rnnc
    m = rnnc.compile("model.yaml", "model.npz")      # once: builds and caches a shared library
    out = m(x, seq_lengths=lengths)                   # microseconds of overhead per call
    out["y"], out["carry/enc/forward/c"], m.info["workspace_size"]
    s = m.stream()                                    # input.stream: true: chunk by chunk
    s(x_chunk)["y"], s.carry

    import rnnc.flax                                  # needs jax and flax
    rnnc.flax.export(module, variables, x, path="out/model")   # out/model.yaml + out/model.npz

`rnnc.compile` runs the `rnnc` binary (build/bin/rnnc of this checkout, or
$RNNC, or `rnnc` on PATH) and `cc`; the library is cached under
$RNNC_CACHE_DIR (default ~/.cache/rnnc), keyed by the spec, the weights,
the options and the compiler binary.
"""

from ._model import (CompileError, Model, RunError, Stream, compile, find_rnnc,
                     find_runtime)

__all__ = ["compile", "Model", "Stream", "CompileError", "RunError", "find_rnnc",
           "find_runtime"]
