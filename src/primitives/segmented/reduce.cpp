// Segmented reduce over CSR offsets that streams the values once (shaders/segmented/reduce.wgsl): a bounds pass
// (one binary search per tile boundary), one workgroup per tile of 2,048 elements whatever the segment lengths
// (short segments finish inside their tile, long ones leave a per-tile pair), one spine workgroup for the segments
// that cross tiles. Replaces the seed path (segmented scan of all n values into a temporary, then a gather) when
// the values, offsets and outputs each fit one binding; the seed path stays for larger arrays.
#include <algorithm>

#include "core/wgsl_compose.hpp"
#include "primitives/copy/widen.hpp"
#include "primitives/segmented/segmented.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

namespace {
constexpr std::uint32_t wg_size = 256, items = 8, tile = wg_size * items;
constexpr std::uint32_t spine_k = 8, spine_block = wg_size * spine_k;  // tiles per invocation and per block

struct segr_params {
  std::uint32_t n, n_seg, tiles, grid_x, exclusive, blocks, pad1, pad2;
};
static_assert(sizeof(segr_params) == 32);
const std::vector<slot> segr_layout = {slot::uniform,    slot::storage_read, slot::storage_read, slot::storage_rw,
                                       slot::storage_rw, slot::storage_rw,   slot::storage_rw};
}  // namespace

const kernel_spec segr_bounds_spec{"segmented/reduce.wgsl", "bounds_pass", segr_layout, sizeof(segr_params)};
const kernel_spec segr_tile_spec{"segmented/reduce.wgsl", "tile_pass", segr_layout, sizeof(segr_params)};
const kernel_spec segr_spine_up_spec{"segmented/reduce.wgsl", "spine_up", segr_layout, sizeof(segr_params)};
const kernel_spec segr_spine_top_spec{"segmented/reduce.wgsl", "spine_top", segr_layout, sizeof(segr_params)};
const kernel_spec segr_spine_down_spec{"segmented/reduce.wgsl", "spine_down", segr_layout, sizeof(segr_params)};
const kernel_spec segr_scan_spec{"segmented/reduce.wgsl", "scan_pass", segr_layout, sizeof(segr_params)};

bool segmented_reduce_streams(const context& ctx, std::uint64_t n, std::uint64_t n_segments) {
  const std::uint64_t per = elements_per_binding(ctx, 4, 1);
  return n > 0 && n <= 0xffffffffull - tile && n <= per && n_segments + 1 <= per;
}

namespace {
// scan: the segmented scan (out holds n values) instead of the per-segment reductions (n_segments values).
segmented_workspace record_streaming(recorder& rec, const monoid& m, const device_view& values, std::uint64_t n,
                                     const device_view& offsets, std::uint64_t n_segments, const device_view& out,
                                     bool scan, bool exclusive) {
  context& ctx = rec.ctx();
  const std::uint64_t tiles = (n + tile - 1) / tile;
  auto kernel_for = [&](const kernel_spec& spec) -> const kernel& {
    const std::string& src = compose_wgsl(spec.file, m, {{"WG_SIZE", std::to_string(wg_size) + "u"},
                                                         {"ITEMS", std::to_string(items) + "u"},
                                                         {"SCAN", scan ? "1u" : "0u"},
                                                         {"SPINE_K", std::to_string(spine_k) + "u"}});
    return get_kernel(ctx, spec, src, /*trusted=*/m.is_builtin());
  };
  // Workspaces kept by the context (no allocation, and no zero-fill by wgpu, per call: 45 us of recording each on
  // lavapipe); heads[0] counts offsets out of order, read back right after the call.
  segmented_workspace ws;
  ws.words = 0;
  const std::uint64_t blocks = (tiles + spine_block - 1) / spine_block;
  const buffer& heads = scratch(ctx, "segr.heads", 16);
  const buffer& tiles_ws = scratch(ctx, "segr.tiles", (4 * tiles + 3 * blocks) * 4);
  const buffer& bounds = scratch(ctx, "segr.bounds", (tiles + 1) * 4);
  ws.heads = &heads;
  record_zero(rec, heads, 0, 16);  // a dispatch: the compute pass stays open
  segr_params p{static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(n_segments),
                static_cast<std::uint32_t>(tiles), 0, exclusive ? 1u : 0u, static_cast<std::uint32_t>(blocks), 0, 0};
  const std::uint32_t max_dim = ctx.limits().max_compute_workgroups_per_dimension;
  std::uint32_t bx, by, tx, ty;
  grid_2d((tiles + 1 + wg_size - 1) / wg_size, max_dim, bx, by);
  grid_2d(tiles, max_dim, tx, ty);
  p.grid_x = tx;
  const binding vals = bind(values, 0, n), offs = bind(offsets, 0, n_segments + 1), bnd = bind(view_of(bounds)),
                tl = bind(view_of(tiles_ws)), brk = bind(view_of(heads));
  const binding o = bind(out, 0, scan ? n : n_segments);
  auto go = [&](const kernel_spec& spec, std::uint32_t x, std::uint32_t y) {
    rec.dispatch(kernel_for(spec), {rec.params(p), vals, offs, bnd, tl, o, brk}, x, y);
  };
  go(segr_bounds_spec, bx, by);
  go(segr_tile_spec, tx, ty);
  if (blocks > 1) {
    go(segr_spine_up_spec, static_cast<std::uint32_t>(blocks), 1);
    go(segr_spine_top_spec, 1, 1);
  }
  go(segr_spine_down_spec, static_cast<std::uint32_t>(blocks), 1);
  if (scan) go(segr_scan_spec, tx, ty);
  return ws;
}
}  // namespace

segmented_workspace record_segmented_reduce(recorder& rec, const monoid& m, const device_view& values, std::uint64_t n,
                                            const device_view& offsets, std::uint64_t n_segments,
                                            const device_view& out) {
  return record_streaming(rec, m, values, n, offsets, n_segments, out, false, false);
}

segmented_workspace record_segmented_scan_streaming(recorder& rec, const monoid& m, const device_view& values,
                                                    std::uint64_t n, const device_view& offsets,
                                                    std::uint64_t n_segments, const device_view& out, bool exclusive) {
  return record_streaming(rec, m, values, n, offsets, n_segments, out, true, exclusive);
}

}  // namespace wgprim::detail
