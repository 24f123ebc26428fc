"""wgprim: GPU parallel primitives on WebGPU (wgpu-native) and a native CPU backend, shaped like NumPy.

The NumPy-named functions (``sum``, ``prod``, ``min``, ``max``, ``mean``, ``count_nonzero``, ``cumsum``,
``cumprod``, ``argmin``, ``argmax``, ``unique``, ``sort``, ``argsort``, ``histogram``) follow NumPy: its
arguments (``axis``, ``dtype``, ``out``, ``keepdims``), its result dtypes (sums and products of bool and small
integers accumulate in int64 / uint64, means of integers in float64) and its errors (``wgprim.ValueError`` and
``wgprim.TypeError``, subclasses of the built-ins and of ``wgprim.Error``). Any array-like is taken: NumPy arrays
(C-contiguous ones without a copy), lists, tuples, scalars, the buffer protocol, DLPack; Fortran-order and strided
arrays are copied to C order. Every dtype of kinds bool, int, uint and float runs on every device: what the device
does not take natively (bool, int16, float16, ... are widened exactly to its 32-bit types; the native CPU
backend's float64 / int64 / uint64) is computed by the binding's host loops on the oneTBB threads with NumPy's
semantics (pairwise float sums, wrapping integers). ``axis`` moves the reduced axes last (a C-order copy when they are not) and runs
the segmented primitives, one segment a row.

The library's own functions (``reduce``, ``inclusive_scan``, ``exclusive_scan``, ``segment_reduce``, ``select``)
keep its semantics: results in the input's dtype (integers wrap), ``accuracy=`` modes, custom WGSL operators.
A DeviceArray (``wgprim.asarray(x)``: the data stays on the GPU between calls) is taken by every function
without ``axis``; functions then return DeviceArray too.

    >>> import numpy as np, wgprim
    >>> wgprim.sum(np.arange(10))
    np.int64(45)
"""
import builtins as _builtins
import functools as _functools
import re as _re

import numpy as _np

from . import _wgprim
from ._wgprim import Device, DeviceArray, adapters, default_device, wgpu_version

__version__ = "0.1.0"
__all__ = ["Device", "DeviceArray", "Error", "TypeError", "ValueError", "adapters", "argmax", "argmin", "argsort",
           "asarray", "count_nonzero", "cumprod", "cumsum", "default_device", "exclusive_scan", "histogram",
           "inclusive_scan", "max", "mean", "min", "Pipeline", "pipeline", "prod", "reduce", "segment_reduce",
           "select", "sort", "sum", "unique", "view", "wgpu_version"]


class Error(Exception):
    """A wgprim failure: ``str(e)`` is the library's one-line message, ``e.code`` the category's name
    ('invalid_argument', 'unsupported', 'limit', 'shader', 'no_adapter', 'device_lost', 'out_of_memory', 'gpu',
    'timeout', ...) and ``e.number`` its number (the CLI's exit code)."""

    def __init__(self, message: str, code: str = "invalid_argument", number: int = 2):
        super().__init__(message)
        self.code = code
        self.number = number


class ValueError(Error, _builtins.ValueError):  # noqa: A001 - NumPy's exception, under wgprim's name
    """An argument's value is wrong (errc invalid_argument, limit): also a built-in ValueError."""


class TypeError(Error, _builtins.TypeError):  # noqa: A001
    """A dtype or an operation a function does not take (errc unsupported), or a wrong keyword: also a built-in
    TypeError."""


def _make_error(message, code="invalid_argument", number=2):
    """The exception of a library error, by its code (called by the extension's exception translator)."""
    cls = ValueError if code in ("invalid_argument", "limit") else TypeError if code == "unsupported" else Error
    return cls(message, code, number)


_wgprim._set_error_class(_make_error)


def _short_errors(f, name):
    """f (a nanobind function) with nanobind's signature dump for wrong arguments turned into one short
    wgprim.TypeError, Python's own wording where a keyword is unknown."""

    @_functools.wraps(f)
    def call(*args, **kwargs):
        try:
            return f(*args, **kwargs)
        except _builtins.TypeError as e:
            text = str(e)
            if isinstance(e, Error) or "incompatible function arguments" not in text:
                raise
            lines = [l for l in text.splitlines() if _re.match(r"\s*\d+\. ", l)]
            known = set(_re.findall(r"(\w+):", lines[0])) if lines else set()
            unknown = [k for k in kwargs if k not in known]
            msg = (f"{name}() got an unexpected keyword argument '{unknown[0]}'" if unknown else
                   f"{name}(): invalid arguments; see help(wgprim.{name})")
            raise TypeError(msg, "invalid_argument", 2) from None

    return call


from . import _numpy  # noqa: E402


def _array_like_first(f, name):
    """f with its array argument (the first, or a=) copied from any array-like as the NumPy-named functions do
    (lists, scalars, strided and Fortran-order arrays; C-contiguous arrays and DeviceArray pass as they are)."""

    @_functools.wraps(f)
    def call(*args, **kwargs):
        if args:
            args = (_numpy._host(args[0], name),) + args[1:]
        elif "a" in kwargs:
            kwargs["a"] = _numpy._host(kwargs["a"], name)
        return f(*args, **kwargs)

    return call


for _name in ("reduce", "inclusive_scan", "exclusive_scan", "segment_reduce", "select"):
    globals()[_name] = _array_like_first(_short_errors(getattr(_wgprim, _name), _name), _name)

from . import view  # noqa: E402


def _view_aware(f, name):
    """f, with a wgprim.view.View as its first argument computed in the primitive's load (reduce, scans)."""

    @_functools.wraps(f)
    def call(a, op="sum", identity=None, *, accuracy="fast", check=True, device=None):
        if isinstance(a, view.View):
            if name == "reduce":
                return a._reduce(op, identity, accuracy, device=device)
            return a._scan(name == "inclusive_scan", op, identity, device=device)
        return f(a, op, identity, accuracy=accuracy, check=check, device=device)

    return call


for _name in ("reduce", "inclusive_scan", "exclusive_scan"):
    globals()[_name] = _view_aware(globals()[_name], _name)


def _view_select(f):
    @_functools.wraps(f)
    def call(a, condition, *, device=None):
        if isinstance(a, view.View):
            if not isinstance(condition, str):
                raise TypeError("select: a view takes a condition expression in a (e.g. \"a > 0.5\"), not a mask")
            return _wgprim._view_select(*a._args(), condition, device=device)
        return f(a, condition, device=device)

    return call


select = _view_select(select)  # noqa: F821 - defined by the loop above

from ._pipeline import Pipeline, pipeline  # noqa: E402

from ._numpy import (argmax, argmin, argsort, asarray, count_nonzero, cumprod, cumsum, max, mean, min, prod,  # noqa: E402
                     sort, sum, unique)


def _host_view(a):
    """A NumPy view of a host array (no copy), or the DeviceArray itself."""
    return _numpy._host(a, "histogram")


def _outer_edges(a, range, device):
    # numpy.histogram's _get_outer_edges, with the minimum and maximum taken on the GPU.
    if range is not None:
        first, last = range
        if first > last:
            raise ValueError("histogram: max must be larger than min in range parameter")
        if not (_np.isfinite(first) and _np.isfinite(last)):
            raise ValueError(f"histogram: supplied range of [{first}, {last}] is not finite")
    elif a.size == 0:
        first, last = 0, 1
    else:
        first, last = min(a, device=device), max(a, device=device)
        if not (_np.isfinite(first) and _np.isfinite(last)):
            raise ValueError(f"histogram: autodetected range of [{first}, {last}] is not finite")
    if first == last:
        first = first - 0.5
        last = last + 0.5
    return first, last


def _counts_by_sorting(a, edges, device):
    """numpy.histogram's counts (half-open bins, the last closed; NaN and values outside not counted) from wgprim's
    sort and a binary search per edge, as NumPy's own non-uniform path: for the dtypes the device does not count
    (the native backend's float64 / int64, bool, int16, ...)."""
    s = sort(a.reshape(-1), device=device)
    s = s.astype(_np.result_type(s.dtype, edges.dtype), copy=False)
    left = _np.searchsorted(s, edges[:-1], "left")
    return _np.diff(_np.append(left, _np.searchsorted(s, edges[-1], "right")))


def histogram(a, bins=10, range=None, *, device=None):
    """numpy.histogram's signature and rules (``density`` and ``weights`` are not offered): ``bins`` an int (even
    bins over ``range``, by default ``(a.min(), a.max())``) or the bin edges (non-decreasing, exactly
    representable in a's dtype). Bins are half-open except the last, which includes its upper edge; values
    outside and NaN are not counted. Returns ``(counts, edges)``: counts as np.intp, edges as NumPy computes
    them. The counting runs on the GPU (a DeviceArray input stays there; a wgprim.view is computed in the
    counting's load). Edges given for a DeviceArray or a view must be exact values of its dtype."""
    is_view = isinstance(a, view.View)  # computed in the histogram's load
    if not is_view:
        a = _host_view(a)
    if not is_view and not isinstance(a, DeviceArray) and a.dtype == _np.bool_:
        a = a.astype(_np.uint8)  # as NumPy (which warns that it does)
    dt = a.value_dtype if is_view else _np.dtype(a.dtype)

    # The library counts float32 / int32 / uint32; the other dtypes by NumPy's rule from a sort.
    by_sorting = not is_view and not isinstance(a, DeviceArray) and dt not in (_np.float32, _np.int32, _np.uint32)

    def count(*args):
        if by_sorting:
            return _counts_by_sorting(a, edges, device)
        if is_view:
            return _short_errors(_wgprim._view_histogram, "histogram")(*a._args(), *args, device=device)
        return _wgprim._histogram_counts(a, *args, device=device)

    if isinstance(bins, str):
        raise ValueError(f"histogram: bin estimators such as '{bins}' are not supported; give a number or the edges")
    if _np.ndim(bins) == 0:
        import operator
        n = operator.index(bins)
        if n < 1:
            raise ValueError("histogram: `bins` must be positive, when an integer")
        first, last = _outer_edges(a, range, device)
        bin_type = _np.result_type(first, last, dt)
        if _np.issubdtype(bin_type, _np.integer):
            bin_type = _np.result_type(bin_type, float)
        edges = _np.linspace(first, last, n + 1, endpoint=True, dtype=bin_type)
        if dt == _np.float32 and not all(type(x) in (int, float) for x in (first, last)):
            # NumPy computed these float32 edges in float32 arithmetic: count against them as they are.
            counts = count(0, 0.0, 0.0, _np.ascontiguousarray(edges))
        else:
            # Python numbers (or integer input): the library's edges are NumPy's (linspace in double).
            counts = count(n, float(first), float(last))
    else:
        edges = _np.asarray(bins)
        if edges.ndim != 1:
            raise ValueError("histogram: `bins` must be 1d, when an array")
        if _np.any(edges[:-1] > edges[1:]):
            raise ValueError("histogram: `bins` must increase monotonically, when an array")
        levels = edges.astype(dt)
        if not by_sorting and not _np.array_equal(levels.astype(edges.dtype), edges):
            if not isinstance(a, DeviceArray) and not is_view:  # edges between the data's values: NumPy's rule
                return _counts_by_sorting(a, edges, device).astype(_np.intp), edges
            raise ValueError(f"histogram: the edges ({edges.dtype}) are not all exactly {dt} values, the data's dtype")
        counts = count(0, 0.0, 0.0, _np.ascontiguousarray(levels))
    return counts.astype(_np.intp), edges
