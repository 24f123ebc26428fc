/// @file
/// Several adapters in one process: one array split across contexts on several adapters (or several contexts on one
/// adapter), each part run by its own thread, combined as the MPI ranks combine theirs (wgprim/distributed.hpp,
/// through an in-process communicator). The split is proportional to each context's measured speed.
///
/// @code
///   auto set = wgprim::multi::open("all");           // every GPU adapter ("all"), or "NAME,NAME,#2,..."
///   wgprim::multi::measure(set);                      // relative speeds -> the split
///   float s = wgprim::multi::reduce(set, values);     // values: a host vector
///   std::vector<float> run = wgprim::multi::inclusive_scan(set, values);
///   std::vector<float> sorted = wgprim::multi::sort(set, values);
/// @endcode
/// @namespace wgprim::multi
/// The distributed algorithms over several adapters of one process.
#pragma once
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "wgprim/distributed.hpp"

namespace wgprim::multi {

/// Runs fn(rank, comm) on k threads at once, each with the in-process communicator of one group of k (every
/// collective waits at most timeout_s for the others: errc::timeout). Rethrows rank 0's exception (after agree()
/// every rank has the same one), else the first.
void run(int k, const std::function<void(int rank, communicator& comm)>& fn, double timeout_s = 600);

/// A set of contexts and their relative speeds (the weights of the split).
struct device_set {
  /// One context per adapter, in the order opened.
  std::vector<context> contexts;
  std::vector<double> speed;  ///< elements per ms of a u32 sum reduce (measure()); all 1 until measured
};

/// "all": every adapter that is not a CPU one (every adapter when there is only CPU ones); else a comma-separated
/// list of adapter names (case-insensitive substrings) or "#K" indices into context::enumerate_adapters(); a name
/// may repeat (two contexts on one adapter). Throws errc::no_adapter / invalid_argument.
device_set open(const std::string& adapters, double timeout_s = 120);
/// Measures every context's speed on a u32 sum of n elements (0: 2^24 on GPUs, 2^20 on CPU adapters), one
/// context at a time, the best of three runs after a warm-up.
void measure(device_set& set, std::size_t n = 0);
/// n elements split proportionally to the weights (consecutive parts, in order; the rounding goes to the last).
std::vector<std::size_t> split(std::size_t n, const std::vector<double>& weights);

namespace detail {
template <class F>
void run_parts(device_set& set, std::size_t n, F&& body) {
  const std::vector<std::size_t> count = split(n, set.speed);
  std::vector<std::size_t> first(count.size(), 0);
  for (std::size_t i = 1; i < count.size(); ++i) first[i] = first[i - 1] + count[i - 1];
  run(static_cast<int>(set.contexts.size()),
      [&](int r, communicator& c) { body(set.contexts[r], c, first[r], count[r], r); });
}
}  // namespace detail

/// The reduction of `in` over every context of the set (f32 reproducible sums: the same bits as one context).
template <class T>
T reduce(device_set& set, const std::vector<T>& in, const op& o = op::sum(), const run_options& opt = {},
         std::vector<dist_stats>* stats = nullptr) {
  std::vector<T> result(set.contexts.size());
  if (stats) stats->assign(set.contexts.size(), {});
  detail::run_parts(set, in.size(), [&](context& ctx, communicator& c, std::size_t first, std::size_t n, int r) {
    result[r] = dist::reduce(ctx, c, host_span<const T>(in.data() + first, n), o, opt, stats ? &(*stats)[r] : nullptr);
  });
  return result.empty() ? T{} : result[0];
}

/// The scan of `in` over every context of the set: each scans its part, seeded with the combined totals before it.
template <class T>
std::vector<T> scan(device_set& set, const std::vector<T>& in, scan_kind kind, const op& o = op::sum(),
                    const run_options& opt = {}, std::vector<dist_stats>* stats = nullptr) {
  std::vector<T> out(in.size());
  if (stats) stats->assign(set.contexts.size(), {});
  detail::run_parts(set, in.size(), [&](context& ctx, communicator& c, std::size_t first, std::size_t n, int r) {
    dist::scan(ctx, c, host_span<const T>(in.data() + first, n), host_span<T>(out.data() + first, n), kind, o, opt,
               stats ? &(*stats)[r] : nullptr);
  });
  return out;
}
/// The inclusive scan of `in`, split across the set's adapters.
template <class T>
std::vector<T> inclusive_scan(device_set& set, const std::vector<T>& in, const op& o = op::sum(),
                              const run_options& opt = {}, std::vector<dist_stats>* stats = nullptr) {
  return scan(set, in, scan_kind::inclusive, o, opt, stats);
}
/// The exclusive scan of `in`, split across the set's adapters.
template <class T>
std::vector<T> exclusive_scan(device_set& set, const std::vector<T>& in, const op& o = op::sum(),
                              const run_options& opt = {}, std::vector<dist_stats>* stats = nullptr) {
  return scan(set, in, scan_kind::exclusive, o, opt, stats);
}

/// Stable sort of `in` in order `o` over every context of the set (a sample sort between them): the same result as
/// the one-process wgprim::sort.
template <class T>
std::vector<T> sort(device_set& set, const std::vector<T>& in, order o = order::ascending,
                    const run_options& opt = {}, std::vector<dist_stats>* stats = nullptr) {
  const int k = static_cast<int>(set.contexts.size());
  std::vector<std::vector<T>> parts(k);
  if (stats) stats->assign(k, {});
  detail::run_parts(set, in.size(), [&](context& ctx, communicator& c, std::size_t first, std::size_t n, int r) {
    const std::vector<T> mine(in.begin() + first, in.begin() + first + n);
    parts[r] = dist::sort(ctx, c, mine, o, opt, stats ? &(*stats)[r] : nullptr);
  });
  std::vector<T> out;
  out.reserve(in.size());
  for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}
/// sort with run_options and the default (ascending) order.
template <class T>
std::vector<T> sort(device_set& set, const std::vector<T>& in, const run_options& opt,
                    std::vector<dist_stats>* stats = nullptr) {
  return multi::sort(set, in, order::ascending, opt, stats);
}

}  // namespace wgprim::multi
