#!/usr/bin/env bash
# CLI tests of `wgprim run` (a chain as one recorded pipeline): the final count against a Python reference of the
# chain, on the WGSL (lavapipe here, or the GPU) and on the native backend, and one-line errors for bad chains.
set -u
W=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
expect_error() {
  local name=$1; shift
  timeout 120 "$W" "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  if [ $rc -ge 1 ] && [ $rc -le 125 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q '^wgprim: error:' "$T/err"; then ok
  else bad "$name: rc=$rc stderr=$(cat "$T/err")"; fi
}

# With no GPU the default is the native backend: name lavapipe, so that the first pass runs the WGSL.
if "$W" info --json | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["backend"] == "native" else 1)'; then
  export WGPRIM_ADAPTER=llvmpipe
fi

# Inputs: u32 in 0..2^17 (so that sort --bits 0:16 ties and unique drops), lengths 0, 1, 4097 and 20011.
python3 - "$T" <<'PY'
import random, struct, sys
def npy(path, xs):
    header = "{'descr': '<u4', 'fortran_order': False, 'shape': (%d,), }" % len(xs)
    header += " " * (63 - len(header) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%dI" % len(xs), *xs))
for n in (0, 1, 4097, 20011):
    random.seed(n)
    xs = [random.randrange(1 << 17) for _ in range(n)]
    npy("%s/x%d.npy" % (sys.argv[1], n), xs)
    # The chain's reference: even keys, stable sort on bits 0..15, consecutive duplicates dropped.
    ev = sorted((x for x in xs if x % 2 == 0), key=lambda x: x & 0xffff)
    k = sum(1 for i, x in enumerate(ev) if i == 0 or ev[i - 1] != x)
    open("%s/want%d" % (sys.argv[1], n), "w").write(str(k))
PY

for adapter in "" "--adapter cpu"; do
  for n in 0 1 4097 20011; do
    "$W" run 'select a % 2u == 0u | sort --bits 0:16 | unique | count' --input "$T/x$n.npy" --json $adapter \
      --repeat 3 >"$T/r.json" 2>"$T/err" || { bad "run n=$n $adapter: $(cat "$T/err")"; continue; }
    python3 - "$T/r.json" "$(cat "$T/want$n")" "$adapter" <<'PY' && ok || bad "run n=$n $adapter: $(cat "$T/r.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["adapter"].startswith("native CPU") == (sys.argv[3] == "--adapter cpu"), j["adapter"]
assert j["result"] == int(sys.argv[2]), (j["result"], sys.argv[2])
assert j["mismatches"] == 0 and j["steps"] == 3 and j["replay_kernels_created"] == 0, j
assert (j["dispatches"] == 0) == (sys.argv[3] == "--adapter cpu"), j  # the native backend runs steps eagerly
PY
  done
done
# --output writes the last array; a chain without count still prints its count as the result.
"$W" run 'select a < 100u | sort' --input "$T/x4097.npy" --output "$T/o.csv" --json >"$T/r.json" 2>"$T/err" \
  && python3 - "$T/r.json" "$T/o.csv" "$T/x4097.npy" <<'PY' && ok || bad "run --output: $(cat "$T/err")"
import json, struct, sys
j = json.load(open(sys.argv[1]))
got = [int(l) for l in open(sys.argv[2]) if l.strip()]
raw = open(sys.argv[3], "rb").read()
hl = struct.unpack("<H", raw[8:10])[0]
xs = list(struct.unpack("<%dI" % ((len(raw) - 10 - hl) // 4), raw[10 + hl:]))
want = sorted(x for x in xs if x < 100)
assert got == want and j["result"] == len(want), (got[:10], want[:10])
PY

# Generated f32 and i32 data run as their own type (the chain is made for the input's type), with the twin's check.
for t in f32 i32; do
  for adapter in "" "--adapter cpu"; do
    "$W" run 'select a > 0 | sort | unique | count' --generate uniform:5003 --type $t --json $adapter >"$T/r.json" 2>"$T/err" \
      && python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["mismatches"] == 0 and j["type"] == sys.argv[2] and 0 < j["result"] <= 5003, j' "$T/r.json" $t \
      && ok || bad "run --generate --type $t $adapter: $(cat "$T/err")"
  done
done

# A | inside quotes or parentheses, or in ||, stays in its predicate; each chain's count against Python's.
python3 - "$T/x4097.npy" >"$T/want_or" <<'PY'
import struct, sys
raw = open(sys.argv[1], "rb").read()
hl = struct.unpack("<H", raw[8:10])[0]
xs = struct.unpack("<%dI" % ((len(raw) - 10 - hl) // 4), raw[10 + hl:])
print(sum(1 for x in xs if x % 7 == 0 or x % 5 == 0), sum(1 for x in xs if (x | 1) == 3 or x < 5),
      sum(1 for x in xs if x > 15 or x < 2))
PY
read -r want_or want_paren want_quoted <"$T/want_or"
for adapter in "" "--adapter cpu"; do
  for pair in "select a % 7u == 0u || a % 5u == 0u | count:$want_or" "select (a | 1u) == 3u || a < 5u | count:$want_paren" \
              "select \"a > 15u || a < 2u\" | count:$want_quoted" "select --predicate 'a > 15u || a < 2u' | count:$want_quoted"; do
    chain=${pair%:*} want=${pair##*:}
    "$W" run "$chain" --input "$T/x4097.npy" --json $adapter >"$T/r.json" 2>"$T/err" \
      && python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["result"] == int(sys.argv[2]) and j["mismatches"] == 0 and j["steps"] == 1, j' "$T/r.json" "$want" \
      && ok || bad "run '$chain' $adapter: $(cat "$T/err") $(cat "$T/r.json")"
  done
done

expect_error "unknown stage" run 'select a > 1u | shuffle' --input "$T/x1.npy"
expect_error "count not last" run 'count | unique' --input "$T/x1.npy"
expect_error "bad predicate" run 'select a +' --input "$T/x1.npy"
expect_error "bad bits" run 'sort --bits 9:3' --input "$T/x1.npy"
expect_error "empty stage" run 'unique | | count' --input "$T/x1.npy"
expect_error "|| between stages" run 'unique || count' --input "$T/x1.npy"
expect_error "bits twice" run 'sort --bits 0:8 --bits 8:16 | count' --input "$T/x1.npy"
expect_error "unclosed quote" run 'select "a > 1u | count' --input "$T/x1.npy"
expect_error "no input" run 'unique'

echo "cli_run: $pass passed, $fail failed"
[ $fail -eq 0 ]
