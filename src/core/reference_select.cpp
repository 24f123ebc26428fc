// The CPU twins of select / partition / unique: the sequential loops of std::copy_if, std::stable_partition
// and std::unique, on raw 32-bit patterns.
#include <vector>

#include "wgprim/reference.hpp"

namespace wgprim::reference {

std::size_t select_if(const std::uint32_t* x, std::size_t n, const bound_predicate& p, std::uint32_t* out) {
  std::size_t k = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (p(x[i])) out[k++] = x[i];
  return k;
}

std::size_t select_flagged(const std::uint32_t* x, const std::uint32_t* flags, std::size_t n, std::uint32_t* out) {
  std::size_t k = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (flags[i] != 0) out[k++] = x[i];
  return k;
}

std::size_t partition(const std::uint32_t* x, std::size_t n, const bound_predicate& p, std::uint32_t* out) {
  std::vector<std::uint32_t> rejected;
  std::size_t k = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (p(x[i])) out[k++] = x[i];
    else rejected.push_back(x[i]);
  }
  for (std::size_t i = 0; i < rejected.size(); ++i) out[k + i] = rejected[i];
  return k;
}

std::size_t partition_reversed(const std::uint32_t* x, std::size_t n, const bound_predicate& p, std::uint32_t* out) {
  std::size_t k = 0, back = n;
  for (std::size_t i = 0; i < n; ++i) {
    if (p(x[i])) out[k++] = x[i];
    else out[--back] = x[i];
  }
  return k;
}

std::size_t unique(const std::uint32_t* x, std::size_t n, dtype t, std::uint32_t* out) {
  auto same = [t](std::uint32_t a, std::uint32_t b) {
    return t == dtype::f32 ? from_bits<float>(a) == from_bits<float>(b) : a == b;
  };
  std::size_t k = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (i == 0 || !same(x[i], x[i - 1])) out[k++] = x[i];
  return k;
}

}  // namespace wgprim::reference
