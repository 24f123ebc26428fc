// The tile algorithm of the segmented scans: head bits (from offsets or keys), per-tile pairs, one spine
// workgroup over all tiles, per-tile scans with the carry (see shaders/segmented/tiles.wgsl). Elements are
// processed per storage-binding chunk of whole tiles; the head bitmap (n / 8 bytes) and the tile arrays are
// bound whole. Outputs indexed by run (reduce-by-key) are written window by window when they exceed a binding.
//
// Why flags and a three-pass tile scan rather than one workgroup per segment: the cost does not depend on how
// the lengths are distributed (one huge segment, millions of empty ones, runs of 20), and the same passes serve
// CSR segments and runs of keys. The spine is one workgroup, so its time grows with n / TILE; a single-pass
// look-back over (flag, value, count) states would need 96-bit tile states, which the decoupled scan's 32-bit
// packing does not carry.
#include <algorithm>

#include "core/wgsl_compose.hpp"
#include "primitives/copy/widen.hpp"
#include "primitives/segmented/segmented.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

namespace {
constexpr std::uint32_t wg_size = 256, items = 16, tile = wg_size * items;

struct seg_params {
  std::uint32_t n, n_total, elem_base, tile_base, tiles_total, grid_x, mode, exclusive, ones, win_first, win_count,
      chunk_index, words, last_segment, src_first, src_count;
};
static_assert(sizeof(seg_params) == 64);
const std::vector<slot> seg_layout = {slot::uniform,    slot::storage_read, slot::storage_read, slot::storage_rw,
                                      slot::storage_rw, slot::storage_rw,   slot::storage_rw};

std::uint32_t u32(std::uint64_t v) { return static_cast<std::uint32_t>(v); }
}  // namespace

const kernel_spec seg_heads_offsets_spec{"segmented/tiles.wgsl", "heads_from_offsets", seg_layout, sizeof(seg_params)};
const kernel_spec seg_heads_keys_spec{"segmented/tiles.wgsl", "heads_from_keys", seg_layout, sizeof(seg_params)};
const kernel_spec seg_tile_reduce_spec{"segmented/tiles.wgsl", "tile_reduce", seg_layout, sizeof(seg_params)};
const kernel_spec seg_spine_spec{"segmented/tiles.wgsl", "spine", seg_layout, sizeof(seg_params)};
const kernel_spec seg_tile_scan_spec{"segmented/tiles.wgsl", "tile_scan", seg_layout, sizeof(seg_params)};
const kernel_spec seg_gather_spec{"segmented/tiles.wgsl", "gather", seg_layout, sizeof(seg_params)};

namespace {

// The head passes do not depend on the monoid and the tile passes not on the key type: each is composed with a
// fixed value of the other, so that fewer variants are compiled.
const kernel& seg_kernel(context& ctx, const kernel_spec& spec, const monoid& value_monoid, dtype key_type,
                         std::uint32_t spine_items = 16) {
  static const monoid plain(op::sum(), dtype::u32);
  const bool heads = &spec == &seg_heads_offsets_spec || &spec == &seg_heads_keys_spec;
  const monoid& m = heads ? plain : value_monoid;
  if (&spec != &seg_heads_keys_spec) key_type = dtype::u32;
  const char* kk = key_type == dtype::f32 ? "0u" : key_type == dtype::i32 ? "1u" : "2u";
  const std::string& src = compose_wgsl(spec.file, m,
                                       {{"WG_SIZE", std::to_string(wg_size) + "u"},
                                        {"ITEMS", std::to_string(items) + "u"},
                                        {"KEY_KIND", kk},
                                        {"SPINE_ITEMS", std::to_string(spine_items) + "u"}});
  return get_kernel(ctx, spec, src, /*trusted=*/heads || m.is_builtin());
}

// A 2-D grid of `groups` workgroups (past 65,535 in one dimension).
void grid_for(const context& ctx, std::uint64_t groups, std::uint32_t& x, std::uint32_t& y) {
  grid_2d(std::max<std::uint64_t>(groups, 1), ctx.limits().max_compute_workgroups_per_dimension, x, y);
}
}  // namespace

segmented_workspace record_segmented(recorder& rec, const segmented_args& a) {
  context& ctx = rec.ctx();
  const monoid& m = *a.m;
  if (a.n > 0xffffffffull) throw error(errc::limit, "segmented: more than 2^32 - 1 elements");
  const std::uint64_t tiles_total = (a.n + tile - 1) / tile;
  const auto parts = chunks_of(a.n, elements_per_binding(ctx, 4, tile));
  segmented_workspace ws;
  ws.words = (a.n + 31) / 32;
  if ((ws.words + 1) * 4 > ctx.binding_limit())
    throw error(errc::limit, "segmented: the head bitmap of " + std::to_string(a.n) + " elements exceeds one binding");
  ws.runs_index = 6 * tiles_total;
  // Context scratch buffers (no allocation per call): the head bits are zeroed here, every word of the tile table
  // is written before it is read (tile pairs, the spine, the keys before the chunks).
  const buffer& heads = scratch(ctx, "segmented.heads", (ws.words + 1) * 4);
  const buffer& tiles_b = scratch(ctx, "segmented.tiles", (6 * tiles_total + 1 + parts.size()) * 4);
  ws.heads = &heads;
  ws.tiles = &tiles_b;
  record_zero(rec, heads, 0, (ws.words + 1) * 4);  // a dispatch: the compute pass stays open
  // Placeholders for unused slots: one per slot kind, as one buffer may not be bound read-only and writable at once.
  const buffer& dummy_r = scratch(ctx, "segmented.dummy_r", 16);
  const buffer& dummy_5 = scratch(ctx, "segmented.dummy_5", 16);
  const buffer& dummy_6 = scratch(ctx, "segmented.dummy_6", 16);
  const binding none = bind(view_of(dummy_r)), none5 = bind(view_of(dummy_5)), none6 = bind(view_of(dummy_6));
  seg_params base{};
  base.n_total = u32(a.n);
  base.tiles_total = u32(tiles_total);
  base.words = u32(ws.words);

  // Head bits.
  if (a.keys.buf) {
    const auto& k = seg_kernel(ctx, seg_heads_keys_spec, m, a.key_type);
    for (std::size_t c = 0; c < parts.size(); ++c) {
      const chunk& ch = parts[c];
      if (ch.first)  // the key before this chunk, for its first comparison
        rec.copy_raw(a.keys.buf, a.keys.offset + (ch.first - 1) * 4, tiles_b.native(), (ws.runs_index + 1 + c) * 4, 4);
      seg_params p = base;
      p.n = u32(ch.count);
      p.elem_base = u32(ch.first);
      p.chunk_index = u32(c);
      std::uint32_t gx, gy;
      grid_for(ctx, (ch.count + wg_size - 1) / wg_size, gx, gy);
      rec.dispatch(k, {rec.params(p), none, bind(a.keys, ch.first, ch.count), bind(view_of(heads, ws.words + 1)), bind(view_of(tiles_b, ws.runs_index + 1 + parts.size())), none5, none6},
                   gx, gy);
    }
  } else {
    const auto& k = seg_kernel(ctx, seg_heads_offsets_spec, m, a.key_type);
    // One invocation per offset; a chunk's binding reaches one offset further (the end of its last segment).
    const std::uint64_t per = elements_per_binding(ctx, 4, 64) - 64;
    for (const chunk& ch : chunks_of(a.n_segments + 1, per)) {
      seg_params p = base;
      p.n = u32(ch.count);
      p.elem_base = u32(ch.first);
      p.last_segment = u32(a.n_segments);
      std::uint32_t gx, gy;
      grid_for(ctx, (ch.count + wg_size - 1) / wg_size, gx, gy);
      rec.dispatch(k, {rec.params(p), none, bind(a.offsets, ch.first, ch.count + 1), bind(view_of(heads, ws.words + 1)), bind(view_of(tiles_b, ws.runs_index + 1 + parts.size())),
                       none5, none6},
                   gx, gy);
    }
  }

  // Tile pairs, the spine, the tile scans.
  const auto& k_reduce = seg_kernel(ctx, seg_tile_reduce_spec, m, a.key_type);
  const auto& k_spine = seg_kernel(ctx, seg_spine_spec, m, a.key_type, a.spine_items);
  const auto& k_scan = seg_kernel(ctx, seg_tile_scan_spec, m, a.key_type);
  const device_view& src = a.ones ? a.keys : a.values;
  auto chunk_params = [&](const chunk& ch) {
    seg_params p = base;
    p.n = u32(ch.count);
    p.elem_base = u32(ch.first);
    p.tile_base = u32(ch.first / tile);
    p.ones = a.ones ? 1u : 0u;
    std::uint32_t gx, gy;
    grid_for(ctx, (ch.count + tile - 1) / tile, gx, gy);
    p.grid_x = gx;
    return std::make_pair(p, gy);
  };
  for (const chunk& ch : parts) {
    auto [p, gy] = chunk_params(ch);
    rec.dispatch(k_reduce, {rec.params(p), bind(src, ch.first, ch.count), none, bind(view_of(heads, ws.words + 1)), bind(view_of(tiles_b, ws.runs_index + 1 + parts.size())), none5, none6},
                 p.grid_x, gy);
  }
  rec.dispatch(k_spine, {rec.params(base), none, none, bind(view_of(heads, ws.words + 1)), bind(view_of(tiles_b, ws.runs_index + 1 + parts.size())), none5, none6}, 1);
  for (std::size_t c = 0; c < parts.size(); ++c) {
    const chunk& ch = parts[c];
    auto [p, gy] = chunk_params(ch);
    if (a.mode == segmented_args::output::scan) {
      p.mode = 0;
      p.exclusive = a.exclusive ? 1u : 0u;
      rec.dispatch(k_scan, {rec.params(p), bind(src, ch.first, ch.count), none, bind(view_of(heads, ws.words + 1)), bind(view_of(tiles_b, ws.runs_index + 1 + parts.size())),
                            bind(a.out, ch.first, ch.count), none6},
                   p.grid_x, gy);
      continue;
    }
    // Runs ending in this chunk are numbered below ch.first + ch.count: only windows starting there are visited.
    p.mode = 1;
    const std::uint64_t per = elements_per_binding(ctx, 4, 64);
    for (const chunk& w : chunks_of(std::min(a.capacity, ch.first + ch.count), per)) {
      seg_params q = p;
      q.win_first = u32(w.first);
      q.win_count = u32(w.count);
      rec.dispatch(k_scan, {rec.params(q), bind(src, ch.first, ch.count), bind(a.keys, ch.first, ch.count),
                            bind(view_of(heads, ws.words + 1)), bind(view_of(tiles_b, ws.runs_index + 1 + parts.size())), bind(a.sums, w.first, w.count),
                            bind(a.unique_keys, w.first, w.count)},
                   p.grid_x, gy);
    }
  }
  return ws;
}

void record_segment_gather(recorder& rec, const monoid& m, const device_view& inclusive, std::uint64_t n,
                           const device_view& offsets, std::uint64_t n_segments, const device_view& out) {
  context& ctx = rec.ctx();
  const auto& k = seg_kernel(ctx, seg_gather_spec, m, dtype::u32);
  buffer dummy_r = ctx.create_buffer(16), dummy_3 = ctx.create_buffer(16), dummy_4 = ctx.create_buffer(16),
         dummy_6 = ctx.create_buffer(16);
  const std::uint64_t per_seg = elements_per_binding(ctx, 4, 64) - 64;
  auto src_parts = chunks_of(n, elements_per_binding(ctx, 4, 64));
  if (src_parts.empty()) src_parts.push_back({0, 0});  // n == 0: every segment is empty
  for (const chunk& s : chunks_of(n_segments, per_seg))
    for (std::size_t c = 0; c < src_parts.size(); ++c) {
      seg_params p{};
      p.n = u32(s.count);
      p.elem_base = u32(s.first);
      p.chunk_index = u32(c);
      p.src_first = u32(src_parts[c].first);
      p.src_count = u32(src_parts[c].count);
      std::uint32_t gx, gy;
      grid_for(ctx, (s.count + wg_size - 1) / wg_size, gx, gy);
      const binding src = src_parts[c].count ? bind(inclusive, src_parts[c].first, src_parts[c].count) : bind(view_of(dummy_r));
      rec.dispatch(k, {rec.params(p), src, bind(offsets, s.first, s.count + 1), bind(view_of(dummy_3)),
                       bind(view_of(dummy_4)), bind(out, s.first, s.count), bind(view_of(dummy_6))},
                   gx, gy);
    }
}

}  // namespace wgprim::detail
