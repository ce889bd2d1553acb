#!/usr/bin/env python3
"""Writes a stencilc gauge file (4-D, SU(3)) as a single-precision ILDG
configuration: the LIME records ildg-format and ildg-binary-data,
big-endian floats, x fastest, U_x .. U_t a site, no checksum record (it is
optional). Usage: gauge-to-ildg32.py GAUGE ILDG [SCALE]: every value
times SCALE (default 1), to write a damaged file. For the solver
programs' tests of links read in single precision."""
import struct
import sys


def lime_record(kind, data, begin, end):
    flags = (0x8000 if begin else 0) | (0x4000 if end else 0)
    header = struct.pack(">IHHQ", 0x456789AB, 1, flags, len(data))
    record = header + kind.encode().ljust(128, b"\0") + data
    return record + b"\0" * (-len(record) % 8)


def main(source, target, scale="1"):
    raw = open(source, "rb").read()
    if raw[:14] != b"STENCILC-GAUGE":
        sys.exit(f"{source}: not a stencilc gauge file")
    _, dims, colours, *extents = struct.unpack("<7I", raw[16:44])
    if dims != 4 or colours != 3:
        sys.exit(f"{source}: ILDG holds 4-D SU(3) links, not {dims}-D SU({colours})")
    (count,) = struct.unpack("<Q", raw[44:52])
    values = [float(scale) * v for v in struct.unpack(f"<{count}d", raw[60 : 60 + 8 * count])]
    xml = (
        '<?xml version="1.0"?><ildgFormat><version>1.0</version>'
        "<field>su3gauge</field><precision>32</precision>"
        "<lx>%d</lx><ly>%d</ly><lz>%d</lz><lt>%d</lt></ildgFormat>" % tuple(extents)
    )
    with open(target, "wb") as out:
        out.write(lime_record("ildg-format", xml.encode(), True, False))
        out.write(lime_record("ildg-binary-data", struct.pack(f">{count}f", *values), False, True))


if __name__ == "__main__":
    main(*sys.argv[1:])
