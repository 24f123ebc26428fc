// Device-wide reduction: combine all n elements with a monoid, like std::reduce / cub::DeviceReduce.
// The operator must be associative and commutative; n == 0 returns the identity.
#pragma once
#include <chrono>
#include <cstddef>
#include <vector>

#include "wgprim/algorithm.hpp"
#include "wgprim/context.hpp"
#include "wgprim/op.hpp"

typedef struct WGPUCommandEncoderImpl* WGPUCommandEncoder;

namespace wgprim {

/// Reduces n elements of type t already in a device buffer; returns the raw bits of the result.
std::uint32_t reduce_bits(context& ctx, const buffer& in, std::size_t n, const monoid& m,
                          const run_options& options = {});

/// Records the reduction into the caller's command encoder; the result lands in result[result_index] on the
/// device when the caller's submit runs (nothing is read back).
void reduce(context& ctx, WGPUCommandEncoder encoder, const buffer& in, std::size_t n, const monoid& m,
            buffer& result, std::size_t result_index = 0, const run_options& options = {});

/// Reduces n elements of a device buffer (data stays on the GPU; only the result comes back).
template <class T>
T reduce(context& ctx, const buffer& in, std::size_t n, const op& o = op::sum(), const run_options& options = {}) {
  return from_bits<T>(reduce_bits(ctx, in, n, monoid(o, dtype_of<T>::value), options));
}

/// Uploads n host elements, reduces them and returns the result.
template <class T>
T reduce(context& ctx, const T* data, std::size_t n, const op& o = op::sum(), const run_options& options = {}) {
  monoid m(o, dtype_of<T>::value);
  if (n == 0) return from_bits<T>(m.identity_bits());
  auto t0 = std::chrono::steady_clock::now();
  buffer in = ctx.create_buffer(n * sizeof(T));
  ctx.write(in, 0, data, n * sizeof(T));
  ctx.finish();
  double up = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  T r = from_bits<T>(reduce_bits(ctx, in, n, m, options));
  if (options.stats) options.stats->upload_ms = up;
  return r;
}

template <class T>
T reduce(context& ctx, const std::vector<T>& v, const op& o = op::sum(), const run_options& options = {}) {
  return reduce<T>(ctx, v.data(), v.size(), o, options);
}

}  // namespace wgprim
