// The histogram's policy: plain data from the adapter kind and its workgroup memory.
#pragma once
#include <cstdint>

#include "wgprim/context.hpp"

namespace wgprim::detail {

struct histogram_policy {
  std::uint32_t wg_size = 256;
  std::uint32_t max_workgroups = 1024;   // grid-stride beyond this
  std::uint32_t private_bins = 0;        // workgroup-private bins (a power of two >= bins), 0: global atomics
  std::uint32_t edge_cache = 0;          // edge keys held in workgroup memory (>= bins + 1), 0: read from the binding
  std::uint32_t step_values = 4;         // loads per grid-stride step (1, 2, 4 or 8), each issued before any is binned
  bool vec_loads = true;                 // four values per load (a vec4 binding of the input), the tail one each
  // One atomic per run of one bin in an invocation's values (true) or per value (false). H200 2026-12-02, uniform
  // f32, batched ms: 256 bins at 2^24 0.066 without against 0.093 with, 4096 bins at 2^28 0.86 against 1.11; data
  // of one bin then costs a subgroup's lanes on one workgroup counter (as CUB's).
  bool run_merge = false;
};

histogram_policy histogram_policy_for(const context& ctx, std::uint64_t bins);

}  // namespace wgprim::detail
