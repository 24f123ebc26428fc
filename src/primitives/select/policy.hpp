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
  // Unique and partition take their own layout (and partition its own items): H200 2026-12-03 (session 20, call 2),
  // GPU ms at 2^28 / 2^24: unique u32 (runs of 20) direct 4 0.540 / 0.061, raked 4 0.681 / 0.073 (a read-mostly pass:
  // raked's per-step subgroup scans and shuffles cost more than its coalesced writes save); partition_if f32
  // staged 2 1.525 / 0.128, raked 4 1.645 / 0.148, staged 4 1.678 / 0.142, direct 4 3.145 / 0.246. select_if and
  // select_flagged: raked 4 best or within 4 % (raked 8 0.814 / 0.087 against 0.841 / 0.083).
  layout unique_tile = layout::direct;
  layout partition_tile = layout::staged;
  std::uint32_t partition_items = 2;
  std::uint32_t window = 32;      // tile states read at once by the workgroup's look-back walk
  bool subgroup_lookback = true;  // subgroup 0 walks the look-back (tile/lookback.wgsl), as the scan's; subgroups only
  // The kernel's loops over an invocation's elements written out by wgsl_compose (`//! unroll`), as the onesweep's
  // (sort/policy.hpp: 6-15 % there on the H100). Off until measured here (WGPRIM_UNROLL=1 for A/B).
  bool unroll = false;
};

/// Checks the tuning knobs against what the kernel handles (errc::invalid_argument naming the knob). `tile` and
/// `items` of the result are those of the mode asked for (unique, partition, else select's); tuning overrides them.
select_policy select_policy_for(const context& ctx, const tuning& t, bool stress, bool unique = false,
                                bool partition = false);

}  // namespace wgprim::detail
