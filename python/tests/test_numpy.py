"""The NumPy-named functions against NumPy itself (issue 30): NumPy's default dtypes on the default device (the
native CPU backend where there is no GPU), result dtypes, axis / dtype / out / keepdims, mean, cumprod,
count_nonzero, unique, array-likes, errors. Floats are compared within stated bounds: k * n * eps * sum|x| for
sums (any order of n additions), exact equality for integers, bool and min / max."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import wgprim

ALL = [np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8, np.uint64, np.uint32, np.uint16,
       np.uint8, np.bool_]
SIZES = [0, 1, 7, 129, 1000, 70001]


def data(dtype, shape, seed=0):
    rng = np.random.default_rng(seed + int(np.prod(shape)))
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if np.issubdtype(dtype, np.floating):
        return rng.uniform(-10, 10, shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), shape, endpoint=True).astype(dtype)


def eps(dtype):
    return float(np.finfo(dtype).eps) if np.issubdtype(dtype, np.floating) else 0.0


def close(ours, ref, x, axis=None):
    """ours == ref, or within n * eps * sum|x| (+ a float16 result's own rounding) for floating results."""
    ours, ref = np.asarray(ours), np.asarray(ref)
    assert ours.dtype == ref.dtype and ours.shape == ref.shape, (ours.dtype, ref.dtype, ours.shape, ref.shape)
    if ref.dtype.kind != "f":
        assert np.array_equal(ours, ref)
        return
    n = x.size if axis is None else x.shape[axis]
    mag = np.sum(np.abs(x.astype(np.float64)), axis=axis, keepdims=True)
    if mag.size == ref.size:  # a reduction (else a scan: the whole axis' magnitude bounds every prefix)
        mag = mag.reshape(ref.shape)
    bound = 2 * max(n, 1) * max(eps(ref.dtype) if ref.dtype != np.float16 else eps(np.float32), 2.0**-52) * mag
    bound = bound + np.abs(ref.astype(np.float64)) * (2 * eps(ref.dtype) if ref.dtype == np.float16 else 0)
    assert np.all(np.abs(ours.astype(np.float64) - ref.astype(np.float64)) <= bound + 1e-300)


# ---- the lines, as written ----

def test_numpy_defaults_on_the_default_device():
    r = wgprim.sum(np.random.rand(10))
    assert type(r) is np.float64
    assert wgprim.sum(np.arange(10)) == 45 and type(wgprim.sum(np.arange(10))) is np.int64
    big = np.full(10, 2**30, np.int32)
    s = wgprim.sum(big)
    assert s == 10737418240 == np.sum(big) and type(s) is np.int64  # no silent wrap: int32 sums in int64
    assert wgprim.sum(np.ones(5, bool)) == 5 and type(wgprim.sum(np.ones(5, bool))) is np.int64
    assert type(wgprim.sum(np.ones(3, np.uint32))) is np.uint64


def test_native_backend_runs_every_dtype():
    nat = wgprim.Device(backend="native")
    for dtype in ALL:
        x = data(dtype, 1000)
        close(wgprim.sum(x, device=nat), np.sum(x), x)
        close(wgprim.cumsum(x, device=nat), np.cumsum(x), x)
        assert wgprim.min(x, device=nat) == np.min(x) and type(wgprim.min(x, device=nat)) is type(np.min(x))
        assert wgprim.max(x, device=nat) == np.max(x)
        assert wgprim.argmin(x, device=nat) == np.argmin(x) and wgprim.argmax(x, device=nat) == np.argmax(x)
        assert np.array_equal(wgprim.sort(x, device=nat), np.sort(x))
        assert np.array_equal(wgprim.unique(x, device=nat), np.unique(x))


# ---- reductions over every dtype and size, on the default device ----

@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("n", SIZES)
def test_sum_prod_min_max_mean(dtype, n):
    x = data(dtype, n)
    close(wgprim.sum(x), np.sum(x), x)
    if n:
        assert wgprim.min(x) == np.min(x) and wgprim.max(x) == np.max(x)
        assert type(wgprim.max(x)) is type(np.max(x))
    small = (x[:20] % 3 + 1).astype(dtype) if dtype != np.bool_ else x[:20]
    if np.issubdtype(dtype, np.floating):
        small = np.abs(x[:20]).astype(dtype) / 8 + 0.5
    close(wgprim.prod(small), np.prod(small), np.log2(np.abs(small.astype(np.float64)) + 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ref = np.mean(x)
        ours = wgprim.mean(x)
    if n:
        close(ours, ref, x / max(n, 1))
    else:
        assert np.isnan(ours) and type(ours) is type(ref)


def test_float64_sum_matches_numpy_closely():
    x = np.random.default_rng(1).standard_normal(100003)
    r = wgprim.sum(x)
    assert abs(r - np.sum(x)) <= 100003 * 2.0**-52 * np.sum(np.abs(x))
    assert abs(r - np.sum(x)) <= 1e-9  # the same pairwise blocking as NumPy's on the native backend


def test_empty_min_max_raise_value_error():
    for f, name in ((wgprim.min, "minimum"), (wgprim.max, "maximum")):
        with pytest.raises(ValueError, match=name):
            f(np.zeros(0))
        with pytest.raises(wgprim.ValueError):
            f(np.zeros((0, 3)), axis=0)
        assert f(np.zeros((0, 3)), axis=1).shape == (0,)
    for f in (wgprim.argmin, wgprim.argmax):
        with pytest.raises(ValueError):
            f([])


# ---- axis, dtype, out, keepdims ----

@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32, np.uint8, np.bool_])
@pytest.mark.parametrize("shape", [(5, 7), (1, 300), (300, 1), (64, 130), (0, 4), (4, 0), (3, 4, 5)])
def test_axis(dtype, shape):
    x = data(dtype, shape)
    for axis in [None, 0, 1, -1] + ([2, (0, 2), (1, 2)] if len(shape) == 3 else [(0, 1)]):
        for keepdims in (False, True):
            close(wgprim.sum(x, axis=axis, keepdims=keepdims), np.sum(x, axis=axis, keepdims=keepdims), x,
                  axis if isinstance(axis, int) else None)
            if x.size and all(s for s in shape):
                assert np.array_equal(wgprim.max(x, axis=axis, keepdims=keepdims),
                                      np.max(x, axis=axis, keepdims=keepdims))
                assert np.array_equal(wgprim.min(x, axis=axis, keepdims=keepdims),
                                      np.min(x, axis=axis, keepdims=keepdims))
            c = wgprim.count_nonzero(x, axis=axis, keepdims=keepdims)
            ref = np.count_nonzero(x, axis=axis, keepdims=keepdims)
            assert np.array_equal(c, ref) and np.asarray(c).dtype == np.asarray(ref).dtype
    for axis in (None, 0, 1, -1):
        close(wgprim.cumsum(x, axis=axis), np.cumsum(x, axis=axis), x)
        small = (x % 2 + 1).astype(dtype)[:, :6] if dtype != np.bool_ else x[:, :6]
        p, ref = wgprim.cumprod(small, axis=axis), np.cumprod(small, axis=axis)
        assert p.dtype == ref.dtype
        # a product of k factors: relative error <= k * eps (any order; the factors here are small integers)
        assert np.allclose(p, ref, rtol=small.size * eps(dtype), atol=0) if p.dtype.kind == "f" else \
            np.array_equal(p, ref)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            m, ref = wgprim.mean(x, axis=axis), np.mean(x, axis=axis)
            count = x.size if axis is None else x.shape[axis]
            if count:
                close(m, ref, x / count, axis)  # the sum's bound, scaled by 1 / count
            else:
                assert np.all(np.isnan(m)) and np.asarray(m).dtype == np.asarray(ref).dtype


def test_dtype_out_keepdims():
    x = data(np.int32, (6, 50))
    for dt in (np.float64, np.float32, np.int8, np.uint64, np.int16, bool):
        r, ref = wgprim.sum(x, dtype=dt), np.sum(x, dtype=dt)
        assert type(r) is type(ref) and (r == ref or abs(float(r) - float(ref)) <= 1e-3 * abs(float(ref)))
        assert np.array_equal(wgprim.cumsum(x, axis=1, dtype=dt), np.cumsum(x, axis=1, dtype=dt))
    out = np.empty(50, np.float64)
    r = wgprim.sum(x, axis=0, out=out)
    assert r is out and np.array_equal(out, np.sum(x, axis=0))
    out = np.empty((1, 50), np.int64)
    assert wgprim.max(x, axis=0, keepdims=True, out=out) is out and np.array_equal(out, x.max(0, keepdims=True))
    out = np.empty((6, 50), np.int64)
    assert wgprim.cumsum(x, axis=1, out=out) is out and np.array_equal(out, np.cumsum(x, axis=1))
    out = np.empty(6)
    assert wgprim.mean(x, axis=1, out=out) is out and np.allclose(out, np.mean(x, axis=1))
    with pytest.raises(ValueError):
        wgprim.sum(x, axis=0, out=np.empty(3))
    with pytest.raises(wgprim.ValueError):
        wgprim.sum(x, axis=2)
    with pytest.raises(ValueError):
        wgprim.sum(x, axis=(0, 0))
    with pytest.raises(TypeError):
        wgprim.sum(x, axis=1.5)
    with pytest.raises(TypeError):
        wgprim.sum(x, dtype=np.complex64)


def test_accumulation_dtypes():
    for dt in ALL:
        x = np.ones(4, dt)
        for ours, ref in ((wgprim.sum(x), np.sum(x)), (wgprim.prod(x), np.prod(x)), (wgprim.mean(x), np.mean(x)),
                          (wgprim.cumsum(x), np.cumsum(x)), (wgprim.cumprod(x), np.cumprod(x)),
                          (wgprim.min(x), np.min(x)), (wgprim.count_nonzero(x), np.count_nonzero(x))):
            assert np.asarray(ours).dtype == np.asarray(ref).dtype, (dt, ours, ref)
            assert type(ours) is type(ref), (dt, ours, ref)


def test_nan_and_signed_zero():
    x = np.array([1.0, np.nan, -3.0, np.inf])
    assert np.isnan(wgprim.sum(x)) and np.isnan(wgprim.min(x)) and np.isnan(wgprim.max(x))
    assert wgprim.argmax(x) == np.argmax(x) == 1
    assert np.array_equal(wgprim.cumsum(x), np.cumsum(x), equal_nan=True)
    assert np.signbit(wgprim.sum(np.array([-0.0])))  # NumPy's -0.0 start
    m = np.array([[1.0, np.nan], [2.0, 3.0]])
    assert np.array_equal(wgprim.max(m, axis=1), np.max(m, axis=1), equal_nan=True)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint8, np.bool_])
def test_argmin_argmax_axis(dtype):
    x = data(dtype, (7, 33, 5))
    if dtype == np.float64:
        x[2, 5, 1] = x[4, 0, 3] = np.nan
    for f, ref in ((wgprim.argmin, np.argmin), (wgprim.argmax, np.argmax)):
        assert f(x) == ref(x)
        for axis in (0, 1, 2, -1):
            for keepdims in (False, True):
                r, r0 = f(x, axis=axis, keepdims=keepdims), ref(x, axis=axis, keepdims=keepdims)
                assert r.dtype == r0.dtype and np.array_equal(r, r0)
        assert np.array_equal(f(x, keepdims=True), ref(x, keepdims=True))
        out = np.empty((7, 5), np.intp)
        assert f(x, axis=1, out=out) is out and np.array_equal(out, ref(x, axis=1))
        with pytest.raises(ValueError):
            f(np.zeros((3, 0)), axis=1)


# ---- unique ----

@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("n", [0, 1, 2, 100, 5000])
def test_unique(dtype, n):
    x = data(dtype, n) if dtype == np.bool_ else (data(dtype, n) % 37).astype(dtype)
    got, ref = wgprim.unique(x), np.unique(x)
    assert got.dtype == ref.dtype and np.array_equal(got, ref)
    u, idx, inv, cnt = wgprim.unique(x, return_index=True, return_inverse=True, return_counts=True)
    u0, idx0, inv0, cnt0 = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    assert np.array_equal(u, u0) and np.array_equal(idx, idx0) and np.array_equal(inv, inv0)
    assert np.array_equal(cnt, cnt0) and idx.dtype == idx0.dtype and cnt.dtype == cnt0.dtype


def test_unique_nan_2d_lists():
    x = np.array([3.0, np.nan, 1.0, np.nan, 3.0, -np.inf])
    u, c = wgprim.unique(x, return_counts=True)
    u0, c0 = np.unique(x, return_counts=True)
    assert np.array_equal(u, u0, equal_nan=True) and np.array_equal(c, c0)
    m = np.array([[2, 1], [1, 5]])
    assert np.array_equal(wgprim.unique(m), np.unique(m))
    assert np.array_equal(wgprim.unique(m, return_inverse=True)[1], np.unique(m, return_inverse=True)[1])
    assert np.array_equal(wgprim.unique([3, 1, 3]), [1, 3])
    with pytest.raises(ValueError):
        wgprim.unique(m, axis=0)


# ---- histogram of every dtype ----

@pytest.mark.parametrize("dtype", ALL)
def test_histogram_every_dtype(dtype):
    x = data(dtype, 3000)
    if dtype == np.float64:
        x[::97] = np.nan
    for bins, rng in ((10, (-5, 5)), (7, None), (np.array([-3, 0, 0.5, 2, 900]), None)):
        if dtype == np.float64 and rng is None and np.ndim(bins) == 0:
            continue  # NaN: NumPy's autodetected range is not finite (both raise ValueError, test_wgprim)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # NumPy: "Converting input from bool"
            c0, e0 = np.histogram(x, bins, rng)
        c, e = wgprim.histogram(x, bins, rng)
        assert np.array_equal(c, c0) and c.dtype == c0.dtype and np.array_equal(e, e0) and e.dtype == e0.dtype


# ---- array-likes ----

def test_lists_tuples_scalars_strided_fortran():
    assert wgprim.sum([1, 2, 3]) == 6 and type(wgprim.sum([1, 2, 3])) is np.int64
    assert wgprim.sum((1.5, 2.5)) == 4.0 and type(wgprim.sum((1.5, 2.5))) is np.float64
    assert wgprim.sum(5) == 5 and wgprim.max(2.5) == 2.5
    assert np.array_equal(wgprim.cumsum(3), np.cumsum(3))
    assert np.array_equal(wgprim.cumsum([[1, 2], [3, 4]], axis=0), np.cumsum([[1, 2], [3, 4]], axis=0))
    x = np.arange(20, dtype=np.float32)
    assert wgprim.sum(x[::3]) == np.sum(x[::3])
    f = np.asfortranarray(np.arange(12, dtype=np.int32).reshape(3, 4))
    assert np.array_equal(wgprim.cumsum(f), np.cumsum(f)) and np.array_equal(wgprim.sum(f, axis=0), f.sum(0))
    assert np.array_equal(wgprim.sort(x[::-1]), x) and np.array_equal(wgprim.argsort([3, 1, 2]), [1, 2, 0])
    assert np.array_equal(wgprim.sort(np.array([3, -1, 2], np.int16)), [-1, 2, 3])
    assert wgprim.sort(np.array([True, False])).dtype == bool
    d = wgprim.asarray([1, 2, 3])
    assert isinstance(d, wgprim.DeviceArray) and d.dtype == np.int64


# ---- errors ----

def test_error_classes():
    assert issubclass(wgprim.ValueError, ValueError) and issubclass(wgprim.ValueError, wgprim.Error)
    assert issubclass(wgprim.TypeError, TypeError) and issubclass(wgprim.TypeError, wgprim.Error)
    with pytest.raises(wgprim.TypeError, match="complex64"):
        wgprim.sum(np.zeros(3, np.complex64))
    with pytest.raises(TypeError, match="not supported"):
        wgprim.sum(np.array(["a", "b"]))
    with pytest.raises(wgprim.ValueError) as e:
        wgprim.reduce(np.ones(3, np.float32), "maximum")  # the library's message and code
    assert "unknown operator" in str(e.value) and e.value.code == "invalid_argument"
    with pytest.raises(ValueError):
        wgprim.segment_reduce(np.ones(4, np.float32), [0, 9])
    with pytest.raises(wgprim.Error):
        wgprim.Device(adapter="no such adapter anywhere")


def test_wrong_keywords_are_short():
    x = np.ones(3, np.float32)
    for call, word in ((lambda: wgprim.sum(x, foo=1), "foo"), (lambda: wgprim.reduce(x, bogus=2), "bogus"),
                       (lambda: wgprim.sort(x, nope=True), "nope"), (lambda: wgprim.unique(x, ax=0), "ax"),
                       (lambda: wgprim.inclusive_scan(x, "sum", wrong=1), "wrong")):
        with pytest.raises(TypeError) as e:
            call()
        msg = str(e.value)
        assert f"unexpected keyword argument '{word}'" in msg and "\n" not in msg and len(msg) < 120, msg


# ---- python -m wgprim ----

def test_module_help_and_info():
    h = subprocess.run([sys.executable, "-m", "wgprim", "--help"], capture_output=True, text=True)
    assert h.returncode == 0 and "usage" in h.stdout
    i = subprocess.run([sys.executable, "-m", "wgprim", "info"], capture_output=True, text=True)
    assert i.returncode == 0
    default = wgprim.default_device()
    assert f"default device: {default.name}" in i.stdout
    assert subprocess.run([sys.executable, "-m", "wgprim", "bogus"], capture_output=True).returncode == 2


# ---- sort / argsort along an axis ----

@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint64, np.int32, np.uint8, np.bool_])
@pytest.mark.parametrize("shape", [(5, 7), (1, 300), (300, 1), (64, 130), (0, 4), (4, 0), (3, 4, 5)])
def test_sort_argsort_axis(dtype, shape):
    x = data(dtype, shape) if dtype == np.bool_ else (data(dtype, shape) % 11).astype(dtype)  # many ties
    if dtype == np.float64 and x.size > 3:
        x.flat[1] = x.flat[x.size // 2] = np.nan
    for axis in [None, 0, 1, -1] + ([2, -2] if len(shape) == 3 else []):
        s, s0 = wgprim.sort(x, axis=axis), np.sort(x, axis=axis)
        assert s.dtype == s0.dtype and s.shape == s0.shape
        assert np.array_equal(s, s0, equal_nan=bool(np.issubdtype(dtype, np.floating)))
        p, p0 = wgprim.argsort(x, axis=axis), np.argsort(x, axis=axis, kind="stable")
        assert p.dtype == p0.dtype and p.shape == p0.shape and np.array_equal(p, p0), (axis, p, p0)
    assert np.array_equal(wgprim.sort(x), np.sort(x), equal_nan=bool(np.issubdtype(dtype, np.floating)))  # axis -1
    assert np.array_equal(wgprim.argsort(x, -1, "quicksort"), np.argsort(x, -1, "stable"))


def test_sort_axis_descending_fortran_lists_and_errors():
    x = data(np.int32, (9, 40)) % 7
    d = wgprim.sort(x, axis=0, descending=True)
    assert np.array_equal(d, np.sort(x, axis=0)[::-1])
    p = wgprim.argsort(x, descending=True)
    assert np.array_equal(p, np.argsort(-x.astype(np.int64), axis=-1, kind="stable"))
    f = np.asfortranarray(x.astype(np.float64))
    assert np.array_equal(wgprim.sort(f, axis=0), np.sort(f, axis=0))
    assert np.array_equal(wgprim.argsort([[3, 1], [0, 2]]), np.argsort([[3, 1], [0, 2]], kind="stable"))
    assert np.array_equal(wgprim.sort(np.array(5), axis=None), [5])
    with pytest.raises(ValueError):
        wgprim.sort(np.array(5))  # NumPy: axis -1 is out of bounds for a 0-d array
    with pytest.raises(ValueError):
        wgprim.sort(x, axis=2)
    with pytest.raises(TypeError):
        wgprim.sort(x, axis=(0, 1))
    with pytest.raises(ValueError):
        wgprim.sort(x, kind="bogo")
    with pytest.raises(ValueError):
        wgprim.sort(x, order="f0")
    with pytest.raises(ValueError):
        wgprim.sort(x, offsets=[0, 3])  # offsets= and less= take 1-D arrays


# ---- the host loops of 64-bit types on the native backend, past one block of their threads ----

@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.uint64])
def test_native_64bit_long_rows(dtype):
    nat = wgprim.Device(backend="native")
    rng = np.random.default_rng(5)
    n = 300007  # several blocks of 2^15: the parallel paths, with a ragged last block
    x = rng.uniform(-1, 1, n).astype(dtype) if dtype == np.float64 else rng.integers(0, 1000, n).astype(dtype)
    assert wgprim.sum(x, device=nat) == wgprim.sum(x, device=nat)  # one tree whatever the threads: the same bits
    close(wgprim.sum(x, device=nat), np.sum(x), x)
    close(wgprim.cumsum(x, device=nat), np.cumsum(x), x)
    assert wgprim.max(x, device=nat) == np.max(x) and wgprim.min(x, device=nat) == np.min(x)
    m = x[: 3 * 100001].reshape(3, 100001)
    close(wgprim.sum(m, axis=1, device=nat), np.sum(m, axis=1), m, 1)
    close(wgprim.cumsum(m, axis=1, device=nat), np.cumsum(m, axis=1), m, 1)
    assert np.array_equal(wgprim.argmax(m, axis=1, device=nat), np.argmax(m, axis=1))
    assert np.array_equal(wgprim.argmin(m, axis=1, device=nat), np.argmin(m, axis=1))
    w = m.copy()
    if dtype == np.float64:
        w[1, 70000] = w[1, 90000] = np.nan
    assert np.array_equal(wgprim.argmax(w, axis=1, device=nat), np.argmax(w, axis=1))
    s = (x % 100).astype(dtype)
    assert np.array_equal(wgprim.sort(s, device=nat), np.sort(s))
    assert np.array_equal(wgprim.argsort(s, device=nat), np.argsort(s, kind="stable"))
    u, c = wgprim.unique(s, return_counts=True, device=nat)
    u0, c0 = np.unique(s, return_counts=True)
    assert np.array_equal(u, u0) and np.array_equal(c, c0)


def test_native_64bit_sort_order():
    nat = wgprim.Device(backend="native")
    x = np.array([0.0, -0.0, np.nan, -np.nan, -np.inf, np.inf, 1.0, -1.0, -0.0])
    s = wgprim.sort(x, device=nat)
    assert np.array_equal(s, [-np.inf, -1.0, -0.0, -0.0, 0.0, 1.0, np.inf, np.nan, np.nan], equal_nan=True)
    assert list(np.signbit(s[2:5])) == [True, True, False]  # -0.0 before +0.0, as the library's sort
    assert list(wgprim.argsort(x, device=nat)) == [4, 7, 1, 8, 0, 6, 5, 2, 3]  # NaNs last, in input order
    i = np.array([5, -2**63, 2**63 - 1, -1, 0, -1], np.int64)
    assert np.array_equal(wgprim.sort(i, device=nat), np.sort(i))
    assert np.array_equal(wgprim.argsort(i, device=nat), np.argsort(i, kind="stable"))
    u = np.array([2**64 - 1, 0, 2**63, 7], np.uint64)
    assert np.array_equal(wgprim.sort(u, device=nat), np.sort(u))
