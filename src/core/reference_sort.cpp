// The sort's CPU twin: std::stable_sort with a comparator written on the values (not on the GPU's bit transform),
// so that the test compares two independent definitions of the order.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>
#include <numeric>

#include "core/expr.hpp"
#include "wgprim/reference.hpp"
#include "wgprim/types.hpp"

namespace wgprim::reference {

namespace {
bool less_ascending(std::uint32_t a, std::uint32_t b, dtype t) {
  switch (t) {
    case dtype::u32: return a < b;
    case dtype::i32: return static_cast<std::int32_t>(a) < static_cast<std::int32_t>(b);
    default: {
      const float x = from_bits<float>(a), y = from_bits<float>(b);
      const bool xn = std::isnan(x), yn = std::isnan(y);
      if (xn || yn) return !xn && yn;  // NaNs after everything, equal to each other
      if (x == y) return std::signbit(x) && !std::signbit(y);  // -0.0 before +0.0
      return x < y;
    }
  }
}
bool less_ascending64(std::uint64_t a, std::uint64_t b, int kind) {
  switch (kind) {
    case 0: return a < b;
    case 1: return static_cast<std::int64_t>(a) < static_cast<std::int64_t>(b);
    default: {
      double x, y;
      std::memcpy(&x, &a, 8);
      std::memcpy(&y, &b, 8);
      const bool xn = std::isnan(x), yn = std::isnan(y);
      if (xn || yn) return !xn && yn;
      if (x == y) return std::signbit(x) && !std::signbit(y);
      return x < y;
    }
  }
}

template <class K, class Less>
void sort_with(K* keys, std::size_t n, std::uint32_t* values, Less less) {
  if (!values) {
    std::stable_sort(keys, keys + n, less);
    return;
  }
  std::vector<std::pair<K, std::uint32_t>> kv(n);
  for (std::size_t i = 0; i < n; ++i) kv[i] = {keys[i], values[i]};
  std::stable_sort(kv.begin(), kv.end(), [&](const auto& a, const auto& b) { return less(a.first, b.first); });
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = kv[i].first;
    values[i] = kv[i].second;
  }
}
}  // namespace

void stable_sort64(std::uint64_t* keys, std::size_t n, int kind, bool descending, std::uint32_t* values) {
  sort_with(keys, n, values, [kind, descending](std::uint64_t a, std::uint64_t b) {
    return descending ? less_ascending64(b, a, kind) : less_ascending64(a, b, kind);
  });
}

void stable_sort(std::uint32_t* keys, std::size_t n, dtype t, bool descending, std::uint32_t* values) {
  sort_with(keys, n, values, [t, descending](std::uint32_t a, std::uint32_t b) {
    return descending ? less_ascending(b, a, t) : less_ascending(a, b, t);
  });
}

namespace {
std::uint64_t ordered64(std::uint64_t k, int kind) {
  const std::uint64_t sign = 1ull << 63;
  if (kind == 1) return k ^ sign;
  if (kind == 2) {
    double d;
    std::memcpy(&d, &k, 8);
    if (std::isnan(d)) return ~0ull;
    return std::signbit(d) ? ~k : k | sign;
  }
  return k;
}
std::uint64_t bits_mask(unsigned begin_bit, unsigned end_bit) {
  return (end_bit >= 64 ? ~0ull : (1ull << end_bit) - 1) & ~((1ull << begin_bit) - 1);
}
}  // namespace

void stable_sort_bits(std::uint32_t* keys, std::size_t n, dtype t, bool descending, unsigned begin_bit,
                      unsigned end_bit, std::uint32_t* values) {
  if (end_bit == 0) end_bit = 32;
  if (begin_bit == 0 && end_bit == 32) return stable_sort(keys, n, t, descending, values);
  const int kind = t == dtype::f32 ? 2 : t == dtype::i32 ? 1 : 0;
  const std::uint32_t mask = static_cast<std::uint32_t>(bits_mask(begin_bit, end_bit));
  auto ordered = [kind](std::uint32_t k) -> std::uint32_t {
    if (kind == 1) return k ^ 0x80000000u;
    if (kind == 2) {
      if (std::isnan(from_bits<float>(k))) return 0xffffffffu;
      return (k & 0x80000000u) ? ~k : k | 0x80000000u;
    }
    return k;
  };
  sort_with(keys, n, values, [&](std::uint32_t a, std::uint32_t b) {
    const std::uint32_t x = ordered(a) & mask, y = ordered(b) & mask;
    return descending ? y < x : x < y;
  });
}

void stable_sort64_bits(std::uint64_t* keys, std::size_t n, int kind, bool descending, unsigned begin_bit,
                        unsigned end_bit, std::uint32_t* values) {
  if (end_bit == 0) end_bit = 64;
  if (begin_bit == 0 && end_bit == 64) return stable_sort64(keys, n, kind, descending, values);
  const std::uint64_t mask = bits_mask(begin_bit, end_bit);
  sort_with(keys, n, values, [&](std::uint64_t a, std::uint64_t b) {
    const std::uint64_t x = ordered64(a, kind) & mask, y = ordered64(b, kind) & mask;
    return descending ? y < x : x < y;
  });
}

void segmented_stable_sort(std::uint32_t* keys, const std::uint32_t* offsets, std::size_t n_segments, dtype t,
                           bool descending, unsigned begin_bit, unsigned end_bit, std::uint32_t* values) {
  for (std::size_t s = 0; s < n_segments; ++s)
    stable_sort_bits(keys + offsets[s], offsets[s + 1] - offsets[s], t, descending, begin_bit, end_bit,
                     values ? values + offsets[s] : nullptr);
}

void stable_sort_less(std::uint32_t* keys, std::size_t n, dtype t, const std::string& less, std::uint32_t* values) {
  const detail::expr_program p(less, t, detail::expr_program::mode::less);
  sort_with(keys, n, values, [&p](std::uint32_t a, std::uint32_t b) { return p.eval(a, b) != 0; });
}

}  // namespace wgprim::reference
