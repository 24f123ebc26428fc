"""wgprim.view against NumPy: counting, constant, gather, zip and transform views through sum / min / max / reduce and
the scans, over edge sizes, on the default device and on both backends; the expected values are NumPy's on the
materialised range."""
import functools

import numpy as np
import pytest

import wgprim

SIZES = [0, 1, 2, 255, 4095, 4096, 4097, 65535, 65537]
DEVICES = [None, "webgpu", "native"]


@functools.cache
def device(kind):
    """One Device per backend for the whole module (a Device compiles its own pipelines)."""
    return None if kind is None else wgprim.Device(backend=kind)


def cases(n, d=None):
    """(view, the values it yields as a NumPy array)."""
    rng = np.random.default_rng(n)
    i = np.arange(n, dtype=np.uint64)
    base = rng.integers(0, 2**32, n // 3 + 1, dtype=np.uint64).astype(np.uint32)
    idx = rng.integers(0, base.size, n, dtype=np.uint64).astype(np.uint32)
    x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    y = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    xi, yi = x.view(np.int32), y[::-1].copy().view(np.int32)
    q = (rng.integers(-1000, 1001, n) * 0.25).astype(np.float32)
    r = (rng.integers(-1000, 1001, n) * 0.25).astype(np.float32)
    return [
        (wgprim.view.counting(7, n, 3), ((7 + 3 * i) % 2**32).astype(np.uint32)),
        (wgprim.view.counting(-5, n, -2), (-5 - 2 * i.astype(np.int64)).astype(np.int32)),
        (wgprim.view.constant(2.5, n), np.full(n, 2.5, dtype=np.float32)),
        (wgprim.view.gather(base, idx, device=d), base[idx]),
        (wgprim.view.transform(x, "a & 0xffffu", device=d), x & 0xFFFF),
        (wgprim.view.transform(wgprim.view.counting(0, n), "f32(a) * 0.5"), (i.astype(np.float32) * 0.5).astype(np.float32)),
        (wgprim.view.zip(x, y, "a * b", device=d), x * y),  # wraps modulo 2^32, as NumPy's uint32
        (wgprim.view.zip(xi, yi, "a - b", device=d), xi - yi),
        (wgprim.view.zip(q, r, "a * b", device=d), q * r),  # quarters: exact products, exact float64 sums
        (wgprim.view.transform(wgprim.view.zip(x, y, "a ^ b", device=d), "a & 0xffu"), (x ^ y) & 0xFF),
    ]


def test_bad_arguments_give_one_line_errors():
    # An expression that is not a string, empty or malformed is refused when the view is made; wrong argument types
    # of sort / histogram over a view give wgprim's one-line TypeError, not nanobind's signature dump.
    x = np.arange(10, dtype=np.uint32)
    for bad in (5, "", "   ", None):
        with pytest.raises(wgprim.TypeError):
            wgprim.view.transform(x, bad)
    for bad in ("a +", "b + a", "a\x00"):
        with pytest.raises(wgprim.Error) as e:
            wgprim.view.transform(x, bad)
        assert "\n" not in str(e.value)
    v = wgprim.view.transform(x, "a * 3u")
    for kwargs in ({"begin_bit": -1}, {"end_bit": 2 ** 70}, {"descending": "yes"}):
        with pytest.raises(wgprim.TypeError) as e:
            wgprim.sort(v, **kwargs)
        assert "\n" not in str(e.value), kwargs


@pytest.mark.parametrize("kind", DEVICES)
@pytest.mark.parametrize("n", SIZES)
def test_reductions_match_numpy(kind, n):
    d = device(kind)
    for v, want in cases(n, d):
        assert v.size == n
        if want.dtype == np.float32:
            exact = np.float32(sum(float(w) for w in want.astype(np.float64)))  # halves and 2.5s: exact in float64
            if v.expr:  # a transform view sums with accuracy='fast' only (as transform_reduce)
                got = wgprim.sum(v, device=d)
                assert abs(float(got) - float(exact)) <= 1e-5 * abs(float(exact)), v
                with pytest.raises(wgprim.TypeError):
                    wgprim.sum(v, accuracy="exact", device=d)
            else:  # correctly rounded, whatever the order
                got = wgprim.sum(v, accuracy="exact", device=d)
                assert got == exact, v
        else:
            got = wgprim.sum(v, device=d)
            assert got == want.sum(dtype=want.dtype), v
        assert got.dtype == want.dtype
        if n:
            assert wgprim.min(v, device=d) == want.min(), v
            assert wgprim.max(v, device=d) == want.max(), v
        if n:  # (a transform view: through a temporary array of its values)
            assert wgprim.argmin(v, device=d) == int(np.argmin(want)), v
            assert wgprim.argmax(v, device=d) == int(np.argmax(want)), v
        if want.dtype != np.float32:
            assert wgprim.reduce(v, "xor", device=d) == np.bitwise_xor.reduce(want), v


@pytest.mark.parametrize("kind", DEVICES)
@pytest.mark.parametrize("n", SIZES)
def test_scans_match_numpy(kind, n):
    d = device(kind)
    for v, want in cases(n, d):
        if want.dtype == np.float32:
            got = wgprim.inclusive_scan(v, "max", device=d)
            np.testing.assert_array_equal(got, np.maximum.accumulate(want) if n else want)
            continue
        got = wgprim.cumsum(v, device=d)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, np.cumsum(want, dtype=want.dtype))
        ex = wgprim.exclusive_scan(v, device=d)
        np.testing.assert_array_equal(ex, (np.cumsum(want, dtype=want.dtype) - want).astype(want.dtype))


@pytest.mark.parametrize("kind", DEVICES)
@pytest.mark.parametrize("n", [0, 1, 4097, 65537])
def test_select_matches_numpy(kind, n):
    d = device(kind)
    for v, want in cases(n, d):
        cond, keep = ("a < 7.25", want < 7.25) if want.dtype == np.float32 else ("(a & 1) == 0", (want & 1) == 0)
        if want.dtype == np.uint32:
            cond = "(a & 1u) == 0u"
        got = wgprim.select(v, cond, device=d)
        np.testing.assert_array_equal(got, want[keep])
        assert got.dtype == want.dtype


@pytest.mark.parametrize("kind", DEVICES)
@pytest.mark.parametrize("n", [0, 1, 4097, 65537])
def test_sort_matches_numpy(kind, n):
    d = device(kind)
    for v, want in cases(n, d):
        got = wgprim.sort(v, device=d)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, np.sort(want, kind="stable"))
        if want.dtype != np.float32:
            np.testing.assert_array_equal(wgprim.sort(v, descending=True, device=d), np.sort(want, kind="stable")[::-1])
            low = np.argsort(want.view(np.uint32) & 0xFFFF, kind="stable") if want.dtype == np.uint32 else None
            if low is not None:  # only bits 0..15 compared: a stable sort by the low halves
                np.testing.assert_array_equal(wgprim.sort(v, begin_bit=0, end_bit=16, device=d), want[low])
    with pytest.raises(ValueError):
        wgprim.sort(wgprim.view.counting(0, 10), offsets=np.array([0, 10], dtype=np.uint32))


@pytest.mark.parametrize("kind", DEVICES)
@pytest.mark.parametrize("n", [0, 1, 4097, 65537])
def test_histogram_matches_numpy(kind, n):
    d = device(kind)
    for v, want in cases(n, d):
        counts, edges = wgprim.histogram(v, 37, device=d)
        want_counts, want_edges = np.histogram(want, 37)
        np.testing.assert_array_equal(counts, want_counts)
        np.testing.assert_array_equal(edges, want_edges)
        if n and want.dtype != np.float32:
            lv = np.unique(want)[:: max(1, np.unique(want).size // 5)]
            if lv.size >= 2:
                np.testing.assert_array_equal(wgprim.histogram(v, lv, device=d)[0], np.histogram(want, lv)[0])


def test_device_arrays_and_errors():
    x = wgprim.asarray(np.arange(10, dtype=np.uint32))
    assert wgprim.sum(wgprim.view.transform(x, "a * 2u")) == 90
    assert wgprim.sum(wgprim.view.gather(x, [9, 9, 100])) == 27  # past the end: the last element
    with pytest.raises(wgprim.ValueError):
        wgprim.view.counting(0, 10, dtype=np.float64)
    with pytest.raises(wgprim.ValueError):
        wgprim.view.transform(wgprim.view.transform(x, "a"), "a")
    with pytest.raises(wgprim.ValueError):
        wgprim.min(wgprim.view.counting(0, 0))
    with pytest.raises(wgprim.ValueError):
        wgprim.sum(wgprim.view.counting(0, 10), axis=0)
    with pytest.raises(wgprim.Error):
        wgprim.sum(wgprim.view.transform(x, "a +"))


@pytest.mark.parametrize("kind", DEVICES)
def test_zip_dot_product_and_errors(kind):
    d = device(kind)
    rng = np.random.default_rng(5)
    x = rng.integers(-100, 101, 70_001).astype(np.int32)
    y = rng.integers(-100, 101, 70_001).astype(np.int32)
    assert wgprim.sum(wgprim.view.zip(x, y, "a * b", device=d), device=d) == np.dot(x, y)
    xs, ys = wgprim.asarray(x.astype(np.float32), device=d), wgprim.asarray(y.astype(np.float32), device=d)
    assert wgprim.sum(wgprim.view.zip(xs, ys, "a * b")) == np.float32(np.dot(x.astype(np.int64), y))
    assert "zip 'a * b'" in repr(wgprim.view.zip(xs, ys, "a * b"))
    with pytest.raises(wgprim.ValueError, match=r"differ in length \(70001 and 70000\)"):
        wgprim.view.zip(x, y[:-1], "a * b", device=d)
    with pytest.raises(wgprim.ValueError, match="dtypes differ"):
        wgprim.view.zip(x, y.view(np.uint32), "a * b", device=d)
    with pytest.raises(wgprim.ValueError, match="view::zip"):
        wgprim.view.zip(x, y, "a * c", device=d)
    with pytest.raises(wgprim.ValueError, match="view::zip"):
        wgprim.view.zip(x, y, "f32(a)", device=d)
    with pytest.raises(wgprim.ValueError):
        wgprim.view.zip(x.astype(np.float64), y.astype(np.float64), "a * b", device=d)
