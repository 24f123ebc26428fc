// Loop shapes shared by the native backend's primitives: independent accumulators that the compiler
// vectorises, the cascade for f32 sums, and the deterministic parallel reduction over leaves.
#pragma once
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_reduce.h>

#include <cstddef>
#include <cstring>

#include "native/ops.hpp"

namespace wgprim::detail::cpu_backend {

/// Elements per leaf of a parallel reduction (256 KiB of f32), and the size below which one thread does it all.
constexpr std::size_t leaf_elements = std::size_t(1) << 16;
constexpr std::size_t serial_below = std::size_t(1) << 15;

/// Reduces [0, n) as leaves of at most leaf_elements, merged in a tree that depends on n alone
/// (parallel_deterministic_reduce splits the range the same way whatever the thread count), so fast sums give
/// the same bits on every run of a machine.
template <class R, class Leaf, class Merge>
R over_leaves(std::size_t n, Leaf leaf, Merge merge) {
  if (n <= serial_below) return leaf(0, n);
  struct maybe { R v; bool set; };
  return tbb::parallel_deterministic_reduce(
             tbb::blocked_range<std::size_t>(0, n, leaf_elements), maybe{R{}, false},
             [&](const tbb::blocked_range<std::size_t>& r, maybe acc) {
               R here = leaf(r.begin(), r.size());
               return acc.set ? maybe{merge(acc.v, here), true} : maybe{here, true};
             },
             [&](maybe a, maybe b) {
               if (!a.set) return b;
               if (!b.set) return a;
               return maybe{merge(a.v, b.v), true};
             })
      .v;
}

/// 16 independent accumulators (4 SSE / 2 AVX vectors of f32 or 32-bit integers), folded in a tree at the end.
/// Regroups: only for commutative and associative operators (every built-in).
template <class Op>
typename Op::T lanes16(const typename Op::T* x, std::size_t n, const Op& op) {
  using T = typename Op::T;
  T a[16];
  for (auto& v : a) v = op.id();
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; ++j) a[j] = op(a[j], x[i + j]);
  for (int j = 0; i < n; ++i, ++j) a[j] = op(a[j], x[i]);
  for (int s = 8; s; s >>= 1)
    for (int j = 0; j < s; ++j) a[j] = op(a[j], a[j + s]);
  return a[0];
}

/// f32 sum of one leaf: 16 lanes over blocks of 512 elements (32 additions per lane), blocks merged pairwise
/// through a binary counter (cascade summation), lanes folded last. Longest chain of dependent additions:
/// 32 + log2(n / 512) + 4, so the error bound stays gamma_h * sum|x| with h ~ 50 for any n, at memory speed.
struct lanes_f { float v[16]; };
inline lanes_f add_lanes(lanes_f a, const lanes_f& b) {
  for (int j = 0; j < 16; ++j) a.v[j] += b.v[j];
  return a;
}
inline float sum_f32(const float* x, std::size_t n) {
  constexpr std::size_t block = 512;
  lanes_f stack[64];
  int top = 0;
  const std::size_t blocks = n / block;
  for (std::size_t b = 0; b < blocks; ++b) {
    const float* p = x + b * block;
    lanes_f s;
    std::memcpy(s.v, p, sizeof s.v);
    for (std::size_t i = 16; i < block; i += 16)
      for (int j = 0; j < 16; ++j) s.v[j] += p[i + j];
    for (std::size_t c = b; c & 1; c >>= 1) s = add_lanes(stack[--top], s);
    stack[top++] = s;
  }
  lanes_f s{};
  for (std::size_t i = blocks * block, j = 0; i < n; ++i, j = (j + 1) % 16) s.v[j] += x[i];
  while (top) s = add_lanes(stack[--top], s);
  for (int w = 8; w; w >>= 1)
    for (int j = 0; j < w; ++j) s.v[j] += s.v[j + w];
  return s.v[0];
}

}  // namespace wgprim::detail::cpu_backend
