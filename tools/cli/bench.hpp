#pragma once
#include <cstddef>
#include <functional>
#include <string>

struct bench_args {
  std::string adapter, primitives = "all", algorithm, output;
  int min_log2 = 16, max_log2 = 0;  // 0: 24 on CPU adapters, 28 on GPUs
  int reps = 20, warmup = 3;
  bool json = false;
  bool accuracy = false;  // the accuracy table instead of the speed sweep
  std::string plot, cub, from;
};

int cmd_bench(const bench_args& a);
int cmd_bench_accuracy(const bench_args& a);

/// One row kind of `wgprim bench`: run(n) returns the GPU ms of one run.
struct bench_case {
  std::string primitive, algorithm, type, op;
  double bytes_per_element;
  std::function<double(std::size_t)> run;
};
/// Whether the user asked for this primitive and algorithm (--primitives, --algorithm).
using bench_filter = std::function<bool(const std::string& primitive, const std::string& algorithm)>;
