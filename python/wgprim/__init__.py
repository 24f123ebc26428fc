"""wgprim: GPU parallel primitives on WebGPU (wgpu-native), shaped like NumPy.

Functions take any C-contiguous array on the CPU (NumPy, the buffer protocol or DLPack; not copied on the way in)
or a DeviceArray (``wgprim.asarray(x)``: the data stays on the GPU between calls) and return NumPy arrays and
scalars, or DeviceArray when the input was one. Element types: float32, int32, uint32 everywhere; float64, int64,
uint64 (reduce, scan, sort, argsort) and float16, uint8, int8 (reduce and scan, which return float32, uint32, int32
except min/max/bitwise) on a WebGPU device (``Device(backend="webgpu")``; 64-bit reduce and scan need its
shader-f64 / shader-int64: ``Device.supports``), where the library refuses a type wgprim.Error says so; any
other dtype raises wgprim.Error naming it (convert explicitly: ``a.astype(np.float32)``). N-D arrays are flattened
in C order for reductions and scans (as ``np.sum(a)`` / ``np.cumsum(a)`` with ``axis=None``).

    >>> import numpy as np, wgprim
    >>> wgprim.sum(np.arange(10, dtype=np.float32))
    np.float32(45.0)
"""
import numpy as _np

from . import _wgprim
from ._wgprim import (Device, DeviceArray, adapters, argmax, argmin, argsort, asarray, cumsum, default_device,
                      exclusive_scan, inclusive_scan, max, min, prod, reduce, segment_reduce, select, sort, sum,
                      wgpu_version)

__version__ = "0.1.0"
__all__ = ["Device", "DeviceArray", "Error", "adapters", "argmax", "argmin", "argsort", "asarray", "cumsum",
           "default_device", "exclusive_scan", "histogram", "inclusive_scan", "max", "min", "prod", "reduce",
           "segment_reduce", "select", "sort", "sum", "wgpu_version"]


class Error(Exception):
    """A wgprim failure: ``str(e)`` is the library's one-line message, ``e.code`` the category's name
    ('invalid_argument', 'unsupported', 'limit', 'shader', 'no_adapter', 'device_lost', 'out_of_memory', 'gpu',
    'timeout', ...) and ``e.number`` its number (the CLI's exit code)."""

    def __init__(self, message: str, code: str = "invalid_argument", number: int = 2):
        super().__init__(message)
        self.code = code
        self.number = number


_wgprim._set_error_class(Error)


def _host_view(a):
    """A NumPy view of a host array (no copy), or the DeviceArray itself."""
    if isinstance(a, (DeviceArray, _np.ndarray)):
        return a
    if hasattr(a, "__dlpack__"):
        return _np.from_dlpack(a)
    return _np.asarray(a)


def _outer_edges(a, range, device):
    # numpy.histogram's _get_outer_edges, with the minimum and maximum taken on the GPU.
    if range is not None:
        first, last = range
        if first > last:
            raise Error("histogram: max must be larger than min in range parameter")
        if not (_np.isfinite(first) and _np.isfinite(last)):
            raise Error(f"histogram: supplied range of [{first}, {last}] is not finite")
    elif a.size == 0:
        first, last = 0, 1
    else:
        first, last = min(a, device=device), max(a, device=device)
        if not (_np.isfinite(first) and _np.isfinite(last)):
            raise Error(f"histogram: autodetected range of [{first}, {last}] is not finite")
    if first == last:
        first = first - 0.5
        last = last + 0.5
    return first, last


def histogram(a, bins=10, range=None, *, device=None):
    """numpy.histogram's signature and rules (``density`` and ``weights`` are not offered): ``bins`` an int (even
    bins over ``range``, by default ``(a.min(), a.max())``) or the bin edges (non-decreasing, exactly
    representable in a's dtype). Bins are half-open except the last, which includes its upper edge; values
    outside and NaN are not counted. Returns ``(counts, edges)``: counts as np.intp, edges as NumPy computes
    them. The counting runs on the GPU (a DeviceArray input stays there)."""
    a = _host_view(a)
    dt = _np.dtype(a.dtype)
    if isinstance(bins, str):
        raise Error(f"histogram: bin estimators such as '{bins}' are not supported; give a number or the edges")
    if _np.ndim(bins) == 0:
        import operator
        n = operator.index(bins)
        if n < 1:
            raise Error("histogram: `bins` must be positive, when an integer")
        first, last = _outer_edges(a, range, device)
        bin_type = _np.result_type(first, last, dt)
        if _np.issubdtype(bin_type, _np.integer):
            bin_type = _np.result_type(bin_type, float)
        edges = _np.linspace(first, last, n + 1, endpoint=True, dtype=bin_type)
        if dt == _np.float32 and not all(type(x) in (int, float) for x in (first, last)):
            # NumPy computed these float32 edges in float32 arithmetic: count against them as they are.
            counts = _wgprim._histogram_counts(a, 0, 0.0, 0.0, _np.ascontiguousarray(edges), device=device)
        else:
            # Python numbers (or integer input): the library's edges are NumPy's (linspace in double).
            counts = _wgprim._histogram_counts(a, n, float(first), float(last), device=device)
    else:
        edges = _np.asarray(bins)
        if edges.ndim != 1:
            raise Error("histogram: `bins` must be 1d, when an array")
        if _np.any(edges[:-1] > edges[1:]):
            raise Error("histogram: `bins` must increase monotonically, when an array")
        levels = edges.astype(dt)
        if not _np.array_equal(levels.astype(edges.dtype), edges):
            raise Error(f"histogram: the edges ({edges.dtype}) are not all exactly {dt} values, the data's dtype")
        counts = _wgprim._histogram_counts(a, 0, 0.0, 0.0, _np.ascontiguousarray(levels), device=device)
    return counts.astype(_np.intp), edges
