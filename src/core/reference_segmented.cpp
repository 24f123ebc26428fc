// CPU twins of segmented reduce/scan, reduce-by-key and run-length encoding: plain loops.
#include <cmath>

#include "wgprim/reference.hpp"

namespace wgprim::reference {

void segmented_reduce(const std::uint32_t* x, const std::uint32_t* offsets, std::size_t n_segments,
                      std::uint32_t* out, const monoid& m) {
  for (std::size_t s = 0; s < n_segments; ++s) {
    const std::uint32_t b = offsets[s], e = offsets[s + 1];
    if (b >= e) {
      out[s] = m.identity_bits();
      continue;
    }
    std::uint32_t acc = x[b];  // the first element as it is (no combine with the identity), as the scans do
    for (std::uint32_t i = b + 1; i < e; ++i) acc = m.combine(acc, x[i]);
    out[s] = acc;
  }
}

void segmented_scan(const std::uint32_t* x, std::size_t n, const std::uint32_t* offsets, std::size_t n_segments,
                    std::uint32_t* out, const monoid& m, bool exclusive) {
  std::vector<bool> starts(n + 1, false);
  if (n) starts[0] = true;
  for (std::size_t s = 0; s <= n_segments; ++s)
    if (offsets[s] < n) starts[offsets[s]] = true;
  std::uint32_t acc = m.identity_bits();
  for (std::size_t i = 0; i < n; ++i) {
    if (starts[i]) {
      out[i] = exclusive ? m.identity_bits() : x[i];
      acc = x[i];
    } else {
      out[i] = exclusive ? acc : m.combine(acc, x[i]);
      acc = m.combine(acc, x[i]);
    }
  }
}

bool keys_equal(dtype t, std::uint32_t a, std::uint32_t b) {
  if (t == dtype::f32) return from_bits<float>(a) == from_bits<float>(b);
  return a == b;
}

std::size_t reduce_by_key(const std::uint32_t* keys, dtype key_type, const std::uint32_t* values, std::size_t n,
                          std::uint32_t* unique_keys, std::uint32_t* sums, const monoid& m) {
  std::size_t runs = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0 || !keys_equal(key_type, keys[i - 1], keys[i])) {
      unique_keys[runs] = keys[i];
      sums[runs] = values[i];
      ++runs;
    } else {
      sums[runs - 1] = m.combine(sums[runs - 1], values[i]);  // the run's first key stays (as thrust's)
    }
  }
  return runs;
}

std::size_t run_length_encode(const std::uint32_t* x, dtype t, std::size_t n, std::uint32_t* values,
                              std::uint32_t* counts) {
  std::size_t runs = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0 || !keys_equal(t, x[i - 1], x[i])) {
      values[runs] = x[i];
      counts[runs] = 1;
      ++runs;
    } else {
      ++counts[runs - 1];
    }
  }
  return runs;
}

}  // namespace wgprim::reference
