#!/usr/bin/env bash
# Session 26, call 1 (~380 s): the whole suite on the tree as committed (session 25's later GPU code had not run on
# a GPU), then run_sort.sh (session 25's prepared run_3.sh, shortened) (512-invocation tiles, held keys, early counts, the look-back window
# on every key type).
AFTER_SUITE=bench/results/2026-12-07-session26/run_sort.sh bash bench/results/2026-12-07-h100-session25/run_1.sh
