// The decoupled scan's policy: plain data, picked from the adapter kind, overridable per call (run_options::tune).
#pragma once
#include <cstdint>

#include "wgprim/algorithm.hpp"
#include "wgprim/context.hpp"

namespace wgprim::detail {

// How a full tile is laid out over the workgroup (see shaders/scan/decoupled.wgsl); tuning::staged picks one.
enum class tile_layout {
  direct,  // invocation l scans ITEMS consecutive vec4, loaded straight from memory
  staged,  // the same, with loads and stores coalesced through workgroup memory
  raked,   // one contiguous chunk per subgroup, lanes interleaved vec4 by vec4 (needs subgroups)
};

struct scan_policy {
  std::uint32_t wg_size = 256;
  std::uint32_t items = 4;        // vec4 per invocation: tiles of 4,096 elements
  std::uint32_t spin = 256;       // polls of a NOT_READY predecessor before reducing its tile here
  // Raked on GPUs (policy knob scan.layout). H200 2026-12-03 (session 19, call 3), u32 inclusive at 2^28, GPU ms, one
  // run: raked items 4 0.658, direct 4 0.821, direct 2 0.919, direct 8 1.214, staged 4 1.266, raked 8 1.522 (copy
  // kernel 0.549); on 2026-11-30, before the subgroup look-back, raked 4 had measured 1.188 against direct 0.864.
  // Raked needs subgroups (record_scan_decoupled falls back to direct); CPU adapters take direct.
  tile_layout layout = tile_layout::raked;
  // 64-bit values (i64, u64, f64): their own items and layout (knobs scan.items_wide, scan.layout_wide). H200
  // 2026-12-03 (session 21, call 1), i64 inclusive at 2^28, GPU ms, raked / direct: items 1 1.968 / 1.951, items 2
  // 2.923 / 1.644, items 4 3.439 / 3.732, items 8 4.361 / 5.158 (CUB 1.24; u32 at 2^29, the same bytes, 1.311): four
  // vec4 of a 64-bit T per invocation hold twice the registers of the u32 tile.
  std::uint32_t items_wide = 2;
  tile_layout layout_wide = tile_layout::direct;
  bool subgroups = true;
  std::uint32_t window = 32;      // tile states read at once by the look-back
  bool subgroup_lookback = true;  // subgroup 0 walks the look-back (tile/lookback.wgsl); needs subgroups
};

// `wide`: the policy of 64-bit values (items_wide, layout_wide in items, layout); tuning overrides either.
scan_policy scan_policy_for(const context& ctx, const tuning& t, bool stress, bool wide = false);

}  // namespace wgprim::detail
