// The rows of `wgprim bench` (cmd_bench.cpp): every file with bench rows adds them through one function declared
// here, next to its command.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "wgprim/wgprim.hpp"

/// One row family of the sweep: a primitive/algorithm/type/op, measured three ways at every n.
struct bench_case {
  std::string primitive, algorithm, type, op;
  double bytes_per_element;
  /// (c) one call with run_stats: returns its GPU ms (timestamps, or wall time on CPU adapters).
  std::function<double(std::size_t)> run = nullptr;
  /// (a) one call of the host-returning overload, the result on the host when it returns (may be empty).
  std::function<void(std::size_t)> call = nullptr;
  /// (b) the call recorded into an encoder (may be empty: not recordable).
  std::function<void(WGPUCommandEncoder, std::size_t)> record = nullptr;
  /// Untimed, before every (a) call, finished when it returns (may be empty): an in-place primitive's input made
  /// again (the segmented and comparator sorts), which CUB's out-of-place anchors do not pay.
  std::function<void(std::size_t)> prepare = nullptr;
  /// Sizes below this have no row (the segmented sort's segments of 1,000 need n >= 1,000: fewer keys make no
  /// segment, nothing to time).
  std::size_t min_n = 0;
};

/// The extra rows the command line asks for, each a comma-separated list (empty: none): --scan-tunes
/// (decoupled-scan tunings), --sort-tunes (onesweep tunings), --sort-bits (bit ranges of the sort rows).
struct bench_variants {
  std::string scan_tunes, sort_tunes, sort_bits;
};
const bench_variants& bench_variants_asked();

/// Whether the command line asks for (primitive, algorithm).
using bench_wants = std::function<bool(const std::string& primitive, const std::string& algorithm)>;

/// select_if f32 (floats in +-500, a > 0), select_flagged u32, partition_if f32 and unique u32 (runs of 20), with
/// the data of bench/cub/cub_bench.cu (cmd_select.cpp).
void add_select_bench_cases(wgprim::context& ctx, std::size_t n_max, const bench_wants& wants,
                            std::vector<bench_case>& cases);
/// sort_keys and sort_pairs (cmd_sort.cpp).
void add_sort_bench_cases(wgprim::context& ctx, std::size_t n_max, const bench_wants& wants,
                          std::vector<bench_case>& cases);
/// arg_max f32 (primitive name as in bench/cub) (reduce_arg.cpp).
void add_arg_reduce_bench_cases(wgprim::context& ctx, const wgprim::buffer& in, const bench_wants& wants,
                                std::vector<bench_case>& cases);
/// transform_reduce f32, the sum of squares (reduce_transform.cpp).
void add_transform_reduce_bench_cases(wgprim::context& ctx, const wgprim::buffer& in, const bench_wants& wants,
                                      std::vector<bench_case>& cases);
/// f64 and i64 reduce and inclusive scan (sum), when the adapter has the features (reduce_scan_typed.cpp).
void add_types_bench_cases(wgprim::context& ctx, std::size_t n_max, const bench_wants& wants,
                           std::vector<bench_case>& cases);
/// histogram_even, segmented_reduce, segmented_scan, reduce_by_key, run_length_encode (segmented.cpp).
void add_hist_bench_cases(wgprim::context& ctx, std::size_t n_max, std::vector<bench_case>& cases,
                          const bench_wants& wants);
