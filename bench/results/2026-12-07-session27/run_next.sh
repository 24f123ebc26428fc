#!/usr/bin/env bash
# Prepared for the next session with device time (~560 s, one call; `kind: "nvidia-h100-x1"` came when
# `nvidia-h200` did not): the whole suite on the tree as committed (session 27's commits after 6c352e0 have not run
# on a GPU: the histograms' cut with match words, WGPRIM_ONESWEEP_MATCH_CLEAR, the counted sort's fused clear and
# count copy), then run_2.sh (the sorts and the chain against CUB with the match-word policy, then the A/B runs:
# the words' clear, keys held, keys per invocation, the exact sum's items and workgroups, tiles of 256 with fewer
# keys). Rebuild, `make -C bench/cub`, `make -C bench/vkstats`,
# `bash bench/h200/pack.sh && rm -f devbuild/bin/wgprim_calls devbuild/bin/wgprim_floor` first; carry [".gl", "devbuild"].
AFTER_SUITE=bench/results/2026-12-07-session27/run_2.sh bash bench/results/2026-12-07-h100-session25/run_1.sh
