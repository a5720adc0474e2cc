#!/usr/bin/python3
"""PyTorch peer of rnn-bench: nn.LSTM / nn.GRU on the driver's problems.

Started by rnn-bench as `/usr/bin/python3 torch_peer.py --serve` (with
LD_LIBRARY_PATH pointing at Debian's serial OpenBLAS). It first prints one
JSON line about itself (torch version, the BLAS library it mapped), then
answers one JSON request line per problem with one JSON reply line:

  request: {"input": in.npz, "output": out.npz, "cell": "lstm"|"gru",
            "bidirectional": bool, "quantized": bool, "threads": n,
            "timed": bool,
            "target_seconds": s, "min_reps": n, "max_reps": m}
  reply:   {"ok": true, "seconds": [...]} or {"ok": false, "error": "..."}

in.npz holds x [B, T, I] float32, optional seq_lengths [B] int32 and the
Flax linen params under "params/<path>". out.npz gets the first call's y
[B, T, D*H], h [D, B, H] and (LSTM) c [D, B, H].

Weight mapping (Flax kernels are (in, out); torch weights are (out, in)):
  LSTM: weight_ih = [ii; if; ig; io]^T, weight_hh = [hi; hf; hg; ho]^T,
        bias_ih = 0, bias_hh = the h* biases (linen has no input-side bias).
  GRU:  weight_ih = [ir; iz; in]^T, weight_hh = [hr; hz; hn]^T,
        bias_ih = [ir; iz; in] biases, bias_hh = [0; 0; hn bias]; torch
        applies b_hn inside r * (...) exactly like linen's GRUCell.
Variable lengths go through pack_padded_sequence(enforce_sorted=False) and
pad_packed_sequence(total_length=T), both inside the timed call: rnnc takes
the same padded batch and returns the same padded output. Padded outputs
are zeros, h/c are taken at each row's last valid step.

"quantized" runs torch.ao.quantization.quantize_dynamic(module, {LSTM, GRU},
qint8): int8 weights (per tensor), activations quantized on the fly, on the
quantized engine torch picks (reported in the hello line). "threads" is
torch.set_num_threads for the request.

Timing policy (the driver's Timing.h): the first call is the warm-up whose
outputs are written; timed calls follow until at least min_reps were made
and target_seconds have passed, or max_reps were made.
"""

import ctypes
import json
import os
import sys
import time

import numpy as np
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

GATES = {"lstm": ("i", "f", "g", "o"), "gru": ("r", "z", "n")}


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def mapped_blas():
    """The library that serves torch's sgemm_ calls (resolved the way
    libtorch_cpu's own references resolve), and OpenBLAS's core name if
    OpenBLAS is mapped."""
    mapped = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            mapped.add(line.split()[-1])
    blas = "unknown"
    torch_cpu = [p for p in mapped if "libtorch_cpu" in os.path.basename(p)]
    try:
        sgemm = ctypes.cast(ctypes.CDLL(torch_cpu[0]).sgemm_, ctypes.c_void_p)
        info = _DlInfo()
        if ctypes.CDLL(None).dladdr(sgemm, ctypes.byref(info)):
            blas = os.path.realpath(info.dli_fname.decode())
    except (OSError, AttributeError, IndexError):
        pass
    core = ""
    for path in sorted(mapped):
        if os.path.basename(path).startswith("libopenblas"):
            try:
                lib = ctypes.CDLL(path)
                lib.openblas_get_corename.restype = ctypes.c_char_p
                core = lib.openblas_get_corename().decode()
            except (OSError, AttributeError):
                pass
    return blas, core


def build_module(params, cell, hidden, bidirectional, swap_gates):
    gates = list(GATES[cell])
    if swap_gates:
        gates[0], gates[1] = gates[1], gates[0]
    module_type = torch.nn.LSTM if cell == "lstm" else torch.nn.GRU
    module = module_type(hidden, hidden, batch_first=True,
                         bidirectional=bidirectional)
    directions = ["forward_rnn", "backward_rnn"] if bidirectional else [None]
    with torch.no_grad():
        for d, name in enumerate(directions):
            prefix = "params/rnn/" + (name + "/cell/" if name else "cell/")
            suffix = "_reverse" if d == 1 else ""

            def get(key):
                return params[prefix + key]

            w_ih = np.concatenate([get("i" + g + "/kernel") for g in gates], 1).T
            w_hh = np.concatenate([get("h" + g + "/kernel") for g in gates], 1).T
            zeros = np.zeros(hidden, np.float32)
            if cell == "lstm":
                b_ih = np.zeros(4 * hidden, np.float32)
                b_hh = np.concatenate([get("h" + g + "/bias") for g in gates])
            else:
                b_ih = np.concatenate([get("i" + g + "/bias") for g in gates])
                b_hh = np.concatenate([zeros, zeros, get("hn/bias")])
            for attr, value in (("weight_ih_l0", w_ih), ("weight_hh_l0", w_hh),
                                ("bias_ih_l0", b_ih), ("bias_hh_l0", b_hh)):
                getattr(module, attr + suffix).copy_(
                    torch.from_numpy(np.ascontiguousarray(value)))
    return module.eval()


def serve_one(request, swap_gates):
    with np.load(request["input"]) as data:
        arrays = {key: data[key] for key in data.files}
    x = torch.from_numpy(arrays.pop("x"))
    lengths = arrays.pop("seq_lengths", None)
    params = arrays
    cell = request["cell"]
    batch, steps, _ = x.shape
    hidden = next(v.shape[-1] for k, v in params.items() if k.endswith("/kernel"))
    module = build_module(params, cell, hidden, request["bidirectional"],
                          swap_gates)
    if request.get("quantized"):
        # quantize_dynamic swaps a model's children, not the model itself.
        module = torch.ao.quantization.quantize_dynamic(
            torch.nn.Sequential(module), {torch.nn.LSTM, torch.nn.GRU},
            dtype=torch.qint8)[0]
    torch.set_num_threads(request.get("threads", 1))
    lengths_t = None if lengths is None else torch.from_numpy(
        lengths.astype(np.int64))

    def call():
        if lengths_t is None:
            return module(x)
        packed = pack_padded_sequence(x, lengths_t, batch_first=True,
                                      enforce_sorted=False)
        y, carry = module(packed)
        y, _ = pad_packed_sequence(y, batch_first=True, total_length=steps)
        return y, carry

    with torch.inference_mode():
        y, carry = call()  # warm-up, and the outputs that are checked
        out = {"y": y.numpy()}
        if cell == "lstm":
            out["h"], out["c"] = carry[0].numpy(), carry[1].numpy()
        else:
            out["h"] = carry.numpy()
        np.savez(request["output"], **out)
        seconds = []
        if request["timed"]:
            start = time.perf_counter()
            while len(seconds) < request["max_reps"]:
                elapsed = time.perf_counter() - start
                if (len(seconds) >= request["min_reps"]
                        and elapsed >= request["target_seconds"]):
                    break
                before = time.perf_counter()
                call()
                seconds.append(time.perf_counter() - before)
    return {"ok": True, "seconds": seconds}


def main():
    if "--serve" not in sys.argv:
        print(__doc__)
        return 2
    swap_gates = "--swap-gates" in sys.argv
    torch.set_num_threads(1)
    blas, core = mapped_blas()
    # Keep stdout for the protocol; anything else goes to stderr.
    protocol = sys.stdout
    sys.stdout = sys.stderr
    hello = {"ok": True, "torch": torch.__version__, "blas": blas,
             "openblas_core": core, "threads": torch.get_num_threads(),
             "quantized_engine": torch.backends.quantized.engine}
    protocol.write(json.dumps(hello) + "\n")
    protocol.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = serve_one(json.loads(line), swap_gates)
        except Exception as error:  # reported to the driver, which goes on
            reply = {"ok": False, "error": "%s: %s" % (type(error).__name__,
                                                       error)}
        protocol.write(json.dumps(reply) + "\n")
        protocol.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
