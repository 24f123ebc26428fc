#!/usr/bin/env bash
bash bench/results/2026-12-07-h100-session25/run_3.sh
bash bench/results/2026-12-07-session26/extra.sh
