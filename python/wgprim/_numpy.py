"""The NumPy-named functions: NumPy's arguments, result dtypes and errors over the extension's primitives.

Each call turns its argument into a C-contiguous host array (or keeps a DeviceArray), picks NumPy's result dtype,
converts the data to the type the extension computes in (bool and the small types widened exactly to 32 bits),
moves the reduced axes last (a copy in C order where they are not) and hands the extension rows: one row for
``axis=None``, else one a segment (``_reduce_rows`` / ``_scan_rows``: the segmented primitives on the device,
the binding's host loops for what the device does not take). The results are cast back to NumPy's dtype.
"""
import builtins as _builtins
import operator as _operator

import numpy as _np

from . import TypeError, ValueError, _short_errors, _wgprim
from ._wgprim import DeviceArray
from . import view as _view

_INT = _np.dtype(_np.int_)  # NumPy's default integer: what small integer sums accumulate in
_UINT = _np.dtype(_np.uint)


def _host(a, name):
    """a as a C-contiguous NumPy array of a kind wgprim takes (bool, int, uint, float), or the DeviceArray."""
    if isinstance(a, DeviceArray):
        return a
    if isinstance(a, _np.ndarray):
        x = a
    elif hasattr(a, "__dlpack__") and not hasattr(a, "__array_interface__"):
        x = _np.from_dlpack(a)
    else:
        try:
            x = _np.asarray(a)
        except (_builtins.ValueError, _builtins.TypeError) as e:
            raise ValueError(f"{name}: the argument is not an array ({e})") from None
    if x.dtype.kind not in "biuf":
        raise TypeError(f"{name}: dtype {x.dtype} is not supported (wgprim takes bool, integer and float dtypes)",
                        "unsupported", 4)
    return x if x.flags.c_contiguous else _np.ascontiguousarray(x)


def _compute_type(dt):
    """The type the extension computes in for elements of dt: 32-bit and 64-bit types themselves, the others
    widened exactly (bool -> uint32, int8/int16 -> int32, uint8/uint16 -> uint32, float16 -> float32)."""
    if dt.kind == "b":
        return _np.dtype(_np.uint32)
    if dt.itemsize >= 4:
        return dt
    return _np.dtype({"i": _np.int32, "u": _np.uint32, "f": _np.float32}[dt.kind])


def _sum_type(dt):
    """NumPy's result dtype of np.sum / np.prod / np.cumsum without dtype=: small integers and bool widen."""
    if dt.kind == "b" or (dt.kind == "i" and dt.itemsize < _INT.itemsize):
        return _INT
    if dt.kind == "u" and dt.itemsize < _UINT.itemsize:
        return _UINT
    return dt


def _result_dtype(dtype, name):
    try:
        rt = _np.dtype(dtype)
    except _builtins.TypeError as e:
        raise TypeError(f"{name}: dtype={dtype!r} is not a dtype ({e})") from None
    if rt.kind not in "biuf":
        raise TypeError(f"{name}: dtype {rt} is not supported (wgprim takes bool, integer and float dtypes)",
                        "unsupported", 4)
    return rt


def _axes(axis, ndim, name):
    """axis as a sorted tuple of distinct non-negative axes (None: all of them), NumPy's errors otherwise."""
    if axis is None:
        return tuple(range(ndim))
    items = axis if isinstance(axis, tuple) else (axis,)
    out = []
    for ax in items:
        try:
            ax = _operator.index(ax)
        except _builtins.TypeError:
            raise TypeError(f"{name}: axis must be an integer, a tuple of integers or None, not "
                            f"{type(ax).__name__}") from None
        if not -ndim <= ax < ndim:
            raise ValueError(f"{name}: axis {ax} is out of bounds for array of dimension {ndim}")
        ax %= ndim if ndim else 1
        if ax in out:
            raise ValueError(f"{name}: duplicate value in 'axis'")
        out.append(ax)
    return tuple(sorted(out))


def _rows(x, axes):
    """(C-contiguous 2-D view, the kept shape, the number of reduced elements a row): the reduced axes last."""
    keep = [i for i in range(x.ndim) if i not in axes]
    order = keep + list(axes)
    y = x if order == list(range(x.ndim)) else _np.ascontiguousarray(x.transpose(order))
    kept = tuple(x.shape[i] for i in keep)
    rows = int(_np.prod(kept, dtype=_np.int64))
    cols = int(_np.prod([x.shape[i] for i in axes], dtype=_np.int64))
    return y.reshape(rows, cols), kept, cols


def _finish(r, out, name):
    """r (an array of the result's shape) into out, as NumPy's out=; else r itself (a NumPy scalar when 0-d)."""
    if out is None:
        return r[()] if r.ndim == 0 else r
    if not isinstance(out, _np.ndarray):
        raise TypeError(f"{name}: out= must be a NumPy array, not {type(out).__name__}")
    if out.shape != r.shape:
        raise ValueError(f"{name}: out has shape {out.shape}, the result {r.shape}")
    _np.copyto(out, r, casting="same_kind")
    return out


def _reduction(name, op, a, axis, dtype, out, keepdims, device, accuracy="fast", widen=True):
    if isinstance(a, _view.View):  # computed in the reduction's load, in the view's dtype
        if axis is not None or dtype is not None or out is not None or keepdims:
            raise ValueError(f"{name}: axis=, dtype=, out= and keepdims= take arrays, not views")
        if op in ("min", "max") and a.n == 0:
            raise ValueError(f"zero-size array to reduction operation {'minimum' if op == 'min' else 'maximum'} "
                             "which has no identity")
        return a._reduce(op, accuracy=accuracy, device=device)
    x = _host(a, name)
    if isinstance(x, DeviceArray):
        if axis is not None or dtype is not None or out is not None or keepdims:
            raise ValueError(f"{name}: axis=, dtype=, out= and keepdims= take host arrays (call .numpy() first)")
        if op == "sum":
            return _wgprim.sum(x, accuracy=accuracy, device=device)
        if op in ("min", "max"):
            return getattr(_wgprim, op)(x, device=device)
        return _wgprim.reduce(x, op, device=device)
    rt = _result_dtype(dtype, name) if dtype is not None else _sum_type(x.dtype) if widen else x.dtype
    if rt.kind == "b":  # bool arithmetic: a sum is any, a product all
        x, op = x.astype(bool), {"sum": "max", "prod": "min"}.get(op, op)
    axes = _axes(axis, x.ndim, name)
    y, kept, cols = _rows(x, axes)
    if op in ("min", "max") and cols == 0 and y.shape[0] > 0:
        raise ValueError(f"zero-size array to reduction operation {'minimum' if op == 'min' else 'maximum'} "
                         "which has no identity")
    ct = _compute_type(rt)
    r = _wgprim._reduce_rows(y.astype(ct, copy=False), y.shape[0], op, accuracy, device=device)
    r = r.astype(rt, copy=False).reshape(kept)
    if keepdims:
        r = r.reshape(tuple(1 if i in axes else s for i, s in enumerate(x.shape)))
    return _finish(r, out, name)


def sum(a, axis=None, dtype=None, out=None, keepdims=False, *, accuracy="fast", device=None):  # noqa: A001
    """np.sum: bool and integers narrower than int64 accumulate in int64 (uint64 for unsigned), floats in their
    own dtype (float16 computed in float32). accuracy ('fast', 'compensated', 'reproducible', 'exact') applies to
    float32 sums over the whole array."""
    return _reduction("sum", "sum", a, axis, dtype, out, keepdims, device, accuracy)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, *, device=None):
    """np.prod: the result dtypes of np.sum; integers wrap around as NumPy's."""
    return _reduction("prod", "prod", a, axis, dtype, out, keepdims, device)


def min(a, axis=None, out=None, keepdims=False, *, device=None):  # noqa: A001
    """np.min: the input's dtype; NaN if a reduced element is NaN; ValueError for an empty reduction."""
    return _reduction("min", "min", a, axis, None, out, keepdims, device, widen=False)


def max(a, axis=None, out=None, keepdims=False, *, device=None):  # noqa: A001
    """np.max: the input's dtype; NaN if a reduced element is NaN; ValueError for an empty reduction."""
    return _reduction("max", "max", a, axis, None, out, keepdims, device, widen=False)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, device=None):
    """np.mean: float64 for bool and integers, float16 computed in float32, other floats in their dtype; an
    empty reduction gives NaN (with NumPy's RuntimeWarning)."""
    x = _host(a, "mean")
    if isinstance(x, DeviceArray):
        x = x.numpy()
    if dtype is not None:
        rt = acc = _result_dtype(dtype, "mean")
    else:
        rt = _np.dtype(_np.float64) if x.dtype.kind in "biu" else x.dtype
        acc = _np.dtype(_np.float32) if rt == _np.float16 else rt
    axes = _axes(axis, x.ndim, "mean")
    count = int(_np.prod([x.shape[i] for i in axes], dtype=_np.int64))
    s = _np.asarray(sum(x, axis=axes, dtype=acc, keepdims=keepdims, device=device))
    with _np.errstate(invalid="ignore", divide="ignore"):
        r = _np.true_divide(s, count, dtype=acc if acc.kind == "f" else _np.float64)
    if count == 0:
        import warnings
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=2)
    return _finish(_np.asarray(r).astype(rt, copy=False), out, "mean")


def count_nonzero(a, axis=None, *, keepdims=False, device=None):
    """np.count_nonzero: an int64 count (an array of them with axis=)."""
    x = _host(a, "count_nonzero")
    if isinstance(x, DeviceArray):
        x = x.numpy()
    return _reduction("count_nonzero", "sum", x != 0, axis, _INT, None, keepdims, device)


def _scan(name, op, a, axis, dtype, out, device):
    if isinstance(a, _view.View):  # computed in the scan's load, in the view's dtype
        if axis is not None or dtype is not None or out is not None:
            raise ValueError(f"{name}: axis=, dtype= and out= take arrays, not views")
        return a._scan(True, op, device=device)
    x = _host(a, name)
    if isinstance(x, DeviceArray):
        if axis is not None or dtype is not None or out is not None:
            raise ValueError(f"{name}: axis=, dtype= and out= take host arrays (call .numpy() first)")
        return _wgprim.inclusive_scan(x, op, device=device)
    rt = _result_dtype(dtype, name) if dtype is not None else _sum_type(x.dtype)
    if rt.kind == "b":
        x, op = x.astype(bool), {"sum": "max", "prod": "min"}[op]
    if axis is None:
        y, last = x.reshape(-1), None
    else:
        if isinstance(axis, tuple):
            raise TypeError(f"{name}: axis must be an integer or None")
        x = x.reshape(1) if x.ndim == 0 else x
        (last,) = _axes(axis, x.ndim, name)
        y = x if last == x.ndim - 1 else _np.ascontiguousarray(_np.moveaxis(x, last, -1))
    rows = y.size // y.shape[-1] if y.size else 0
    r = _wgprim._scan_rows(y.astype(_compute_type(rt), copy=False), rows, op, device=device)
    r = r.astype(rt, copy=False).reshape(y.shape)
    if last is not None and last != x.ndim - 1:
        r = _np.ascontiguousarray(_np.moveaxis(r, -1, last))
    return _finish(r, out, name)


def cumsum(a, axis=None, dtype=None, out=None, *, device=None):
    """np.cumsum: flattened for axis=None, else along one axis; np.sum's result dtypes."""
    return _scan("cumsum", "sum", a, axis, dtype, out, device)


def cumprod(a, axis=None, dtype=None, out=None, *, device=None):
    """np.cumprod: flattened for axis=None, else along one axis; np.prod's result dtypes."""
    return _scan("cumprod", "prod", a, axis, dtype, out, device)


def _arg(name, is_max, a, axis, out, keepdims, device):
    if isinstance(a, _view.View):  # computed in the load (a transform view: into a temporary array first)
        if axis is not None or out is not None or keepdims:
            raise ValueError(f"{name}: axis=, out= and keepdims= take arrays, not views")
        if a.n == 0:
            raise ValueError(f"attempt to get {name} of an empty sequence")
        return _wgprim._view_arg(*a._args(), is_max, device=device)
    x = _host(a, name)
    if isinstance(x, DeviceArray):
        if axis is not None or out is not None or keepdims:
            raise ValueError(f"{name}: axis=, out= and keepdims= take host arrays (call .numpy() first)")
        return getattr(_wgprim, name)(x, device=device)
    if x.size == 0 and axis is None:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    x = x.astype(_compute_type(x.dtype), copy=False)
    if axis is None:
        r = getattr(_wgprim, name)(x, device=device)  # the library's arg_reduce (flat index)
        if out is None and not keepdims:
            return r
        r = _np.asarray(r, _np.intp).reshape((1,) * x.ndim if keepdims else ())
        return _finish(r, out, name)
    if isinstance(axis, tuple):
        raise TypeError(f"{name}: axis must be an integer or None")
    (ax,) = _axes(axis, x.ndim, name)
    y, kept, cols = _rows(x, (ax,))
    if cols == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    r = _wgprim._arg_rows(y, y.shape[0], is_max).astype(_np.intp, copy=False).reshape(kept)
    if keepdims:
        r = _np.expand_dims(r, ax)
    return _finish(r, out, name)


def argmin(a, axis=None, out=None, *, keepdims=False, device=None):
    """np.argmin (a NaN wins, ties to the first): over the flattened array a Python int (the library's
    arg_reduce), along an axis an int64 array (the binding's host loop)."""
    return _arg("argmin", False, a, axis, out, keepdims, device)


def argmax(a, axis=None, out=None, *, keepdims=False, device=None):
    """np.argmax (a NaN wins, ties to the first): over the flattened array a Python int (the library's
    arg_reduce), along an axis an int64 array (the binding's host loop)."""
    return _arg("argmax", True, a, axis, out, keepdims, device)


_SORT_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")


def _sorted_1d(name, x, kwargs):
    """sort / argsort of a 1-D host array or a DeviceArray: bool and the small types widened and narrowed back;
    the native backend's 64-bit keys sorted by the binding's host sort (unique's), other keywords as the
    extension's."""
    f = _short_errors(getattr(_wgprim, name), name)
    if isinstance(x, DeviceArray):
        return f(x, **kwargs)
    ct = _compute_type(x.dtype)
    try:
        r = f(x.astype(ct, copy=False), **kwargs)
    except TypeError as e:
        if e.code != "unsupported" or set(kwargs) - {"descending", "device"} or x.ndim > 1 or ct.itemsize != 8:
            raise
        keys, perm = _wgprim._sort_perm(x, device=kwargs.get("device"))
        if kwargs.get("descending"):
            if name == "argsort":
                raise
            keys = keys[::-1].copy()
        return keys if name == "sort" else perm
    return r.astype(x.dtype, copy=False) if name == "sort" and not isinstance(r, DeviceArray) else r


def _sorted(name, a, axis, kind, order, stable, kwargs):
    """NumPy's axis (-1 by default; None: the flattened array) over the 1-D sort: the rows of the moved axis
    sorted as one flat stable argsort, its indices then grouped by row with a stable sort of their row numbers
    (so every row keeps its own stable order, ties in index order)."""
    if kind not in _SORT_KINDS:
        raise ValueError(f"{name}: kind must be one of 'quicksort', 'mergesort', 'heapsort' or 'stable' (every "
                         f"kind is wgprim's stable sort), not {kind!r}")
    if stable is not None and not isinstance(stable, bool):
        raise TypeError(f"{name}: stable must be True, False or None")
    if order is not None:
        raise ValueError(f"{name}: order= sorts structured arrays by field; wgprim takes bool, integer and float "
                         "arrays")
    x = _host(a, name)
    if isinstance(axis, tuple):
        raise TypeError(f"{name}: axis must be an integer or None")
    if isinstance(x, DeviceArray):
        if axis is not None:
            _axes(axis, len(x.shape), name)
        return _sorted_1d(name, x, kwargs)
    if axis is None:
        x = x.reshape(-1)
        ax = 0
    else:
        (ax,) = _axes(axis, x.ndim, name)
    if x.ndim == 1:
        return _sorted_1d(name, x, kwargs)
    extra = set(kwargs) - {"descending", "device"}
    if extra:
        raise ValueError(f"{name}: {', '.join(sorted(extra))}= take 1-D arrays (use axis=None to sort the "
                         "flattened array)")
    y = x if ax == x.ndim - 1 else _np.ascontiguousarray(_np.moveaxis(x, ax, -1))
    cols = y.shape[-1]
    flat = y.reshape(-1)
    if flat.size == 0:
        r = y.copy() if name == "sort" else _np.zeros(y.shape, _np.intp)
    else:
        if flat.size > 0xFFFFFFFF:
            raise ValueError(f"{name}: axis= takes at most 2^32 - 1 elements")
        perm = _sorted_1d("argsort", flat, kwargs)
        row = (perm // cols).astype(_np.uint32)
        perm = perm[_sorted_1d("argsort", row, {"device": kwargs.get("device")})]
        r = (flat[perm] if name == "sort" else (perm % cols).astype(_np.intp, copy=False)).reshape(y.shape)
    return r if ax == x.ndim - 1 else _np.ascontiguousarray(_np.moveaxis(r, -1, ax))


def sort(a, axis=-1, kind=None, order=None, *, stable=None, **kwargs):
    """np.sort: a sorted copy along `axis` (-1 by default; None: the flattened array), always by a stable radix
    sort whatever `kind` (floats: -inf < ... < -0.0 < +0.0 < ... < inf < NaN). Keywords of 1-D arrays:
    descending=False, offsets=None (CSR offsets: every segment sorted on its own), less=None (a bool expression in
    a and b, true when a goes first: a stable merge sort in that order), device=None (see the extension's sort)."""
    if isinstance(a, _view.View):  # computed into the output, then sorted there
        if kind not in _SORT_KINDS:
            raise ValueError(f"sort: kind must be one of 'quicksort', 'mergesort', 'heapsort' or 'stable', not {kind!r}")
        if stable is not None and not isinstance(stable, bool):
            raise TypeError("sort: stable must be True, False or None")
        if axis not in (-1, 0, None) or order is not None:
            raise ValueError("sort: a view is 1-D (axis -1, 0 or None) and has no fields (order=None)")
        extra = set(kwargs) - {"descending", "begin_bit", "end_bit", "device"}
        if extra:
            raise ValueError(f"sort: {', '.join(sorted(extra))}= take arrays, not views")
        return _short_errors(_wgprim._view_sort, "sort")(*a._args(), **kwargs)
    return _sorted("sort", a, axis, kind, order, stable, kwargs)


def argsort(a, axis=-1, kind=None, order=None, *, stable=None, **kwargs):
    """np.argsort(a, kind='stable'): the indices that sort `a` along `axis` (-1 by default; None: the flattened
    array), except that -0.0 sorts before +0.0; int64 for host input, a uint32 DeviceArray for a DeviceArray.
    Keywords: descending=False, device=None."""
    return _sorted("argsort", a, axis, kind, order, stable, kwargs)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
           device=None):
    """np.unique of the flattened array: the sorted distinct values (NaNs one, with equal_nan), and the first
    index of each, the inverse (the input's shape) and the counts on request."""
    x = _host(ar, "unique")
    if isinstance(x, DeviceArray):
        x = x.numpy()
    if axis is not None:
        raise ValueError("unique: axis= is not offered (the flattened array only)")
    flat = x.reshape(-1)
    keys, perm = _wgprim._sort_perm(flat.astype(_compute_type(x.dtype), copy=False), device=device)
    keys = keys.astype(x.dtype, copy=False)
    n = keys.size
    first = _np.ones(n, bool)
    if n:
        first[1:] = keys[1:] != keys[:-1]
        if equal_nan and keys.dtype.kind == "f":
            nan = _np.isnan(keys)
            first[1:] &= ~(nan[1:] & nan[:-1])
    result = [keys[first]]
    if return_index:
        result.append(perm[first])
    if return_inverse:
        inverse = _np.empty(n, _np.intp)
        inverse[perm] = _np.cumsum(first) - 1
        result.append(inverse.reshape(x.shape))
    if return_counts:
        result.append(_np.diff(_np.append(_np.flatnonzero(first), n)))
    return result[0] if len(result) == 1 else tuple(result)


def asarray(a, device=None):
    """Copies an array-like to the device (a DeviceArray of the same shape and dtype); a DeviceArray comes back
    as it is."""
    x = _host(a, "asarray")
    return _short_errors(_wgprim.asarray, "asarray")(x, device=device)


__all__ = ["argmax", "argmin", "argsort", "asarray", "count_nonzero", "cumprod", "cumsum", "max", "mean",
           "min", "prod", "sort", "sum", "unique"]
