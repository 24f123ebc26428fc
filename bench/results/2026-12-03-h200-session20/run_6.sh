#!/usr/bin/env bash
# (Not run in session 20: the device budget was spent; for the next session, after `bash bench/h200/pack.sh`.)
# H200 call 6 of session 20: `wgprim tune` with the new tunables (scan layouts, unique, partition) on the GPU: does
# it find the rows this session chose by hand (scan raked 4, unique direct, partition staged 2)? Dry runs only.
set -u
. devbuild/setup.sh
export XDG_CACHE_HOME=/tmp/wgprim-cache
timeout 100 $B/wgprim tune --primitives scan,select,unique,partition --dry-run 2>&1 | grep -v '^ *"' | head -60
