// The histogram primitive's record function (one algorithm: atomic increments, workgroup-private bins where
// they fit in workgroup memory, global atomics beyond).
#pragma once
#include "primitives/primitive.hpp"
#include "wgprim/histogram.hpp"
#include "wgprim/view.hpp"

namespace wgprim::detail {

struct histogram_args {
  device_view in;       // bindable; raw 32-bit values of type `type`
  dtype type;
  device_view edges;    // bindable; `reach` + 1 values of type `type` (see shaders/histogram/atomic.wgsl)
  std::uint32_t reach;  // bins that can receive values (0: none)
  bool use_estimate;
  float lo, scale;      // the estimate: bin ~ (x - lo) * scale (f32), (key(x) - key(edges[0])) * scale (integers)
  float margin;         // f32: an estimate this far from every integer is exactly in bin floor(estimate) (>= 0.5: never)
  device_view counts;   // bindable, `bins` u32, zeroed by the caller (counts accumulate)
  std::uint64_t bins;
  const run_options* opt;
  const view_desc* view = nullptr;  // bindable (bindable_view): the input is this view, computed in the load
};

/// Records the counting passes (one dispatch per storage-binding chunk of the input).
void record_histogram(recorder& rec, const histogram_args& args);

extern const kernel_spec histogram_atomic_spec;

}  // namespace wgprim::detail
