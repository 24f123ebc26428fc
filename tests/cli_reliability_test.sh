#!/usr/bin/env bash
# Issue 29 (reliability), rows 2-11 of its table: each case is named after its row. Outputs never destroy a file,
# bad records and bad JSON are refused with one line, flags do what they say. Runs on whatever backend the
# environment picks (WGPRIM_ADAPTER=llvmpipe for lavapipe, --adapter cpu is added where a row names it).
set -u
W=$1
T=$(mktemp -d)
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# expect_code NAME CODE ARGS...: exit CODE, exactly one line on stderr that starts with "wgprim: error:"
expect_code() {
  local name=$1 want=$2; shift 2
  timeout 60 "$W" "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  local lines; lines=$(wc -l <"$T/err")
  if [ $rc -eq "$want" ] && [ "$lines" -eq 1 ] && grep -q '^wgprim: error:' "$T/err"; then ok
  else bad "$name: rc=$rc (want $want) stderr=$(head -c 600 "$T/err")"; fi
}
no_temps() { ! ls -a "$T" | grep -q '\.tmp\.'; }

printf '1\n2\n3\n4\n' >"$T/x.csv"

# --- row 2: a symbolic link or a hard link planted at the old temporary name OUTPUT.tmp.<pid> was followed and
# its target truncated. The planted name is the one the old code used: the subshell's pid, which exec keeps.
echo "victim" >"$T/victim"
( ln -s "$T/victim" "$T/out.csv.tmp.$BASHPID"; exec "$W" scan --input "$T/x.csv" --output "$T/out.csv" ) >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && [ "$(cat "$T/victim")" = "victim" ] && [ "$(tr '\n' ' ' <"$T/out.csv")" = "1 3 6 10 " ] \
  && ok || bad "row2_symlink_at_temp_name: rc=$rc victim=$(cat "$T/victim") $(cat "$T/err")"
rm -f "$T"/out.csv*
echo "victim" >"$T/victim2"
( ln "$T/victim2" "$T/out.csv.tmp.$BASHPID"; exec "$W" scan --input "$T/x.csv" --output "$T/out.csv" ) >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && [ "$(cat "$T/victim2")" = "victim" ] && ok || bad "row2_hardlink_at_temp_name: rc=$rc $(cat "$T/err")"
rm -f "$T"/out.csv*

# --- row 3: a file the user may not write is not replaced (as cp refuses); an overwritten file keeps its mode
echo "keep" >"$T/ro.csv"
chmod 0444 "$T/ro.csv"
if [ "$(id -u)" -ne 0 ]; then
  expect_code "row3_read_only_target" 3 scan --input "$T/x.csv" --output "$T/ro.csv"
  [ "$(cat "$T/ro.csv")" = "keep" ] && ok || bad "row3_read_only_target: the file was replaced"
fi
echo "old" >"$T/private.csv"
chmod 0600 "$T/private.csv"
"$W" scan --input "$T/x.csv" --output "$T/private.csv" >/dev/null 2>"$T/err" \
  && [ "$(stat -c %a "$T/private.csv")" = 600 ] && [ "$(head -1 "$T/private.csv")" = 1 ] \
  && ok || bad "row3_mode_kept: mode $(stat -c %a "$T/private.csv") $(cat "$T/err")"
chmod 0640 "$T/private.csv"
"$W" scan --input "$T/x.csv" --output "$T/private.csv" >/dev/null 2>&1 && [ "$(stat -c %a "$T/private.csv")" = 640 ] \
  && ok || bad "row3_mode_kept 0640: $(stat -c %a "$T/private.csv")"
no_temps && ok || bad "row3: temporary files left: $(ls -a "$T")"

# --- row 4: two outputs of one command naming one file are refused before any work (nothing is written)
expect_code "row4_sort_same_output" 2 sort --input "$T/x.csv" --values "$T/x.csv" --output "$T/same.npy" --values-output "$T/same.npy"
[ ! -e "$T/same.npy" ] && ok || bad "row4_sort_same_output: a file was written"
expect_code "row4_rle_same_output" 2 rle --input "$T/x.csv" --output "$T/s.npy" --counts-output "$T/s.npy"
expect_code "row4_both_stdout" 2 sort --input "$T/x.csv" --values "$T/x.csv" --output - --values-output -
expect_code "row4_rle_both_stdout" 2 rle --input "$T/x.csv" --output - --counts-output -
echo "x" >"$T/a.csv"
ln -s "$T/a.csv" "$T/alias.csv"
expect_code "row4_same_file_by_link" 2 sort --input "$T/x.csv" --values "$T/x.csv" --output "$T/a.csv" --values-output "$T/alias.csv"
ln "$T/a.csv" "$T/hard.csv"
expect_code "row4_same_file_by_inode" 2 sort --input "$T/x.csv" --values "$T/x.csv" --output "$T/a.csv" --values-output "$T/hard.csv"
expect_code "row4_same_file_by_folder" 2 rle --input "$T/x.csv" --output "$T/new.npy" --counts-output "$T/./new.npy"
[ "$(cat "$T/a.csv")" = "x" ] && ok || bad "row4: a.csv changed"

# --- row 5: a run that fails (exit 1: the scan of a non-associative operator, unchecked, differs from the CPU
# twin's running combine) leaves the existing file as it was and no temporary file
printf '%s\n' $(seq 1 300000) >"$T/big.csv"
echo "previous" >"$T/kept.csv"
"$W" scan --input "$T/big.csv" --op 'a - b' --identity 0 --no-check --output "$T/kept.csv" >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && [ "$(cat "$T/kept.csv")" = "previous" ] && no_temps \
  && ok || bad "row5_failed_run_keeps_file: rc=$rc kept=$(head -c 40 "$T/kept.csv") $(cat "$T/err")"
"$W" scan --input "$T/big.csv" --op 'a - b' --identity 0 --no-check --output "$T/new5.csv" >/dev/null 2>&1
[ ! -e "$T/new5.csv" ] && no_temps && ok || bad "row5_failed_run_writes_nothing"

# --- row 7: a bench record with n == 0 (or otherwise bad) is refused with one line, no hang
cat >"$T/r0.json" <<'J'
{"adapter": "x", "results": [{"primitive": "reduce", "type": "f32", "op": "sum", "algorithm": "fast", "n": 0, "gbps": 1.0},
 {"primitive": "reduce", "type": "f32", "op": "sum", "algorithm": "fast", "n": 1024, "gbps": 2.0}]}
J
expect_code "row7_plot_n_zero" 3 bench --plot "$T/p.png" --from "$T/r0.json"
grep -q "field 'n'" "$T/err" && [ ! -e "$T/p.png" ] && ok || bad "row7_plot_n_zero: $(cat "$T/err")"
sed 's/"gbps": 1.0/"gbps": -1/; s/"n": 0/"n": 65536/' "$T/r0.json" >"$T/rneg.json"
expect_code "row7_plot_negative_gbps" 3 bench --plot "$T/p.png" --from "$T/rneg.json"

# --- row 9: a missing or mistyped field names the file and the field, exit 3
sed 's/"gbps": 1.0, //; s/"n": 0/"n": 65536/' "$T/r0.json" | sed 's/, "gbps": 1.0//' >"$T/rmiss.json"
expect_code "row9_missing_field" 3 bench --plot "$T/p.png" --from "$T/rmiss.json"
grep -q "^wgprim: error: $T/rmiss.json: field 'gbps'" "$T/err" && ok || bad "row9_missing_field message: $(cat "$T/err")"
sed 's/"n": 0/"n": "big"/' "$T/r0.json" >"$T/rtype.json"
expect_code "row9_mistyped_field" 3 bench --plot "$T/p.png" --from "$T/rtype.json"
grep -q "^wgprim: error: $T/rtype.json: field 'n'" "$T/err" && ok || bad "row9_mistyped_field message: $(cat "$T/err")"
echo '{"results": 3}' >"$T/rnot.json"
expect_code "row9_results_not_array" 3 bench --plot "$T/p.png" --from "$T/rnot.json"
echo '{"results": [' >"$T/rbroken.json"
expect_code "row9_not_json" 3 bench --plot "$T/p.png" --from "$T/rbroken.json"

# --- row 8: a custom operator across ranks on the native backend ran as one process does; `a - b` is "not a monoid"
"$W" reduce --generate orders:1000 --op 'max(a, b)' --identity 0 --adapters cpu,cpu >/dev/null 2>"$T/err" \
  && ok || bad "row8_custom_op_across_native_ranks: $(cat "$T/err")"
"$W" scan --generate orders:1000 --op 'max(a, b)' --identity 0 --adapters cpu,cpu >/dev/null 2>"$T/err" \
  && ok || bad "row8_custom_scan_across_native_ranks: $(cat "$T/err")"
expect_code "row8_not_a_monoid_across_ranks" 2 scan --generate orders:1000 --op 'a - b' --identity 0 --adapters cpu,cpu
grep -q "is not a monoid" "$T/err" && ok || bad "row8_not_a_monoid_across_ranks: $(cat "$T/err")"
if command -v mpirun >/dev/null; then  # the same under mpirun: rank 0's one line, the errc code
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 mpirun --oversubscribe -np 2 "$W" scan \
    --generate orders:1000 --op 'a - b' --identity 0 --adapter cpu >/dev/null 2>"$T/err"
  rc=$?
  [ $rc -eq 2 ] && grep -q "^wgprim: error: custom operator 'a - b' over u32 is not a monoid" "$T/err" \
    && ok || bad "row8_not_a_monoid_under_mpirun: rc=$rc $(head -3 "$T/err")"
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 mpirun --oversubscribe -np 2 "$W" reduce \
    --generate orders:1000 --op 'max(a, b)' --identity 0 --adapter cpu >/dev/null 2>"$T/err" \
    && ok || bad "row8_custom_op_under_mpirun: $(head -3 "$T/err")"
fi
expect_code "row8_same_output_across_ranks" 2 sort --generate orders:10 --adapters cpu,cpu --output "$T/o.npy" --values-output "$T/./o.npy"

# --- row 10: demo --json prints JSON; sort takes --type for a .bin; --accumulate wide on the native backend says
# what to type, not a C++ option
"$W" demo --json --adapter cpu 2>"$T/err" | python3 -c 'import json,sys; j=json.load(sys.stdin); assert j["runs"][0]["scan"]["mismatches"] == 0' \
  && ok || bad "row10_demo_json: $(cat "$T/err")"
python3 -c "import struct,sys; open(sys.argv[1],'wb').write(struct.pack('<5I',5,4,3,2,1))" "$T/k.bin"
"$W" sort --input "$T/k.bin" --type u32 --output "$T/k_sorted.csv" >/dev/null 2>"$T/err" \
  && [ "$(tr '\n' ' ' <"$T/k_sorted.csv")" = "1 2 3 4 5 " ] && ok || bad "row10_sort_bin_type: $(cat "$T/err")"
expect_code "row10_accumulate_wide_native" 4 reduce --generate orders:1000 --type i32 --accumulate wide --adapter cpu
! grep -q "context_options\|backend_choice" "$T/err" && ok || bad "row10_accumulate_wide_native names C++: $(cat "$T/err")"

# --- row 11: clear messages
printf '\xEF\xBB\xBF1.5\n2\n' >"$T/bom.csv"
"$W" reduce --input "$T/bom.csv" --json 2>"$T/err" | python3 -c 'import json,sys; assert json.load(sys.stdin)["result"] == 3.5' \
  && ok || bad "row11_csv_bom: $(cat "$T/err")"
printf '1_000\n' >"$T/us.csv"
expect_code "row11_underscore_number" 3 reduce --input "$T/us.csv"
grep -q "'1_000' is not a number" "$T/err" && ok || bad "row11_underscore_number: $(cat "$T/err")"
expect_code "row11_plot_missing_dir" 3 bench --plot "$T/nodir/p.png" --from "$T/r0.json"
! grep -q "p.png.bin" "$T/err" && ok || bad "row11_plot_missing_dir names .bin: $(cat "$T/err")"
ln -s "$T/loop_b.csv" "$T/loop_a.csv"; ln -s "$T/loop_a.csv" "$T/loop_b.csv"
expect_code "row11_symlink_loop_output" 3 scan --input "$T/x.csv" --output "$T/loop_a.csv"
grep -q "does not exist" "$T/err" && bad "row11_symlink_loop_output says does not exist" || ok
expect_code "row11_subgroups_5" 2 reduce --input "$T/x.csv" --subgroups 5
expect_code "row11_vec_loads_2" 2 reduce --input "$T/x.csv" --vec-loads 2
expect_code "row11_exact_window_7" 2 reduce --input "$T/x.csv" --exact-window 7
expect_code "row11_range_beyond_f32" 2 histogram --input "$T/x.csv" --bins 4 --range=-1e39:1
! grep -q "too many bins" "$T/err" && ok || bad "row11_range_beyond_f32: $(cat "$T/err")"
printf '0\n0\n' >"$T/zero_seg.csv"
"$W" reduce --input "$T/x.csv" --segments "$T/zero_seg.csv" --adapter cpu >"$T/out" 2>"$T/err"
! grep -q "(algorithm )" "$T/out" && ok || bad "row11_zero_segments: $(cat "$T/out" "$T/err")"
"$W" histogram --input "$T/x.csv" --bins 2 --adapter cpu >"$T/out" 2>&1
! grep -q "GPU time" "$T/out" && ok || bad "row11_native_not_gpu_time: $(cat "$T/out")"
# i64 offsets (NumPy's default integer type) were refused as "takes f32, i32 or u32" while f32 offsets were refused
# too: integer offsets of any width are taken (below 2^32), others refused as "takes integers".
python3 - "$T" <<'PY'
import struct, sys
def npy(path, descr, fmt, vals):
    h = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, len(vals))
    h += " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
    open(path, "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + struct.pack("<%d%s" % (len(vals), fmt), *vals))
npy(sys.argv[1] + "/off64.npy", "<i8", "q", [0, 1, 4])
npy(sys.argv[1] + "/off32.npy", "<i4", "i", [0, 1, 4])
npy(sys.argv[1] + "/offf.npy", "<f4", "f", [0, 1, 4])
PY
"$W" reduce --input "$T/x.csv" --segments "$T/off64.npy" --output "$T/s64.csv" >/dev/null 2>"$T/err" \
  && "$W" reduce --input "$T/x.csv" --segments "$T/off32.npy" --output "$T/s32.csv" >/dev/null 2>>"$T/err" \
  && cmp -s "$T/s64.csv" "$T/s32.csv" && ok || bad "row11_i64_offsets: $(cat "$T/err")"
expect_code "row11_f32_offsets" 2 reduce --input "$T/x.csv" --segments "$T/offf.npy"
grep -q "takes integers" "$T/err" && ok || bad "row11_f32_offsets message: $(cat "$T/err")"

# --- row 11 (shift typing): `a << 1u` over i32 was refused and `a >> -1` accepted. A shift count is a u32 as in WGSL
# (an unsuffixed literal count is u32 whatever the shifted type); a constant count that is negative or not below 32
# is refused with the same one line on the native backend, a WebGPU adapter, --adapters and under mpirun.
gpu_adapter=${WGPRIM_ADAPTER:-#0}  # a WebGPU adapter: the one named, else the best (#0; lavapipe in CI)
for how in "--adapter cpu" "--adapter $gpu_adapter"; do
  "$W" reduce --generate orders:1000 --type i32 --op 'a + (b << 0u)' --identity 0 $how >/dev/null 2>"$T/err" \
    && ok || bad "row11_shift_u32_count_over_i32 ($how): $(cat "$T/err")"
done
"$W" scan --generate orders:1000 --type i32 --op 'a ^ (b >> 0)' --identity 0 --adapter cpu --output "$T/sh_cpu.csv" >/dev/null 2>"$T/err" \
  && "$W" scan --generate orders:1000 --type i32 --op 'a ^ (b >> 0)' --identity 0 --adapter "$gpu_adapter" --output "$T/sh_def.csv" >/dev/null 2>>"$T/err" \
  && cmp -s "$T/sh_cpu.csv" "$T/sh_def.csv" && ok || bad "row11_shift_same_result_native_and_webgpu: $(cat "$T/err")"
shift_case() {  # NAME OP: the message on the native backend is the reference; the others must give the same line
  local name=$1 expr=$2 want
  expect_code "${name}_native" 2 scan --generate orders:1000 --type i32 --op "$expr" --identity 0 --adapter cpu
  want=$(cat "$T/err")
  grep -q "shift count" "$T/err" && ok || bad "$name: the message does not name the shift count: $want"
  expect_code "${name}_webgpu" 2 scan --generate orders:1000 --type i32 --op "$expr" --identity 0 --adapter "$gpu_adapter"
  [ "$(cat "$T/err")" = "$want" ] && ok || bad "$name: $gpu_adapter says '$(cat "$T/err")', native '$want'"
  expect_code "${name}_adapters" 2 scan --generate orders:1000 --type i32 --op "$expr" --identity 0 --adapters cpu,cpu
  [ "$(cat "$T/err")" = "$want" ] && ok || bad "$name: --adapters says '$(cat "$T/err")', native '$want'"
  if command -v mpirun >/dev/null; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 mpirun --oversubscribe -np 2 "$W" scan \
      --generate orders:1000 --type i32 --op "$expr" --identity 0 --adapter cpu >/dev/null 2>"$T/err"
    local rc=$?
    # (mpirun adds its own notice after the line: one wgprim line, rank 0's, the same as the native one)
    [ $rc -eq 2 ] && [ "$(grep -c '^wgprim: ' "$T/err")" -eq 1 ] && grep -qxF "$want" "$T/err" \
      && ok || bad "$name under mpirun: rc=$rc '$(head -3 "$T/err")', native '$want'"
  fi
}
shift_case row11_shift_negative_count 'a + (b >> -1)'
shift_case row11_shift_count_32 'a + (b << 32)'

# --- A/B switches of the device (WGPRIM_IMMEDIATES, WGPRIM_MAPPED_RESULT) take 0 or 1: any other value was taken as
# "on" without a word (a hostile trial, session 29); now one line and exit 2, as every other A/B switch.
for var in WGPRIM_IMMEDIATES WGPRIM_MAPPED_RESULT; do
  env $var=yes "$W" reduce --generate uniform:1000 --adapter "$gpu_adapter" >"$T/out" 2>"$T/err"
  rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "^wgprim: error: $var must be 0 or 1" "$T/err" \
    && ok || bad "${var}_refused: rc=$rc $(head -c 300 "$T/err")"
  env $var=0 "$W" reduce --generate uniform:1000 --adapter "$gpu_adapter" >/dev/null 2>"$T/err" \
    && ok || bad "${var}=0: $(head -c 300 "$T/err")"
done

# A pool asked for through WGPRIM_ONESWEEP_POOL that the adapter cannot hold is named as the cause (exit 5, limit),
# not "1 keys per invocation exceed ..." (the same trial).
WGPRIM_ONESWEEP_POOL=1048576 "$W" sort --generate uniform:3000 --algorithm onesweep --adapter "$gpu_adapter" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 5 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "^wgprim: error: WGPRIM_ONESWEEP_POOL=1048576 words exceed" "$T/err" \
  && ok || bad "onesweep_pool_too_big: rc=$rc $(head -c 300 "$T/err")"

echo "cli_reliability: $pass passed, $fail failed"
[ $fail -eq 0 ]
