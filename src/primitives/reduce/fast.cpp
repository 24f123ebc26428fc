// The fast reduce: vec4 loads, a grid sized to fill the GPU (not more), subgroup reductions, and a single
// dispatch of one workgroup for small n. With double-word accumulation (compensated f32 sums) the partials and
// the result are (hi, lo) pairs, and the pass over the partials uses a module whose elements are pairs too.
#include <algorithm>
#include <memory>

#include "core/wgsl_compose.hpp"
#include "primitives/policy.hpp"
#include "primitives/reduce/policy.hpp"
#include "primitives/reduce/reduce.hpp"
#include "primitives/view.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

struct reduce_params {
  std::uint32_t n, n_vec, out_offset, pad0;
};
static_assert(sizeof(reduce_params) == 16);
const kernel_spec reduce_fast_spec{"reduce/fast.wgsl", "reduce",
                                   {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_rw},
                                   sizeof(reduce_params)};

reduce_policy reduce_policy_for(const context& ctx, const tuning& t) {
  // CPU adapters: fewer workgroups, scalar loads, a larger single dispatch (measured, primitives/policy.cpp).
  reduce_policy p = policy_for(ctx).reduce;
  apply_walk_tuning(p, ctx, t, "reduce");
  return p;
}

void record_reduce_fast(recorder& rec, const reduce_args& a) {
  context& ctx = rec.ctx();
  const monoid& m = *a.m;
  const std::uint64_t n = a.in.count;
  reduce_policy pol = reduce_policy_for(ctx, a.opt->tune);
  // 64-bit values through subgroup shuffles need Vulkan's shaderSubgroupExtendedTypes, which wgpu does not
  // request: 64-bit reductions meet in workgroup memory.
  if (is_wide(m.type())) pol.subgroups = false;
  // A fused view is computed in the load: scalar loads through load_input (tile/load.wgsl).
  const view_desc* view = view_fused(a.view) ? a.view : nullptr;
  if (view) pol.vec_loads = false;
  const std::uint32_t eb = dtype_bytes(m.type());
  const bool dw = a.pairs();
  const accum acc = dw ? accum::double_word : accum::plain;
  auto module = [&](bool vec_loads, bool elements_are_accumulators) -> const std::string& {
    const view_desc* v = elements_are_accumulators ? nullptr : view;
    const bound_transform* tr = elements_are_accumulators ? nullptr : a.transform;
    auto compose = [&]() -> const std::string& {
      wgsl_constants constants{{"WG_SIZE", std::to_string(pol.wg_size) + "u"},
                               {"ITEMS", std::to_string(pol.items) + "u"},
                               {"VEC_LOADS", vec_loads ? "true" : "false"},
                               {"LOAD_FIRST", "false"}};
      for (auto& c : view_constants(v)) constants.push_back(c);
      return compose_wgsl(reduce_fast_spec.file, m, constants, {lanes_module(pol.subgroups)}, acc,
                          elements_are_accumulators, tr);
    };
    if (v || tr) return compose();
    // Otherwise the text depends on these alone (the monoid: its type, identity and WGSL): a repeat call, the
    // per-call cost of issue #24, builds no constants and no composition key (~4 us on lavapipe's host).
    const std::uint64_t id = m.identity_raw();
    return memo_text({&reduce_fast_spec,
                      {static_cast<std::uint32_t>(m.type()), static_cast<std::uint32_t>(id),
                       static_cast<std::uint32_t>(id >> 32), pol.wg_size, pol.items, vec_loads,
                       elements_are_accumulators, static_cast<std::uint32_t>(acc), pol.subgroups},
                      m.wgsl_expression()},
                     compose);
  };
  // A transform is a user expression: never trusted. The pass over the partials folds accumulators, with no
  // transform (they are already transformed).
  const auto& k = get_kernel(ctx, reduce_fast_spec, module(pol.vec_loads, false),
                             /*trusted=*/m.is_builtin() && !a.transform);
  const auto& k_partials =
      dw ? get_kernel(ctx, reduce_fast_spec, module(false, true), /*trusted=*/true)
         : a.transform || view ? get_kernel(ctx, reduce_fast_spec, module(pol.vec_loads, true), m.is_builtin())
                               : k;
  const std::uint64_t acc_bytes = dw ? 8 : eb;
  const std::uint64_t tile = std::uint64_t(pol.wg_size) * pol.items * 4;
  const buffer& dummy = scratch(ctx, "reduce.dummy", 32);
  auto vec_binding = [&](const device_view& v, std::uint64_t first, std::uint64_t count) {
    return bind_vec4(v, first, count, dummy, eb);
  };
  auto params = [](std::uint64_t count, std::uint64_t offset) {
    return reduce_params{static_cast<std::uint32_t>(count), static_cast<std::uint32_t>(count / 4),
                         static_cast<std::uint32_t>(offset), 0};
  };

  if (n <= pol.small_n) {
    record_reduce_tiles(rec, k, a, view, {chunk{0, n}}, {1}, a.result_index, bind_result(a), dummy, params, vec_binding);
    return;
  }
  const reduction_grid grid = reduction_grid_for(n, elements_per_binding(ctx, eb), tile, pol.max_groups);
  const std::uint64_t total_groups = grid.total;
  const buffer& partials = scratch(ctx, "reduce.partials", std::max<std::uint64_t>(16, total_groups * acc_bytes));
  record_reduce_tiles(rec, k, a, view, grid.parts, grid.groups, 0, bind(view_of(partials)), dummy, params, vec_binding);
  const device_view pv = view_of(partials, total_groups, static_cast<std::uint32_t>(acc_bytes));
  if (dw)
    rec.dispatch(k_partials, {rec.params(params(total_groups, a.result_index)), bind(view_of(dummy)), bind(pv),
                              bind_result(a)},
                 1);
  else
    rec.dispatch(k_partials, {rec.params(params(total_groups, a.result_index)), vec_binding(pv, 0, total_groups),
                              bind(pv), bind_result(a)},
                 1);
}

}  // namespace wgprim::detail
