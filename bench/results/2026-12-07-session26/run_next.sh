#!/usr/bin/env bash
# Prepared for the next session with device time (~555 s, one call; name `kind: "nvidia-h200"`): the whole suite on
# the tree as committed (session 26's commits after 9a31328 have not run on a GPU: NVIDIA's 512-invocation sort tiles
# as the policy, the dispatch counter, the onesweep tests' 64-bit tile sizes, the exact sum's tile loaded first), then
# run_3.sh (the sorts, bits 0:16 and the select family against CUB; the exact sum's load-first A/B). Rebuild,
# `make -C bench/cub`, `bash bench/h200/pack.sh && rm -f devbuild/bin/wgprim_calls devbuild/bin/wgprim_floor`
# first; carry [".gl", "devbuild"].
AFTER_SUITE=bench/results/2026-12-07-session26/run_3.sh bash bench/results/2026-12-07-h100-session25/run_1.sh
