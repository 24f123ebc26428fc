/// @file
/// Reduce-by-key and run-length encoding, like thrust::reduce_by_key and cub::DeviceRunLengthEncode::Encode.
/// A run is a maximal stretch of equal consecutive keys (floats: NaN equals nothing, -0 equals +0).
/// @code
///   reduce_by_key(ctx, keys, values, unique_keys_out, sums_out, op) -> runs: unique_keys_out[r] = the first key
///     of run r, sums_out[r] = the reduction of its values (order kept: op need not commute). The outputs need
///     room for every run (keys.size() always suffices); fewer gives errc::invalid_argument after the run.
///   run_length_encode(ctx, in, values_out, counts_out) -> runs: the first value of each run and its length (u32).
/// @endcode
/// Keys/values of float, std::int32_t or std::uint32_t; device ranges or host ranges (only `runs` elements of
/// host outputs are written).
///
/// @code
///   std::size_t runs = wgprim::reduce_by_key(ctx, d_keys, d_values, d_unique, d_sums);
///   std::size_t runs = wgprim::run_length_encode(ctx, host_vec, values, counts);
/// @endcode
#pragma once
#include <cstdint>
#include <type_traits>

#include "wgprim/algorithm.hpp"
#include "wgprim/context.hpp"
#include "wgprim/device_vector.hpp"
#include "wgprim/op.hpp"

typedef struct WGPUCommandEncoderImpl* WGPUCommandEncoder;

namespace wgprim {

namespace detail {
/// values == null: run-length encoding (every value 1u, the sums are counts). runs_out (may be null): the number
/// of runs is also copied there (device, one u32) — the only result of a run recorded into a caller's encoder.
std::uint64_t reduce_by_key_run(context& ctx, WGPUCommandEncoder encoder, const range_ref& keys, dtype key_type,
                                const range_ref* values, const range_ref& unique_keys, const range_ref& sums,
                                const monoid& m, const range_ref* runs_out, const run_options& opt);
}  // namespace detail

template <class K, class V, class UK, class S,
          class = std::enable_if_t<detail::is_range_v<K> && detail::is_range_v<V> && detail::is_range_v<UK> &&
                                   detail::is_range_v<S>>>
/// Reduce-by-key over device or host ranges; returns the number of runs (see the file's description).
std::size_t reduce_by_key(context& ctx, const K& keys, const V& values, UK&& unique_keys_out, S&& sums_out,
                          const op& o = op::sum(), const run_options& opt = {}) {
  using KT = detail::range_value_t<K>;
  using VT = detail::range_value_t<V>;
  static_assert(std::is_same_v<KT, detail::range_value_t<UK>>, "wgprim: unique keys have the keys' type");
  static_assert(std::is_same_v<VT, detail::range_value_t<S>>, "wgprim: sums have the values' type");
  const monoid m(o, dtype_of<VT>::value);
  const detail::range_ref v = detail::in_ref(values);
  return static_cast<std::size_t>(detail::reduce_by_key_run(
      ctx, nullptr, detail::in_ref(keys), dtype_of<KT>::value, &v, detail::out_ref(std::forward<UK>(unique_keys_out)),
      detail::out_ref(std::forward<S>(sums_out)), m, nullptr, opt));
}

template <class In, class VO, class CO,
          class = std::enable_if_t<detail::is_range_v<In> && detail::is_range_v<VO> && detail::is_range_v<CO>>>
/// Run-length encoding over device or host ranges; returns the number of runs.
std::size_t run_length_encode(context& ctx, const In& in, VO&& values_out, CO&& counts_out,
                              const run_options& opt = {}) {
  using T = detail::range_value_t<In>;
  static_assert(std::is_same_v<T, detail::range_value_t<VO>>, "wgprim: values_out has the input's type");
  static_assert(std::is_same_v<std::uint32_t, detail::range_value_t<CO>>, "wgprim: counts are std::uint32_t");
  static const monoid m(op::sum(), dtype::u32);
  return static_cast<std::size_t>(detail::reduce_by_key_run(
      ctx, nullptr, detail::in_ref(in), dtype_of<T>::value, nullptr, detail::out_ref(std::forward<VO>(values_out)),
      detail::out_ref(std::forward<CO>(counts_out)), m, nullptr, opt));
}

/// Recorded into the caller's command encoder (device ranges): the number of runs lands in num_runs_out[0].
template <class K, class V, class UK, class S>
void reduce_by_key(context& ctx, WGPUCommandEncoder encoder, const K& keys, const V& values, UK&& unique_keys_out,
                   S&& sums_out, device_span<std::uint32_t> num_runs_out, const op& o = op::sum(),
                   const run_options& opt = {}) {
  static_assert(detail::is_device_range_v<K> && detail::is_device_range_v<V>, "wgprim: device ranges only");
  const monoid m(o, dtype_of<detail::range_value_t<V>>::value);
  const detail::range_ref v = detail::in_ref(values), r = detail::out_ref(num_runs_out);
  detail::reduce_by_key_run(ctx, encoder, detail::in_ref(keys), dtype_of<detail::range_value_t<K>>::value, &v,
                            detail::out_ref(std::forward<UK>(unique_keys_out)),
                            detail::out_ref(std::forward<S>(sums_out)), m, &r, opt);
}

/// run_length_encode recorded into the caller's command encoder (device ranges): the number of runs lands in
/// num_runs_out[0].
template <class In, class VO, class CO>
void run_length_encode(context& ctx, WGPUCommandEncoder encoder, const In& in, VO&& values_out, CO&& counts_out,
                       device_span<std::uint32_t> num_runs_out, const run_options& opt = {}) {
  static_assert(detail::is_device_range_v<In>, "wgprim: device ranges only");
  static_assert(std::is_same_v<std::uint32_t, detail::range_value_t<CO>>, "wgprim: counts are std::uint32_t");
  static const monoid m(op::sum(), dtype::u32);
  const detail::range_ref r = detail::out_ref(num_runs_out);
  detail::reduce_by_key_run(ctx, encoder, detail::in_ref(in), dtype_of<detail::range_value_t<In>>::value, nullptr,
                            detail::out_ref(std::forward<VO>(values_out)), detail::out_ref(std::forward<CO>(counts_out)),
                            m, &r, opt);
}

/// Runtime-typed (for tools): n keys of key_type and values of the monoid's type; returns the number of runs.
inline std::size_t reduce_by_key(context& ctx, const buffer& keys, dtype key_type, const buffer& values, std::size_t n,
                                 buffer& unique_keys, buffer& sums, const monoid& m, const run_options& opt = {}) {
  const detail::range_ref v = detail::in_ref(device_span<const std::uint32_t>(values, 0, n));
  return static_cast<std::size_t>(detail::reduce_by_key_run(
      ctx, nullptr, detail::in_ref(device_span<const std::uint32_t>(keys, 0, n)), key_type, &v,
      detail::out_ref(device_span<std::uint32_t>(unique_keys, 0, n)), detail::out_ref(device_span<std::uint32_t>(sums, 0, n)),
      m, nullptr, opt));
}
/// Runtime-typed run_length_encode (for tools): n elements of type t; returns the number of runs.
inline std::size_t run_length_encode(context& ctx, const buffer& in, dtype t, std::size_t n, buffer& values,
                                     buffer& counts, const run_options& opt = {}) {
  static const monoid m(op::sum(), dtype::u32);
  return static_cast<std::size_t>(detail::reduce_by_key_run(
      ctx, nullptr, detail::in_ref(device_span<const std::uint32_t>(in, 0, n)), t, nullptr,
      detail::out_ref(device_span<std::uint32_t>(values, 0, n)), detail::out_ref(device_span<std::uint32_t>(counts, 0, n)),
      m, nullptr, opt));
}

}  // namespace wgprim
