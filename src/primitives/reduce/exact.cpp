// The exact f32 sum (accuracy::reproducible): a grid of workgroups accumulates integer superaccumulators
// (shaders/reduce/exact.wgsl), one partial per workgroup and chunk, and one workgroup adds the partials. The
// result is SA_WORDS words (wgprim::superaccumulator::words) at accumulator a.result_index of a.result.
#include <algorithm>
#include <memory>

#include "core/wgsl_compose.hpp"
#include "core/env.hpp"
#include "primitives/reduce/policy.hpp"
#include "primitives/reduce/reduce.hpp"
#include "primitives/view.hpp"
#include "wgprim/error.hpp"
#include "wgprim/exact.hpp"

namespace wgprim::detail {

struct exact_params {
  std::uint32_t n, n_vec, out_offset, pad0;
};
static_assert(sizeof(exact_params) == 16);
const kernel_spec reduce_exact_spec{"reduce/exact.wgsl", "accumulate_elements",
                                    {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_rw},
                                    sizeof(exact_params)};
const kernel_spec reduce_exact_combine_spec{"reduce/exact.wgsl", "combine_partials",
                                            {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_rw},
                                            sizeof(exact_params)};
constexpr std::uint64_t exact_words = superaccumulator::limbs + 1;
static_assert(sizeof(superaccumulator::words) == exact_words * 4);

namespace {
struct exact_policy {
  std::uint32_t wg_size = 256;  // <= 256: the column tree sums at most 256 limbs of 24 bits in a u32
  std::uint32_t items = 8;
  std::uint32_t max_groups = 1024;
  std::uint64_t small_n = 16384;
  bool vec_loads = true;
  bool window = false;  // registers before the workgroup-memory column (sa_window)
  // The tile walk loads a whole tile (items vec4) into registers before adding it to the column (tile/walk.wgsl's
  // LOAD_FIRST): each vec4 loaded as it is added leaves one load in flight per invocation between the limbs'
  // read-modify-writes of workgroup memory. H100 (session 26) without it: 0.594-0.607 ms at 2^28 against 0.345 for the
  // fast sum. WGPRIM_EXACT_LOAD_FIRST=0|1 for A/B.
  bool load_first = true;
};

exact_policy exact_policy_for(const context& ctx, const tuning& t) {
  const reduce_policy base = reduce_policy_for(ctx, t);  // validates the knobs shared with the fast reduce
  exact_policy p;
  p.max_groups = base.max_groups;
  p.small_n = base.small_n;
  p.vec_loads = base.vec_loads;
  if (ctx.adapter().kind == adapter_kind::cpu) {
    // lavapipe, 2 shared cores (load ~15), 2026-11-29, n = 2^24 mixed, CPU ms per run (the machine was too busy
    // for wall times): fast 273-305; columns only 978; window 652 (items 8), 525-565 (items 16-29);
    // 64 or 512 workgroups no better than 256.
    p.items = 16;
    p.window = true;
  }
  // A column absorbs SA_BATCH = 120 values between carries: one tile (4 * items) plus the 3-element tail.
  if (t.items > 29) throw error(errc::invalid_argument, "tuning: items must be 1..29 for exact sums");
  if (t.items) p.items = t.items;
  if (t.exact_window >= 0) p.window = t.exact_window != 0;
  p.load_first = env::set_or(env::exact_load_first(), p.load_first);
  return p;
}

// view (may be null): a fused view computed in the load (tile/load.wgsl), with scalar loads.
const std::string& exact_module(const exact_policy& pol, const view_desc* view) {
  // The prelude wants a monoid; the kernels add the values' u32 bits (E = u32: vec4<u32> loads, the partials'
  // words read as they are, f32 views through tile/load.wgsl's bitcasts).
  const monoid m(op::sum(), dtype::u32);
  wgsl_constants constants{{"WG_SIZE", std::to_string(pol.wg_size) + "u"},
                           {"ITEMS", std::to_string(pol.items) + "u"},
                           {"VEC_LOADS", pol.vec_loads && !view ? "true" : "false"},
                           {"WINDOW", pol.window ? "true" : "false"},
                           {"LOAD_FIRST", pol.load_first ? "true" : "false"}};
  for (auto& c : view_constants(view)) constants.push_back(c);
  return compose_wgsl(reduce_exact_spec.file, m, constants);
}
}  // namespace

void record_reduce_exact(recorder& rec, const reduce_args& a) {
  context& ctx = rec.ctx();
  const std::uint64_t n = a.in.count;
  const exact_policy pol = exact_policy_for(ctx, a.opt->tune);
  const view_desc* view = view_fused(a.view) ? a.view : nullptr;
  const std::string& src = exact_module(pol, view);
  const auto& k = get_kernel(ctx, reduce_exact_spec, src, /*trusted=*/true);
  const auto& k_combine = get_kernel(ctx, reduce_exact_combine_spec, exact_module(pol, nullptr), /*trusted=*/true);
  const std::uint64_t tile = std::uint64_t(pol.wg_size) * pol.items * 4;
  // Workspaces kept by the context (no allocation per call); every partial is written before the combine reads it.
  const buffer& dummy = scratch(ctx, "reduce_exact.dummy", 32);
  auto vec_binding = [&](const device_view& v, std::uint64_t first, std::uint64_t count) {
    return pol.vec_loads ? bind_vec4(v, first, count, dummy) : bind(dummy);
  };
  auto params = [](std::uint64_t count, std::uint64_t offset) {
    return exact_params{static_cast<std::uint32_t>(count), static_cast<std::uint32_t>(count / 4),
                        static_cast<std::uint32_t>(offset), 0};
  };
  if (n <= pol.small_n) {
    record_reduce_tiles(rec, k, a, view, {chunk{0, n}}, {1}, a.result_index, bind_result(a), dummy, params, vec_binding);
    return;
  }
  // Whole vec4 per chunk keep the vec4 binding's offset aligned.
  const reduction_grid grid = reduction_grid_for(n, elements_per_binding(ctx, 4, 4), tile, pol.max_groups);
  const std::uint64_t total_groups = grid.total;
  const buffer& partials = scratch(ctx, "reduce_exact.partials", total_groups * exact_words * 4);
  record_reduce_tiles(rec, k, a, view, grid.parts, grid.groups, 0, bind(view_of(partials)), dummy, params, vec_binding);
  rec.dispatch(k_combine, {rec.params(params(total_groups, a.result_index)), bind(view_of(dummy)),
                           bind(view_of(partials)), bind_result(a)},
               1);
}

}  // namespace wgprim::detail
