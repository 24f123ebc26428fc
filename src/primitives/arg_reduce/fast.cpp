// The fast arg reduce: the fast reduce's shape (vec4 loads, a grid sized to fill the GPU, subgroup trees, one
// dispatch for small n) over (value, index) pairs; a second dispatch of one workgroup folds the partial pairs.
// Arrays larger than one storage binding run chunk by chunk, each chunk's first index passed as a 64-bit base.
#include <algorithm>

#include <memory>

#include "core/wgsl_compose.hpp"
#include "primitives/view.hpp"
#include "primitives/arg_reduce/arg_reduce.hpp"
#include "primitives/arg_reduce/policy.hpp"
#include "primitives/reduce/policy.hpp"
#include "primitives/policy.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

struct arg_params {
  std::uint32_t n, n_vec, out_offset, finish, base_lo, base_hi, pad0, pad1;
};
static_assert(sizeof(arg_params) == 32);
namespace {
const std::vector<slot> arg_layout = {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_read,
                                      slot::storage_rw};
}
const kernel_spec arg_reduce_partials_spec{"arg_reduce/fast.wgsl", "arg_partials", arg_layout, sizeof(arg_params)};
const kernel_spec arg_reduce_final_spec{"arg_reduce/fast.wgsl", "arg_final", arg_layout, sizeof(arg_params)};

arg_reduce_policy arg_reduce_policy_for(const context& ctx, const tuning& t) {
  // The reduce's lavapipe choices on CPU adapters (the table, primitives/policy.cpp).
  arg_reduce_policy p = policy_for(ctx).arg_reduce;
  apply_walk_tuning(p, ctx, t, "arg reduce");
  return p;
}

void record_arg_reduce_fast(recorder& rec, const arg_reduce_args& a) {
  context& ctx = rec.ctx();
  const std::uint64_t n = a.in.count;
  arg_reduce_policy pol = arg_reduce_policy_for(ctx, a.opt->tune);
  // A fused view is computed in the tile walk's load (tile/load.wgsl): scalar loads.
  const view_desc* view = view_fused(a.view) ? a.view : nullptr;
  if (view) pol.vec_loads = false;
  wgsl_constants constants{{"WG_SIZE", std::to_string(pol.wg_size) + "u"},
                           {"ITEMS", std::to_string(pol.items) + "u"},
                           {"VEC_LOADS", pol.vec_loads ? "true" : "false"},
                           {"LOAD_FIRST", "false"},
                           {"IS_MAX", a.op == arg_op::max ? "true" : "false"},
                           {"IS_F32", a.type == dtype::f32 ? "true" : "false"},
                           {"IS_I32", a.type == dtype::i32 ? "true" : "false"}};
  for (auto& c : view_constants(view)) constants.push_back(c);
  const std::string& source = compose_wgsl_with_prelude(
      arg_reduce_partials_spec.file, std::string("alias E = ") + dtype_name(a.type) + ";",
      constants,
      {"arg_reduce/pair.wgsl", lanes_module(pol.subgroups)});
  // Our own kernel, every index checked against n or inside a whole tile.
  const kernel& k_partials = get_kernel(ctx, arg_reduce_partials_spec, source, /*trusted=*/true);
  const kernel& k_final = get_kernel(ctx, arg_reduce_final_spec, source, /*trusted=*/true);
  const std::uint64_t tile = std::uint64_t(pol.wg_size) * pol.items * 4;
  // Workspaces kept by the context (no allocation, and no zero-fill by wgpu, per call).
  const buffer& dummy = scratch(ctx, "arg_reduce.dummy", 32);
  auto vec_binding = [&](std::uint64_t first, std::uint64_t count) {
    return bind_vec4(a.in, first, count, dummy);
  };
  const binding result{a.result, 0, a.result_bytes};
  auto params = [](std::uint64_t count, std::uint32_t out_offset, bool finish, std::uint64_t base) {
    return arg_params{static_cast<std::uint32_t>(count), static_cast<std::uint32_t>(count / 4), out_offset,
                      finish ? 1u : 0u, static_cast<std::uint32_t>(base), static_cast<std::uint32_t>(base >> 32),
                      0, 0};
  };

  const std::uint64_t per_binding = elements_per_binding(ctx);
  if (n <= pol.small_n && n <= per_binding) {
    if (view) {
      const bound_view bv(ctx, *view, {chunk{0, n}});
      rec.dispatch(k_partials,
                   {rec.params(params(n, a.result_word, true, 0)), bv.slot1(0, bind(view_of(dummy))), bv.src(0),
                    bind(view_of(dummy)), result},
                   1);
      return;
    }
    rec.dispatch(k_partials,
                 {rec.params(params(n, a.result_word, true, 0)), vec_binding(0, n), bind(a.in), bind(view_of(dummy)),
                  result},
                 1);
    return;
  }
  const reduction_grid grid = reduction_grid_for(n, per_binding, tile, pol.max_groups);
  const auto& parts = grid.parts;
  const std::uint64_t total_groups = grid.total;
  if (total_groups > 0xffffffffull / 4) throw error(errc::limit, "arg reduce: too many partial results");
  const buffer& partials = scratch(ctx, "arg_reduce.partials", total_groups * 16);
  std::uint64_t slot_offset = 0;
  const std::unique_ptr<bound_view> bv = view ? std::make_unique<bound_view>(ctx, *view, parts) : nullptr;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const chunk& c = parts[p];
    const std::uint32_t g = grid.groups[p];
    rec.dispatch(k_partials,
                 {rec.params(params(c.count, static_cast<std::uint32_t>(slot_offset), false, c.first)),
                  bv ? bv->slot1(p, bind(view_of(dummy))) : vec_binding(c.first, c.count),
                  bv ? bv->src(p) : bind(a.in, c.first, c.count), bind(view_of(dummy)), bind(view_of(partials))},
                 g);
    slot_offset += g;
  }
  rec.dispatch(k_final,
               {rec.params(params(total_groups, a.result_word, true, 0)), bind(view_of(dummy)), bind(view_of(dummy)),
                bind(view_of(partials)), result},
               1);
}

}  // namespace wgprim::detail
