// The decoupled select's policy: plain data, picked from the adapter kind, overridable per call (run_options::tune).
#pragma once
#include <cstdint>

#include "wgprim/algorithm.hpp"
#include "wgprim/context.hpp"

namespace wgprim::detail {

struct select_policy {
  std::uint32_t wg_size = 256;
  std::uint32_t items = 4;        // vec4 per invocation: tiles of 4,096 elements (the scan's measured best)
  std::uint32_t spin = 256;       // polls of a NOT_READY predecessor before counting its tile here
  bool subgroups = true;
  // How a full tile is laid out and written (shaders/select/decoupled.wgsl; tuning::staged 0, 1, 2).
  enum class layout { direct, staged, raked } tile = layout::raked;
  std::uint32_t window = 32;      // tile states read at once by the workgroup's look-back walk
  bool subgroup_lookback = true;  // subgroup 0 walks the look-back (tile/lookback.wgsl), as the scan's; subgroups only
};

/// Checks the tuning knobs against what the kernel handles (errc::invalid_argument naming the knob).
select_policy select_policy_for(const context& ctx, const tuning& t, bool stress);

}  // namespace wgprim::detail
