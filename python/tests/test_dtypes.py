"""The element types beyond float32/int32/uint32 against NumPy: float64, int64, uint64 (64-bit: a WebGPU device
with shader-f64 / shader-int64 for reduce and scan; sort and argsort need WebGPU only) and the packed float16,
uint8, int8 (reduce and scan, accumulated in float32, uint32, int32). The native CPU backend (the default Device
where the best adapter is a CPU, e.g. lavapipe) refuses them in the library's own functions (reduce, scan) with a
wgprim.Error naming Device(backend='webgpu'); the NumPy-named functions (sum, cumsum, min, sort, ...) take every
type everywhere (test_numpy.py)."""
import math

import numpy as np
import pytest

import wgprim

WIDE = [np.float64, np.int64, np.uint64]
NARROW = [np.float16, np.uint8, np.int8]
# What the library accumulates (and reduce / inclusive_scan return) in: the accumulation type of its GPU kernels.
# wgprim.sum gives NumPy's (float16 / uint64 / int64 for float16 / uint8 / int8).
ACC = {np.float64: np.float64, np.int64: np.int64, np.uint64: np.uint64,
       np.float16: np.float32, np.uint8: np.uint32, np.int8: np.int32}
SIZES = [0, 1, 255, 256, 257, 4097]
FEATURE = {np.float64: "shader-f64", np.int64: "shader-int64", np.uint64: "shader-int64"}


@pytest.fixture(scope="module")
def wg():
    """A WebGPU Device (lavapipe on a machine without a GPU): the native backend takes 32-bit types only."""
    return wgprim.Device(backend="webgpu")


def data(dtype, n, seed=0):
    rng = np.random.default_rng(seed + 7 * n)
    if dtype in (np.float64, np.float16):
        return rng.uniform(-100, 100, n).astype(dtype)
    info = np.iinfo(dtype)  # the whole range: 64-bit sums wrap around
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def refused_without_feature(dev, dtype, call):
    """True (after checking the refusal) when dev lacks the dtype's adapter feature."""
    if dev.supports(dtype):
        return False
    with pytest.raises(wgprim.Error) as e:
        call()
    assert e.value.code == "unsupported" and FEATURE[dtype] in str(e.value)
    return True


def f32_bound(x):
    # the float32 chains' bound of test_wgprim.sum_bound: gamma_h * sum|x|, h = 128 + n / 1024
    return (128 + x.size / 1024) * 2.0**-24 * float(np.sum(np.abs(x.astype(np.float64)))) * 1.01


@pytest.mark.parametrize("dtype", WIDE + NARROW)
@pytest.mark.parametrize("n", SIZES + [70001])  # 70001: past the single-dispatch reduce's small sizes
def test_sum(wg, dtype, n):
    x = data(dtype, n)
    s = wgprim.sum(x, device=wg)  # NumPy's, on every device (the binding's host loops where the device lacks it)
    assert type(s) is type(np.sum(x))
    if np.issubdtype(dtype, np.integer):
        assert s == np.sum(x)
    if refused_without_feature(wg, dtype, lambda: wgprim.reduce(x, device=wg)):
        return
    r = wgprim.reduce(x, device=wg)
    assert type(r) is ACC[dtype]
    if dtype == np.float64:
        # any order of n - 1 float64 additions: |err| <= n * eps64 * sum|x|
        assert abs(float(r) - math.fsum(x.tolist())) <= n * 2.0**-52 * float(np.sum(np.abs(x)))
    elif dtype == np.float16:
        assert abs(float(r) - math.fsum(x.astype(np.float64).tolist())) <= f32_bound(x)
    else:
        assert r == np.sum(x, dtype=ACC[dtype])  # 64-bit: wraps modulo 2^64 (full-range data), as NumPy
        if dtype in (np.uint8, np.int8):
            assert r == s  # no wrap at these sizes: NumPy's own (64-bit) sum


@pytest.mark.parametrize("dtype", WIDE + NARROW)
@pytest.mark.parametrize("n", [1, 257, 4097])
def test_min_max_bitwise_prod(wg, dtype, n):
    x = data(dtype, n)
    assert wgprim.min(x, device=wg) == np.min(x) and wgprim.prod(x, device=wg) == np.prod(x)  # everywhere
    if refused_without_feature(wg, dtype, lambda: wgprim.reduce(x, "min", device=wg)):
        return
    for ours, ref in ((wgprim.min(x, device=wg), np.min(x)), (wgprim.max(x, device=wg), np.max(x)),
                      (wgprim.reduce(x, "max", device=wg), np.max(x))):
        assert ours == ref and type(ours) is dtype  # min and max keep the input's dtype, as NumPy
    if np.issubdtype(dtype, np.integer):
        for op, uf in (("and", np.bitwise_and), ("or", np.bitwise_or), ("xor", np.bitwise_xor)):
            r = wgprim.reduce(x, op, device=wg)
            assert r == uf.reduce(x) and type(r) is dtype
    if dtype in WIDE:
        with pytest.raises(wgprim.Error) as e:  # prod is a custom operator: none over 64-bit types yet
            wgprim.reduce(x, "prod", device=wg)
        assert e.value.code == "unsupported"
    elif dtype != np.float16:
        r = wgprim.reduce(x, "prod", device=wg)
        assert r == np.prod(x, dtype=ACC[dtype]) and type(r) is ACC[dtype]  # wraps modulo 2^32


@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
def test_empty_narrow_reduce_gives_the_types_identity(wg, dtype):
    # The GPU reduces in 32 bits; an empty array's identity must still be the narrow type's own.
    x = np.zeros(0, dtype=dtype)
    info = np.iinfo(dtype)
    for op, want in (("min", info.max), ("max", info.min), ("and", -1 if info.min < 0 else info.max),
                     ("or", 0), ("xor", 0)):
        r = wgprim.reduce(x, op, device=wg)
        assert r == want and type(r) is dtype, (op, r)


@pytest.mark.parametrize("dtype", [np.float64, np.float16])
def test_nan_rules(wg, dtype):
    x = np.array([1.0, np.nan, -3.0, np.inf, np.nan], dtype)
    if refused_without_feature(wg, dtype, lambda: wgprim.reduce(x, device=wg)):
        return
    assert np.isnan(wgprim.sum(x, device=wg)) and np.isnan(wgprim.min(x, device=wg))
    assert np.isnan(wgprim.max(x, device=wg))
    assert np.isnan(wgprim.sum(np.array([np.inf, -np.inf, 1.0], dtype), device=wg))
    assert wgprim.max(np.array([-np.inf, 2.0, np.inf], dtype), device=wg) == np.inf
    assert np.signbit(wgprim.max(np.array([-0.0], dtype), device=wg))  # exact bits come back
    c = wgprim.cumsum(x, device=wg)
    assert c[0] == 1 and np.all(np.isnan(c[1:]))
    assert np.array_equal(wgprim.inclusive_scan(x, "max", device=wg), np.maximum.accumulate(x), equal_nan=True)
    if dtype == np.float16:
        big = np.full(3, 60000, np.float16)  # beyond float16 (65504) but not float32: the float32 sum is exact
        assert wgprim.reduce(big, device=wg) == np.float32(180000)
        assert wgprim.sum(big, device=wg) == np.sum(big) == np.inf  # NumPy's float16 result


@pytest.mark.parametrize("dtype", WIDE + NARROW)
@pytest.mark.parametrize("n", SIZES)
def test_scans(wg, dtype, n):
    x = data(dtype, n)
    if refused_without_feature(wg, dtype, lambda: wgprim.inclusive_scan(x, device=wg)):
        return
    acc = ACC[dtype]
    inc = wgprim.inclusive_scan(x, device=wg)
    exc = wgprim.exclusive_scan(x, device=wg)
    assert inc.dtype == acc and exc.dtype == acc and inc.shape == (n,) and exc.shape == (n,)
    if np.issubdtype(dtype, np.integer):
        ref = np.cumsum(x, dtype=acc)  # wraps as NumPy's
        assert np.array_equal(inc, ref)
        assert np.array_equal(exc, np.concatenate([np.zeros(1, acc), ref[:-1]])[:n])
    else:
        ref = np.cumsum(x.astype(np.float64))
        prefix_abs = np.cumsum(np.abs(x.astype(np.float64)))
        bound = n * 2.0**-52 * prefix_abs if dtype == np.float64 else np.full(n, f32_bound(x))
        assert np.all(np.abs(inc - ref) <= bound)
        assert (n == 0 or exc[0] == 0) and np.all(np.abs(exc[1:] - ref[:-1]) <= bound[:-1])
    m = wgprim.inclusive_scan(x, "max", device=wg)
    assert np.array_equal(m, np.maximum.accumulate(x).astype(acc)) and m.dtype == acc


def stable_order(x, descending):
    """np.argsort(kind='stable'), also for the descending order: the reverse order of distinct keys (NaN first),
    equal keys in input order."""
    if not descending:
        return np.argsort(x, kind="stable")
    _, rank = np.unique(x, return_inverse=True)  # NaNs: one rank, the largest
    return np.argsort(-rank.astype(np.int64), kind="stable")


@pytest.mark.parametrize("dtype", WIDE)
@pytest.mark.parametrize("n", [0, 1, 255, 256, 257, 3000])
def test_sort_argsort_64bit_keys(wg, dtype, n):
    x = data(dtype, n)
    if n > 2:  # ties (stability) and, for float64, NaNs and infinities
        x[n // 3:n // 3 + n // 10] = x[0]
        x[-5:] = x[1]
        if dtype == np.float64:
            x[2::97] = np.nan
            x[3::101] = -np.inf
    for descending in (False, True):
        order = stable_order(x, descending)
        s = wgprim.sort(x, descending=descending, device=wg)
        assert s.dtype == dtype and np.array_equal(s, x[order], equal_nan=dtype == np.float64)
        idx = wgprim.argsort(x, descending=descending, device=wg)
        assert idx.dtype == np.int64 and np.array_equal(idx, order)


def test_device_arrays_of_packed_types(wg):
    for dtype in NARROW:
        for n in (1, 3, 257):  # odd byte counts: the buffer is padded to whole words
            x = data(dtype, n)
            d = wgprim.asarray(x, device=wg)
            assert d.dtype == dtype and d.nbytes == x.nbytes and np.array_equal(d.numpy(), x)
            c = wgprim.cumsum(d)
            assert isinstance(c, wgprim.DeviceArray) and c.dtype == ACC[dtype]
            assert np.array_equal(c.numpy(), wgprim.inclusive_scan(x, device=wg))
            assert wgprim.sum(d) == wgprim.reduce(x, device=wg)


def test_refusals(wg):
    # Functions the library does not run for a type raise its error (unsupported), naming the type.
    for dtype, name in ((np.float16, "f16"), (np.uint8, "u8"), (np.int8, "i8")):
        x = data(dtype, 10)
        with pytest.raises(wgprim.Error) as e:
            wgprim.select(x, "a > 0", device=wg)
        assert e.value.code == "unsupported" and name in str(e.value)
        # the NumPy-named ones widen exactly to 32 bits and narrow back
        assert np.array_equal(wgprim.sort(x, device=wg), np.sort(x)) and wgprim.argmax(x, device=wg) == np.argmax(x)
    x = data(np.float64, 10)
    assert wgprim.argmin(x, device=wg) == np.argmin(x)
    for call in (lambda: wgprim.select(x, "a > 0.0", device=wg),
                 lambda: wgprim.segment_reduce(x, [0, 5, 10], device=wg)):
        with pytest.raises(wgprim.Error) as e:
            call()
        assert e.value.code == "unsupported" and "f64" in str(e.value)
    assert not wg.supports(np.bool_) and wg.supports(np.float32) and wg.supports("uint8")


def test_native_backend_names_the_way_out():
    nat = wgprim.Device(backend="native")
    assert nat.backend == "native" and not nat.supports(np.float64) and not nat.supports(np.uint8)
    for dtype in WIDE + NARROW:
        x = data(dtype, 5)
        for call in (lambda: wgprim.reduce(x, device=nat), lambda: wgprim.inclusive_scan(x, device=nat)):
            with pytest.raises(wgprim.Error) as e:
                call()
            assert e.value.code == "unsupported" and "backend='webgpu'" in str(e.value)
        assert wgprim.sum(x, device=nat) == np.sum(x) or dtype in (np.float64, np.float16)  # NumPy's, there too
    with pytest.raises(wgprim.Error) as e:
        wgprim._wgprim.sort(data(np.int64, 5), device=nat)
    assert e.value.code == "unsupported" and "backend='webgpu'" in str(e.value)
    x = data(np.int64, 5)
    assert np.array_equal(wgprim.sort(x, device=nat), np.sort(x))  # the binding's host sort
    assert wgprim.sum(np.arange(5, dtype=np.int32), device=nat) == 10  # 32-bit types run there
    with pytest.raises(wgprim.Error) as e:
        wgprim.Device(backend="cuda")
    assert e.value.code == "invalid_argument"
