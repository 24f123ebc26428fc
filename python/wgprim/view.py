"""Fused input views: ranges computed inside the load of the function that reads them, like CUB's fancy iterators
and Thrust's counting / constant / transform / permutation / zip iterators. No array ever holds their values.

    >>> import numpy as np, wgprim
    >>> int(wgprim.sum(wgprim.view.counting(0, 1000)))
    499500
    >>> x = np.array([0x10001, 0x20002], dtype=np.uint32)
    >>> int(wgprim.sum(wgprim.view.transform(x, "a & 0xffffu")))
    3
    >>> int(wgprim.sum(wgprim.view.zip(x, x, "a ^ b")))
    0

Views yield uint32, int32 or float32 values. ``wgprim.sum``, ``wgprim.min``, ``wgprim.max``, ``wgprim.reduce``,
``wgprim.cumsum``, ``wgprim.inclusive_scan``, ``wgprim.exclusive_scan``, ``wgprim.argmin`` / ``wgprim.argmax``
take them (a transform view is computed into a temporary array first for these two), ``wgprim.select(view,
"a > 0.5")`` keeps the values that satisfy a condition, and ``wgprim.sort(view, descending=False, begin_bit=0,
end_bit=None)`` sorts its values (computed into the result, then sorted there), and ``wgprim.histogram(view,
bins, range)`` counts them; results have the view's
dtype (integer sums wrap, as ``wgprim.reduce`` does: no widening to 64 bits). Arrays a view reads (``gather``'s
base and indices, ``transform``'s array, ``zip``'s two) are copied to the device once when they are NumPy arrays; pass
``wgprim.asarray(x)`` to keep them there. On the native CPU backend a view's values are computed into a host
array first.
"""
import numpy as _np

from . import _wgprim

__all__ = ["View", "counting", "constant", "gather", "transform", "zip"]

_TYPES = {"uint32": "uint32", "int32": "int32", "float32": "float32"}


def _dtype_name(dtype, *values):
    if dtype is None:
        if any(isinstance(v, (float, _np.floating)) for v in values):
            return "float32"
        if any(int(v) < 0 for v in values):
            return "int32"
        return "uint32"
    name = _np.dtype(dtype).name
    if name not in _TYPES:
        from . import ValueError
        raise ValueError(f"wgprim.view: views yield uint32, int32 or float32 values, not {name}")
    return name


def _bits(value, dtype):
    return int(_np.array([value]).astype(dtype).view(_np.uint32)[0])


class View:
    """A range computed in the load of the function that reads it (make one with ``counting``, ``constant``,
    ``gather`` or ``transform``)."""

    __slots__ = ("kind", "dtype", "n", "start", "step", "base", "index", "expr", "zip_expr")

    def __init__(self, kind, dtype, n, start=0, step=0, base=None, index=None, expr="", zip_expr=""):
        self.kind, self.dtype, self.n = kind, dtype, int(n)
        self.start, self.step, self.base, self.index, self.expr = start, step, base, index, expr
        self.zip_expr = zip_expr

    @property
    def size(self):
        """The number of values."""
        return self.n

    def __len__(self):
        return self.n

    @property
    def value_dtype(self):
        """The NumPy dtype of the values (a transform's result type, else ``dtype``)."""
        name = _wgprim._view_value_type(self.dtype, self.expr)
        return _np.dtype({"u32": "uint32", "i32": "int32", "f32": "float32"}[name])

    def __repr__(self):
        z = f" {self.zip_expr!r}" if self.kind == "zip" else ""
        t = f", transform {self.expr!r}" if self.expr else ""
        return f"wgprim.view.View({self.kind}{z}, {self.dtype}, n={self.n}{t})"

    def _args(self):
        kind = "zip:" + self.zip_expr if self.kind == "zip" else self.kind  # the extension's spelling
        return (kind, self.dtype, self.n, self.start, self.step, self.base, self.index, self.expr)

    def _reduce(self, op="sum", identity=None, accuracy="fast", device=None):
        return _wgprim._view_reduce(*self._args(), op, identity, accuracy, device=device)

    def _scan(self, inclusive, op="sum", identity=None, device=None):
        return _wgprim._view_scan(*self._args(), inclusive, op, identity, True, device=device)


def _device_array(x, dtype=None, device=None):
    from . import asarray
    if isinstance(x, _wgprim.DeviceArray):
        return x
    a = _np.ascontiguousarray(x if dtype is None else _np.asarray(x, dtype=dtype)).reshape(-1)
    return asarray(a, device=device)


def counting(start, n, step=1, dtype=None):
    """start, start + step, start + 2 step, ... (n values). dtype: uint32, int32 or float32 (default: float32
    when start or step is a float, int32 when one is negative, else uint32). Integers wrap modulo 2^32; float32
    values are fma(i, step, start), one rounding each."""
    t = _dtype_name(dtype, start, step)
    return View("counting", t, n, _bits(start, t), _bits(step, t))


def constant(value, n, dtype=None):
    """n copies of value (dtype as for ``counting``)."""
    t = _dtype_name(dtype, value)
    return View("constant", t, n, _bits(value, t))


def gather(x, index, device=None):
    """x[index[0]], x[index[1]], ... (x: a 1-D array of uint32, int32 or float32; index: uint32, converted from
    other integer arrays); an index past the end of x reads its last element."""
    base = _device_array(x, device=device)
    t = _dtype_name(base.dtype)
    idx = index
    if not isinstance(idx, _wgprim.DeviceArray):
        idx = _np.asarray(idx)
        if idx.dtype != _np.uint32:
            if idx.size and (idx.min() < 0 or idx.max() > 0xFFFFFFFF):
                from . import ValueError
                raise ValueError("wgprim.view.gather: indices must be within 0 .. 2^32 - 1")
            idx = idx.astype(_np.uint32)
    idx = _device_array(idx, device=device)
    return View("gather", t, idx.size, base=base, index=idx)


def transform(x, expression, device=None):
    """expression(x[0]), expression(x[1]), ...: a checked expression in ``a`` (e.g. "a & 0xffffu",
    "f32(a) * 0.5", "select(0u, 1u, a > 10)"), over an array or another view (one transform per view). The
    expression is checked here (one-line ValueError naming it), not at its first use."""
    if not isinstance(expression, str) or not expression.strip():
        from . import TypeError
        raise TypeError("wgprim.view.transform: takes an expression in a (e.g. \"a & 0xffffu\")")
    if isinstance(x, View):
        if x.expr:
            from . import ValueError
            raise ValueError("wgprim.view.transform: the view already has a transform")
        v = View(x.kind, x.dtype, x.n, x.start, x.step, x.base, x.index, expression, x.zip_expr)
    else:
        base = _device_array(x, device=device)
        v = View("buffer", _dtype_name(base.dtype), base.size, base=base, expr=expression)
    v.value_dtype  # parses and types the expression now
    return v


def zip(a, b, expression, device=None):  # noqa: A001 - Thrust's name, inside wgprim.view
    """expression(a[0], b[0]), expression(a[1], b[1]), ...: two 1-D arrays of one dtype (uint32, int32 or
    float32) and length, combined by a checked expression in ``a`` and ``b`` (the language of custom operators,
    e.g. "a * b", "max(a, b) - min(a, b)") that yields their dtype: ``wgprim.sum(wgprim.view.zip(x, y, "a * b"))``
    is the dot product, read in one pass. A ``transform`` may follow (e.g. to change the dtype)."""
    from . import ValueError
    if not isinstance(expression, str):
        from . import TypeError
        raise TypeError("wgprim.view.zip: takes an expression in a and b (e.g. \"a * b\")")
    a = a if isinstance(a, _wgprim.DeviceArray) else _np.asarray(a)
    b = b if isinstance(b, _wgprim.DeviceArray) else _np.asarray(b)
    if a.dtype != b.dtype:
        raise ValueError(f"wgprim.view.zip: the arrays' dtypes differ ({a.dtype} and {b.dtype})")
    if a.size != b.size:
        raise ValueError(f"wgprim.view.zip: the arrays differ in length ({a.size} and {b.size})")
    t = _dtype_name(a.dtype)
    _wgprim._view_check_zip(t, expression)  # before any copy to the device
    xa = _device_array(a, device=device)
    xb = _device_array(b, device=device if device is not None else xa.device)
    return View("zip", t, xa.size, base=xa, index=xb, zip_expr=expression)
