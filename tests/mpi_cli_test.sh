#!/usr/bin/env bash
# The CLI across ranks: `mpirun -np N wgprim reduce|scan|sort --input x.npy [--output y.npy]` and `--adapters`
# give the same results as the one-process commands (scan/sort outputs byte for byte, reduce values exactly,
# reproducible f32 sums bit for bit); a failing or stalled rank ends every rank with one error line and a
# non-zero code. Usage: mpi_cli_test.sh path/to/wgprim path/to/mpiexec path/to/wgprim-test-hooks (the test build of
# the command: the only one that reads WGPRIM_TEST_FAIL_RANK and WGPRIM_TEST_STALL_RANK).
set -u
cli=$1
mpiexec=$2
hooks_cli=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
run_np() { local np=$1; shift; "$mpiexec" --oversubscribe -np "$np" "$cli" "$@"; }
json_get() { python3 -c 'import json,sys; j=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(j[sys.argv[1]])' "$1"; }

# Inputs, written with Python's standard library: u32 (full range), i32, f32 of mixed magnitudes, skewed u32 keys.
python3 - "$tmp" <<'EOF'
import random, struct, sys
def npy(path, code, fmt, values):
    header = "{'descr': '<%s', 'fortran_order': False, 'shape': (%d,), }" % (code, len(values))
    header += ' ' * ((64 - (10 + len(header) + 1) % 64) % 64) + '\n'
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode())
        f.write(struct.pack('<%d%s' % (len(values), fmt), *values))
r = random.Random(5)
d = sys.argv[1]
n = 30011
npy(d + '/u.npy', 'u4', 'I', [r.getrandbits(32) for _ in range(n)])
npy(d + '/i.npy', 'i4', 'i', [r.randint(-1000, 1000) for _ in range(n)])
npy(d + '/f.npy', 'f4', 'f', [r.uniform(-1, 1) * 2.0 ** r.randint(-30, 30) for _ in range(n)])
npy(d + '/skew.npy', 'u4', 'I', [7 if r.random() < 0.9 else r.getrandbits(32) for _ in range(n)])
npy(d + '/short.npy', 'u4', 'I', [1] * 1000)
# f32 bits with NaNs (two payloads), signed zeros, infinities and repeats: the descending sort's order and stability
specials = [0x7fc00000, 0xffc00001, 0x80000000, 0, 0x7f800000, 0xff800000, 0x3f800000]
npy(d + '/fs.npy', 'u4', 'I', [r.choice(specials) if r.random() < 0.3 else r.getrandbits(32) & 0xbfffffff
                                for _ in range(5003)])
b = bytearray(open(d + '/fs.npy', 'rb').read()); b = b.replace(b"'<u4'", b"'<f4'", 1)
open(d + '/fs.npy', 'wb').write(bytes(b))
EOF
# short.npy: a header that promises 2000 values, 1000 present (a slice beyond the end fails on its rank only)
python3 - "$tmp/short.npy" <<'EOF'
import sys
p = sys.argv[1]; b = bytearray(open(p, 'rb').read())
i = b.find(b'(1000,)'); b[i:i + 7] = b'(2000,)'; open(p, 'wb').write(bytes(b))
EOF

# One-process references.
ref_u=$("$cli" reduce --input "$tmp/u.npy" --op xor --json | json_get result)
ref_f=$("$cli" reduce --input "$tmp/f.npy" --accuracy reproducible --json | json_get result)
"$cli" scan --input "$tmp/i.npy" --exclusive --output "$tmp/ref_scan.npy" > /dev/null || fail "one-process scan"
"$cli" sort --input "$tmp/f.npy" --output "$tmp/ref_sort.npy" > /dev/null || fail "one-process sort"
"$cli" sort --input "$tmp/skew.npy" --output "$tmp/ref_skew.npy" > /dev/null || fail "one-process sort (skewed)"
"$cli" sort --input "$tmp/fs.npy" --descending --output "$tmp/ref_desc.npy" > /dev/null || fail "one-process sort desc"

check_all() {  # $1: label; the rest: how to launch (e.g. "run_np 3" or "$cli" with --adapters added at the end)
  local label=$1; shift
  local v
  v=$("$@" reduce --input "$tmp/u.npy" --op xor --json ${extra:-} | json_get result) || fail "$label reduce"
  [ "$v" = "$ref_u" ] || fail "$label reduce xor: $v, one process $ref_u"
  v=$("$@" reduce --input "$tmp/f.npy" --accuracy reproducible --json ${extra:-} | json_get result) || fail "$label f32"
  [ "$v" = "$ref_f" ] || fail "$label reproducible f32 sum: $v, one process $ref_f"
  "$@" scan --input "$tmp/i.npy" --exclusive --output "$tmp/scan.npy" ${extra:-} > /dev/null || fail "$label scan"
  cmp -s "$tmp/scan.npy" "$tmp/ref_scan.npy" || fail "$label scan output differs"
  "$@" sort --input "$tmp/f.npy" --output "$tmp/sort.npy" ${extra:-} > /dev/null || fail "$label sort"
  cmp -s "$tmp/sort.npy" "$tmp/ref_sort.npy" || fail "$label sort output differs"
  local j
  j=$("$@" sort --input "$tmp/skew.npy" --output "$tmp/skew_out.npy" --values-output "$tmp/skew_idx.npy" --json \
      ${extra:-}) || fail "$label sort pairs"
  cmp -s "$tmp/skew_out.npy" "$tmp/ref_skew.npy" || fail "$label skewed sort output differs"
  # the positions: a stable argsort (Python's sort is stable)
  python3 - "$tmp/skew.npy" "$tmp/skew_idx.npy" <<'EOF' || fail "$label sort pairs: positions are not the stable argsort"
import struct, sys
def load(p):
    b = open(p, 'rb').read(); h = struct.unpack('<H', b[8:10])[0]; d = b[10 + h:]
    return list(struct.unpack('<%dI' % (len(d) // 4), d))
k, idx = load(sys.argv[1]), load(sys.argv[2])
sys.exit(0 if idx == sorted(range(len(k)), key=lambda i: k[i]) else 1)
EOF
  # descending (NaNs first, +0.0 before -0.0, equal bits in input order: compared byte for byte)
  "$@" sort --input "$tmp/fs.npy" --descending --output "$tmp/desc.npy" ${extra:-} > /dev/null || fail "$label desc"
  cmp -s "$tmp/desc.npy" "$tmp/ref_desc.npy" || fail "$label descending sort output differs"
  echo "$label: skewed sort imbalance $(echo "$j" | json_get imbalance)"
}

for np in 3; do
  check_all "np=$np" run_np "$np"
done
extra="--adapters #0,#0" check_all "adapters #0,#0" "$cli"

# An N-D input: the scan's output keeps the shape across ranks, as in one process (the file byte for byte).
python3 - "$tmp/m.npy" <<'EOF'
import struct, sys
h = "{'descr': '<i4', 'fortran_order': False, 'shape': (7, 13), }"
h += ' ' * ((64 - (10 + len(h) + 1) % 64) % 64) + '\n'
open(sys.argv[1], 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode() +
                              struct.pack('<91i', *[(i * 37) % 101 - 50 for i in range(91)]))
EOF
"$cli" scan --input "$tmp/m.npy" --output "$tmp/ref_m.npy" > /dev/null || fail "one-process 2-D scan"
run_np 3 scan --input "$tmp/m.npy" --output "$tmp/m_out.npy" > /dev/null || fail "np=3 2-D scan"
cmp -s "$tmp/m_out.npy" "$tmp/ref_m.npy" || fail "np=3 2-D scan output differs (shape?)"

# Issue 29: reproducible (exact) f32 scans across ranks carry the whole superaccumulator between ranks, so the
# output file is the one-process exact scan byte for byte for every rank count and both backends (the issue's kind
# of data: 300,001 values of mixed signs and magnitudes, cancelling giants among them), inclusive and exclusive.
# (--generate draws each rank's part with its own seed under mpirun: the input is a file here.)
python3 - "$tmp/mixed.npy" <<'EOF'
import random, struct, sys
r = random.Random(29)
n = 300001
v = [r.uniform(-1, 1) * 2.0 ** r.randint(-20, 20) for _ in range(n)]
for i in range(0, n - 10, 1000):  # a giant and its negation a few places later
    g = r.uniform(1, 2) * 2.0 ** r.randint(90, 120) * r.choice([-1, 1])
    v[i], v[i + 1 + r.randrange(8)] = g, -g
h = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % n
h += ' ' * ((64 - (10 + len(h) + 1) % 64) % 64) + '\n'
open(sys.argv[1], 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode() + struct.pack('<%df' % n, *v))
EOF
for kind in "" "--exclusive"; do
  "$cli" scan --input "$tmp/mixed.npy" --accuracy reproducible $kind --adapter cpu --output "$tmp/ref_x.npy" > /dev/null \
    || fail "one-process exact scan $kind"
  for np in 1 2 3 4; do
    run_np "$np" scan --input "$tmp/mixed.npy" --accuracy exact $kind --adapter cpu --output "$tmp/x_out.npy" > /dev/null \
      || fail "np=$np exact scan $kind"
    cmp -s "$tmp/x_out.npy" "$tmp/ref_x.npy" || fail "np=$np exact scan $kind (native) differs from one process"
  done
  for adapter in "" "--adapter ${WGPRIM_ADAPTER:-llvmpipe}"; do  # the default one, and a WebGPU adapter (lavapipe)
    run_np 3 scan --input "$tmp/mixed.npy" --accuracy reproducible $kind $adapter --output "$tmp/x_out.npy" > /dev/null \
      || fail "np=3 exact scan $kind ($adapter)"
    cmp -s "$tmp/x_out.npy" "$tmp/ref_x.npy" || fail "np=3 exact scan $kind ($adapter) differs from one process"
  done
  for set in "cpu,cpu,cpu" "#0,#0"; do
    "$cli" scan --input "$tmp/mixed.npy" --accuracy reproducible $kind --adapters "$set" --output "$tmp/x_out.npy" \
      > /dev/null || fail "--adapters $set exact scan $kind"
    cmp -s "$tmp/x_out.npy" "$tmp/ref_x.npy" || fail "--adapters $set exact scan $kind differs from one process"
  done
done

# The JSON names the ranks and has one entry per rank.
j=$(run_np 2 reduce --input "$tmp/u.npy" --json) || fail "np=2 reduce json"
[ "$(echo "$j" | json_get ranks)" = 2 ] || fail "ranks is not 2: $j"
[ "$(echo "$j" | python3 -c 'import json,sys; print(len(json.loads(sys.stdin.read())["per_rank"]))')" = 2 ] ||
  fail "per_rank does not have 2 entries: $j"
[ "$(echo "$j" | wc -l)" = 1 ] || fail "the JSON is printed more than once: $j"

# Failures: one line from rank 0, a non-zero code, no hang.
expect_error() {  # $1: label, $2: expected code ("any" for non-zero), $3: text in the message; then the command
  local label=$1 code=$2 text=$3; shift 3
  local err rc
  err=$(timeout 120 "$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" = 124 ]; then fail "$label: hung"; return; fi
  if [ "$code" = any ]; then [ "$rc" != 0 ] || fail "$label: exit code 0"; else [ "$rc" = "$code" ] || fail "$label: exit code $rc, expected $code"; fi
  local lines
  lines=$(echo "$err" | grep -c '^wgprim: error:')
  [ "$lines" = 1 ] || fail "$label: $lines error lines: $err"
  echo "$err" | grep '^wgprim: error:' | grep -q -- "$text" || fail "$label: no '$text' in: $err"
}
expect_error "injected failure" any "rank 2: test failure injected" env WGPRIM_TEST_FAIL_RANK=2 "$mpiexec" --oversubscribe -np 3 "$hooks_cli" reduce --input "$tmp/u.npy"
# The command that is installed has no test hooks: the same variable changes nothing.
env WGPRIM_TEST_FAIL_RANK=1 "$mpiexec" --oversubscribe -np 2 "$cli" reduce --input "$tmp/u.npy" > /dev/null ||
  fail "the release command read WGPRIM_TEST_FAIL_RANK"
expect_error "truncated file" any "rank 1: .*the file ends before" "$mpiexec" --oversubscribe -np 2 "$cli" scan --input "$tmp/short.npy" --output "$tmp/x.npy"
[ ! -e "$tmp/x.npy" ] && [ ! -e "$tmp/x.npy.wgprim-part" ] || fail "a failed run left an output file"
expect_error "bad operator" any "op" "$mpiexec" --oversubscribe -np 2 "$cli" reduce --input "$tmp/u.npy" --op 'a +* b'
expect_error "missing input" any "cannot open" "$mpiexec" --oversubscribe -np 2 "$cli" reduce --input "$tmp/none.npy"
expect_error "adapters: bad name" 7 "no adapter" "$cli" reduce --input "$tmp/u.npy" --adapters "#0,no-such-gpu"
expect_error "stalled rank" any "no answer from the other ranks" env WGPRIM_TEST_STALL_RANK=1 WGPRIM_MPI_TIMEOUT_S=3 "$mpiexec" --oversubscribe -np 2 "$hooks_cli" reduce --input "$tmp/u.npy"

if [ "$fails" != 0 ]; then echo "$fails failures"; exit 1; fi
echo "mpi cli: all passed"
