/// @file
/// Device copy with a compute shader: the same bytes a scan reads and writes, so benchmarks can show the
/// adapter's copy speed as the ceiling of a scan.
#pragma once
#include "wgprim/algorithm.hpp"
#include "wgprim/device_vector.hpp"

namespace wgprim {

namespace detail {
void copy_run(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& out,
              const run_options& opt);
}

/// Copies a device range into another of the same length (different buffers).
template <class In, class Out,
          class = std::enable_if_t<detail::is_device_range_v<In> && detail::is_device_range_v<Out>>>
void copy(context& ctx, const In& in, Out&& out, const run_options& opt = {}) {
  detail::copy_run(ctx, nullptr, detail::in_ref(in), detail::out_ref(std::forward<Out>(out)), opt);
}
/// Recorded into the caller's command encoder.
template <class In, class Out,
          class = std::enable_if_t<detail::is_device_range_v<In> && detail::is_device_range_v<Out>>>
void copy(context& ctx, WGPUCommandEncoder encoder, const In& in, Out&& out, const run_options& opt = {}) {
  detail::copy_run(ctx, encoder, detail::in_ref(in), detail::out_ref(std::forward<Out>(out)), opt);
}

}  // namespace wgprim
