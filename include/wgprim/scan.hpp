// Device-wide prefix scans, like std::inclusive_scan / std::exclusive_scan and cub::DeviceScan.
// The operator must be associative (it need not commute: the order of the input is kept).
// inclusive: out[i] = x[0] op ... op x[i]; exclusive: out[i] = identity op x[0] op ... op x[i-1].
#pragma once
#include <chrono>
#include <cstddef>
#include <vector>

#include "wgprim/algorithm.hpp"
#include "wgprim/context.hpp"
#include "wgprim/op.hpp"

typedef struct WGPUCommandEncoderImpl* WGPUCommandEncoder;

namespace wgprim {

enum class scan_kind { inclusive, exclusive };

/// Scans n elements of `in` into `out` on the device (in and out may be the same buffer).
void scan(context& ctx, const buffer& in, buffer& out, std::size_t n, const monoid& m, scan_kind kind,
          const run_options& options = {});

/// Records the scan into the caller's command encoder instead of submitting it: the data never leaves the GPU
/// and the caller can batch several primitives into one submit. Parameters are uploaded at once through the
/// queue (ordered before the caller's later submit); temporary buffers live as long as the commands need them.
void scan(context& ctx, WGPUCommandEncoder encoder, const buffer& in, buffer& out, std::size_t n, const monoid& m,
          scan_kind kind, const run_options& options = {});

template <class T>
void inclusive_scan(context& ctx, const buffer& in, buffer& out, std::size_t n, const op& o = op::sum(),
                    const run_options& options = {}) {
  scan(ctx, in, out, n, monoid(o, dtype_of<T>::value), scan_kind::inclusive, options);
}
template <class T>
void exclusive_scan(context& ctx, const buffer& in, buffer& out, std::size_t n, const op& o = op::sum(),
                    const run_options& options = {}) {
  scan(ctx, in, out, n, monoid(o, dtype_of<T>::value), scan_kind::exclusive, options);
}

/// Host arrays: uploads, scans, downloads into out[0..n).
template <class T>
void scan(context& ctx, const T* in, std::size_t n, T* out, const op& o, scan_kind kind,
          const run_options& options = {}) {
  monoid m(o, dtype_of<T>::value);
  if (n == 0) return;
  using clock = std::chrono::steady_clock;
  auto t0 = clock::now();
  buffer d_in = ctx.create_buffer(n * sizeof(T));
  ctx.write(d_in, 0, in, n * sizeof(T));
  ctx.finish();
  double up = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  buffer d_out = ctx.create_buffer(n * sizeof(T));
  scan(ctx, d_in, d_out, n, m, kind, options);
  auto t1 = clock::now();
  ctx.read(d_out, 0, out, n * sizeof(T));
  if (options.stats) {
    options.stats->upload_ms = up;
    options.stats->download_ms = std::chrono::duration<double, std::milli>(clock::now() - t1).count();
  }
}
template <class T>
void inclusive_scan(context& ctx, const T* in, std::size_t n, T* out, const op& o = op::sum(),
                    const run_options& options = {}) {
  scan<T>(ctx, in, n, out, o, scan_kind::inclusive, options);
}
template <class T>
void exclusive_scan(context& ctx, const T* in, std::size_t n, T* out, const op& o = op::sum(),
                    const run_options& options = {}) {
  scan<T>(ctx, in, n, out, o, scan_kind::exclusive, options);
}
template <class T>
std::vector<T> inclusive_scan(context& ctx, const std::vector<T>& in, const op& o = op::sum(),
                              const run_options& options = {}) {
  std::vector<T> out(in.size());
  scan<T>(ctx, in.data(), in.size(), out.data(), o, scan_kind::inclusive, options);
  return out;
}
template <class T>
std::vector<T> exclusive_scan(context& ctx, const std::vector<T>& in, const op& o = op::sum(),
                              const run_options& options = {}) {
  std::vector<T> out(in.size());
  scan<T>(ctx, in.data(), in.size(), out.data(), o, scan_kind::exclusive, options);
  return out;
}

}  // namespace wgprim
