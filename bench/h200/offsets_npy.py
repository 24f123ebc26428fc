#!/usr/bin/env python3
"""Writes CSR offsets of equal segments as a .npy file of uint32 without numpy: offsets_npy.py N LEN OUT.npy gives
0, LEN, 2 LEN, ..., up to N, then N (the last segment may be shorter)."""
import array
import struct
import sys

n, length, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
offs = array.array("I", range(0, n, length))
offs.append(n)
header = "{'descr': '<u4', 'fortran_order': False, 'shape': (%d,), }" % len(offs)
header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
with open(out, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(offs.tobytes())  # little-endian hosts
