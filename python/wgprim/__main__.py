"""python -m wgprim bench [...]: timings against NumPy (wgprim/bench.py); python -m wgprim info: the adapters."""
import sys


def _main():
    argv = sys.argv[1:]
    if argv[:1] == ["bench"]:
        from . import bench
        return bench.main(argv[1:])
    if argv[:1] == ["info"]:
        import wgprim
        print(f"wgprim {wgprim.__version__}, wgpu-native {wgprim.wgpu_version()}")
        for a in wgprim.adapters():
            print(f"  {a['name']} ({a['type']}, {a['backend']}, driver {a['driver']})")
        return 0
    print("usage: python -m wgprim bench [--sizes N,N,...] [--reps R] [--adapter NAME] [--json]\n"
          "       python -m wgprim info", file=sys.stderr)
    return 2


sys.exit(_main())
