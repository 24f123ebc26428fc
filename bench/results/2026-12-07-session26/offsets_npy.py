# Writes CSR offsets 0, SEG, 2 SEG, ..., N as a u32 .npy (no numpy needed): offsets_npy.py N SEG PATH
import array, sys
n, seg, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
a = array.array('I', range(0, n, seg)); a.append(n)
h = "{'descr': '<u4', 'fortran_order': False, 'shape': (%d,), }" % len(a)
h += " " * (63 - (10 + len(h)) % 64) + "\n"
with open(path, 'wb') as f:
    f.write(b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, 'little') + h.encode()); a.tofile(f)
