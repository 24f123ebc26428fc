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
  raked,   // one contiguous chunk per subgroup, lanes interleaved vec4 by vec4 (subgroups, 32-bit T only)
};

struct scan_policy {
  std::uint32_t wg_size = 256;
  std::uint32_t items = 4;        // vec4 per invocation: tiles of 4,096 elements
  std::uint32_t spin = 256;       // polls of a NOT_READY predecessor before reducing its tile here
  tile_layout layout = tile_layout::direct;
  bool subgroups = true;
  std::uint32_t window = 32;      // tile states read at once by the look-back
  bool subgroup_lookback = true;  // subgroup 0 walks the look-back (tile/lookback.wgsl); needs subgroups
};

scan_policy scan_policy_for(const context& ctx, const tuning& t, bool stress);

}  // namespace wgprim::detail
