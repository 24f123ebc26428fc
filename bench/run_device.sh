#!/usr/bin/env bash
# One run on one machine: the wgpu-native floor, CUB (where build/cub_bench exists) and wgprim bench, then the
# side-by-side Markdown. Run from the repository root with build/ built (see bench/README.md).
#   OUT=dir (default bench-out)  BUILD=dir (default build)
#   FLOOR_ARGS, CUB_ARGS, WGPRIM_ARGS: extra arguments for each program
set -euo pipefail
out="${OUT:-bench-out}"
build="${BUILD:-build}"
mkdir -p "$out"
# shellcheck disable=SC2086  # the *_ARGS are word lists on purpose
"$build/wgprim_floor" --json ${FLOOR_ARGS:-} > "$out/floor.jsonl"
cub_file=""
if [ -x "$build/cub_bench" ]; then
  "$build/cub_bench" --json ${CUB_ARGS:-} > "$out/cub.jsonl"
  cub_file="$out/cub.jsonl"
else
  echo "run_device.sh: no $build/cub_bench; CUB columns stay empty" >&2
  echo '{"adapter": "none"}' > "$out/cub.jsonl"
  cub_file="$out/cub.jsonl"
fi
"$build/wgprim" bench --json --full ${WGPRIM_ARGS:-} > "$out/wgprim.json"
python3 bench/compare.py "$out/wgprim.json" "$cub_file" --floor "$out/floor.jsonl" \
  --command "bench/run_device.sh (FLOOR_ARGS='${FLOOR_ARGS:-}' CUB_ARGS='${CUB_ARGS:-}' WGPRIM_ARGS='${WGPRIM_ARGS:-}')" \
  > "$out/compare.md"
echo "run_device.sh: wrote $out/floor.jsonl $out/cub.jsonl $out/wgprim.json $out/compare.md" >&2
