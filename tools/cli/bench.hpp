#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace CLI { class App; }
namespace wgprim { class context; }

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

// The sort subcommand and bench rows (tools/cli/cmd_sort.cpp).
CLI::App* add_sort_command(CLI::App& app);
int run_sort_command();
struct sort_bench_row {
  std::string primitive, algorithm, type;
  double bytes_per_element;  // keys (and values) read and written once: the minimum traffic of a sort
  std::function<double(std::size_t)> run;  // GPU ms of one run at n
};
std::vector<sort_bench_row> sort_bench_rows(wgprim::context& ctx, std::size_t n_max,
                                            const std::function<bool(const std::string&, const std::string&)>& wants);
