"""wgprim.pipeline against NumPy: chains of select / sort / unique (/ count) recorded once and replayed on arrays
of other lengths, on the WebGPU backend (lavapipe here) and the native CPU backend; the expected values are
NumPy's (boolean masks, stable argsort on the ordered key's bits, consecutive-duplicate removal)."""
import functools

import numpy as np
import pytest

import wgprim

# 0, 1, around one tile (4096) and 2^k +- 1; replayed in this order after a first run on the largest.
SIZES = [0, 1, 2, 255, 4095, 4096, 4097, 65535, 65537, 1000]
DEVICES = ["webgpu", "native"]
TYPES = [np.uint32, np.int32, np.float32]


@functools.cache
def device(kind):
    return wgprim.Device(backend=kind)


def ordered(x):
    """The radix sort's key: unsigned order of the bits (int32: sign flipped; float32: the IEEE total order)."""
    b = x.view(np.uint32).astype(np.uint64)
    if x.dtype == np.int32:
        return b ^ 0x80000000
    if x.dtype == np.float32:
        return np.where(b & 0x80000000, ~b & 0xFFFFFFFF, b | 0x80000000)
    return b


def np_sort(x, bits=None, descending=False):
    lo, hi = bits if bits else (0, 32)
    key = ordered(x) & (((1 << hi) - 1) & ~((1 << lo) - 1))
    if descending:
        key = 0xFFFFFFFF - key
    return x[np.argsort(key, kind="stable")]


def np_unique(x):
    if x.size == 0:
        return x
    keep = np.ones(x.size, dtype=bool)
    keep[1:] = x[1:] != x[:-1]
    return x[keep]


def data(n, t, seed):
    rng = np.random.default_rng(seed)
    if t == np.float32:  # whole numbers (duplicates likely), no -0.0 / NaN
        return rng.integers(-3000, 3000, n).astype(np.float32)
    if t == np.int32:
        return rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    return rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)


# (condition, NumPy mask) per dtype: about half kept.
EVEN = {np.uint32: ("a % 2u == 0u", lambda x: x % 2 == 0),
        np.int32: ("(a & 1) == 0", lambda x: (x & 1) == 0),
        np.float32: ("a > 0.0", lambda x: x > 0)}


@pytest.mark.parametrize("kind", DEVICES)
@pytest.mark.parametrize("t", TYPES)
def test_chain_replayed_matches_numpy(kind, t):
    d = device(kind)
    cond, mask = EVEN[t]
    bits = None if t == np.float32 else (0, 16)
    counted = wgprim.pipeline(t, device=d).select(cond).sort(bits=bits).unique().count()
    arrays = wgprim.pipeline(t, device=d).select(cond).sort(bits=bits).unique()
    assert counted.steps == 3 and arrays.steps == 3
    for i, n in enumerate([max(SIZES)] + SIZES):
        x = data(n, t, seed=n + 7 * i)
        want = np_unique(np_sort(x[mask(x)], bits))
        k = counted(x)
        assert isinstance(k, int) and k == want.size, (n, k, want.size)
        got = arrays(x)
        assert got.dtype == t and np.array_equal(got, want), n
        assert np.array_equal(arrays.output(), want)
        if i:  # a replay: the kernels of the first run serve every length up to it
            assert counted.kernels_created_last_run == 0, n
            assert arrays.kernels_created_last_run == 0, n
        assert (counted.dispatches_last_run == 0) == (kind == "native"), (n, kind, counted.dispatches_last_run)


@pytest.mark.parametrize("kind", DEVICES)
def test_counts_of_zero_one_and_past_a_tile(kind):
    d = device(kind)
    p = wgprim.pipeline(np.uint32, device=d).select("a >= 100u").count()
    x = np.arange(10_000, dtype=np.uint32)
    for n, want in [(100, 0), (101, 1), (5000, 4900), (10_000, 9900), (0, 0), (1, 0)]:
        assert p(x[:n]) == want, n
    q = wgprim.pipeline(np.uint32, device=d).select("a % 3u == 0u").unique()
    y = np.repeat(np.arange(6000, dtype=np.uint32), 2)  # every value twice
    for n in [12_000, 1, 2, 7, 8193]:
        want = np_unique(y[:n][y[:n] % 3 == 0])
        assert np.array_equal(q(y[:n]), want), n


@pytest.mark.parametrize("kind", DEVICES)
def test_sort_steps_and_device_arrays(kind):
    d = device(kind)
    x = data(9000, np.int32, seed=3)
    p = wgprim.pipeline(np.int32, device=d).sort(bits=(4, 20), descending=True)
    assert np.array_equal(p(x), np_sort(x, (4, 20), descending=True))
    assert np.array_equal(p(wgprim.asarray(x[:4097], device=d)), np_sort(x[:4097], (4, 20), descending=True))
    s = wgprim.pipeline(np.uint32, device=d).sort().unique()
    assert np.array_equal(s([5, 1, 5, 3, 1]), np.array([1, 3, 5], dtype=np.uint32))  # a list: the pipeline's dtype
    assert np.array_equal(s(np.array([], dtype=np.uint32)), np.array([], dtype=np.uint32))


def test_errors():
    with pytest.raises(wgprim.TypeError):
        wgprim.pipeline(np.float64)
    with pytest.raises(wgprim.TypeError):
        wgprim.pipeline(np.int16)
    p = wgprim.pipeline(np.uint32).select("a > 1u")
    with pytest.raises(wgprim.TypeError, match="convert explicitly"):
        p(np.arange(5, dtype=np.int64))
    with pytest.raises(wgprim.ValueError, match="1-D"):
        p(np.zeros((2, 3), dtype=np.uint32))
    with pytest.raises(wgprim.ValueError):
        p.select("a >")  # an expression that does not parse
    with pytest.raises(wgprim.TypeError):
        p.select(np.ones(3, dtype=bool))
    with pytest.raises(wgprim.ValueError):
        p.sort(bits=(0, 40))
    with pytest.raises(wgprim.ValueError):
        p.sort(bits=(8, 8))
    with pytest.raises(wgprim.ValueError, match="not run"):
        wgprim.pipeline(np.uint32).output()
    p.count()
    with pytest.raises(wgprim.ValueError, match="count"):
        p.unique()
    assert p(np.arange(5, dtype=np.uint32)) == 3  # the failed calls left the chain as it was
    assert "steps=1, count" in repr(p)
    with pytest.raises(wgprim.TypeError):
        wgprim.pipeline(np.float32).sort(descending=True)
    with pytest.raises(wgprim.ValueError):
        a = wgprim.asarray(np.arange(4, dtype=np.uint32), device=device("native"))
        wgprim.pipeline(np.uint32, device=device("webgpu"))(a)
