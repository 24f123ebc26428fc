#!/usr/bin/env bash
# Session 24's run_next_family.sh at 2^20, 2^24 and 2^28 (2^16 left out to fit the device budget).
FAMILY_SIZES="20 24 28" bash bench/results/2026-12-07-h100-session24/run_next_family.sh
