// The host superaccumulator: the CPU twin of shaders/shared/superaccumulator.wgsl (the same limbs, the same
// serialized form), and the one place that rounds an exact sum.
#include "wgprim/exact.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "wgprim/error.hpp"

namespace wgprim {

namespace {
constexpr std::int64_t radix = std::int64_t(1) << superaccumulator::limb_bits;
constexpr std::int64_t limb_mask = radix - 1;
}  // namespace

void superaccumulator::add(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, 4);
  const std::uint32_t e = (b >> 23) & 0xff, frac = b & 0x7fffff;
  if (e == 0xff) {
    flags_ |= frac ? nan : (b >> 31) ? neg_inf : pos_inf;
    return;
  }
  // value = m * 2^(max(e, 1) - 150): the significand's lowest bit sits at position p of the accumulator.
  const std::int64_t m = frac | (e ? 0x800000u : 0u);
  const std::uint32_t p = e ? e : 1;
  const std::int64_t v = (m << (p % limb_bits)) * ((b >> 31) ? -1 : 1);  // |v| < 2^47
  const int k = static_cast<int>(p / limb_bits);
  limb_[k] += v & limb_mask;  // v = (v >> 24) * 2^24 + (v & mask), arithmetic shift: floor
  limb_[k + 1] += v >> limb_bits;
  if (++pending_ == (1u << 30)) normalize();
}

void superaccumulator::add(const float* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) add(x[i]);
}

superaccumulator& superaccumulator::combine(const superaccumulator& o) {
  normalize();
  superaccumulator t = o;
  t.normalize();
  for (int j = 0; j < limbs; ++j) limb_[j] += t.limb_[j];
  flags_ |= o.flags_;
  normalize();
  return *this;
}

void superaccumulator::normalize() {
  for (int j = 0; j + 1 < limbs; ++j) {
    const std::int64_t carry = limb_[j] >> limb_bits;  // floor
    limb_[j] &= limb_mask;
    limb_[j + 1] += carry;
  }
  pending_ = 0;
}

bool superaccumulator::is_zero() const {
  superaccumulator t = *this;
  t.normalize();
  if (t.flags_) return false;
  for (std::int64_t l : t.limb_)
    if (l) return false;
  return true;
}

superaccumulator::words superaccumulator::serialize() const {
  superaccumulator t = *this;
  t.normalize();
  words w;
  for (int j = 0; j < limbs; ++j) w.w[j] = static_cast<std::uint32_t>(t.limb_[j]);  // top: two's complement
  w.w[limbs] = t.flags_;
  return w;
}

superaccumulator superaccumulator::deserialize(const words& w) {
  superaccumulator a;
  for (int j = 0; j + 1 < limbs; ++j) {
    if (w.w[j] >> limb_bits)
      throw error(errc::invalid_argument, "superaccumulator: limb " + std::to_string(j) + " is out of range");
    a.limb_[j] = w.w[j];
  }
  a.limb_[limbs - 1] = static_cast<std::int32_t>(w.w[limbs - 1]);
  if (w.w[limbs] & ~std::uint32_t(nan | pos_inf | neg_inf))
    throw error(errc::invalid_argument, "superaccumulator: unknown flags");
  a.flags_ = w.w[limbs];
  return a;
}

namespace {

// The magnitude of the exact sum as a plain binary number (64-bit words, least significant first) and its sign.
struct magnitude {
  std::vector<std::uint64_t> w;  // 6 words: the 312 bits of the limbs plus room
  bool negative = false;
  int top_bit() const {  // -1 for zero
    for (int i = static_cast<int>(w.size()) - 1; i >= 0; --i)
      if (w[i]) return i * 64 + 63 - __builtin_clzll(w[i]);
    return -1;
  }
  bool bit(int i) const { return i >= 0 && (w[i / 64] >> (i % 64)) & 1; }
  bool any_below(int i) const {  // any bit at positions < i
    for (int k = 0; k < i && k < static_cast<int>(w.size()) * 64; ++k)
      if (bit(k)) return true;
    return false;
  }
  std::uint64_t bits(int lo, int count) const {  // count <= 63
    std::uint64_t r = 0;
    for (int k = count - 1; k >= 0; --k) r = (r << 1) | (bit(lo + k) ? 1 : 0);
    return r;
  }
};

// limbs: normalized (0..11 in [0, 2^24), 12 signed).
magnitude magnitude_of(const std::int64_t (&limb)[superaccumulator::limbs]) {
  constexpr int L = superaccumulator::limbs;
  std::int64_t l[L];
  std::memcpy(l, limb, sizeof l);
  magnitude m;
  m.negative = l[L - 1] < 0;
  if (m.negative) {  // negate, then normalize again: the limbs become the magnitude's
    for (int j = 0; j < L; ++j) l[j] = -l[j];
    for (int j = 0; j + 1 < L; ++j) {
      std::int64_t carry = l[j] >> 24;
      l[j] &= limb_mask;
      l[j + 1] += carry;
    }
  }
  m.w.assign(6, 0);
  for (int j = 0; j < L; ++j) {
    // the top limb may be wider than 24 bits (up to 2^39): spread it bit by bit through the 64-bit words
    std::uint64_t v = static_cast<std::uint64_t>(l[j]);
    for (int k = 0; k < 64 && v; ++k, v >>= 1)
      if (v & 1) {
        int pos = 24 * j + k;
        m.w[pos / 64] |= std::uint64_t(1) << (pos % 64);
      }
  }
  return m;
}

// Rounds the magnitude to `precision` bits, ties to even, with the result's lowest bit at position >= min_lsb;
// returns q and the position of its lowest bit (value = q * 2^(lsb - 150)).
void round_bits(const magnitude& m, int precision, int min_lsb, std::uint64_t& q, int& lsb) {
  const int top = m.top_bit();
  lsb = std::max(top - (precision - 1), min_lsb);
  q = m.bits(lsb, top - lsb + 1 > 0 ? top - lsb + 1 : 0);
  const bool round = m.bit(lsb - 1), sticky = m.any_below(lsb - 1);
  if (round && (sticky || (q & 1))) ++q;  // may become 2^precision: still exact, one bit longer
}

// NaN/Inf from the flags, or nothing.
bool special(std::uint32_t flags, double& out) {
  using f = superaccumulator::flag;
  if ((flags & f::nan) || ((flags & f::pos_inf) && (flags & f::neg_inf))) {
    out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (flags & (f::pos_inf | f::neg_inf)) {
    out = (flags & f::pos_inf) ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
    return true;
  }
  return false;
}

}  // namespace

float superaccumulator::round_to_float() const {
  double s;
  if (special(flags_, s)) return static_cast<float>(s);
  // Word arithmetic (a scan rounds once per element): the magnitude's limbs, its leading limb t and the one below
  // hold every bit from the leading one down to the rounding bit; lower limbs only feed the sticky bit.
  constexpr int L = limbs;
  std::int64_t l[L];
  superaccumulator c = *this;
  c.normalize();
  std::memcpy(l, c.limb_, sizeof l);
  const bool negative = l[L - 1] < 0;
  if (negative) {
    for (int j = 0; j < L; ++j) l[j] = -l[j];
    for (int j = 0; j + 1 < L; ++j) {
      const std::int64_t carry = l[j] >> limb_bits;
      l[j] &= limb_mask;
      l[j + 1] += carry;
    }
  }
  int t = L - 1;
  while (t >= 0 && l[t] == 0) --t;
  if (t < 0) return 0.0f;
  const int top = t * limb_bits + 63 - __builtin_clzll(static_cast<std::uint64_t>(l[t]));
  const float inf = std::numeric_limits<float>::infinity();
  if (top >= 278) return negative ? -inf : inf;  // 2^128 and beyond (then limb 12 is 0 and limb 11 < 2^14)
  const int base = t > 0 ? (t - 1) * limb_bits : 0;
  const std::uint64_t w = t > 0 ? (static_cast<std::uint64_t>(l[t]) << limb_bits) | static_cast<std::uint64_t>(l[t - 1])
                                : static_cast<std::uint64_t>(l[0]);
  const int lsb = std::max(top - 23, 1);  // f32's smallest step, 2^-149, is position 1
  std::uint64_t q = w >> (lsb - base);
  const int r = lsb - 1 - base;  // >= 0
  const bool round = (w >> r) & 1;
  bool sticky = (w & ((std::uint64_t(1) << r) - 1)) != 0;
  for (int j = 0; j < t - 1 && !sticky; ++j) sticky = l[j] != 0;
  if (round && (sticky || (q & 1))) ++q;
  const double v = std::ldexp(static_cast<double>(q), lsb + unit_exponent);  // exact in double
  const float f = v >= 0x1p128 ? inf : static_cast<float>(v);
  return negative ? -f : f;
}

double superaccumulator::to_double() const {
  double s;
  if (special(flags_, s)) return s;
  superaccumulator t = *this;
  t.normalize();
  magnitude m = magnitude_of(t.limb_);
  if (m.top_bit() < 0) return 0.0;
  std::uint64_t q;
  int lsb;
  round_bits(m, 53, 0, q, lsb);
  const double v = std::ldexp(static_cast<double>(q), lsb + unit_exponent);
  return m.negative ? -v : v;
}

std::string superaccumulator::to_decimal() const {
  double s;
  if (special(flags_, s)) return std::isnan(s) ? "nan" : s > 0 ? "inf" : "-inf";
  superaccumulator t = *this;
  t.normalize();
  magnitude m = magnitude_of(t.limb_);
  // value = M * 2^-150 = M * 5^150 / 10^150: the digits of M * 5^150 with the point 150 places from the right.
  std::vector<std::uint32_t> d;  // base 10^9, least significant first
  auto mul_add = [&d](std::uint64_t mul, std::uint64_t add) {
    for (auto& x : d) {
      std::uint64_t cur = x * mul + add;
      x = static_cast<std::uint32_t>(cur % 1000000000u);
      add = cur / 1000000000u;
    }
    while (add) {
      d.push_back(static_cast<std::uint32_t>(add % 1000000000u));
      add /= 1000000000u;
    }
  };
  for (int i = static_cast<int>(m.w.size()) * 64 - 16; i >= 0; i -= 16) mul_add(1u << 16, m.bits(i, 16));
  for (int k = 0; k < 150 / 10; ++k) mul_add(9765625u, 0);  // 5^10
  std::string digits;
  for (int i = static_cast<int>(d.size()) - 1; i >= 0; --i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, digits.empty() ? "%u" : "%09u", d[i]);
    digits += buf;
  }
  if (digits.empty()) digits = "0";
  if (digits.size() <= 150) digits.insert(0, 151 - digits.size(), '0');
  std::string out = digits.substr(0, digits.size() - 150);
  std::string frac = digits.substr(digits.size() - 150);
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  if (!frac.empty()) out += "." + frac;
  if (m.negative && out != "0") out.insert(0, "-");
  return out;
}

exact_sum_result detail::exact_result(const superaccumulator& a) {
  return {a.round_to_float(), a.to_double(), a.to_decimal(), a};
}

}  // namespace wgprim
