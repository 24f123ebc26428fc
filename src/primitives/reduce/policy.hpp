// The fast reduce's policy: plain data, picked from the adapter kind, overridable per call (run_options::tune).
#pragma once
#include <cstdint>

#include "wgprim/algorithm.hpp"
#include "wgprim/context.hpp"

namespace wgprim::detail {

struct reduce_policy {
  std::uint32_t wg_size = 256;
  std::uint32_t items = 4;           // vec4 per invocation per tile: a tile is 4,096 elements
  std::uint32_t max_groups = 1024;   // H200: 132 SMs x 8 resident workgroups of 256 ~ 1,056
  std::uint64_t small_n = 16384;     // one workgroup, one dispatch (launch latency dominates below this)
  bool subgroups = true;
  bool vec_loads = true;
};

/// Checks the tuning knobs against what the kernels handle (errc::invalid_argument naming the knob).
reduce_policy reduce_policy_for(const context& ctx, const tuning& t);

}  // namespace wgprim::detail
