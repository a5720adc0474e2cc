#!/usr/bin/python3
"""Writes the small weights files that WeightsTests reads.

Run from anywhere with Debian's numpy:  /usr/bin/python3 make_weights.py
Everything is deterministic; the files are rewritten in this directory.

expected.txt lists, for every array of the readable files, one line
    <file> <key> <dtype> <shape> <values...>
with shape as "[2,3]" and values as numpy's float32 conversion of the stored
data (exact decimal of each float32), or integers for integer dtypes. The
gtest compares its own reader and float conversion against these lines.
"""

import json
import os
import struct
import zipfile
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
expected_lines = []


def path(name):
    return os.path.join(HERE, name)


def expect(file, arrays, dtypes=None):
    """Records the values the gtest must read from `file`; `dtypes`
    overrides the dtype name of some keys (numpy has no bfloat16)."""
    for key in sorted(arrays):
        a = np.asarray(arrays[key])
        dtype = (dtypes or {}).get(key, a.dtype.name)
        shape = "[" + ",".join(str(d) for d in a.shape) + "]"
        if a.dtype.kind in "fV":
            vals = [repr(float(v)) for v in a.astype(np.float32).ravel()]
        else:
            vals = [str(int(v)) for v in a.ravel()]
        expected_lines.append(" ".join([file, key, dtype, shape] + vals))


def bf16_bits(values):
    """bfloat16 by truncation: the top 16 bits of each float32."""
    f32 = np.asarray(values, dtype=np.float32)
    return (f32.view(np.uint32) >> 16).astype("<u2")


def write_safetensors(name, tensors):
    """tensors: list of (key, dtype string, shape, raw bytes)."""
    header = {"__metadata__": {"format": "pt"}}
    data = b""
    for key, dtype, shape, raw in tensors:
        header[key] = {"dtype": dtype, "shape": list(shape),
                       "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path(name), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def npy_bytes(array, version=None):
    import io
    buf = io.BytesIO()
    np.lib.format.write_array(buf, array, version=version)
    return buf.getvalue()


def write_entry(z, name, data):
    """A stored entry with a fixed date, so the output is reproducible."""
    z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)


def write_zip64(name, entries):
    """A stored zip whose central directory uses ZIP64 extra fields for
    every size and offset, plus ZIP64 end records (what np.savez writes
    for archives over 4 GB), built by hand."""
    out = b""
    central = b""
    for fname, data in entries:
        fname = fname.encode()
        crc = zlib.crc32(data)
        offset = len(out)
        local_extra = struct.pack("<HHQQ", 1, 16, len(data), len(data))
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, 0, 0, 0x21, crc,
                           0xFFFFFFFF, 0xFFFFFFFF, len(fname), len(local_extra))
        out += fname + local_extra + data
        extra = struct.pack("<HHQQQ", 1, 24, len(data), len(data), offset)
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, 0,
                               0, 0x21, crc, 0xFFFFFFFF, 0xFFFFFFFF,
                               len(fname), len(extra), 0, 0, 0, 0, 0xFFFFFFFF)
        central += fname + extra
    cd_offset = len(out)
    out += central
    zip64_end = len(out)
    out += struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0,
                       len(entries), len(entries), len(central), cd_offset)
    out += struct.pack("<IIQI", 0x07064B50, 0, zip64_end, 1)
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF,
                       0xFFFFFFFF, 0xFFFFFFFF, 0)
    with open(path(name), "wb") as f:
        f.write(out)


def main():
    arrays = {
        "enc/cell/hi/kernel": (np.arange(6, dtype=np.float32) * 0.5 - 1)
        .reshape(2, 3),
        "enc/cell/hi/bias": np.array([0.1, -2.5, 1e-3], dtype=np.float32),
        "scalar": np.array(3.25, dtype=np.float32),
        "empty": np.zeros((0, 4), dtype=np.float32),
    }
    np.savez(path("arrays.npz"), **arrays)
    expect("arrays.npz", arrays)
    np.savez_compressed(path("arrays_compressed.npz"), **arrays)
    expect("arrays_compressed.npz", arrays)

    converted = {
        "params/a/f64": np.array([[1 / 3, -2 / 3], [1e10, 1e-50]]),
        "params/a/f16": np.array([0.5, -1.5, 65504, 6e-8], dtype=np.float16),
        "params/b": np.array([1.0, 2.0], dtype=np.float32),
    }
    np.savez(path("converted.npz"), **converted)
    expect("converted.npz", converted)

    ints = {
        "i32": np.array([-1, 0, 7], dtype=np.int32),
        "i64": np.array([2**40, -3], dtype=np.int64),
        "flag": np.array([True, False]),
        "u8": np.array([255], dtype=np.uint8),
    }
    np.savez(path("ints.npz"), **ints)
    expect("ints.npz", ints)

    versions = {"v%d" % v: np.array([v, -v], dtype=np.float32)
                for v in (1, 2, 3)}
    with zipfile.ZipFile(path("versions.npz"), "w") as z:
        for v in (1, 2, 3):
            write_entry(z, "v%d.npy" % v,
                        npy_bytes(versions["v%d" % v], (v, 0)))
    expect("versions.npz", versions)

    zip64 = {"big/a": np.array([[1.5, 2.5]], dtype=np.float32),
             "big/b": np.array([-4.0], dtype=np.float32)}
    write_zip64("zip64.npz",
                [(k + ".npy", npy_bytes(v)) for k, v in zip64.items()])
    for k, v in np.load(path("zip64.npz")).items():  # numpy must read it too
        assert np.array_equal(v, zip64[k])
    expect("zip64.npz", zip64)

    # Column-major arrays, as np.savez writes transposed views (a PyTorch
    # weight's .T): read back in row-major order, as np.load gives them.
    fortran = {"t": np.arange(6, dtype=np.float32).reshape(2, 3).T,
               "f": np.asfortranarray(
                   np.arange(24, dtype=np.float32).reshape(2, 3, 4)),
               "v": np.arange(3, dtype=np.float32)}
    np.savez(path("fortran.npz"), **fortran)
    with zipfile.ZipFile(path("fortran.npz")) as z:
        for key in ("t", "f"):  # numpy must have stored them column-major
            assert b"'fortran_order': True" in z.read(key + ".npy")[:128]
    expect("fortran.npz", fortran)

    # Files the readers must reject.
    np.savez(path("bigendian.npz"), w=np.ones(3, dtype=">f4"))
    with zipfile.ZipFile(path("duplicate.npz"), "w") as z:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Duplicate name"
            write_entry(z, "w.npy", npy_bytes(np.ones(2, dtype=np.float32)))
            write_entry(z, "w.npy", npy_bytes(np.zeros(2, dtype=np.float32)))

    # safetensors with F32, F16 and BF16 (BF16 by truncation; 1/3 and -0.1
    # are not exact in bfloat16, so truncation is visible).
    f32 = np.array([[0.25, -1.0], [3.5, 1e-3]], dtype=np.float32)
    f16 = np.array([1.5, -0.25, 1024], dtype=np.float16)
    bf16 = np.array([[1 / 3, -0.1], [256.0, -2.0]], dtype=np.float32)
    write_safetensors("mixed.safetensors", [
        ("params/enc/cell/i/kernel", "F32", f32.shape, f32.tobytes()),
        ("half", "F16", f16.shape, f16.astype("<f2").tobytes()),
        ("brain", "BF16", bf16.shape, bf16_bits(bf16).tobytes()),
    ])
    bf16_values = (bf16_bits(bf16).astype(np.uint32) << 16).view(np.float32)
    expect("mixed.safetensors", {"params/enc/cell/i/kernel": f32,
                                 "half": f16, "brain": bf16_values},
           {"brain": "bfloat16"})

    # A Bidirectional linen LSTM layer 'enc' (I=3, H=2) under `params/`,
    # every value distinct: key number * 100 + element index.
    bilstm = {}
    for direction in ("forward_rnn", "backward_rnn"):
        for gate in ("i", "f", "g", "o"):
            bilstm["i" + gate + "/kernel", direction] = (3, 2)
            bilstm["h" + gate + "/kernel", direction] = (2, 2)
            bilstm["h" + gate + "/bias", direction] = (2,)
    tree = {}
    for n, ((name, direction), shape) in enumerate(sorted(bilstm.items())):
        size = int(np.prod(shape))
        tree["params/enc/%s/cell/%s" % (direction, name)] = (
            n * 100 + np.arange(size, dtype=np.float32)).reshape(shape)
    np.savez(path("bilstm.npz"), **tree)

    with open(path("expected.txt"), "w") as f:
        f.write("\n".join(expected_lines) + "\n")


if __name__ == "__main__":
    main()
