/// @file
/// Options and statistics shared by the device-wide algorithms.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace wgprim {

/// What one call measured.
struct run_stats {
  double gpu_ms = 0;          ///< GPU time of the algorithm's dispatches (timestamps, or wall time on CPU adapters)
  bool gpu_timestamps = false;  ///< whether gpu_ms came from GPU timestamps
  double upload_ms = 0;       ///< host-to-device copy (host-span overloads only)
  double download_ms = 0;     ///< device-to-host copy (host-span overloads only)
  std::string algorithm;      ///< the algorithm that ran
  std::uint64_t lookback_fallbacks = 0;  ///< decoupled scan / select: predecessor tiles reduced by a waiting workgroup
  double compile_ms = 0;      ///< pipelines created (WGSL compiled) by this call; never part of gpu_ms
};

/// Tuning knobs; zero / negative means "the default policy for this adapter".
struct tuning {
  std::uint32_t workgroups = 0;  ///< reduce: workgroups of the first pass
  std::uint32_t items = 0;       ///< vec4 loads per invocation per tile
  int subgroups = -1;            ///< 0: force the workgroup-memory path, 1: subgroups (when the adapter has them)
  int vec_loads = -1;            ///< reduce: 0 scalar loads consecutive across invocations, 1 vec4 loads
  int staged = -1;               ///< scan tile: 0 direct, 1 staged (workgroup memory), 2 raked (subgroups); select 1/0
  std::uint32_t small_n = 0;     ///< reduce: at or below this n, one dispatch of one workgroup
  std::uint32_t spin_limit = 0;  ///< decoupled scan: polls of a predecessor before computing its tile itself
  int exact_window = -1;         ///< exact f32 sums: 1 a per-invocation register window of limbs, 0 columns only
  std::uint32_t lookback_window = 0;  ///< onesweep sort, decoupled scan/select: predecessor states read at once (0: the policy)
  int lookback_subgroup = -1;  ///< decoupled scan and select: 1 subgroup 0 walks the look-back alone, 0 the workgroup (-1: policy)
};

/// Accuracy of f32 sums (other operators are exact or order-independent and ignore it).
enum class accuracy {
  fast,          ///< the algorithm's own tree: fastest; error bounded by gamma_h * sum|x|
  compensated,   ///< double-word (TwoSum) accumulation through the same fast algorithm. A bound, not bits:
                 ///< scans give |out[i] - exact prefix| <= ulp(exact prefix) + 2^-24 * (sum |x| over the
                 ///< prefix's current block of 256 elements) + 2^-40 * (sum |x| over the whole prefix).
  reproducible,  ///< the exact sum (an integer superaccumulator, wgprim/exact.hpp) rounded once to
                 ///< nearest-even: correctly rounded and the same bits on every adapter, backend, workgroup
                 ///< count, subgroup size, tile size, chunking, algorithm and partition of the data. Scans:
                 ///< every out[i] is the exact prefix sum rounded once (an exact zero is +0; NaN, or +inf with
                 ///< -inf, gives NaN from there on), fewer than 2^32 elements on a WebGPU device.
  exact = reproducible,  ///< the same mode under the name of what it computes
};
/// The accuracy mode's name as the CLI spells it ("fast", "compensated", "reproducible", "exact").
const char* accuracy_name(accuracy a);
/// Parses "fast" | "compensated" | "reproducible" | "exact"; throws wgprim::error otherwise.
accuracy parse_accuracy(const std::string& name);

/// partition only: the order of the rejected part (the kept part is always in input order).
enum class rejected_order {
  stable,    ///< input order after the kept elements, as std::stable_partition (GPUs count the kept ones first:
             ///< one more pass over the input)
  reversed,  ///< reverse input order, the first rejected element at out[n - 1] (n: the input's length), as
             ///< cub::DevicePartition::If: no counting pass first
};

/// Per-call options of every algorithm: the algorithm by name, the f32 accuracy mode, tuning overrides, and where to put what the call measured.
struct run_options {
  /// Algorithm name; empty picks the default for the adapter. See reduce_algorithms() / scan_algorithms().
  std::string algorithm;
  /// Where to report what was measured (may be null).
  run_stats* stats = nullptr;
  /// Measure GPU time with timestamp queries (slightly slower; implied when stats is set).
  bool timestamps = false;
  /// For f32 sums; see accuracy.
  wgprim::accuracy accuracy = wgprim::accuracy::fast;
  /// Custom operators are checked on the CPU twin before they run (identity neutral, associative, and commutative
  /// for reduce; see monoid::check). false skips the check, for operators known better than a random test.
  bool check_operator = true;
  /// partition: the order of the rejected elements (see rejected_order); other primitives ignore it.
  wgprim::rejected_order rejected = wgprim::rejected_order::stable;
  /// Overrides of the adapter's policy for this call (zero or -1 fields keep the policy's value).
  tuning tune;
};

/// One registered algorithm (`wgprim info` lists them; run_options::algorithm takes the name).
struct algorithm_description {
  /// The primitive ("reduce", "scan", ...), the algorithm's name and a one-line description.
  ///@{
  std::string primitive, name, about;
  ///@}
  /// Whether the algorithm is the primitive's default on GPU adapters and on CPU adapters.
  ///@{
  bool default_on_gpu = false, default_on_cpu = false;
  ///@}
};
/// Every algorithm of every primitive, from the library's registry.
std::vector<algorithm_description> algorithm_list();
/// The names of one primitive's algorithms ("reduce", "scan", ...).
std::vector<std::string> algorithms(const std::string& primitive);
/// The names of the reduce algorithms, in registry order.
std::vector<std::string> reduce_algorithms();
/// The names of the scan algorithms, in registry order.
std::vector<std::string> scan_algorithms();

}  // namespace wgprim
