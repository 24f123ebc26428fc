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

/// One row of the speed sweep: GB/s = bytes_per_element * n / time.
struct bench_case {
  std::string primitive, algorithm, type, op;
  double bytes_per_element;
  std::function<double(std::size_t)> run;  // returns GPU ms of one run
};
