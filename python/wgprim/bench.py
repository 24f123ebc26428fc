"""``python -m wgprim bench``: wgprim against NumPy on this machine, for sum, cumsum, sort and histogram
(float32 by default; --dtype float64 or int64 times the types NumPy users pass by default).

Three timings per case, each the median of --reps calls after one warm-up call:
  numpy     the NumPy call on the same array;
  per call  wgprim with a NumPy array in and a NumPy result out (upload + GPU + download, as a caller sees it);
  on device wgprim on a DeviceArray made once by wgprim.asarray (the data stays on the GPU; array results stay
            there too, the call waits for the GPU to finish).
Needs only numpy and the installed wheel.
"""
import argparse
import datetime
import json
import platform
import statistics
import sys
import time

import numpy as np

import wgprim


def _median_ms(fn, reps):
    fn()  # warm-up: pipelines compiled, buffers sized
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def _cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _cases(x, d, dev):
    def on_device(fn):
        def run():
            fn()
            dev.synchronize()
        return run
    t = {"float32": "f32", "float64": "f64", "int64": "i64", "int32": "i32"}[x.dtype.name]
    top = 1.0 if x.dtype.kind == "f" else 2**20
    return [
        (f"sum {t}", lambda: np.sum(x), lambda: wgprim.sum(x, device=dev), on_device(lambda: wgprim.sum(d))),
        (f"cumsum {t}", lambda: np.cumsum(x), lambda: wgprim.cumsum(x, device=dev),
         on_device(lambda: wgprim.cumsum(d))),
        (f"sort {t}", lambda: np.sort(x), lambda: wgprim.sort(x, device=dev), on_device(lambda: wgprim.sort(d))),
        (f"histogram {t} 256 bins", lambda: np.histogram(x, 256, (0, top)),
         lambda: wgprim.histogram(x, 256, (0, top), device=dev),
         on_device(lambda: wgprim.histogram(d, 256, (0, top)))),
    ]


def _median_or_none(fn, reps):
    """_median_ms, or None where the device does not run the case (a DeviceArray of a type it lacks)."""
    try:
        return _median_ms(fn, reps)
    except wgprim.Error:
        return None


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m wgprim bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="", help="comma-separated element counts (default 2^16,2^20,2^24; on a "
                   "CPU adapter such as lavapipe 2^16,2^20)")
    p.add_argument("--reps", type=int, default=5, help="timed calls per case (median reported)")
    p.add_argument("--adapter", default="", help="adapter name substring (as the CLI's --adapter)")
    p.add_argument("--only", default="", help="comma-separated case prefixes (sum, cumsum, sort, histogram)")
    p.add_argument("--dtype", default="float32", choices=["float32", "float64", "int32", "int64"],
                   help="the arrays' dtype (default float32; the others show the native backend's host loops)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a Markdown table")
    args = p.parse_args(argv)

    dev = wgprim.Device(adapter=args.adapter)
    only = [o for o in args.only.split(",") if o]
    rows = []
    sizes = args.sizes or ("65536,1048576" if dev.type == "cpu" else "65536,1048576,16777216")
    for n in [int(s) for s in sizes.split(",") if s]:
        rng = np.random.default_rng(n)
        x = rng.random(n).astype(args.dtype) if args.dtype.startswith("float") else \
            rng.integers(0, 2**20, n).astype(args.dtype)
        try:
            d = wgprim.asarray(x, device=dev)
        except wgprim.Error:
            d = None
        for name, f_np, f_call, f_dev in _cases(x, d, dev):
            if only and not any(name.startswith(o) for o in only):
                continue
            r = {"case": name, "n": n, "numpy_ms": _median_ms(f_np, args.reps),
                 "call_ms": _median_ms(f_call, args.reps),
                 "device_ms": _median_or_none(f_dev, args.reps) if d is not None else None}
            rows.append(r)
            if not args.json:
                dev_ms = "-" if r["device_ms"] is None else f"{r['device_ms']:9.3f} ms"
                print(f"  {name:<24} n={n:<10} numpy {r['numpy_ms']:9.3f} ms   per call {r['call_ms']:9.3f} ms"
                      f"   on device {dev_ms}", file=sys.stderr, flush=True)

    meta = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "command": "python -m wgprim bench " + " ".join(argv if argv is not None else sys.argv[1:]),
            "adapter": dev.name, "backend": dev.backend, "cpu": _cpu_name(), "numpy": np.__version__,
            "wgprim": wgprim.__version__, "wgpu_native": wgprim.wgpu_version(), "python": platform.python_version(),
            "reps": args.reps}
    if args.json:
        print(json.dumps({"meta": meta, "rows": rows}, indent=1))
        return 0
    print("\n".join(f"- {k}: {v}" for k, v in meta.items()))
    print()
    print("| case | n | NumPy ms | wgprim per call ms | wgprim on device ms | NumPy / per call | NumPy / on device |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        on_dev = ("-", "-") if r["device_ms"] is None else (f"{r['device_ms']:.3f}",
                                                            f"{r['numpy_ms'] / r['device_ms']:.2f}")
        print(f"| {r['case']} | {r['n']:,} | {r['numpy_ms']:.3f} | {r['call_ms']:.3f} | {on_dev[0]} | "
              f"{r['numpy_ms'] / r['call_ms']:.2f} | {on_dev[1]} |")
    return 0
