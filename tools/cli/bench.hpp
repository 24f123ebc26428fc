#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace CLI { class App; }
namespace wgprim { class context; }

#include "wgprim/wgprim.hpp"

struct bench_args {
  std::string adapter, primitives = "all", algorithm, output;
  // -1 (min_log2, reps, warmup, batch) and 0 (max_log2): not given, chosen for the adapter. The quick default
  // (under a minute anywhere): 2^10..2^13, 3 reps, 2 warm-ups, K = 4 on CPU adapters; 2^16..2^26, 5 reps, 2 warm-ups,
  // K = 10 on GPUs. --full: 2^16..2^24 (CPU adapters) or 2^28 (GPUs), 20 reps, 3 warm-ups, K = 50.
  int min_log2 = -1, max_log2 = 0;
  int reps = -1, warmup = -1;
  int batch = -1;         // K: calls per timed round of call_ms, and per submission of batched_ms
  bool full = false;      // the long sweep (the defaults above)
  bool quiet = false;     // no progress on stderr
  bool verbose = false;   // a line per case on stderr
  bool json = false;
  bool accuracy = false;  // the accuracy table instead of the speed sweep
  std::string plot, cub, from;
};

int cmd_bench(const bench_args& a);
int cmd_bench_accuracy(const bench_args& a);

/// One row family of the sweep: a primitive/algorithm/type/op, measured three ways at every n.
struct bench_case {
  std::string primitive, algorithm, type, op;
  double bytes_per_element;
  /// (c) one call with run_stats: returns its GPU ms (timestamps, or wall time on CPU adapters).
  std::function<double(std::size_t)> run;
  /// (a) one call of the host-returning overload, the result on the host when it returns (may be empty).
  std::function<void(std::size_t)> call;
  /// (b) the call recorded into an encoder (may be empty: not recordable).
  std::function<void(WGPUCommandEncoder, std::size_t)> record;
};

/// The buffers every case reads and writes (n_max elements each; `in` holds floats in [1, 2)).
struct bench_data {
  wgprim::buffer in, out, result;
};
/// Whether the command line asks for (primitive, algorithm).
using bench_wants = std::function<bool(const std::string& primitive, const std::string& algorithm)>;
using bench_filter = bench_wants;
// The sort subcommand and bench rows (tools/cli/cmd_sort.cpp).
CLI::App* add_sort_command(CLI::App& app);
int run_sort_command();
void add_sort_bench_cases(wgprim::context& ctx, std::size_t n_max, const bench_wants& wants,
                          std::vector<bench_case>& cases);
