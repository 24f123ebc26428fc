#!/usr/bin/env bash
# Session 26, call 1 (~380 s): the whole suite on the tree as committed (session 25's later GPU code had not run on
# a GPU), then session 25's prepared run_3.sh (512-invocation tiles, held keys, early counts, the look-back window
# on every key type).
AFTER_SUITE=bench/results/2026-12-07-h100-session25/run_3.sh bash bench/results/2026-12-07-h100-session25/run_1.sh
