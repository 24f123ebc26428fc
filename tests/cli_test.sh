#!/usr/bin/env bash
# CLI tests: the happy paths produce what they claim, and every error class gives one line on stderr and an exit
# code in 1..125 (no abort, no core dump, no hang).
set -u
W=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# expect_error NAME ARGS...: exit 1..125, exactly one line on stderr that starts with "wgprim: error:"
expect_error() {
  local name=$1; shift
  timeout 120 "$W" "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  local lines; lines=$(wc -l <"$T/err")
  if [ $rc -ge 1 ] && [ $rc -le 125 ] && [ "$lines" -eq 1 ] && grep -q '^wgprim: error:' "$T/err"; then ok
  else bad "$name: rc=$rc stderr=$(cat "$T/err")"; fi
}

# --- happy paths
"$W" reduce --generate prices:100000:1 --json >"$T/r.json" 2>"$T/err" || bad "reduce json rc"
python3 - "$T/r.json" <<'PY' && ok || bad "reduce json keys/values"
import json, sys
j = json.load(open(sys.argv[1]))
for k in "op type n algorithm adapter result exact naive gpu_ms upload_ms cpu_ms".split():
    assert k in j, k
assert j["n"] == 100000 and j["op"] == "sum" and j["type"] == "f32"
assert abs(j["result"] - j["exact"]) <= 1e-4 * j["exact"]
PY
printf '3\n1\n4\n1\n5\n' >"$T/in.csv"
"$W" scan --input "$T/in.csv" --output "$T/out.csv" --json >"$T/s.json" 2>"$T/err" || bad "scan csv rc"
[ "$(tr '\n' ' ' <"$T/out.csv")" = "3 4 8 9 14 " ] && ok || bad "scan csv output: $(cat "$T/out.csv")"
python3 - "$T/s.json" <<'PY' && ok || bad "scan json keys"
import json, sys
j = json.load(open(sys.argv[1]))
for k in "op type n algorithm adapter mismatches last gpu_ms upload_ms cpu_ms".split():
    assert k in j, k
assert j["mismatches"] == 0 and j["last"] == 14 and j["type"] == "i32"
PY
"$W" scan --input "$T/in.csv" --exclusive --output "$T/out.npy" >/dev/null 2>"$T/err" || bad "scan npy rc"
python3 - "$T/out.npy" <<'PY' && ok || bad "scan npy output"
import sys, struct
b = open(sys.argv[1], "rb").read()
assert b[:6] == b"\x93NUMPY"
hl = struct.unpack("<H", b[8:10])[0]
assert b"'<i4'" in b[10:10 + hl] and (10 + hl) % 64 == 0
assert list(struct.unpack("<5i", b[10 + hl:])) == [0, 3, 4, 8, 9]
PY
"$W" reduce --generate uniform:1000:2 --type u32 --op 'max(a,b)' --identity=0 --json >"$T/c.json" 2>"$T/err" \
  && grep -q '"matches_cpu":true' "$T/c.json" && ok || bad "custom op reduce: $(cat "$T/err")"
"$W" reduce --generate prices:1000 --op 'max(a, b)' --identity=-inf >/dev/null 2>&1 && ok || bad "custom f32 max"
"$W" scan --generate orders:70000 --op xor --algorithm seed >/dev/null 2>&1 && ok || bad "scan xor"
"$W" info --json | python3 -c 'import json,sys; j=json.load(sys.stdin); assert j["adapter"]["name"]' && ok || bad "info json"
"$W" reduce --generate prices:0 --json | grep -q '"result":0' && ok || bad "empty reduce"

# --- error classes
printf 'not numpy at all' >"$T/bad.npy"
expect_error "malformed npy" reduce --input "$T/bad.npy"
python3 -c "
import struct
h=b\"{'descr': '<f4', 'fortran_order': False, 'shape': (100,), }\"
h+=b' '*(64-(10+len(h)+1)%64)+b'\n'
open('$T/trunc.npy','wb').write(b'\x93NUMPY\x01\x00'+struct.pack('<H',len(h))+h+b'\0'*40)
h8=h.replace(b'<f4',b'<f8')
open('$T/f8.npy','wb').write(b'\x93NUMPY\x01\x00'+struct.pack('<H',len(h8))+h8+b'\0'*800)"
expect_error "truncated npy" reduce --input "$T/trunc.npy"
expect_error "unsupported dtype" reduce --input "$T/f8.npy"
printf '1\n2\nthree\n' >"$T/bad.csv"
expect_error "malformed csv" scan --input "$T/bad.csv"
printf 'abc' >"$T/odd.bin"
expect_error "truncated raw" reduce --input "$T/odd.bin" --type u32
expect_error "raw without type" reduce --input "$T/odd.bin"
expect_error "missing file" reduce --input "$T/does-not-exist.npy"
expect_error "unknown extension" reduce --input "$T/data.parquet"
expect_error "unknown op" reduce --generate prices:10 --op product
expect_error "bitwise on f32" reduce --generate prices:10 --op xor
expect_error "unknown type" reduce --generate prices:10 --type f64
expect_error "custom without identity" reduce --generate prices:10 --op 'max(a,b)'
expect_error "custom bad expression" reduce --generate prices:10 --op 'max(a,b) + c' --identity=0
expect_error "custom injection" reduce --generate prices:10 --op 'a; } fn evil() {' --identity=0
expect_error "custom bad identity" reduce --generate prices:10 --op 'max(a,b)' --identity=banana
expect_error "unwritable output" scan --generate orders:10 --output /nonexistent-dir/out.npy
expect_error "negative size" reduce --generate prices:-5
expect_error "absurd size" reduce --generate prices:999999999999999
expect_error "bad generate kind" reduce --generate bananas:10
expect_error "no such adapter" reduce --generate prices:10 --adapter no-such-gpu
expect_error "unknown algorithm" reduce --generate prices:10 --algorithm quantum
expect_error "input and generate" reduce --generate prices:10 --input "$T/in.csv"
expect_error "no data" reduce
# CLI11's own parse errors: non-zero, no crash
timeout 60 "$W" reduce --no-such-flag >/dev/null 2>&1; rc=$?
[ $rc -ge 1 ] && [ $rc -le 125 ] && ok || bad "unknown flag rc=$rc"

# --- select / partition / unique
printf '5\n150\n7\n101\n100\n9000\n3\n' >"$T/sel.csv"
"$W" select --input "$T/sel.csv" --predicate 'a > 100' --output "$T/kept.csv" --json >"$T/sel.json" 2>"$T/err" || bad "select rc"
[ "$(tr '\n' ' ' <"$T/kept.csv")" = "150 101 9000 " ] && ok || bad "select output: $(cat "$T/kept.csv")"
python3 - "$T/sel.json" <<'PY' && ok || bad "select json keys"
import json, sys
j = json.load(open(sys.argv[1]))
for k in "op type n kept algorithm adapter mismatches gpu_ms upload_ms cpu_ms".split():
    assert k in j, k
assert j["op"] == "select_if" and j["kept"] == 3 and j["mismatches"] == 0 and j["type"] == "i32" and j["n"] == 7
PY
printf '1\n0\n0\n1\n0\n0\n7\n' >"$T/flags.csv"
"$W" select --input "$T/sel.csv" --flags "$T/flags.csv" --output "$T/fl.csv" --json >"$T/fl.json" 2>"$T/err" || bad "select flags rc"
[ "$(tr '\n' ' ' <"$T/fl.csv")" = "5 101 3 " ] && ok || bad "select flags output: $(cat "$T/fl.csv")"
"$W" partition --input "$T/sel.csv" --predicate 'a > 100' --output "$T/part.csv" --json >"$T/p.json" 2>"$T/err" || bad "partition rc"
[ "$(tr '\n' ' ' <"$T/part.csv")" = "150 101 9000 5 7 100 3 " ] && ok || bad "partition output: $(cat "$T/part.csv")"
grep -q '"kept":3' "$T/p.json" && ok || bad "partition json kept"
printf '1\n1\n2\n2\n2\n3\n1\n' >"$T/u.csv"
"$W" unique --input "$T/u.csv" --output "$T/uo.csv" --json >"$T/u.json" 2>"$T/err" || bad "unique rc"
[ "$(tr '\n' ' ' <"$T/uo.csv")" = "1 2 3 1 " ] && ok || bad "unique output: $(cat "$T/uo.csv")"
"$W" partition --generate uniform:300000:4 --predicate 'a < 0.25 || a != a' --json >"$T/pg.json" 2>"$T/err" || bad "partition generate rc"
grep -q '"mismatches":0' "$T/pg.json" && ok || bad "partition generate mismatches"
expect_error "select bad predicate" select --input "$T/sel.csv" --predicate 'a + 1'
expect_error "select predicate with b" select --input "$T/sel.csv" --predicate 'a > b'
expect_error "select without predicate" select --input "$T/sel.csv"
expect_error "select predicate and flags" select --input "$T/sel.csv" --predicate 'a > 1' --flags "$T/flags.csv"
expect_error "partition without predicate" partition --input "$T/sel.csv"
printf '1\n0\n' >"$T/short.csv"
expect_error "select short flags" select --input "$T/sel.csv" --flags "$T/short.csv"

# --- pictures: valid PNGs of the stated size, and bar heights that follow the partials
cat >"$T/png.py" <<'PY'
import struct, sys, zlib
def read_png(path):
    b = open(path, "rb").read()
    assert b[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", None
    while pos < len(b):
        n, kind = struct.unpack(">I4s", b[pos:pos + 8]); data = b[pos + 8:pos + 8 + n]; pos += 12 + n
        if kind == b"IHDR": w, h, depth, ctype = struct.unpack(">IIBB", data[:10])
        elif kind == b"IDAT": idat += data
    assert depth == 8 and ctype in (2, 6)
    bpp = 4 if ctype == 6 else 3
    raw, rows, prev = zlib.decompress(idat), [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (w * bpp + 1)], bytearray(raw[y * (w * bpp + 1) + 1:(y + 1) * (w * bpp + 1)])
        for i in range(len(line)):
            a = line[i - bpp] if i >= bpp else 0; up = prev[i]; c = prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + up) & 255
            elif f == 3: line[i] = (line[i] + (a + up) // 2) & 255
            elif f == 4:
                p = a + up - c; pa, pb, pc = abs(p - a), abs(p - up), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else up if pb <= pc else c)) & 255
        rows.append(line); prev = line
    return w, h, bpp, rows
if sys.argv[1] == "size":
    w, h, _, _ = read_png(sys.argv[2]); print(w, h)
elif sys.argv[1] == "staircase":
    # bar i (of 256) spans x in [45 + i*w, 45 + (i+1)*w]; its top is the first blue pixel from the top
    w, h, bpp, rows = read_png(sys.argv[2])
    bar_w = 0.9 * w / 256
    def top(i):
        x = int(0.05 * w + (i + 0.5) * bar_w)
        for y in range(h):
            r, g, b = rows[y][x * bpp:x * bpp + 3]
            if b > 150 and r < 60: return y
        return h
    heights = [h - top(i) for i in range(8, 256, 16)]
    assert all(b > a for a, b in zip(heights, heights[1:])), heights
    # linear: the middle bar sits half way between the first and the last
    steps = [b - a for a, b in zip(heights, heights[1:])]
    assert max(steps) - min(steps) <= 3, steps
    print("staircase ok", heights[0], heights[-1])
PY
"$W" reduce --generate prices:100000 --plot "$T/r.png" >/dev/null 2>"$T/err" \
  && [ "$(python3 "$T/png.py" size "$T/r.png")" = "900 520" ] && ok || bad "reduce --plot: $(cat "$T/err")"
"$W" scan --generate orders:65536 --plot "$T/s.png" >/dev/null 2>"$T/err" \
  && [ "$(python3 "$T/png.py" size "$T/s.png")" = "900 520" ] && ok || bad "scan --plot: $(cat "$T/err")"
python3 -c "
import struct
n = 65536
x = [0] * n
for w in range(256): x[w * 256] = w + 1   # the seed reduce's workgroup w gets element w*256: partial w = w + 1
h = b\"{'descr': '<u4', 'fortran_order': False, 'shape': (%d,), }\" % n
h += b' ' * (64 - (10 + len(h) + 1) % 64) + b'\n'
open('$T/stair.npy', 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h + struct.pack('<%dI' % n, *x))"
"$W" reduce --input "$T/stair.npy" --plot "$T/stair.png" >/dev/null 2>"$T/err" \
  && python3 "$T/png.py" staircase "$T/stair.png" >/dev/null && ok || bad "staircase pixel test: $(cat "$T/err")"
"$W" bench --max-log2 17 --reps 2 --warmup 0 --json --output "$T/b.json" --plot "$T/b.png" >/dev/null 2>"$T/err" \
  && [ "$(python3 "$T/png.py" size "$T/b.png")" = "1100 480" ] && grep -q '"render"' "$T/b.json" && ok \
  || bad "bench --plot: $(cat "$T/err")"
"$W" bench --from "$T/b.json" --plot "$T/b2.png" >/dev/null 2>&1 && ok || bad "bench --from --plot"
expect_error "plot of nothing" reduce --generate prices:0 --plot "$T/empty.png"
expect_error "plot to a missing folder" reduce --generate prices:10 --plot /nonexistent-dir/p.png
expect_error "bench --from a bad file" bench --from "$T/in.csv" --plot "$T/x.png"

# Ctrl-C during a long run: exit 130, no output file, no temporary file left behind.
"$W" scan --generate uniform:60000000 --output "$T/big.npy" >/dev/null 2>&1 &
pid=$!
sleep 1.5
kill -INT $pid 2>/dev/null
wait $pid; rc=$?
if [ $rc -eq 130 ] || [ $rc -eq 0 ]; then
  # either interrupted (no file at all) or it finished first (then the file is complete)
  if [ $rc -eq 130 ] && [ -e "$T/big.npy" ]; then bad "interrupted run left big.npy"; else ok; fi
else bad "interrupt rc=$rc"; fi
ls "$T" | grep -q '\.tmp\.' && bad "temporary file left behind" || ok

echo "cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
