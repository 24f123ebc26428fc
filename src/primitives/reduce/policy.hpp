// The fast reduce's policy: plain data, picked from the adapter kind, overridable per call (run_options::tune).
#pragma once
#include <cstdint>
#include <string>

#include "wgprim/algorithm.hpp"
#include "wgprim/context.hpp"
#include "wgprim/error.hpp"

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

/// The tile walk's knobs, shared by the reduce and the arg reduce (`what` names the primitive in the error):
/// tile offsets are u32 in the shaders, so items * WG_SIZE * 4 * groups must stay far below 2^32.
template <class Policy>
void apply_walk_tuning(Policy& p, const context& ctx, const tuning& t, const char* what) {
  p.subgroups = ctx.features().subgroups;
  if (t.items > 64) throw error(errc::invalid_argument, std::string("tuning: items must be 1..64 for ") + what);
  if (t.workgroups > ctx.limits().max_compute_workgroups_per_dimension || t.workgroups > 16384)
    throw error(errc::invalid_argument, std::string("tuning: workgroups must be 1..16384 for ") + what);
  if (t.small_n > (1u << 24)) throw error(errc::invalid_argument, "tuning: small_n must be at most 2^24");
  if (t.workgroups) p.max_groups = t.workgroups;
  if (t.items) p.items = t.items;
  if (t.subgroups == 0) p.subgroups = false;
  if (t.subgroups == 1) p.subgroups = ctx.features().subgroups;
  if (t.vec_loads >= 0) p.vec_loads = t.vec_loads != 0;
  if (t.small_n) p.small_n = t.small_n;
}

}  // namespace wgprim::detail
