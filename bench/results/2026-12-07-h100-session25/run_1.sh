#!/usr/bin/env bash
# Session 25, call 1: the whole suite on the GPU (the select raked path's max(k,1u)-1u has not run on one yet),
# then session 24's prepared onesweep re-tune (run_next.sh: vkstats figures, keys per invocation, rounds, slots,
# wg512, held keys, loops, ablations, the select family's unroll A/B).
set -u
. devbuild/setup.sh
mkdir -p $OUT
export XDG_CACHE_HOME=/tmp/wgprim-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } 2>&1
. bench/h200/suite.sh
# AFTER_SUITE: the script run after the suite (run_next.sh runs this call with run_3.sh).
bash ${AFTER_SUITE:-bench/results/2026-12-07-h100-session24/run_next.sh}
