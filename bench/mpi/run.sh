#!/usr/bin/env bash
# wgprim across ranks on one machine: the MPI overhead with ranks sharing one GPU, and weak / strong scaling with a
# GPU per rank, plus the one-process --adapters mode. Every point is one `wgprim reduce|scan|sort --generate ...
# --repeat R --json` (the median of R runs of the slowest rank; the data is drawn on every rank, seed + rank), one
# JSON line in OUT/mpi.jsonl; bench/mpi/summary.py turns them into Markdown (OUT/mpi.md).
#   BUILD=dir (default build)  OUT=dir (default bench-out-mpi)  MPIEXEC (default mpirun)  REPEAT (default 10)
#   GPUS: GPUs to use for the scaling runs (default: the non-CPU adapters `wgprim info` lists)
#   PARTS: which parts to run (default "overhead weak strong adapters")
#   TYPES: element types (default "u32 f32")   PRIMS: primitives (default "reduce scan sort")
# Run from the repository root. As root, OpenMPI needs OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# (set here). A point that fails (e.g. out of memory at 2^30 per rank) is recorded with its error and skipped.
set -uo pipefail
build="${BUILD:-build}"
out="${OUT:-bench-out-mpi}"
mpiexec="${MPIEXEC:-mpirun}"
repeat="${REPEAT:-10}"
parts="${PARTS:-overhead weak strong adapters}"
types="${TYPES:-u32 f32}"
prims="${PRIMS:-reduce scan sort}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$out"
log="$out/mpi.jsonl"
: > "$log"
if [ -z "${GPUS:-}" ]; then
  GPUS=$("$build/wgprim" info --json | python3 -c 'import json,sys; print(sum(a["type"] != "cpu" for a in json.load(sys.stdin)["adapters"]))')
fi
[ "$GPUS" -ge 1 ] || GPUS=1
echo "run.sh: $GPUS GPU(s), repeat $repeat, parts: $parts" >&2

# point PART P N_DESC LAUNCH... -- ARGS: runs one point and appends {"part", "p", ...the CLI's JSON} to the log.
point() {
  local part=$1 p=$2 what=$3; shift 3
  local res rc
  res=$("$@" --json --repeat "$repeat" 2> "$out/last.err"); rc=$?
  if [ $rc -ne 0 ]; then
    local err; err=$(grep -m1 'wgprim: error' "$out/last.err" || tail -1 "$out/last.err")
    python3 -c 'import json,sys; print(json.dumps({"part": sys.argv[1], "p": int(sys.argv[2]), "what": sys.argv[3], "error": sys.argv[4]}))' \
      "$part" "$p" "$what" "$err" >> "$log"
    echo "run.sh: $part p=$p $what: $err" >&2
    return
  fi
  echo "$res" | tail -1 | python3 -c 'import json,sys; j=json.loads(sys.stdin.read()); j.update({"part": sys.argv[1], "p": int(sys.argv[2]), "what": sys.argv[3]}); print(json.dumps(j))' \
    "$part" "$p" "$what" >> "$log"
  echo "run.sh: $part p=$p $what: $(echo "$res" | tail -1 | python3 -c 'import json,sys; j=json.load(sys.stdin); print("%.3f ms" % j.get("ms", j.get("gpu_ms", 0)))')" >&2
}

# LOG2_A / LOG2_B: the two sizes (2^28, 2^30); small ones make a quick try on lavapipe (LOG2_A=16 LOG2_B=18).
a="${LOG2_A:-28}"; b="${LOG2_B:-30}"
n28=$((1 << a)); n30=$((1 << b)); nsort=$((1 << (b - 1)))
for t in $types; do
  for prim in $prims; do
    # 1. Overhead: P ranks sharing GPU #0 against one rank (same code path; the one-process command beside it).
    if [[ " $parts " == *" overhead "* ]]; then
      # the ordinary one-process command (no MPI at all; its GPU time of the algorithm alone, data on the GPU)
      [ "$prim" != sort ] && point overhead 0 "$prim $t 2^$a plain command" "$build/wgprim" "$prim" \
        --generate "uniform:$n28" --type "$t" --adapter '#0'
      for p in 1 2 4; do
        point overhead "$p" "$prim $t 2^$a shared GPU" "$mpiexec" --oversubscribe -np "$p" "$build/wgprim" "$prim" \
          --generate "uniform:$n28" --type "$t" --adapter '#0'
      done
    fi
    # 2. Weak scaling: 2^28 and 2^30 per rank, a GPU per rank (sort: 2^28 only, one GPU sorts at most 2^29 keys).
    if [[ " $parts " == *" weak "* ]]; then
      for per in $n28 $n30; do
        [ "$prim" = sort ] && [ "$per" = "$n30" ] && continue
        for p in 1 2 4 8; do
          [ "$p" -le "$GPUS" ] || continue
          point weak "$p" "$prim $t 2^$(( per == n28 ? a : b )) per rank" "$mpiexec" -np "$p" "$build/wgprim" "$prim" \
            --generate "uniform:$per" --per-rank --type "$t" --adapter-per-rank
        done
      done
    fi
    # 3. Strong scaling: 2^30 in all (sort: 2^29).
    if [[ " $parts " == *" strong "* ]]; then
      total=$n30; [ "$prim" = sort ] && total=$nsort
      for p in 1 2 4 8; do
        [ "$p" -le "$GPUS" ] || continue
        point strong "$p" "$prim $t $total in all" "$mpiexec" -np "$p" "$build/wgprim" "$prim" \
          --generate "uniform:$total" --type "$t" --adapter-per-rank
      done
    fi
    # 4. One process, every GPU (--adapters all), 2^28 and 2^30 in all (sort 2^29).
    if [[ " $parts " == *" adapters "* ]] && [ "$GPUS" -ge 1 ]; then
      for total in $n28 $n30; do
        [ "$prim" = sort ] && [ "$total" = "$n30" ] && total=$nsort
        point adapters "$GPUS" "$prim $t $total --adapters all" "$build/wgprim" "$prim" --generate "uniform:$total" \
          --type "$t" --adapters all
      done
    fi
  done
done
python3 bench/mpi/summary.py "$log" > "$out/mpi.md" && echo "run.sh: wrote $log and $out/mpi.md" >&2
