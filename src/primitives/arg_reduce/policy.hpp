// The arg reduce's policy: plain data keyed on the adapter kind, overridable per call (run_options::tune).
#pragma once
#include <cstdint>

#include "wgprim/algorithm.hpp"
#include "wgprim/context.hpp"

namespace wgprim::detail {

struct arg_reduce_policy {
  std::uint32_t wg_size = 256;
  std::uint32_t items = 4;           // vec4 per invocation per tile: a tile is 4,096 elements
  std::uint32_t max_groups = 1024;   // as the reduce: H200 132 SMs x 8 resident workgroups of 256
  std::uint64_t small_n = 16384;     // one workgroup, one dispatch
  bool subgroups = true;
  bool vec_loads = true;
};

/// The adapter's policy with the tuning knobs applied (errc::invalid_argument naming a knob out of range).
arg_reduce_policy arg_reduce_policy_for(const context& ctx, const tuning& t);

}  // namespace wgprim::detail
