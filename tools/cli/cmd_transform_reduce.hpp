// wgprim reduce --transform EXPR: transform-reduce / count-if, and the transform_reduce bench row.
#pragma once
#include <string>
#include <vector>

#include "bench.hpp"
#include "wgprim/io.hpp"
#include "wgprim/wgprim.hpp"

struct transform_reduce_cli {
  std::string adapter, transform, op, identity, algorithm, accuracy, plot;
  bool json = false;
  wgprim::tuning tune;
  int repeat = 1;
};

int cmd_transform_reduce(const transform_reduce_cli& a, const wgprim::io::array& data);
/// Adds the transform_reduce f32 row (sum of squares; primitive name as in bench/cub) when `wants` accepts it.
void add_transform_reduce_bench_cases(wgprim::context& ctx, const wgprim::buffer& in, const bench_wants& wants,
                                      std::vector<bench_case>& cases);
