// The single-pass decoupled-fallback scan: one dispatch per storage-binding chunk, tiles claimed in order from
// an atomic counter, look-back over published tile states with a bounded spin and the fallback (see
// shaders/scan/decoupled.wgsl). carry[c] holds the total of the chunks before chunk c (carry[0]: init).
#include <memory>

#include "core/wgsl_compose.hpp"
#include "gpu/gpu.hpp"
#include "primitives/copy/widen.hpp"
#include "primitives/policy.hpp"
#include "primitives/scan/policy.hpp"
#include "primitives/scan/scan.hpp"
#include "primitives/view.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

struct decoupled_params {
  std::uint32_t n, tiles, grid_x, exclusive, use_carry, carry_index, spin_limit, stress;
};
static_assert(sizeof(decoupled_params) == 32);
const kernel_spec scan_decoupled_spec{"scan/decoupled.wgsl",
                                      "scan",
                                      {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_rw,
                                       slot::storage_rw, slot::storage_rw, slot::storage_rw},
                                      sizeof(decoupled_params)};

namespace {
// Whether the staged tile (WG_SIZE * ITEMS vec4 of `bytes`-byte values in workgroup memory, beside ~2 KiB of the
// scan's other workgroup arrays) fits the adapter.
bool stage_fits(const context& ctx, const scan_policy& p, std::uint32_t bytes) {
  return std::uint64_t(p.wg_size) * p.items * 4 * bytes + 2048 <= ctx.limits().max_compute_workgroup_storage_size;
}
}  // namespace

scan_policy scan_policy_for(const context& ctx, const tuning& t, bool stress, bool wide) {
  // On a GPU the predecessor is usually running and a poll is cheap; on a CPU adapter a few threads run
  // workgroups in turn, so waiting long is waste: the table's spin (primitives/policy.cpp).
  scan_policy p = policy_for(ctx).scan;
  if (wide) {
    p.items = p.items_wide;
    p.layout = p.layout_wide;
  }
  p.subgroups = ctx.features().subgroups;
  // Items per invocation: registers hold ITEMS vec4 and the tile offsets are u32; measured 2/4/8 on the H200
  // (1.07/0.87/1.13 ms at 2^28), larger values only cost registers and compile time.
  if (t.items > 8) throw error(errc::invalid_argument, "tuning: items must be 1..8 for the decoupled scan");
  if (t.items) p.items = t.items;
  if (t.spin_limit) p.spin = t.spin_limit;
  if (stress) p.spin = 1;
  if (t.subgroups == 0) p.subgroups = false;
  if (t.staged < -1 || t.staged > 2)
    throw error(errc::invalid_argument, "tuning: staged must be -1 (the policy), 0 direct, 1 staged or 2 raked");
  // H200, 2026-11-29, u32 sum at 2^28: direct 0.90 ms vs staged 1.46 ms (staging costs occupancy and barriers);
  // off by default, kept as a policy for GPUs whose direct loads coalesce badly. Needs WG_SIZE * ITEMS * 16 bytes.
  // 32-bit values here; record_scan_decoupled checks again for 64-bit ones.
  const bool fits = stage_fits(ctx, p, 4);
  if (t.staged == 1 && fits) p.layout = tile_layout::staged;
  if (p.layout == tile_layout::staged && !fits) p.layout = tile_layout::direct;  // a policy file's choice
  // Raked (subgroup chunks, issue #11): scan/policy.hpp has the H200 figures; needs subgroups (direct otherwise).
  // tuning::staged 0 picks direct whatever the policy (a policy file's scan.layout) says.
  if (t.staged == 0) p.layout = tile_layout::direct;
  if (t.staged == 2) p.layout = tile_layout::raked;
  // Tile states the look-back reads at once (tuning::lookback_window), at most one per invocation.
  if (t.lookback_window > p.wg_size)
    throw error(errc::invalid_argument, "tuning: the look-back window must be 1.." + std::to_string(p.wg_size));
  if (t.lookback_window) p.window = t.lookback_window;
  if (t.lookback_subgroup < -1 || t.lookback_subgroup > 1)
    throw error(errc::invalid_argument, "tuning: lookback_subgroup must be -1 (the policy), 0 or 1");
  // H200, 2026-11-30, u32 inclusive GPU time, subgroup walk vs workgroup window walk: 0.0315 vs 0.0327 ms at
  // 2^22, 0.0709 vs 0.0723 at 2^24, 0.8195 vs 0.8616 at 2^28 (bench/results/2026-11-30-h200-wave5/sg_lookback.json).
  if (t.lookback_subgroup >= 0) p.subgroup_lookback = t.lookback_subgroup == 1;
  return p;
}

void record_scan_decoupled(recorder& rec, const scan_args& a) {
  context& ctx = rec.ctx();
  const monoid& m = *a.m;
  const bool stress = lookback_stress(ctx);
  const std::uint32_t eb = dtype_bytes(m.type());
  // 64-bit values take their own row (scan/policy.hpp: items_wide, layout_wide), and cross lanes as two u32 words
  // (shared/lanes_subgroup.wgsl, T_WIDE): the shuffles of a 64-bit T need Vulkan's shaderSubgroupExtendedTypes,
  // which wgpu does not request.
  scan_policy pol = scan_policy_for(ctx, a.opt->tune, stress, eb == 8);
  // The staged tile holds vec4 of T: twice scan_policy_for's estimate for a 64-bit T.
  if (pol.layout == tile_layout::staged && !stage_fits(ctx, pol, eb)) pol.layout = tile_layout::direct;
  if (pol.layout == tile_layout::raked && !pol.subgroups) pol.layout = tile_layout::direct;
  if (!pol.subgroups) pol.subgroup_lookback = false;
  // A view (or a transform) is read through load_input with scalar loads: the direct layout.
  const bool fused = a.view && (view_fused(a.view) || a.view->tr);
  if (fused) pol.layout = tile_layout::direct;
  const bool staged = pol.layout == tile_layout::staged, raked = pol.layout == tile_layout::raked;
  const std::uint32_t words = eb / 4;  // T_WORDS: a tile's state is 2 * words u32
  const std::string lanes = lanes_module(pol.subgroups);
  wgsl_constants constants{{"WG_SIZE", std::to_string(pol.wg_size) + "u"},
                           {"ITEMS", std::to_string(pol.items) + "u"},
                           {"STAGED", staged ? "true" : "false"},
                           {"RAKED", raked ? "true" : "false"},
                           {"WINDOW", std::to_string(pol.window) + "u"},
                           {"STAGE_SIZE", staged ? std::to_string(pol.wg_size * pol.items) + "u" : "1u"},
                           {"SUBGROUP_LOOKBACK", pol.subgroup_lookback ? "true" : "false"}};
  for (auto& c : view_constants(fused ? a.view : nullptr)) constants.push_back(c);
  const std::string& src =
      compose_wgsl(scan_decoupled_spec.file, m, constants, {lanes}, accum::plain, false, fused ? a.transform : nullptr);
  const auto& k = get_kernel(ctx, scan_decoupled_spec, src, /*trusted=*/m.is_builtin() && !(fused && a.transform));
  const std::uint64_t tile = std::uint64_t(pol.wg_size) * pol.items * 4;
  const auto parts = chunks_of(a.in.count, elements_per_binding(ctx, eb, tile));  // whole tiles per chunk
  const std::uint64_t max_tiles = (parts.front().count + tile - 1) / tile;
  // Workspace from the context (no allocation per call). Calls recorded in order into one encoder share it
  // safely: each clears the tile states before its dispatch, and carry[0] is set inside the encoder (copied from
  // this call's own parameter block), not by a queue write that would run before the whole submission.
  const buffer& state = scratch(ctx, "scan.state", (2 + 2 * words * max_tiles) * 4);
  const buffer& carry = scratch(ctx, "scan.carry", (parts.size() + 1) * eb);
  const buffer& dummy_in = scratch(ctx, "scan.dummy_in", 32);
  const buffer& dummy_out = scratch(ctx, "scan.dummy_out", 32);
  // carry[0] is read only with an initial value (use_carry on the first chunk): without one, no copy.
  if (a.init) {
    const std::uint64_t first_carry = *a.init;
    const binding init_block = rec.params(&first_carry, eb);
    rec.copy_raw(init_block.buf, init_block.offset, carry.native(), 0, eb);
  }
  const std::unique_ptr<bound_view> bv = fused ? std::make_unique<bound_view>(ctx, *a.view, parts) : nullptr;
  for (std::size_t c = 0; c < parts.size(); ++c) {
    const chunk& ch = parts[c];
    std::uint64_t tiles = (ch.count + tile - 1) / tile;
    std::uint32_t gx, gy;
    grid_2d(tiles, ctx.limits().max_compute_workgroups_per_dimension, gx, gy);
    decoupled_params p{static_cast<std::uint32_t>(ch.count), static_cast<std::uint32_t>(tiles), gx,
                       a.kind == scan_kind::exclusive ? 1u : 0u, (c > 0 || a.init) ? 1u : 0u,
                       static_cast<std::uint32_t>(c), pol.spin, stress ? 1u : 0u};
    record_zero(rec, state, 0, (2 + 2 * words * tiles) * 4);  // a dispatch: the pass stays open
    // Fewer than 4 elements: no whole vec4 to bind, so the vector views bind (unused) placeholders.
    auto vec = [&](const device_view& v, const buffer& placeholder) {
      return bind_vec4(v, ch.first, ch.count, placeholder, eb);
    };
    if (bv)
      rec.dispatch(k, {rec.params(p), bv->src(c), bv->slot1(c, bind(view_of(dummy_in))),
                       bind(a.out, ch.first, ch.count), vec(a.out, dummy_out), bind(view_of(state)),
                       bind(view_of(carry))},
                   gx, gy);
    else
      rec.dispatch(k, {rec.params(p), bind(a.in, ch.first, ch.count), vec(a.in, dummy_in),
                       bind(a.out, ch.first, ch.count), vec(a.out, dummy_out), bind(view_of(state)),
                       bind(view_of(carry))},
                   gx, gy);
    if (a.fallbacks) rec.copy(state, 4, *a.fallbacks, c * 4, 4);  // this chunk's fallback count
  }
}

}  // namespace wgprim::detail
