// Subcommands and bench rows of histogram, segmented reduce/scan, reduce-by-key and run-length encoding.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "bench.hpp"
#include "wgprim/wgprim.hpp"

/// A subcommand added by one of these files: run() when it was parsed.
struct cli_command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};
cli_command add_histogram_command(CLI::App& app);
cli_command add_rle_command(CLI::App& app);
/// The options of main.cpp's reduce/scan subcommands that the segmented forms share.
struct shared_options {
  const std::string *adapter, *input, *generate, *type, *op, *identity, *scan_output;
  const bool *json, *exclusive;
  const int* repeat;
};
/// Adds --segments, --keys, --keys-output and --output to reduce, --segments to scan; run() returns -1 when
/// neither --segments nor --keys was given (the plain subcommand then runs).
cli_command add_segmented_options(CLI::App* reduce, CLI::App* scan, const shared_options& shared);

/// Bench rows: histogram_even, segmented_reduce, reduce_by_key, run_length_encode.
void add_hist_bench_cases(wgprim::context& ctx, std::size_t n_max, std::vector<bench_case>& cases,
                          const std::function<bool(const std::string&, const std::string&)>& wants);
