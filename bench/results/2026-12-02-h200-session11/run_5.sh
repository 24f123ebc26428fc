set -u
. devbuild/setup.sh
for lg in 24 28; do
  n=$((1<<lg))
  for len in 257 512 1000; do
    python3 bench/h200/offsets_npy.py $n $len /tmp/offs.npy
    for cap in 512 1024 2048; do
      [ $len -gt $cap ] && continue
      WGPRIM_DIAG_MID_CAP=$cap timeout 60 $B/wgprim sort --generate uniform:$n --type u32 --segments /tmp/offs.npy --no-check \
        --repeat 5 --json 2>&1 | tail -1 | python3 -c 'import json,sys; j=json.load(sys.stdin); print(json.dumps({"n":j["n"],"len":int(sys.argv[1]),"mid_array":int(sys.argv[2]),"gpu_ms":j["gpu_ms"]}))' $len $cap
    done
  done
done
