// The reduce primitive's record function and the algorithms behind it (one .cpp each).
#pragma once
#include <memory>
#include <vector>

#include "primitives/primitive.hpp"
#include "primitives/view.hpp"
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

/// The tile pass of the fast and exact sums (their kernels share the bindings: parameters, the vec4 view or binding
/// 1 of a view, the input or the view's src, the output): one dispatch per chunk of `parts` with `groups[p]`
/// workgroups, over a.in or the fused view (may be null), writing `out` from element `first` on (each workgroup one
/// partial; one workgroup with the result's index writes the result). params(count, first) makes a dispatch's
/// parameters, vec(in, first, count) its vec4 binding; `dummy` fills binding 1 where a view has no indices.
template <class Params, class Vec>
void record_reduce_tiles(recorder& rec, const kernel& k, const reduce_args& a, const view_desc* view,
                         const std::vector<chunk>& parts, const std::vector<std::uint32_t>& groups,
                         std::uint64_t first, const binding& out, const buffer& dummy, Params params, Vec vec) {
  const std::unique_ptr<bound_view> bv = view ? std::make_unique<bound_view>(rec.ctx(), *view, parts) : nullptr;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const chunk& c = parts[p];
    if (bv)
      rec.dispatch(k, {rec.params(params(c.count, first)), bv->slot1(p, bind(view_of(dummy))), bv->src(p), out},
                   groups[p]);
    else
      rec.dispatch(k, {rec.params(params(c.count, first)), vec(a.in, c.first, c.count), bind(a.in, c.first, c.count),
                       out},
                   groups[p]);
    first += groups[p];
  }
}

}  // namespace wgprim::detail
