// What the native backend's primitives share: the backend's description, range pointers, argument checks,
// statistics.
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/version.h>

#include "core/backend_hooks.hpp"
#include "core/views.hpp"
#include "native/backend.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail::cpu_backend {

unsigned threads() { return static_cast<unsigned>(tbb::info::default_concurrency()); }

namespace {
std::string architecture() {
#if defined(__AVX512F__)
  return "x86-64 AVX-512";
#elif defined(__AVX2__)
  return "x86-64 AVX2";
#elif defined(__x86_64__)
  return "x86-64 SSE2";
#elif defined(__aarch64__)
  return "aarch64 NEON";
#else
  return "generic";
#endif
}
}  // namespace

namespace {
void check_host_view(const context& ctx, const range_ref& r, const char* what) {
  check_view(ctx, r.view, what);
  if (r.count && !r.view.host)
    throw error(errc::unsupported, std::string(what) +
                                       ": a wrapped WGPUBuffer on a native-backend context (device_span::wrap "
                                       "needs a WebGPU context)");
}
}  // namespace

const std::uint32_t* host_in(const context& ctx, const range_ref& r, const char* what) {
  if (!r.on_device) return static_cast<const std::uint32_t*>(r.host);
  check_host_view(ctx, r, what);
  return reinterpret_cast<const std::uint32_t*>(static_cast<const char*>(r.view.host) + r.view.offset);
}

std::uint32_t* host_out(const context& ctx, const range_ref& r, const char* what) {
  if (!r.on_device) return static_cast<std::uint32_t*>(r.host_out);
  check_host_view(ctx, r, what);
  return reinterpret_cast<std::uint32_t*>(static_cast<char*>(r.view.host) + r.view.offset);
}

void no_encoder(const char* primitive) {
  throw error(errc::unsupported, std::string(primitive) + " into a WGPUCommandEncoder needs a WebGPU context; this "
                                 "one runs the native CPU backend (call it without an encoder, or make the context "
                                 "with --adapter llvmpipe / backend_choice::webgpu)");
}

void fill(const run_options& opt, double ms, const std::string& algorithm) {
  if (!opt.stats) return;
  *opt.stats = run_stats{};
  opt.stats->gpu_ms = ms;
  opt.stats->gpu_timestamps = false;
  opt.stats->algorithm = algorithm;
}

}  // namespace wgprim::detail::cpu_backend

namespace wgprim::detail {
native_description describe_native_backend() {
  const unsigned n = cpu_backend::threads();
  return {"native CPU (oneTBB, " + std::to_string(n) + (n == 1 ? " thread)" : " threads)"), cpu_backend::architecture(),
          std::string("oneTBB ") + TBB_VERSION_STRING};
}
}  // namespace wgprim::detail
