#!/usr/bin/env python3
# wgprim histogram against numpy.histogram itself (needs NumPy; not part of make check): values on and one ulp
# around every edge, NaN/Inf, integer ranges past the types' ends, bins NumPy refuses, uneven levels.
#   python3 tests/numpy_histogram_check.py build/wgprim
import os, subprocess, sys, tempfile

import numpy as np

TMP = tempfile.mkdtemp()
X, C, L = (os.path.join(TMP, f) for f in ('x.npy', 'c.npy', 'l.npy'))
W = sys.argv[1]
rng = np.random.default_rng(5)
fails = 0; total = 0
def run(x, args):
    np.save(X, x)
    r = subprocess.run([W, 'histogram', '--input', X, '--output', C] + args, capture_output=True, text=True)
    if r.returncode != 0:
        print('rc', r.returncode, r.stderr); return None
    return np.load(C)
def check(x, bins, lo, hi):
    global fails, total
    total += 1
    try:
        want, _ = np.histogram(x, bins=bins, range=(lo, hi))
    except ValueError:
        np.save(X, x)
        r = subprocess.run([W, 'histogram', '--input', X, '--bins', str(bins), '--range', f'{lo!r}:{hi!r}'], capture_output=True, text=True)
        if r.returncode != 2: fails += 1; print('NUMPY REFUSES, WE DO NOT', x.dtype, bins, lo, hi)
        return
    got = run(x, ['--bins', str(bins), '--range', f'{lo!r}:{hi!r}'])
    if got is None or not np.array_equal(got, want):
        fails += 1
        d = None if got is None else np.nonzero(got != want)[0][:5]
        print('MISMATCH', x.dtype, bins, lo, hi, d, None if got is None else got[d], want[d] if d is not None else '')
for bins in [1, 3, 7, 10, 256, 1000, 4097, 65536]:
    for lo, hi in [(-500.0, 500.0), (0.1, 0.7), (-1e-3, 3e7), (1.0, 1.0), (-3.3, -3.2999), (1e-30, 1e-29), (-7.25, 100.3)]:
        e = np.linspace(lo if lo != hi else lo - 0.5, hi if lo != hi else hi + 0.5, bins + 1).astype(np.float32)
        x = np.concatenate([e, np.nextafter(e, -np.inf), np.nextafter(e, np.inf),
                            rng.uniform(lo - 1, hi + 1, 5000).astype(np.float32),
                            np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], np.float32)]).astype(np.float32)
        check(x, bins, lo, hi)
        xi = np.concatenate([np.floor(e.astype(np.float64)), np.ceil(e.astype(np.float64)), rng.integers(-1000, 1000, 3000)])
        xi = np.clip(xi, -2**31, 2**31 - 1).astype(np.int32)
        check(xi, bins, lo, hi)
        xu = np.clip(np.abs(xi.astype(np.int64)), 0, 2**32 - 1).astype(np.uint32)
        check(xu, bins, lo, hi)
for lo, hi in [(-3e9, 3e9), (-5.0, 5.0), (4294967290.5, 5e9), (2147483000.0, 2147483647.0), (0.0, 4294967295.0)]:
    xu = np.array([0, 1, 2, 2**31 - 1, 2**31, 2**32 - 2, 2**32 - 1, 4294967291, 4294967290] + list(rng.integers(0, 2**32, 2000)), np.uint32)
    for bins in [1, 3, 1000]:
        check(xu, bins, lo, hi)
        check(xu.view(np.int32), bins, lo, hi)
# levels
for t in [np.float32, np.int32, np.uint32]:
    for nl in [2, 3, 17, 1000]:
        lv = np.sort(rng.uniform(0, 1000, nl)).astype(t)
        x = np.concatenate([lv, rng.uniform(-10, 1010, 5000).astype(t)]).astype(t)
        np.save(L, lv)
        total += 1
        want, _ = np.histogram(x, bins=lv)
        got = run(x, ['--levels', L])
        if got is None or not np.array_equal(got, want):
            fails += 1; print('LEVELS MISMATCH', t, nl)
print(f'{total} cases, {fails} mismatches against numpy {np.__version__}')
sys.exit(1 if fails else 0)
