// wgprim reduce --op argmin|argmax, and the arg_max bench row.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "bench.hpp"
#include "wgprim/io.hpp"
#include "wgprim/wgprim.hpp"

struct arg_reduce_cli {
  std::string adapter, op, algorithm;
  bool json = false;
  wgprim::tuning tune;
  int repeat = 1;
  std::string identity, accuracy, plot;  // not for argmin/argmax: rejected when given
};

bool is_arg_reduce_op(const std::string& op);
int cmd_arg_reduce(const arg_reduce_cli& a, const wgprim::io::array& data);
/// Adds the arg_max f32 row (primitive name as in bench/cub) when `wants` accepts it.
void add_arg_reduce_bench_cases(wgprim::context& ctx, const wgprim::buffer& in, const bench_wants& wants,
                                std::vector<bench_case>& cases);
