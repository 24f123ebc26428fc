// An exact f32 prefix-sum reference independent of src/core/exact.cpp, for the distributed scan tests (Multi, Mpi):
// GMP integers in units of 2^-150 (every finite f32 is one), rounded to the nearest f32, ties to even, here.
// Also the data sets that make a rounded carry show: mixed magnitudes, cancelling giants, a prefix that overflows
// f32 and comes back, infinities and NaN.
#pragma once
#include <gmp.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "wgprim/types.hpp"

namespace wgprim::test::exact_ref {

class prefix {
 public:
  prefix() { mpz_inits(sum_, tmp_, nullptr); }
  ~prefix() { mpz_clears(sum_, tmp_, nullptr); }
  prefix(const prefix&) = delete;
  prefix& operator=(const prefix&) = delete;

  void add(float x) {
    if (std::isnan(x)) nan_ = true;
    else if (std::isinf(x)) (x > 0 ? pinf_ : ninf_) = true;
    else {
      // |x| * 2^150 < 2^278 is an integer with at most 24 significant bits: exact in a double
      mpz_set_d(tmp_, std::ldexp(static_cast<double>(x), 150));
      mpz_add(sum_, sum_, tmp_);
    }
  }
  /// The sum so far rounded to f32: round to nearest, ties to even; beyond the largest finite f32: +-inf.
  float rounded() const {
    if (nan_ || (pinf_ && ninf_)) return std::numeric_limits<float>::quiet_NaN();
    if (pinf_) return std::numeric_limits<float>::infinity();
    if (ninf_) return -std::numeric_limits<float>::infinity();
    const int sign = mpz_sgn(sum_);
    if (sign == 0) return 0.0f;
    mpz_t m, q;
    mpz_inits(m, q, nullptr);
    mpz_abs(m, sum_);
    const long bits = static_cast<long>(mpz_sizeinbase(m, 2));
    // keep 24 significant bits, but never below 2^-149 (unit 2^1 in 2^-150 units): drop `cut` bits
    const long cut = std::max(bits - 24, 1L);
    mpz_fdiv_q_2exp(q, m, static_cast<mp_bitcnt_t>(cut));
    const bool half = mpz_tstbit(m, static_cast<mp_bitcnt_t>(cut - 1)) != 0;
    const bool sticky = mpz_scan1(m, 0) < static_cast<mp_bitcnt_t>(cut - 1);
    if (half && (sticky || mpz_odd_p(q))) mpz_add_ui(q, q, 1);
    const double v = std::ldexp(mpz_get_d(q), static_cast<int>(cut) - 150);  // q <= 2^24: exact
    mpz_clears(m, q, nullptr);
    const float f = v >= 0x1p128 ? std::numeric_limits<float>::infinity() : static_cast<float>(v);
    return sign < 0 ? -f : f;
  }

 private:
  mpz_t sum_, tmp_;
  bool nan_ = false, pinf_ = false, ninf_ = false;
};

/// The exact inclusive or exclusive prefix sums of x, each rounded once (bits).
inline std::vector<std::uint32_t> scan(const std::vector<float>& x, bool exclusive) {
  prefix p;
  std::vector<std::uint32_t> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (exclusive) out[i] = to_bits(p.rounded());
    p.add(x[i]);
    if (!exclusive) out[i] = to_bits(p.rounded());
  }
  return out;
}

/// Data: 0 mixed signs and magnitudes (2^-30 .. 2^30), 1 cancelling giants (1e30 .. 1e38) among values 1 .. 100,
/// 2 a run of giants whose prefix overflows f32 and comes back, 3 mixed with one +inf, one -inf and a NaN late.
inline std::vector<float> data(int set, std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed * 2654435761u + static_cast<std::uint32_t>(set));
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::vector<float> x(n);
  for (auto& v : x) v = set == 1 ? 1.0f + 99.0f * std::fabs(unit(rng)) : std::ldexp(unit(rng), static_cast<int>(rng() % 61) - 30);
  if (set == 1)
    for (std::size_t i = 0; i + 9 < n; i += 9) {
      const float g = std::ldexp(1.0f + std::fabs(unit(rng)), 100 + static_cast<int>(rng() % 26));
      x[i] = (rng() & 1) ? g : -g;
      x[i + 1 + rng() % 8] = -x[i];
    }
  if (set == 2 && n >= 16) {
    for (std::size_t i = n / 4; i < n / 4 + 4; ++i) x[i] = 3.0e38f;
    for (std::size_t i = n / 2; i < n / 2 + 4; ++i) x[i] = -3.0e38f;
  }
  if (set == 3 && n >= 8) {
    x[n / 3] = std::numeric_limits<float>::infinity();
    x[n / 2] = -std::numeric_limits<float>::infinity();
    x[n - 1 - n / 8] = std::numeric_limits<float>::quiet_NaN();
  }
  return x;
}

}  // namespace wgprim::test::exact_ref
