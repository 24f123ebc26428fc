"""Recorded pipelines: a chain of steps (keep what passes a test, sort, drop duplicates, count) described once and
run on many arrays of other lengths, with no host round trip between the steps (the C++ ``wgprim::pipeline``).

    >>> import numpy as np, wgprim
    >>> p = wgprim.pipeline(np.uint32).select("a % 2u == 0u").sort(bits=(0, 16)).unique().count()
    >>> p(np.array([6, 3, 2, 6, 65538], dtype=np.uint32))   # 65538 and 2 agree on bits 0..15: unique keeps both
    3

Each step takes its length from the previous step's count on the device; a call records the chain into one
command submission and waits once, for the count. The first call creates the kernels; later calls, on arrays of
any length, create none (``kernels_created_last_run`` is 0). A chain that ends in ``count()`` returns the count
(an int), else the last step's elements as a new NumPy array. Elements: uint32, int32 or float32 (the dtype given
to ``pipeline``); an array of another dtype is a ``wgprim.TypeError`` (convert it explicitly). On the native CPU
backend the steps run one after the other, the count read on the host between them: the same results.
"""
import numpy as _np

from . import _wgprim

__all__ = ["Pipeline", "pipeline"]

_TYPES = ("uint32", "int32", "float32")


class Pipeline:
    """A chain of steps on one Device: add steps with ``select``, ``sort``, ``unique`` (each returns the pipeline,
    so they chain) and optionally end it with ``count()``; then call it on arrays."""

    __slots__ = ("_p", "_dtype", "_counts", "_last")

    def __init__(self, dtype=_np.uint32, *, device=None):
        from . import TypeError
        try:
            name = _np.dtype(dtype).name
        except Exception:  # noqa: BLE001 - NumPy's own TypeError for a name it does not know
            name = str(dtype)
        if name not in _TYPES:
            raise TypeError(f"pipeline: elements are uint32, int32 or float32, not {name}", "unsupported", 3)
        self._dtype = _np.dtype(name)
        self._p = _wgprim._Pipeline(name, device=device)
        self._counts = False
        self._last = None

    def _step(self):
        from . import ValueError
        if self._counts:
            raise ValueError("pipeline: count() ends the chain; no step can follow it")

    def select(self, condition):
        """Keeps the elements for which ``condition`` (a checked expression in ``a``, e.g. "a % 2u == 0u",
        "a > 0.5") holds, in order (select_if)."""
        self._step()
        if not isinstance(condition, str):
            from . import TypeError
            raise TypeError("pipeline.select: takes a condition expression in a (e.g. \"a > 10\"), not a mask")
        self._p.select(condition)
        return self

    def sort(self, bits=None, *, descending=False):
        """Sorts the elements (a stable radix sort). ``bits=(lo, hi)``: compare only bits lo..hi-1 of the ordered
        key (as ``begin_bit`` / ``end_bit`` of ``wgprim.sort``); None: all of them. float32 sorts ascending only."""
        self._step()
        if bits is None:
            lo, hi = 0, None
        else:
            try:
                lo, hi = (int(b) for b in bits)
            except (TypeError, ValueError):
                from . import ValueError
                raise ValueError(f"pipeline.sort: bits is a pair (lo, hi), not {bits!r}") from None
            if lo < 0 or hi <= lo:
                from . import ValueError
                raise ValueError(f"pipeline.sort: bits ({lo}, {hi}) must satisfy 0 <= lo < hi")
        self._p.sort(bool(descending), lo, hi)
        return self

    def unique(self):
        """Drops consecutive duplicates (after a sort: all duplicates)."""
        self._step()
        self._p.unique()
        return self

    def count(self):
        """Ends the chain: calling the pipeline returns the final count (an int) instead of the elements."""
        self._step()
        self._counts = True
        return self

    @property
    def dtype(self):
        """The element type."""
        return self._dtype

    @property
    def steps(self):
        """The number of steps (``count()`` is not one: it only says what a call returns)."""
        return self._p.steps

    @property
    def device(self):
        """The Device it runs on."""
        return self._p.device

    @property
    def kernels_created_last_run(self):
        """How many kernels (shaders and their pipelines) the last call created: 0 for a replay."""
        return self._p.kernels_created_last_run

    @property
    def dispatches_last_run(self):
        """How many compute dispatches the last call recorded (0 on the native CPU backend, which runs eagerly)."""
        return self._p.dispatches_last_run

    def _input(self, x):
        if isinstance(x, _wgprim.DeviceArray):
            return x
        if isinstance(x, _np.ndarray):
            return _np.ascontiguousarray(x)
        return _np.ascontiguousarray(_np.asarray(x, dtype=self._dtype))  # lists, scalars, the buffer protocol

    def run(self, x):
        """Runs the chain on the 1-D array x (NumPy or DeviceArray of the pipeline's dtype) and returns the final
        count: one submission, one wait."""
        self._last = int(self._p.run(self._input(x)))
        return self._last

    def output(self):
        """The last call's final elements, as a new NumPy array."""
        from . import ValueError
        if self._last is None:
            raise ValueError("pipeline.output: the pipeline has not run yet")
        return self._p.output(self._last)

    def __call__(self, x):
        """Runs the chain on x: the count (a chain ending in ``count()``) or the elements (a NumPy array)."""
        k = self.run(x)
        if self._counts:
            return k
        return self._p.output(k)

    def __repr__(self):
        tail = ", count" if self._counts else ""
        return f"wgprim.Pipeline({self._dtype.name}, steps={self.steps}{tail})"


def pipeline(dtype=_np.uint32, *, device=None):
    """A new, empty chain of ``dtype`` elements (uint32, int32 or float32) on ``device`` (default: the default
    Device). Add steps: ``wgprim.pipeline(np.uint32).select("a % 2u == 0u").sort(bits=(0, 16)).unique().count()``.
    """
    return Pipeline(dtype, device=device)
