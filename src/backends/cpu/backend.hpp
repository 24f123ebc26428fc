// The native CPU backend (issue 19): every primitive as multithreaded (oneTBB), vectorised host code, for
// machines without a GPU, where running the WGSL on a CPU adapter (lavapipe) is slower than a plain loop.
// A context runs it when context::backend() == backend_choice::native (see context_options::backend): its
// buffers are host memory (buffer::host_data()), it has no WebGPU device, and each primitive's type-erased entry
// point (detail::reduce_bits, detail::scan_run, detail::copy_run, ...) begins with
//     if (cpu_backend::native(ctx)) return cpu_backend::<primitive>(...);
// Adding a primitive: one function here, one file src/backends/cpu/<primitive>.cpp, that one line in the
// primitive's entry point, and the native context in its tests. Ranges arrive as the entry point got them
// (device views of this context's host buffers, or the caller's host memory: no upload, no copy);
// host_in()/host_out() turn them into pointers. Built-in operators get specialised loops (ops.hpp); custom
// expressions run through the CPU twin's evaluator (monoid::combine), correct and slower.
// This header stays free of TBB and webgpu.h: src/gpu/device.cpp includes it.
#pragma once
#include <cstdint>
#include <string>

#include "wgprim/algorithm.hpp"
#include "wgprim/context.hpp"
#include "wgprim/device_vector.hpp"
#include "wgprim/op.hpp"
#include "wgprim/scan.hpp"

namespace wgprim::detail::cpu_backend {

inline bool native(const context& ctx) { return ctx.backend() == backend_choice::native; }

/// "native CPU (oneTBB, N threads)": the adapter name a native context reports.
std::string adapter_name();
std::string architecture();  // the compiler's target ("x86-64 SSE2", "x86-64 AVX2", ...)
std::string tbb_version();
/// Worker threads the backend uses (oneTBB's default concurrency: the cores this process may run on).
unsigned threads();

// ---- the primitives: one function each ----

/// reduce: every accuracy mode; the result's bits (init combined in front when given).
std::uint32_t reduce(context& ctx, const range_ref& in, const monoid& m, const std::uint32_t* init,
                     const run_options& opt);
/// inclusive / exclusive scan with an optional init; in == out (in place) allowed, as on the GPU.
void scan(context& ctx, const range_ref& in, const range_ref& out, const monoid& m, scan_kind kind,
          const std::uint32_t* init, const run_options& opt);
/// copy between two device ranges of one native context.
void copy(context& ctx, const range_ref& in, const range_ref& out, const run_options& opt);

/// The reproducible f32 sum: bit-identical to the GPU's accuracy::reproducible (today the fixed-shape tree of
/// shaders/reduce/fixed.wgsl, mirrored by cpu::reduce_reproducible_f32). Everything reproducible in this backend
/// goes through this one function, so replacing the GPU's algorithm means replacing this function (reproducible.cpp).
float reproducible_sum_f32(const float* x, std::size_t n);

// ---- shared by the files of this folder ----

/// Host pointer of an input / output range (a view of one of ctx's buffers, or host memory); `what` names the
/// argument in errors (a view of a WGPUBuffer wrapped with device_span::wrap has no host memory: unsupported).
const std::uint32_t* host_in(const context& ctx, const range_ref& r, const char* what);
std::uint32_t* host_out(const context& ctx, const range_ref& r, const char* what);
/// Rejects a run_options::algorithm that no backend knows (any registered name of the primitive, or "native",
/// runs the native code).
void check_algorithm(const char* primitive, const std::string& requested);
/// Fills run_options::stats: wall time of the work, algorithm name.
void fill(const run_options& opt, double ms, const std::string& algorithm);

}  // namespace wgprim::detail::cpu_backend
