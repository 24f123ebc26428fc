#!/usr/bin/env bash
# The built wheel in a throw-away venv that has nothing but NumPy (from the wheelhouse: no download), used from
# outside the checkout: it installs, imports, loads the libwgpu_native.so it bundles (not one from the build tree),
# computes, ships its stubs, `python -m wgprim bench` runs, and the NumPy-comparison tests (test_numpy.py, copied out
# of the checkout) pass there.
# A manylinux wheel (`make wheel`) must load oneTBB from its own wgprim.libs/.
# Usage: wheel_venv_test.sh <wheel> <wheelhouse with numpy> <work folder>
set -euo pipefail
wheel=$(realpath "$1") wheelhouse=$(realpath "$2") work=$3 tests=$(realpath "$(dirname "$0")")
rm -rf "$work" && mkdir -p "$work" && work=$(realpath "$work")
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --no-index --find-links "$wheelhouse" numpy "$wheel"
cd "$work"
env -u LD_LIBRARY_PATH -u PYTHONPATH WORK="$work" WHEEL="$(basename "$wheel")" "$work/venv/bin/python" - <<'PY'
import os, pathlib, numpy as np, wgprim
pkg = pathlib.Path(wgprim.__file__).parent
assert str(pkg).startswith(os.environ["WORK"]), pkg
ext = next(pkg.glob("_wgprim*.so"))
assert (pkg / "libwgpu_native.so").is_file() and (pkg / "_wgprim.pyi").is_file() and (pkg / "py.typed").is_file()
x = np.arange(1, 1001, dtype=np.int32)
assert wgprim.sum(x) == 500500 and np.array_equal(wgprim.sort(x[::-1].copy()), x)
loaded = {l.split()[-1] for l in open("/proc/self/maps") if "libwgpu_native" in l}
assert loaded == {str(pkg / "libwgpu_native.so")}, loaded
# A manylinux wheel (make wheel: auditwheel repair) brings the system libraries it needs: oneTBB is loaded from
# the wheel's wgprim.libs/, not from /usr/lib.
if "manylinux" in os.environ["WHEEL"]:
    tbb = {l.split()[-1] for l in open("/proc/self/maps") if "libtbb" in l}
    assert tbb and all(p.startswith(str(pkg.parent / "wgprim.libs") + "/") for p in tbb), tbb
print(f"wheel_venv_test: {ext.name} from {pkg} on {wgprim.default_device().name}: ok")
PY
"$work/venv/bin/python" -m wgprim bench --sizes 1000 --reps 1 --only sum >"$work/bench.md" 2>"$work/bench.err" ||
  { cat "$work/bench.err" >&2; exit 1; }
grep -q "^| sum f32 | 1,000 |" "$work/bench.md"
"$work/venv/bin/pip" install -q --no-index --find-links "$wheelhouse" pytest
mkdir "$work/tests" && cp "$tests/test_numpy.py" "$work/tests/"
(cd "$work/tests" && env -u LD_LIBRARY_PATH -u PYTHONPATH "$work/venv/bin/python" -m pytest -q -p no:cacheprovider \
  test_numpy.py | tail -1)
echo "wheel_venv_test: 2 passed, 0 failed"
