// reduce and scan over the element types beyond f32/i32/u32 (f64, i64, u64; f16, u8, i8 accumulated in f32, u32,
// i32), and `--accumulate wide`.
#pragma once
#include <string>

#include "bench.hpp"
#include "wgprim/io.hpp"
#include "wgprim/wgprim.hpp"

struct typed_cli {
  std::string adapter, op, identity, algorithm, accuracy, output, output_format, accumulate;
  bool json = false, exclusive = false, no_check = false;
  wgprim::tuning tune;
  int repeat = 1;
};

/// Whether reduce/scan of `a` go through cmd_types (a type beyond f32/i32/u32, or --accumulate wide).
bool wants_typed(const wgprim::io::array& a, const std::string& accumulate);
int cmd_reduce_typed(const typed_cli& c, const wgprim::io::array& a);
int cmd_scan_typed(const typed_cli& c, const wgprim::io::array& a);
/// bench rows: f64 and i64 reduce and inclusive scan (sum), when the adapter has the features.
void add_types_bench_cases(wgprim::context& ctx, std::size_t n_max, const bench_wants& wants,
                           std::vector<bench_case>& cases);
