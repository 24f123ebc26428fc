// wgprim select / partition / unique (cmd_select.cpp), and their bench rows.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "bench.hpp"

namespace CLI { class App; }
namespace wgprim { class context; }

/// Adds the subcommands; the returned function runs the one that was parsed and returns its exit code, or -1
/// when none of them was.
std::function<int()> add_select_commands(CLI::App& app);

/// bench rows select_if f32 (floats in +-500, a > 0), select_flagged u32, partition_if f32 and unique u32 (runs
/// of 20), with the data of bench/cub/cub_bench.cu.
void add_select_bench_cases(wgprim::context& ctx, std::size_t n_max, const bench_filter& wants,
                            std::vector<bench_case>& cases);
