"""wgprim's Python binding against NumPy: every function, dtype and edge size, NaN rules, errors, device arrays,
threads. The sizes stay small (lavapipe is a CPU driver); bench/ has the big ones."""
import math
import pathlib
import re
import threading
from fractions import Fraction

import numpy as np
import pytest

import wgprim

# The dtypes every function takes (on every backend); test_dtypes.py has the others the binding takes, a type
# the library gains is one line there (and one in python/src's table).
DTYPES = [np.float32, np.int32, np.uint32]
SIZES = [0, 1, 2, 3, 255, 256, 257, 1023, 1025, 4095, 4096, 4097, 65535, 65537]
NONEMPTY = [n for n in SIZES if n]


def data(dtype, n, seed=0, lo=None, hi=None):
    rng = np.random.default_rng(seed + n)
    if dtype == np.float32:
        return rng.uniform(-100 if lo is None else lo, 100 if hi is None else hi, n).astype(np.float32)
    info = np.iinfo(dtype)
    lo = info.min if lo is None else lo
    hi = info.max if hi is None else hi
    return rng.integers(lo, hi, n, dtype=dtype, endpoint=True)


def sum_bound(x):
    # gamma_h * sum|x| with h = 128 + n / 1024 (the library's chains: README "f32 sums"), in float64.
    h = 128 + x.size / 1024
    return h * 2.0**-24 * float(np.sum(np.abs(x.astype(np.float64)))) * 1.01


def exact_sum(x):
    return sum((Fraction(float(v)) for v in x), Fraction(0))


def correctly_rounded(r, s):
    """r (float32) is a float32 nearest to the rational s."""
    r = np.float32(r)
    err = abs(Fraction(float(r)) - s)
    for nb in (np.nextafter(r, np.float32(np.inf)), np.nextafter(r, np.float32(-np.inf))):
        if abs(Fraction(float(nb)) - s) < err:
            return False
    return True


# ---- reductions ----

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_sum(dtype, n):
    x = data(dtype, n)
    r = wgprim.sum(x)
    assert type(r) is type(np.sum(x))  # NumPy's accumulation: int32 -> int64, uint32 -> uint64
    if dtype == np.float32:
        assert abs(float(r) - float(np.sum(x, dtype=np.float64))) <= sum_bound(x)
    else:
        assert r == np.sum(x)  # no wrap in 64 bits
        assert wgprim.reduce(x) == np.sum(x, dtype=dtype)  # the library's reduce: the input's dtype, wrapping


@pytest.mark.parametrize("n", [1, 257, 4097, 65537])
def test_sum_accuracy_modes(n):
    rng = np.random.default_rng(n)
    # mixed signs and magnitudes: a naive float32 loop is far off here
    x = (rng.standard_normal(n) * 10.0 ** rng.integers(-6, 6, n)).astype(np.float32)
    s = exact_sum(x)
    r = wgprim.sum(x, accuracy="reproducible")
    assert correctly_rounded(r, s)
    assert wgprim.sum(x, accuracy="exact") == r
    c = wgprim.sum(x, accuracy="compensated")
    assert abs(Fraction(float(c)) - s) <= 2 * Fraction(float(np.spacing(np.float32(abs(float(s)))))) + \
        Fraction(float(sum_bound(x))) / 2**20
    with pytest.raises(wgprim.Error) as e:
        wgprim.sum(x, accuracy="sloppy")
    assert e.value.code == "invalid_argument"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", NONEMPTY)
def test_min_max_prod_bitwise(dtype, n):
    x = data(dtype, n)
    assert wgprim.min(x) == np.min(x) and wgprim.max(x) == np.max(x)
    assert wgprim.reduce(x, "min") == np.min(x)
    if dtype != np.float32:
        assert wgprim.prod(x) == np.prod(x)  # in int64 / uint64, wrapping there as NumPy's
        assert wgprim.reduce(x, "prod") == np.prod(x, dtype=dtype)  # the library's: in the input's dtype
        assert wgprim.reduce(x, "and") == np.bitwise_and.reduce(x)
        assert wgprim.reduce(x, "or") == np.bitwise_or.reduce(x)
        assert wgprim.reduce(x, "xor") == np.bitwise_xor.reduce(x)
        assert wgprim.reduce(x, "a ^ b", identity=0) == np.bitwise_xor.reduce(x)
    else:
        y = data(dtype, n, lo=0.999, hi=1.001)
        p = float(wgprim.prod(y))
        assert abs(p - float(np.prod(y, dtype=np.float64))) <= 4 * n * 2.0**-24 * abs(p)
        assert wgprim.reduce(x, "max(a, b)", identity="-inf") == np.max(x)
        assert wgprim.reduce(x, "max(a, b)", identity=-math.inf) == np.max(x)


def test_empty_reductions():
    e = np.zeros(0, np.float32)
    assert wgprim.sum(e) == 0 and wgprim.reduce(e, "min") == np.inf and wgprim.prod(e) == 1
    for f in (wgprim.min, wgprim.max, wgprim.argmin, wgprim.argmax):
        with pytest.raises(wgprim.Error) as err:
            f(e)
        assert err.value.code == "invalid_argument"


def test_nan_rules():
    x = np.array([1.0, np.nan, -3.0, np.inf, np.nan], np.float32)
    assert np.isnan(wgprim.sum(x)) and np.isnan(wgprim.min(x)) and np.isnan(wgprim.max(x))
    assert wgprim.argmin(x) == np.argmin(x) == 1 and wgprim.argmax(x) == np.argmax(x) == 1
    y = np.array([np.inf, -np.inf, 1.0], np.float32)
    assert np.isnan(wgprim.sum(y)) and wgprim.sum(y[:1].copy()) == np.inf
    z = np.array([-0.0, 0.0], np.float32)
    assert wgprim.argmax(z) == np.argmax(z) == 0
    assert np.signbit(wgprim.max(np.array([-0.0], np.float32)))  # exact bits come back


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", NONEMPTY)
def test_argmin_argmax(dtype, n):
    x = data(dtype, n, lo=0, hi=50)  # ties: the first index wins, as NumPy
    assert wgprim.argmin(x) == np.argmin(x)
    assert wgprim.argmax(x) == np.argmax(x)
    assert type(wgprim.argmax(x)) is int


# ---- scans ----

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_scans(dtype, n):
    x = data(dtype, n)
    inc, exc = wgprim.inclusive_scan(x), wgprim.exclusive_scan(x)
    assert inc.dtype == dtype and inc.shape == (n,) and exc.shape == (n,)
    ref = np.cumsum(x, dtype=np.float64 if dtype == np.float32 else dtype)
    if dtype == np.float32:
        bound = sum_bound(x)
        assert np.all(np.abs(inc - ref) <= bound)
        assert np.all(np.abs(exc[1:] - ref[:-1]) <= bound) and (n == 0 or exc[0] == 0)
        assert np.array_equal(wgprim.cumsum(x), inc)
    else:
        assert np.array_equal(inc, ref) and np.array_equal(wgprim.cumsum(x), np.cumsum(x))
        assert np.array_equal(exc, np.concatenate([[0], ref[:-1]]).astype(dtype)[:n])
    assert np.array_equal(wgprim.inclusive_scan(x, "max"), np.maximum.accumulate(x))
    if n:
        assert np.array_equal(wgprim.exclusive_scan(x, "min")[1:], np.minimum.accumulate(x)[:-1])


def test_scan_accuracy():
    x = data(np.float32, 70000)
    ref = np.cumsum(x, dtype=np.float64)
    for mode in ("compensated", "reproducible"):
        r = wgprim.inclusive_scan(x, accuracy=mode)
        assert np.all(np.abs(r - ref) <= sum_bound(x))
        assert np.array_equal(wgprim.inclusive_scan(x, accuracy=mode), r)  # the same bits again


def test_scan_custom_and_nd():
    x = data(np.int32, 1000, lo=-5, hi=5)
    assert np.array_equal(wgprim.inclusive_scan(x, "max(a, b)", identity="min"), np.maximum.accumulate(x))
    m = x.reshape(10, 100)
    assert np.array_equal(wgprim.cumsum(m), np.cumsum(m))  # flattened, as np.cumsum(axis=None)
    assert wgprim.sum(m) == np.sum(m, dtype=np.int32) and wgprim.argmax(m) == np.argmax(m)


# ---- sort ----

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_sort_argsort(dtype, n):
    x = data(dtype, n, lo=None if n > 300 else 0, hi=None if n > 300 else 20)  # small n: many ties
    assert np.array_equal(wgprim.sort(x), np.sort(x))
    assert np.array_equal(wgprim.sort(x, descending=True), np.sort(x)[::-1])
    idx = wgprim.argsort(x)
    assert idx.dtype == np.intp and np.array_equal(idx, np.argsort(x, kind="stable"))
    d = wgprim.argsort(x, descending=True)
    assert np.array_equal(x[d], np.sort(x)[::-1])
    eq = x[d][:-1] == x[d][1:]  # stable among equal keys
    assert np.all(d[:-1][eq] < d[1:][eq])


def test_sort_floats_nan_inf_zero():
    x = np.array([3, np.nan, -np.inf, 0.0, -0.0, np.inf, -1, np.nan, 2], np.float32)
    s = wgprim.sort(x)
    assert np.array_equal(s, np.sort(x), equal_nan=True)
    assert np.signbit(s[2]) and not np.signbit(s[3])  # -0.0 sorts before +0.0 (NumPy: equal, order kept)
    y = np.array([np.nan, 1, -np.inf, 5, np.nan], np.float32)
    assert np.array_equal(wgprim.argsort(y), np.argsort(y, kind="stable"))


def test_sort_bits():
    # begin_bit / end_bit: only those bits of the ordered key (i32: sign flipped) compared, stably.
    rng = np.random.default_rng(5)
    for dtype, flip in ((np.uint32, 0), (np.int32, 0x80000000)):
        x = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, 5000, dtype=dtype, endpoint=True)
        ordered = x.view(np.uint32) ^ np.uint32(flip)
        for lo, hi in ((0, 16), (8, 24), (31, 32)):
            key = (ordered >> np.uint32(lo)) & np.uint32((1 << (hi - lo)) - 1)
            want = np.argsort(key, kind="stable")
            assert np.array_equal(wgprim.sort(x, begin_bit=lo, end_bit=hi), x[want])
            assert np.array_equal(wgprim.argsort(x, begin_bit=lo, end_bit=hi), want)
            down = np.argsort(~key, kind="stable")
            assert np.array_equal(wgprim.argsort(x, descending=True, begin_bit=lo, end_bit=hi), down)
    assert np.array_equal(wgprim.sort(x, begin_bit=0), np.sort(x))
    for lo, hi in ((16, 16), (0, 33), (20, 10)):
        with pytest.raises(wgprim.Error):
            wgprim.sort(x, begin_bit=lo, end_bit=hi)


# ---- select, segment_reduce, histogram ----

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_select(dtype, n):
    x = data(dtype, n)
    mask = data(np.uint32, n, seed=7, lo=0, hi=1).astype(bool)
    assert np.array_equal(wgprim.select(x, mask), x[mask])
    assert np.array_equal(wgprim.select(x, mask.astype(np.uint32)), x[mask])
    assert np.array_equal(wgprim.select(x, mask.astype(np.int64)), x[mask])
    pred, ref = ("a > 0.0", x[x > 0]) if dtype == np.float32 else ("(a & 1) == 0", x[(x & 1) == 0])
    assert np.array_equal(wgprim.select(x, pred), ref)


def test_select_nan_nd():
    x = np.array([np.nan, 1, -2, np.nan, 5], np.float32)
    assert np.array_equal(wgprim.select(x, "a != 1.0"), x[x != 1], equal_nan=True)  # NaN != anything
    assert np.array_equal(wgprim.select(x, "a < 3.0"), x[x < 3])
    m = np.arange(12, dtype=np.int32).reshape(3, 4)
    assert np.array_equal(wgprim.select(m, m % 3 == 0), m[m % 3 == 0])
    with pytest.raises(wgprim.Error):
        wgprim.select(m, np.ones(12, bool))  # the mask's shape must be the array's


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 257, 4097, 65537])
def test_segment_reduce(dtype, n):
    x = data(dtype, n, lo=None if dtype != np.float32 else -1, hi=None if dtype != np.float32 else 1)
    rng = np.random.default_rng(n)
    cuts = np.sort(rng.integers(0, n, size=min(n, 40), endpoint=True))
    offsets = np.concatenate([[0], cuts, [n, n]]).astype(np.int64)  # empty segments too
    for op, ref_of in (("sum", None), ("max", np.max), ("min", np.min)):
        r = wgprim.segment_reduce(x, offsets, op)
        assert r.shape == (len(offsets) - 1,) and r.dtype == dtype
        for s in range(len(offsets) - 1):
            seg = x[offsets[s]:offsets[s + 1]]
            if op == "sum":
                if dtype == np.float32:
                    assert abs(float(r[s]) - float(np.sum(seg, dtype=np.float64))) <= sum_bound(seg) + 1e-30
                else:
                    assert r[s] == np.sum(seg, dtype=dtype)
            elif seg.size:
                assert r[s] == ref_of(seg)
    with pytest.raises(wgprim.Error):
        wgprim.segment_reduce(x, np.array([0, n + 1]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 255, 256, 257, 4097])
def test_histogram(dtype, n):
    x = data(dtype, n, lo=0 if dtype == np.uint32 else -1000, hi=1000)
    for bins, rng in ((10, None), (7, (-500, 500)), (1, None), (256, (0, 1000))):
        c, e = wgprim.histogram(x, bins, rng)
        c0, e0 = np.histogram(x, bins, rng)
        assert np.array_equal(c, c0) and c.dtype == c0.dtype
        assert np.array_equal(e, e0) and e.dtype == e0.dtype
    edges = np.array([0, 3, 500, 999, 1000] if dtype == np.uint32 else [-1000, -10, 0, 3, 999, 1000], dtype)
    c, e = wgprim.histogram(x, edges)
    assert np.array_equal(c, np.histogram(x, edges)[0])


def test_histogram_numpy_rules():
    x = np.array([0.5, np.nan, 1.0, 1.0, 2.0, np.inf], np.float32)
    with pytest.raises(wgprim.Error):
        wgprim.histogram(x)  # autodetected range not finite (NumPy: ValueError)
    c, e = wgprim.histogram(x, 4, (0.5, 2))
    c0, e0 = np.histogram(x, 4, (0.5, 2))
    assert np.array_equal(c, c0) and np.array_equal(e, e0)  # NaN and inf not counted, last edge included
    same = np.full(9, 3.25, np.float32)
    assert all(np.array_equal(a, b) for a, b in zip(wgprim.histogram(same, 5), np.histogram(same, 5)))
    on_edges = np.linspace(-1, 1, 101).astype(np.float32)
    assert np.array_equal(wgprim.histogram(on_edges, 20)[0], np.histogram(on_edges, 20)[0])
    for bad in (0, -1):
        with pytest.raises(wgprim.Error):
            wgprim.histogram(x, bad, (0, 1))
    with pytest.raises(wgprim.Error):
        wgprim.histogram(x, 3, (2, 1))
    e01 = np.array([0.0, 0.1, 1.0])  # 0.1 is not a float32: counted as NumPy does (from a sort), not refused
    assert np.array_equal(wgprim.histogram(x, e01)[0], np.histogram(x, e01)[0])
    with pytest.raises(wgprim.Error):
        wgprim.histogram(wgprim.asarray(x), e01)  # on the device: the edges must be the data's values
    with pytest.raises(wgprim.Error):
        wgprim.histogram(x, np.array([1.0, 0.0], np.float32))  # decreasing


# ---- device arrays ----

@pytest.mark.parametrize("dtype", DTYPES)
def test_device_arrays(dtype):
    x = data(dtype, 5000, lo=0, hi=1000)
    d = wgprim.asarray(x)
    assert isinstance(d, wgprim.DeviceArray) and wgprim.asarray(d) is d
    assert d.shape == (5000,) and d.dtype == np.dtype(dtype) and len(d) == 5000 and d.size == 5000 and d.ndim == 1
    assert np.array_equal(d.numpy(), x) and np.array_equal(np.asarray(d), x)
    assert wgprim.sum(d) == wgprim.sum(x) and wgprim.max(d) == np.max(x) and wgprim.argmin(d) == np.argmin(x)
    s = wgprim.sort(d)
    assert isinstance(s, wgprim.DeviceArray) and np.array_equal(s.numpy(), np.sort(x))
    c = wgprim.cumsum(s)  # chained on the GPU
    assert isinstance(c, wgprim.DeviceArray)
    if dtype != np.float32:
        assert np.array_equal(c.numpy(), np.cumsum(np.sort(x), dtype=dtype))
    i = wgprim.argsort(d)
    assert i.dtype == np.uint32 and np.array_equal(i.numpy(), np.argsort(x, kind="stable"))
    k = wgprim.select(d, x > 500)
    assert isinstance(k, wgprim.DeviceArray) and np.array_equal(k.numpy(), x[x > 500]) and k.shape == (np.sum(x > 500),)
    assert np.array_equal(wgprim.select(d, wgprim.asarray((x > 500).astype(np.uint32))).numpy(), x[x > 500])
    off = np.array([0, 10, 10, 4000, 5000], np.uint32)
    r = wgprim.segment_reduce(d, wgprim.asarray(off), "max")
    assert np.array_equal(r.numpy()[[0, 2, 3]], [x[0:10].max(), x[10:4000].max(), x[4000:].max()])
    assert np.array_equal(wgprim.histogram(d, 8)[0], np.histogram(x, 8)[0])
    m = wgprim.asarray(x.reshape(50, 100))
    assert m.shape == (50, 100) and len(m) == 50 and np.array_equal(m.numpy(), x.reshape(50, 100))
    with pytest.raises(wgprim.Error):
        wgprim.segment_reduce(x, wgprim.asarray(off))  # host data with device offsets


def test_devices_and_adapters():
    names = [a["name"] for a in wgprim.adapters()]
    default = wgprim.default_device()
    # the library's default: the native CPU backend where the best adapter is a CPU (lavapipe), else that adapter
    assert names and (default.name in names or (default.backend == "native" and default.type == "cpu"))
    dev = wgprim.Device(adapter=names[0][:4])
    assert dev.name == names[0] and dev.info["backend"] == dev.backend
    x = np.arange(100, dtype=np.int32)
    d = wgprim.asarray(x, device=dev)
    assert d.device is dev and wgprim.sum(d) == 4950 and wgprim.sum(x, device=dev) == 4950
    dev.synchronize()
    # Calls that keep their results on the device queue; flush() submits them without waiting, then the results
    # are read as usual.
    queued = [wgprim.cumsum(d) for _ in range(5)]
    dev.flush()
    dev.flush()  # nothing left to submit: no effect
    for q in queued:
        assert np.array_equal(q.numpy(), np.cumsum(x).astype(np.int32))
    with pytest.raises(wgprim.Error) as e:
        wgprim.sum(d, device=wgprim.default_device())
    assert "Device" in str(e.value)
    with pytest.raises(wgprim.Error) as e:
        wgprim.Device(adapter="no such adapter anywhere")
    assert e.value.code == "no_adapter" and e.value.number == 7


# ---- errors ----

def test_errors():
    # dtypes no wgprim element type has: the NumPy-named functions say so (test_numpy.py: the ones they take),
    # the library's own functions name the conversion to ask for
    for bad in (np.zeros(3, np.complex64), np.zeros(3, np.int16)):
        with pytest.raises(wgprim.TypeError) as e:
            wgprim.reduce(bad)
        assert str(bad.dtype) in str(e.value) and e.value.code == "unsupported"
    with pytest.raises(wgprim.TypeError, match=r"a.astype\(np.int32\)"):
        wgprim.inclusive_scan(np.zeros(3, np.int16))  # the library's own functions: the conversion to ask for
    with pytest.raises(wgprim.TypeError, match="complex64"):
        wgprim.sum(np.zeros(3, np.complex64))
    x = np.arange(10, dtype=np.float32)
    assert wgprim.sum(x[::2]) == np.sum(x[::2])  # copied, not refused
    assert np.array_equal(wgprim.asarray(x.reshape(2, 5).T).numpy(), x.reshape(2, 5).T)
    assert wgprim.reduce(x[::2]) == np.sum(x[::2])  # the library's own functions copy too
    with pytest.raises(wgprim.Error, match="C-contiguous"):
        wgprim._wgprim.reduce(x[::2])  # the extension itself borrows, never copies
    with pytest.raises(wgprim.Error, match="identity"):
        wgprim.reduce(x, "max(a, b)")
    with pytest.raises(wgprim.Error, match="unknown operator"):
        wgprim.reduce(x, "maximum")
    with pytest.raises(wgprim.Error) as e:
        wgprim.reduce(x, "a - b", identity=0)  # not associative: refused by the monoid check
    assert e.value.code == "invalid_argument"
    with pytest.raises(wgprim.Error):
        wgprim.reduce(x, "sin(a) + b", identity=0)  # not in the expression language
    with pytest.raises(wgprim.Error):
        wgprim.reduce(x, "and")  # bitwise on float32
    with pytest.raises(wgprim.Error):
        wgprim.select(x, "a + 1.0")  # not a bool
    assert np.array_equal(wgprim.sort(x.reshape(2, 5)), np.sort(x.reshape(2, 5)))  # along the last axis
    with pytest.raises(wgprim.Error, match="1-D"):
        wgprim.sort(x.reshape(2, 5), offsets=[0, 1])
    with pytest.raises(wgprim.Error, match="expected an array"):
        wgprim._wgprim.reduce([1, 2, 3])
    assert wgprim.sum([1, 2, 3]) == 6 and wgprim.reduce(np.int32(7)) == 7
    f32 = (np.float32(1.5), np.float32(2.5))  # a tuple of float32 (a list of Python floats is float64)
    assert np.array_equal(wgprim.inclusive_scan(f32, "max(a, b)", identity="-inf"), [1.5, 2.5])
    assert isinstance(wgprim.Error("m"), Exception)


def test_zero_copy_inputs():
    x = np.arange(1000, dtype=np.int32)
    x.flags.writeable = False  # read-only memory is fine: inputs are only read
    assert wgprim.sum(x) == 499500
    assert wgprim.sum(memoryview(x)) == 499500  # buffer protocol
    assert wgprim.sum(np.from_dlpack(x)) == 499500

    class OnlyDLPack:  # a producer that speaks DLPack and nothing else
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, **kwargs):
            return self.a.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    assert wgprim.sum(OnlyDLPack(np.arange(1000, dtype=np.int32))) == 499500
    w = np.arange(1000, dtype=np.int32).reshape(10, 100)  # writable: NumPy exports read-only arrays only to DLPack 1.0 callers
    assert np.array_equal(wgprim.cumsum(OnlyDLPack(w)), np.cumsum(w))


# ---- threads ----

def test_threads_share_a_device():
    dev = wgprim.Device()
    xs = [data(np.int32, 3000 + 100 * t, seed=t) for t in range(4)]
    errors = []

    def work(t):
        try:
            for _ in range(5):
                assert wgprim.sum(xs[t], device=dev) == np.sum(xs[t])
                assert np.array_equal(wgprim.sort(xs[t], device=dev), np.sort(xs[t]))
                d = wgprim.asarray(xs[t], device=dev)
                assert np.array_equal(wgprim.cumsum(d).numpy(), np.cumsum(xs[t], dtype=np.int32))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors


def test_gil_released_during_gpu_work():
    x = data(np.float32, 3000)
    d = wgprim.asarray(x)
    entries, without_gil = wgprim._wgprim._gil_counts()
    calls = [lambda: wgprim.sum(x), lambda: wgprim.argmax(d), lambda: wgprim.cumsum(x), lambda: wgprim.sort(d),
             lambda: wgprim.argsort(x), lambda: wgprim.select(x, "a > 0.0"), lambda: wgprim.histogram(d, 5),
             lambda: wgprim.segment_reduce(x, [0, 5, 3000]), lambda: d.numpy(), lambda: wgprim.asarray(x)]
    for c in calls:
        c()
    e2, w2 = wgprim._wgprim._gil_counts()
    assert e2 - entries >= len(calls) and w2 - without_gil == e2 - entries


# ---- the README's Python example, as written ----

def test_readme_example():
    readme = pathlib.Path(__file__).resolve().parents[2] / "README.md"
    blocks = re.findall(r"<!-- python: run by python/tests -->\s*```python\n(.*?)```", readme.read_text(), re.S)
    assert len(blocks) == 1
    exec(compile(blocks[0], "README.md (Python example)", "exec"), {})
