// The reduce primitive's record function and the algorithms behind it (one .cpp each).
#pragma once
#include "primitives/primitive.hpp"
#include "wgprim/op.hpp"
#include "wgprim/transform_reduce.hpp"
#include "wgprim/view.hpp"

namespace wgprim::detail {

struct reduce_args {
  device_view in;             // bindable (aligned); n = in.count > 0
  const monoid* m;
  WGPUBuffer result;          // the result lands in element result_index of this buffer (bound whole)
  std::uint64_t result_bytes;
  std::uint32_t result_index;
  const run_options* opt;
  const bound_transform* transform = nullptr;  // applied to every element in the load (fast algorithm only)
  const view_desc* view = nullptr;  // a fused view (view_fused), bindable: what the load reads; in.count = its size
  const algorithm_entry* alg = nullptr;  // what the call resolved (resolve_reduce); null: record_reduce resolves it
  bool pairs() const;         // double-word accumulation (compensated): the result is a (hi, lo) pair of f32
  bool exact() const;         // superaccumulator (reproducible): the result is superaccumulator::words
};

/// Records the reduction of args.in into result[result_index] (a pair when args.pairs(), 14 words when
/// args.exact(): result_index counts in units of the result's size). Runs args.alg, else resolve_reduce's.
void record_reduce(recorder& rec, const reduce_args& args);
/// The algorithm of a reduce, from the registry: the accuracy mode's path, run_options::algorithm, or the
/// adapter's default for args.in.count elements.
const algorithm_entry& resolve_reduce(const context& ctx, const reduce_args& args);

// The algorithms.
void record_reduce_fast(recorder& rec, const reduce_args& a);
void record_reduce_single(recorder& rec, const reduce_args& a);
void record_reduce_seed(recorder& rec, const reduce_args& a);
void record_reduce_exact(recorder& rec, const reduce_args& a);
void record_reduce_render(recorder& rec, const reduce_args& a);

// The kernel contracts (kernel_specs() lists them for the tests).
extern const kernel_spec reduce_fast_spec, reduce_single_spec, reduce_seed_spec, reduce_exact_spec, reduce_exact_combine_spec;

/// reduce_bits / reduce_record with an optional transform (transform_reduce).
/// view (may be null): a fused view (view_fused) read instead of `in`, whose count and type are the view's.
std::uint64_t reduce_run(context& ctx, const range_ref& in, const monoid& m, const std::uint64_t* init,
                         const run_options& opt, const bound_transform* tr, const view_desc* view = nullptr);
void reduce_record_run(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& result,
                       const monoid& m, const run_options& opt, const bound_transform* tr);

/// The whole result buffer as a binding.
inline binding bind_result(const reduce_args& a) { return {a.result, 0, a.result_bytes}; }

}  // namespace wgprim::detail
