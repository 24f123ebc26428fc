// The single-dispatch reduce: the fast reduce's tile walk, then the last workgroup to arrive folds the partials
// (shaders/reduce/single.wgsl: epoch-tagged partial words, bounded polling, recomputation instead of waiting).
// One dispatch per call instead of two. Compensated sums (pairs), inputs past one binding and n at or below the
// policy's small_n (already one dispatch of one workgroup) take the fast reduce.
#include <algorithm>

#include "core/wgsl_compose.hpp"
#include "primitives/view.hpp"
#include "primitives/reduce/policy.hpp"
#include "primitives/reduce/reduce.hpp"

namespace wgprim::detail {

struct single_params {
  std::uint32_t n, n_vec, out_offset, epoch, spin_limit, stress, pad0, pad1;
};
static_assert(sizeof(single_params) == 32);
const kernel_spec reduce_single_spec{
    "reduce/single.wgsl", "reduce",
    {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_rw, slot::storage_rw}, sizeof(single_params)};

namespace {
constexpr std::uint32_t max_single_groups = 1024;  // MAX_GROUPS in the shader
}

void record_reduce_single(recorder& rec, const reduce_args& a) {
  context& ctx = rec.ctx();
  const monoid& m = *a.m;
  const std::uint64_t n = a.in.count;
  const reduce_policy pol = reduce_policy_for(ctx, a.opt->tune);
  // The published partials are 32-bit words (single.wgsl): 64-bit monoids take the fast reduce's two passes.
  if (a.pairs() || a.exact() || is_wide(m.type()) || n <= pol.small_n || n > elements_per_binding(ctx))
    return record_reduce_fast(rec, a);
  // A fused view is computed in the load (tile/load.wgsl): scalar loads.
  const view_desc* view = view_fused(a.view) ? a.view : nullptr;
  auto compose = [&]() -> const std::string& {
    wgsl_constants constants{{"WG_SIZE", std::to_string(pol.wg_size) + "u"},
                             {"ITEMS", std::to_string(pol.items) + "u"},
                             {"VEC_LOADS", pol.vec_loads && !view ? "true" : "false"},
                             {"LOAD_FIRST", "false"}};
    for (auto& c : view_constants(view)) constants.push_back(c);
    return compose_wgsl(reduce_single_spec.file, m, constants, {lanes_module(pol.subgroups)}, accum::plain, false,
                        a.transform);
  };
  // Without a view or a transform, a short key finds the text again (as record_reduce_fast's).
  const std::uint64_t id = m.identity_raw();
  const std::string& source =
      view || a.transform
          ? compose()
          : memo_text({&reduce_single_spec,
                       {static_cast<std::uint32_t>(m.type()), static_cast<std::uint32_t>(id),
                        static_cast<std::uint32_t>(id >> 32), pol.wg_size, pol.items, pol.vec_loads, pol.subgroups},
                       m.wgsl_expression()},
                      compose);
  const auto& k = get_kernel(ctx, reduce_single_spec, source, /*trusted=*/m.is_builtin() && !a.transform);
  const std::uint64_t tile = std::uint64_t(pol.wg_size) * pol.items * 4;
  const auto groups = static_cast<std::uint32_t>(std::max<std::uint64_t>(
      1, std::min<std::uint64_t>({pol.max_groups, max_single_groups, (n + tile - 1) / tile})));
  const buffer& state = scratch(ctx, "reduce.single", (2 + 4 * max_single_groups) * 4);
  bool restarted = false;
  const std::uint32_t epoch = next_epoch(ctx, "reduce.single", restarted);
  // After 2^24 - 1 calls the epochs start again: words of an old call must not pass for this one's.
  if (restarted) rec.clear(state, 0, state.size_bytes());
  const bool stress = lookback_stress(ctx);
  const buffer& dummy = scratch(ctx, "reduce.dummy", 32);
  const binding vec = n / 4 ? binding{a.in.buf, a.in.offset, n / 4 * 16} : bind(view_of(dummy));
  const single_params p{static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(n / 4), a.result_index, epoch,
                        stress ? 0u : (ctx.adapter().kind == adapter_kind::cpu ? 16u : 1024u), stress ? 1u : 0u, 0, 0};
  if (view) {
    const bound_view bv(ctx, *view, {chunk{0, n}});
    rec.dispatch(k, {rec.params(p), bv.slot1(0, bind(view_of(dummy))), bv.src(0), bind_result(a), bind(view_of(state))},
                 groups);
    return;
  }
  rec.dispatch(k, {rec.params(p), vec, bind(a.in), bind_result(a), bind(view_of(state))}, groups);
}

}  // namespace wgprim::detail
