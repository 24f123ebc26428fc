// The native CPU backend (issue 19): every primitive as multithreaded (oneTBB), vectorised host code, for
// machines without a GPU, where running the WGSL on a CPU adapter (lavapipe) is slower than a plain loop.
// A context runs it when context::backend() == backend_choice::native (see context_options::backend): its
// buffers are host memory (buffer::host_data()), it has no WebGPU device, and each primitive's type-erased entry
// point (detail::reduce_run, detail::scan_run, detail::copy_run, ...) calls through the context's table of
// operations (src/primitives/backend.hpp), whose native row (src/primitives/backends.cpp) lands here after the
// algorithm name was checked against the registry. This folder includes src/core and the public headers only.
// Adding a primitive: one function here, one file src/native/<primitive>.cpp, one row in the native table,
// and the native context in its tests. Ranges arrive as the entry point got them
// (device views of this context's host buffers, or the caller's host memory: no upload, no copy);
// host_in()/host_out() turn them into pointers. Built-in operators get specialised loops (ops.hpp); custom
// expressions run through the CPU twin's evaluator (monoid::combine), correct and slower.
// This header stays free of TBB and webgpu.h.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "wgprim/algorithm.hpp"
#include "wgprim/context.hpp"
#include "wgprim/device_vector.hpp"
#include "wgprim/exact.hpp"
#include "wgprim/kinds.hpp"
#include "wgprim/op.hpp"
#include "wgprim/predicate.hpp"
#include "wgprim/transform_reduce.hpp"

namespace wgprim::detail {
class expr_program;
}

namespace wgprim::detail::cpu_backend {

// The adapter a native context reports: describe_native_backend() (core/backend_hooks.hpp).
/// Worker threads the backend uses (oneTBB's default concurrency: the cores this process may run on).
unsigned threads();

// ---- the primitives: one function each ----

/// reduce: every accuracy mode; the result's bits (init combined in front when given). tr (may be null): the
/// transform of transform_reduce, applied to every element first (accuracy::fast only, as on the GPU).
std::uint32_t reduce(context& ctx, const range_ref& in, const monoid& m, const std::uint32_t* init,
                     const run_options& opt, const bound_transform* tr);
/// exact_sum: the superaccumulator of an f32 range (the same value as the GPU's: integer arithmetic).
superaccumulator exact_sum(context& ctx, const range_ref& in, const run_options& opt);
/// inclusive / exclusive scan with an optional init; in == out (in place) allowed, as on the GPU.
void scan(context& ctx, const range_ref& in, const range_ref& out, const monoid& m, scan_kind kind,
          const std::uint32_t* init, const run_options& opt);
/// The exact (accuracy::reproducible) f32 sum scan started from a whole accumulator `carry` (dist::scan's carry).
void scan_exact_carry(context& ctx, const range_ref& in, const range_ref& out, scan_kind kind,
                      const superaccumulator& carry, const run_options& opt);
/// copy between two device ranges of one native context.
void copy(context& ctx, const range_ref& in, const range_ref& out, const run_options& opt);
/// arg-min / arg-max (NumPy's rules: the first NaN, else the first extreme); in.count > 0 (checked by the caller).
arg_result<std::uint32_t> arg_reduce(context& ctx, const range_ref& in, dtype t, arg_op o, const run_options& opt);
/// select_if / select_flagged / partition / unique (select.cpp): the arguments as select_run checked them.
/// Returns the number kept; with `count`, that number lands in count[0] instead (and 0 is returned).
std::uint64_t select(context& ctx, const range_ref& in, const range_ref* flags, const range_ref& out,
                     const range_ref* count, select_mode mode, bool partition, dtype type,
                     const bound_predicate* pred, const run_options& opt);
/// The histogram with the dispatch layer's kernel edges (histogram.cpp in src/primitives/histogram): a value x
/// (not NaN) with key(edges[0]) <= key(x) <= key(edges[reach]) is counted in the last bin b < reach with
/// key(edges[b]) <= key(x), key() the order-preserving u32 map of the type (-0 as +0).
struct histogram_edges {
  const std::uint32_t* edges;  ///< reach + 1 values of the input type
  std::uint32_t reach;
  bool use_estimate;  ///< even bins: the bin is about (x - lo) * scale (f32) or (key - key(lo)) * scale: a guess
  float lo, scale;    ///< that the exact key comparisons then correct
};
void histogram(context& ctx, const range_ref& in, dtype t, const range_ref& counts, const histogram_edges& e,
               const run_options& opt);
/// Segmented reduce / scan (segmented.cpp), offsets as the caller gave them (checked here).
void segmented_reduce(context& ctx, const range_ref& in, const range_ref& offsets, const range_ref& out,
                      const monoid& m, const run_options& opt);
void segmented_scan(context& ctx, const range_ref& in, const range_ref& offsets, const range_ref& out,
                    const monoid& m, scan_kind kind, const run_options& opt);
/// reduce_by_key (values != null) and run_length_encode (values == null: counts); returns the runs; runs_out
/// (may be null) gets the count too.
std::uint64_t reduce_by_key(context& ctx, const range_ref& keys, dtype key_type, const range_ref* values,
                            const range_ref& unique_keys, const range_ref& sums, const monoid& m,
                            const range_ref* runs_out, const run_options& opt);
/// Stable LSD radix sort (sort.cpp), keys and optional values; in == out allowed. Only bits [begin_bit, end_bit)
/// of the ordered key are compared (checked by the caller: 0 <= begin_bit < end_bit <= 32).
void sort(context& ctx, const range_ref& keys_in, const range_ref& keys_out, const range_ref* vals_in,
          const range_ref* vals_out, dtype key_type, order ord, unsigned begin_bit, unsigned end_bit,
          const run_options& opt);
/// Segmented sort (sort.cpp): every segment [off[s], off[s + 1]) of keys (and values) sorted in place, stably, in
/// the sort's order; the offsets are on the host and already checked (segs + 1 of them, non-decreasing, <= n).
void segmented_sort(context& ctx, const range_ref& keys, const range_ref* vals, const std::uint32_t* off,
                    std::uint64_t segs, dtype key_type, order ord, unsigned begin_bit, unsigned end_bit,
                    const run_options& opt);
/// The comparator sort (sort.cpp): keys (and values) in place by a checked comparator expression, stably.
void sort_less(context& ctx, const range_ref& keys, const range_ref* vals, const expr_program& less,
               const run_options& opt);
/// The digit passes the last sort on this thread ran on `ctx` (testing::sort_passes_run).
std::vector<unsigned> sort_passes_run(const context& ctx);

/// The error of a WebGPU-only call (recording into a caller's WGPUCommandEncoder) on a native context.
[[noreturn]] void no_encoder(const char* primitive);

/// The exact sum of n f32 values as a superaccumulator, over the oneTBB threads (exact.cpp); accuracy::reproducible
/// rounds it once, as the GPU does.
superaccumulator exact_sum_f32(const float* x, std::size_t n);

// ---- shared by the files of this folder ----

/// Host pointer of an input / output range (a view of one of ctx's buffers, or host memory); `what` names the
/// argument in errors (a view of a WGPUBuffer wrapped with device_span::wrap has no host memory: unsupported).
const std::uint32_t* host_in(const context& ctx, const range_ref& r, const char* what);
std::uint32_t* host_out(const context& ctx, const range_ref& r, const char* what);
/// Fills run_options::stats: wall time of the work, algorithm name.
void fill(const run_options& opt, double ms, const std::string& algorithm);

}  // namespace wgprim::detail::cpu_backend
