#!/usr/bin/env bash
# Session 28, call 1 (~590 s, one call; carry [".gl", "devbuild"]): the whole suite (session 27's commits after
# 6c352e0 and this session's `pair` clear of the match words have not run on a GPU), then run_2.sh (the sorts and
# the chain against CUB, then the A/B runs). Build, `make -C bench/cub`, `make -C bench/vkstats`,
# `bash bench/h200/pack.sh && rm -f devbuild/bin/wgprim_calls devbuild/bin/wgprim_floor` first.
AFTER_SUITE=bench/results/2026-12-07-session28/run_2.sh bash bench/results/2026-12-07-h100-session25/run_1.sh
