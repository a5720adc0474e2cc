#!/usr/bin/env python3
"""Writes .npz decompression bombs for weights-bomb.test.

  make_bomb.py OUT.npz KEY ELEMENTS [--declare N] [--crc]
                [--shape D0,D1,...] [--with ARRAYS.npz]

One deflated entry KEY.npy: a float32 .npy header declaring a shape of
[N] (default: ELEMENTS), then ELEMENTS * 4 zero bytes, compressed about
1000 to 1. The central directory gives the entry's size as the header's plus
N * 4, so with N < ELEMENTS the stream inflates past its declared size.
--shape declares that shape instead (of N elements in all); --with
puts the arrays of ARRAYS.npz (stored) before the bomb, so that only the
bomb's shape is wrong for a model.

The stream is built from one compressed megabyte repeated (after a full
flush the compressor starts afresh, so every megabyte of zeros compresses to
the same bytes): writing a 4.4 GB bomb takes well under a second. The CRC
is 0, wrong on purpose unless --crc computes it (slow for large bombs):
a reader that refuses the file before inflating its data never gets there.
"""
import argparse
import struct
import zlib

MB = 1 << 20


def npy_header(shape):
    d = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s,), }" % (
        ", ".join(str(n) for n in shape))
    total = 10 + len(d) + 1
    d += " " * ((64 - total % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(d)) + d.encode()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("key")
    p.add_argument("elements", type=int)
    p.add_argument("--declare", type=int)
    p.add_argument("--crc", action="store_true")
    p.add_argument("--shape")
    p.add_argument("--with", dest="arrays")
    a = p.parse_args()
    declared = a.elements if a.declare is None else a.declare
    shape = [declared]
    if a.shape:
        shape = [int(n) for n in a.shape.split(",")]
        product = 1
        for n in shape:
            product *= n
        assert product == declared, "--shape does not hold the declared size"
    header = npy_header(shape)
    data_bytes = a.elements * 4

    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    parts = [c.compress(header) + c.flush(zlib.Z_FULL_FLUSH)]
    whole, rest = divmod(data_bytes, MB)
    if whole:
        mb = c.compress(bytes(MB)) + c.flush(zlib.Z_FULL_FLUSH)
        again = c.compress(bytes(MB)) + c.flush(zlib.Z_FULL_FLUSH)
        assert mb == again, "a full flush did not restart the compressor"
        parts.append(mb * whole)
    parts.append(c.compress(bytes(rest)) + c.flush())
    stream = b"".join(parts)

    crc = 0
    if a.crc:
        crc = zlib.crc32(header)
        zeros = bytes(MB)
        for _ in range(whole):
            crc = zlib.crc32(zeros, crc)
        crc = zlib.crc32(bytes(rest), crc) & 0xFFFFFFFF

    entries = []  # (name, method, crc, stored bytes, size)
    if a.arrays:
        import io
        import numpy as np
        with np.load(a.arrays) as arrays:
            for key in arrays.files:
                buf = io.BytesIO()
                np.save(buf, arrays[key])
                data = buf.getvalue()
                entries.append(((key + ".npy").encode(), 0,
                                zlib.crc32(data) & 0xFFFFFFFF, data,
                                len(data)))
    entries.append(((a.key + ".npy").encode(), 8, crc, stream,
                    len(header) + declared * 4))

    out, central = b"", b""
    for name, method, entry_crc, stored, size in entries:
        zip64 = size >= 0xFFFFFFFF
        extra = struct.pack("<HHQ", 1, 8, size) if zip64 else b""
        size32 = 0xFFFFFFFF if zip64 else size
        offset = len(out)
        local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, method, 0,
                            0x21, entry_crc, len(stored), size32, len(name),
                            len(extra))
        out += local + name + extra + stored
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0,
                               method, 0, 0x21, entry_crc, len(stored),
                               size32, len(name), len(extra), 0, 0, 0, 0,
                               offset) + name + extra
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries),
                      len(entries), len(central), len(out), 0)
    with open(a.out, "wb") as f:
        f.write(out + central + end)


if __name__ == "__main__":
    main()
