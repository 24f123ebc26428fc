// Exact f32 sum scans (accuracy::reproducible / accuracy::exact): every output is the exact prefix sum (integer
// superaccumulator, wgprim/exact.hpp) rounded once to the nearest f32, ties to even. Three passes over tiles of
// 256 * ITEMS elements in index order (shaders/scan/exact.wgsl): the tiles' exact sums, one workgroup's exclusive
// scan of those (init in front), then each tile's scan with its prefix. Integer additions only: the bits are the
// same on every adapter, tile size (tuning::items), chunking and backend (the native backend and the CPU twin
// round the same exact values). Chunks over the storage-binding limit are whole tiles, at most 65,535 per
// dispatch; n must stay below 2^32 (the tile prefixes are 56 bytes per tile of one buffer).
#include <algorithm>

#include "core/wgsl_compose.hpp"
#include "gpu/gpu.hpp"
#include "primitives/scan/scan.hpp"
#include "wgprim/error.hpp"
#include "wgprim/exact.hpp"

namespace wgprim::detail {

struct scan_exact_params {
  std::uint32_t n, tile_offset, tiles, exclusive, has_init, init_bits, pad0, pad1;
};
static_assert(sizeof(scan_exact_params) == 32);
namespace {
const std::vector<slot> exact_layout{slot::uniform, slot::storage_read, slot::storage_rw, slot::storage_rw};
constexpr std::uint64_t words_bytes = (superaccumulator::limbs + 1) * 4;
}  // namespace
const kernel_spec scan_exact_tiles_spec{"scan/exact.wgsl", "tile_sums", exact_layout, sizeof(scan_exact_params)};
const kernel_spec scan_exact_prefixes_spec{"scan/exact.wgsl", "tile_prefixes", exact_layout,
                                           sizeof(scan_exact_params)};
const kernel_spec scan_exact_scan_spec{"scan/exact.wgsl", "tile_scan", exact_layout, sizeof(scan_exact_params)};

void record_scan_exact(recorder& rec, const scan_args& a) {
  context& ctx = rec.ctx();
  const std::uint64_t n = a.in.count;
  if (n >= (std::uint64_t(1) << 32))
    throw error(errc::unsupported, "scan: accuracy::" + std::string(accuracy_name(a.opt->accuracy)) +
                                       " takes fewer than 2^32 elements, got " + std::to_string(n));
  constexpr std::uint32_t wg = 256;  // <= 256: the columns' sums of 24-bit limbs stay within a u32
  std::uint32_t items = 16;
  if (a.opt->tune.items) {
    if (a.opt->tune.items > 120)
      throw error(errc::invalid_argument, "tuning: items must be 1..120 for exact scans");
    items = a.opt->tune.items;
  }
  const std::uint64_t tile = std::uint64_t(wg) * items;
  const monoid m(op::sum(), dtype::f32);  // the prelude wants one; the kernels work on u32 bits
  const std::string& src = compose_wgsl(scan_exact_tiles_spec.file, m,
                                        {{"WG_SIZE", std::to_string(wg) + "u"}, {"ITEMS", std::to_string(items) + "u"}});
  const auto& k_tiles = get_kernel(ctx, scan_exact_tiles_spec, src, /*trusted=*/true);
  const auto& k_prefix = get_kernel(ctx, scan_exact_prefixes_spec, src, /*trusted=*/true);
  const auto& k_scan = get_kernel(ctx, scan_exact_scan_spec, src, /*trusted=*/true);

  const std::uint64_t per_chunk =
      std::min<std::uint64_t>(elements_per_binding(ctx, 4, tile),
                              std::uint64_t(ctx.limits().max_compute_workgroups_per_dimension) * tile);
  const auto parts = chunks_of(n, per_chunk);
  const std::uint64_t tiles = (n + tile - 1) / tile;  // chunks are whole tiles
  // A whole accumulator as the init (a carry between ranks, dist::scan) follows the tiles' slots.
  buffer partials = ctx.create_buffer((tiles + (a.exact_init ? 1 : 0)) * words_bytes);
  if (a.exact_init) {
    const superaccumulator::words w = a.exact_init->serialize();
    wgpu_write(ctx, partials.native(), tiles * words_bytes, w.w.data(), words_bytes);
  }
  buffer dummy_in = ctx.create_buffer(16), dummy_out = ctx.create_buffer(16);
  const std::uint32_t init_bits = a.init ? static_cast<std::uint32_t>(*a.init) : 0;
  auto params = [&](std::uint64_t count, std::uint64_t tile_offset) {
    return scan_exact_params{static_cast<std::uint32_t>(count), static_cast<std::uint32_t>(tile_offset),
                             static_cast<std::uint32_t>(tiles), a.kind == scan_kind::exclusive ? 1u : 0u,
                             a.exact_init ? 2u : a.init ? 1u : 0u, init_bits, 0, 0};
  };
  std::uint64_t offset = 0;
  for (const chunk& c : parts) {
    const std::uint64_t g = (c.count + tile - 1) / tile;
    rec.dispatch(k_tiles, {rec.params(params(c.count, offset)), bind(a.in, c.first, c.count),
                           bind(view_of(partials)), bind(view_of(dummy_out))},
                 static_cast<std::uint32_t>(g));
    offset += g;
  }
  rec.dispatch(k_prefix, {rec.params(params(0, 0)), bind(view_of(dummy_in)), bind(view_of(partials)),
                          bind(view_of(dummy_out))},
               1);
  offset = 0;
  for (const chunk& c : parts) {
    const std::uint64_t g = (c.count + tile - 1) / tile;
    rec.dispatch(k_scan, {rec.params(params(c.count, offset)), bind(a.in, c.first, c.count),
                          bind(view_of(partials)), bind(a.out, c.first, c.count)},
                 static_cast<std::uint32_t>(g));
    offset += g;
  }
}

}  // namespace wgprim::detail
