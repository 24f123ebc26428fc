"""python -m wgprim bench [...]: timings against NumPy (wgprim/bench.py); python -m wgprim info: the default device
and the adapters."""
import sys

USAGE = ("usage: python -m wgprim bench [--sizes N,N,...] [--reps R] [--adapter NAME] [--json]\n"
         "       python -m wgprim info\n"
         "       python -m wgprim --help\n\n"
         "  bench   times wgprim's functions against NumPy's\n"
         "  info    the device wgprim uses by default (the native CPU backend where the best adapter is a CPU)\n"
         "          and every adapter WebGPU sees")


def _main():
    argv = sys.argv[1:]
    if argv[:1] in (["-h"], ["--help"], ["help"]):
        print(USAGE)
        return 0
    if argv[:1] == ["bench"]:
        from . import bench
        return bench.main(argv[1:])
    if argv[:1] == ["info"]:
        import wgprim
        print(f"wgprim {wgprim.__version__}, wgpu-native {wgprim.wgpu_version()}")
        d = wgprim.default_device()
        print(f"default device: {d.name} (backend {d.backend}, type {d.type})")
        print("adapters:")
        for a in wgprim.adapters():
            print(f"  {a['name']} ({a['type']}, {a['backend']}, driver {a['driver']})")
        return 0
    print(USAGE, file=sys.stderr)
    return 2


sys.exit(_main())
