#!/usr/bin/env bash
# Prepared for the next session with device time (~380 s, one call; name `kind: "nvidia-h200"` for the issues'
# figures): the whole suite on the tree as committed (session 25's later commits have not run on a GPU: the
# sort.wg_size knob, early counts as an option, publish_counts, the pipeline's review fixes), then run_3.sh (512 tiles,
# held keys, early counts, the look-back window, on every key type). Rebuild, `make -C bench/cub`, `make -C
# bench/vkstats`, `bash bench/h200/pack.sh && rm -f devbuild/bin/wgprim_calls devbuild/bin/wgprim_floor` first; carry
# [".gl", "devbuild"].
AFTER_SUITE=bench/results/2026-12-07-h100-session25/run_3.sh bash bench/results/2026-12-07-h100-session25/run_1.sh
