// Exact f32 sums (accuracy::reproducible, wgprim::exact_sum, wgprim::superaccumulator) against an independent
// reference: the exact sum as a GMP integer (in units of 2^-1074, where every double and float is an integer),
// rounded by comparing it with the neighbouring floats' exact values (nearest wins, ties to the even significand).
// Nothing here uses the library's own superaccumulator code to compute an expected value.
#include <gmpxx.h>

#include <cfloat>
#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>

#include "common.hpp"

namespace wgprim::test {
namespace {

const float inf = std::numeric_limits<float>::infinity();

// The exact value of a finite float or double, times 2^1074.
template <class F>
mpz_class units_of(F c) {
  if (c == 0) return 0;
  int e;
  const F mant = std::frexp(std::fabs(c), &e);  // |c| = mant * 2^e, mant in [0.5, 1)
  constexpr int digits = std::numeric_limits<F>::digits;
  const auto m = static_cast<unsigned long>(std::ldexp(mant, digits));  // |c| = m * 2^(e - digits); 64-bit long
  mpz_class r = m;
  r <<= static_cast<unsigned long>(e - digits + 1074);
  return c < 0 ? mpz_class(-r) : r;
}

struct reference {
  mpz_class sum;  // exact sum of the finite values, times 2^1074
  bool nan = false, pos_inf = false, neg_inf = false;
};

reference exact_reference(const std::vector<float>& x) {
  reference r;
  for (float v : x) {
    if (std::isnan(v)) r.nan = true;
    else if (std::isinf(v)) (v > 0 ? r.pos_inf : r.neg_inf) = true;
    else r.sum += units_of(v);
  }
  return r;
}

// Round-to-nearest-even of the exact value to F, by comparing it with the candidates around a first guess.
template <class F>
F round_reference(const reference& r) {
  if (r.nan || (r.pos_inf && r.neg_inf)) return std::numeric_limits<F>::quiet_NaN();
  if (r.pos_inf) return std::numeric_limits<F>::infinity();
  if (r.neg_inf) return -std::numeric_limits<F>::infinity();
  if (r.sum == 0) return 0;
  const bool neg = r.sum < 0;
  const mpz_class mag = neg ? mpz_class(-r.sum) : r.sum;
  // A guess within an ulp: the top 64 bits of the magnitude, scaled (long double: 2^-1074 and 2^200 both fit).
  const long bits = static_cast<long>(mpz_sizeinbase(mag.get_mpz_t(), 2));
  const long shift = std::max(0L, bits - 64);
  const mpz_class top64 = mag >> static_cast<unsigned long>(shift);
  const long double guess = std::ldexp(static_cast<long double>(top64.get_ui()), static_cast<int>(shift - 1074));
  const F g = static_cast<F>(guess);
  const F top = std::numeric_limits<F>::max();
  // The unbounded-exponent successor of the largest finite value (2^128 for f32), with an even significand.
  const mpz_class beyond = units_of(top) + (units_of(top) - units_of(std::nextafter(top, F(0))));
  F best = 0;
  mpz_class best_err = -1;
  bool best_even = true;
  for (F c : {std::nextafter(g, F(0)), g, std::nextafter(g, std::numeric_limits<F>::infinity())}) {
    const bool is_inf = std::isinf(c);
    const mpz_class u = is_inf ? beyond : units_of(c);
    const mpz_class err = abs(mag - u);
    std::uint64_t bits = 0;
    std::memcpy(&bits, &c, sizeof(F));
    const bool even = is_inf || (bits & 1) == 0;
    if (best_err < 0 || err < best_err || (err == best_err && even && !best_even)) {
      best = c;
      best_err = err;
      best_even = even;
    }
  }
  return neg ? -best : best;
}

// The exact decimal text, from GMP: sum * 2^-1074 = sum * 5^1074 / 10^1074.
std::string decimal_reference(const reference& r) {
  if (r.nan || (r.pos_inf && r.neg_inf)) return "nan";
  if (r.pos_inf) return "inf";
  if (r.neg_inf) return "-inf";
  mpz_class five;
  mpz_ui_pow_ui(five.get_mpz_t(), 5, 1074);
  mpz_class scaled = abs(r.sum) * five;
  std::string d = scaled.get_str();
  if (d.size() <= 1074) d.insert(0, 1075 - d.size(), '0');
  std::string whole = d.substr(0, d.size() - 1074), frac = d.substr(d.size() - 1074);
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  return (r.sum < 0 ? "-" : "") + whole + (frac.empty() ? "" : "." + frac);
}

bool same_bits(float a, float b) { return to_bits(a) == to_bits(b) || (std::isnan(a) && std::isnan(b)); }

// ---- ill-conditioned data ----

float random_finite(std::mt19937& rng) {  // any finite f32 bit pattern: subnormals to the largest
  for (;;) {
    float f = from_bits<float>(rng());
    if (std::isfinite(f)) return f;
  }
}

std::vector<float> ordinary(std::size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> mag(-8.0f, 8.0f), unit(0.5f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = unit(rng) * std::exp2(mag(rng)) * ((rng() & 1) ? 1.0f : -1.0f);
  return v;
}

// Adds `pairs` pairs (v, -v), then shuffles everything.
void add_cancelling_pairs(std::vector<float>& x, std::size_t pairs, std::mt19937& rng,
                          const std::function<float()>& value) {
  for (std::size_t i = 0; i < pairs; ++i) {
    float v = value();
    x.push_back(v);
    x.push_back(-v);
  }
  std::shuffle(x.begin(), x.end(), rng);
}

struct data_set {
  std::string name;
  std::vector<float> x;
};

std::vector<data_set> ill_conditioned(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<data_set> sets;
  {  // +-1e30..1e37 cancelling in pairs over ordinary values: every other mode is off by ~1e24 ulps here
    auto x = ordinary(n, rng);
    std::uniform_real_distribution<float> e(30.0f, 37.0f);
    add_cancelling_pairs(x, n / 8 + 1, rng, [&] { return std::pow(10.0f, e(rng)) * ((rng() & 1) ? 1.0f : -1.0f); });
    sets.push_back({"big cancelling pairs", x});
  }
  {  // pairs over the whole exponent range, subnormals to the largest, over a few ordinary values
    auto x = ordinary(n / 16 + 1, rng);
    add_cancelling_pairs(x, n / 2, rng, [&] { return random_finite(rng); });
    sets.push_back({"whole-range pairs", x});
  }
  {  // random finite values of every magnitude (the sum is dominated by the largest; exact still)
    std::vector<float> x(n);
    for (auto& v : x) v = random_finite(rng);
    sets.push_back({"random bits", x});
  }
  {  // subnormals of both signs
    std::vector<float> x(n);
    for (auto& v : x) v = from_bits<float>((rng() & 0x807fffffu));
    sets.push_back({"subnormals", x});
  }
  {  // all equal
    sets.push_back({"all 0.1f", std::vector<float>(n, 0.1f)});
    sets.push_back({"all FLT_TRUE_MIN", std::vector<float>(n, FLT_TRUE_MIN)});
  }
  {  // alternating signs of nearly equal values
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i)
      x[i] = (i % 2 ? -1.0f : 1.0f) * (1.0f + std::ldexp(static_cast<float>(i % 1024), -20));
    sets.push_back({"alternating", x});
  }
  {  // near overflow: a sum past FLT_MAX (-> +inf), its negation, and one that comes back within range
    std::vector<float> up(n, FLT_MAX / 2), down(n, -FLT_MAX / 2);
    up.push_back(FLT_MAX);
    down.push_back(-FLT_MAX);
    sets.push_back({"overflow to +inf", up});
    sets.push_back({"overflow to -inf", down});
    auto back = ordinary(n, rng);
    back.insert(back.end(), 4, FLT_MAX);  // partial sums far past FLT_MAX in most orders
    back.insert(back.end(), 4, -FLT_MAX);
    back.push_back(-0x1p104f);  // FLT_MAX's ulp is 2^104: the exact sum is ordinary - 2^104
    std::shuffle(back.begin(), back.end(), rng);
    sets.push_back({"overflow and back", back});
    // Exactly at the rounding boundary 2^128 - 2^103 (a tie between FLT_MAX and 2^128): IEEE gives inf.
    sets.push_back({"tie at overflow", {FLT_MAX, 0x1p103f}});
    sets.push_back({"just below the overflow tie", {FLT_MAX, 0x1p103f, -FLT_TRUE_MIN}});
  }
  {  // ties to even, buried under cancelling pairs: 1 + 2^-24 -> 1 (even); (1 + 2^-23) + 2^-24 -> 1 + 2^-22
    for (float base : {1.0f, 1.0f + 0x1p-23f, -3.0f, 0x1p-100f}) {
      std::vector<float> x = {base, base * 0x1p-24f};
      if (base == -3.0f) x = {-3.0f, -0x1p-23f};  // -3 - 2^-23: a tie between -3 and -3 - 2^-22 -> -3 (even)
      add_cancelling_pairs(x, n / 2, rng, [&] { return random_finite(rng); });
      sets.push_back({"tie " + std::to_string(base), x});
    }
  }
  return sets;
}

float gpu_sum(context& c, const std::vector<float>& x, const run_options& o = {}) {
  run_options r = o;
  r.accuracy = accuracy::reproducible;
  return reduce(c, x, op::sum(), r);
}

// ---- the reference itself, on hand-checked values ----

TEST(Exact, TheReferenceRoundsLikeIeee) {
  EXPECT_EQ(round_reference<float>(exact_reference({1.0f, 0x1p-24f})), 1.0f);
  EXPECT_EQ(round_reference<float>(exact_reference({1.0f + 0x1p-23f, 0x1p-24f})), 1.0f + 0x1p-22f);
  EXPECT_EQ(round_reference<float>(exact_reference({FLT_MAX, 0x1p103f})), inf);
  EXPECT_EQ(round_reference<float>(exact_reference({FLT_MAX, 0x1p102f})), FLT_MAX);
  EXPECT_EQ(round_reference<float>(exact_reference({0.1f, 0.2f})), 0.1f + 0.2f);  // one rounding either way
  EXPECT_EQ(decimal_reference(exact_reference({0.1f})), "0.100000001490116119384765625");
  EXPECT_EQ(decimal_reference(exact_reference({-2.5f, 0.25f})), "-2.25");
}

// ---- the host superaccumulator ----

TEST(Exact, HostSuperaccumulatorIsCorrectlyRounded) {
  for (std::size_t n : {1u, 2u, 3u, 100u, 4097u}) {
    for (const auto& s : ill_conditioned(n, static_cast<std::uint32_t>(n))) {
      superaccumulator a;
      a.add(s.x.data(), s.x.size());
      const reference r = exact_reference(s.x);
      EXPECT_TRUE(same_bits(a.round_to_float(), round_reference<float>(r))) << s.name << " n=" << n;
      const double d = a.to_double(), want = round_reference<double>(r);
      EXPECT_TRUE(d == want || (std::isnan(d) && std::isnan(want))) << s.name << " n=" << n;
      EXPECT_EQ(a.to_decimal(), decimal_reference(r)) << s.name << " n=" << n;
    }
  }
}

TEST(Exact, HostSuperaccumulatorIsAMonoid) {
  std::mt19937 rng(3);
  for (const auto& s : ill_conditioned(5000, 11)) {
    superaccumulator whole;
    whole.add(s.x.data(), s.x.size());
    // Any partition, combined in any order, gives the same words; so does the serialized form.
    for (int trial = 0; trial < 3; ++trial) {
      std::vector<superaccumulator> parts(1 + rng() % 7);
      for (float v : s.x) parts[rng() % parts.size()].add(v);
      superaccumulator total;  // the identity
      for (std::size_t i = parts.size(); i-- > 0;)
        total.combine(superaccumulator::deserialize(parts[i].serialize()));
      EXPECT_EQ(total, whole) << s.name;
      EXPECT_TRUE(same_bits(total.round_to_float(), whole.round_to_float())) << s.name;
    }
    superaccumulator id;
    EXPECT_EQ(superaccumulator(whole).combine(id), whole);
  }
  EXPECT_TRUE(superaccumulator().is_zero());
  EXPECT_EQ(superaccumulator().to_decimal(), "0");
  superaccumulator::words bad{};
  bad.w[3] = 1u << 24;
  EXPECT_THROW(superaccumulator::deserialize(bad), error);
}

// ---- the GPU ----

TEST(Exact, GpuSumsAreCorrectlyRounded) {
  for (std::size_t n : {1u, 3u, 1000u, 20000u}) {
    for (const auto& s : ill_conditioned(n, static_cast<std::uint32_t>(n) + 1)) {
      const reference r = exact_reference(s.x);
      const float want = round_reference<float>(r);
      EXPECT_TRUE(same_bits(gpu_sum(ctx(), s.x), want)) << s.name << " n=" << s.x.size() << " want " << want;
      if (n == 20000u) {
        exact_sum_result e = exact_sum(ctx(), s.x);
        EXPECT_TRUE(same_bits(e.value, want)) << s.name;
        EXPECT_EQ(e.exact_text, decimal_reference(r)) << s.name;
        const double wd = round_reference<double>(r);
        EXPECT_TRUE(e.as_double == wd || (std::isnan(wd) && std::isnan(e.as_double))) << s.name;
      }
    }
  }
}

TEST(Exact, EdgeSizesMatchTheHostAccumulatorWordForWord) {
  std::mt19937 rng(5);
  std::vector<float> x(300007);
  for (auto& v : x) v = (rng() % 4 == 0) ? random_finite(rng) : ordinary(1, rng)[0];
  std::vector<std::size_t> sizes = edge_sizes(17);
  for (std::size_t n : {8191u, 8192u, 8193u, 16383u, 16384u, 16385u, 300007u}) sizes.push_back(n);
  for (std::size_t n : sizes) {
    std::vector<float> v(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(n));
    superaccumulator want;
    want.add(v.data(), n);
    EXPECT_EQ(exact_sum(ctx(), v).accumulator, want) << "n=" << n;
  }
}

TEST(Exact, BitsIgnoreThePolicyTheChunkingAndTheAlgorithm) {
  std::vector<tuning> tunes(1);
  auto tune = [&](auto f) {
    tuning t;
    f(t);
    tunes.push_back(t);
  };
  tune([](tuning& t) { t.workgroups = 1; });
  tune([](tuning& t) { t.workgroups = 3; t.items = 1; t.small_n = 1; });
  tune([](tuning& t) { t.workgroups = 64; t.items = 29; t.vec_loads = 0; });
  tune([](tuning& t) { t.vec_loads = 1; t.subgroups = 0; t.small_n = 1; });
  tune([](tuning& t) { t.items = 3; t.vec_loads = 0; t.small_n = 1; t.exact_window = 0; });
  tune([](tuning& t) { t.items = 29; t.vec_loads = 1; t.small_n = 1; t.exact_window = 1; });
  tune([](tuning& t) { t.workgroups = 5; t.exact_window = 0; });
  context tiny(webgpu_options());  // 16 KiB bindings: 4,096 elements per chunk
  testing::set_binding_limit(tiny, 16384);
  for (std::size_t n : {5u, 4097u, 65539u, 300001u}) {
    const auto sets = ill_conditioned(n, 99);
    // The hardest sets: big cancelling pairs, whole-range pairs, random bits, overflow and back (the big size:
    // the first only).
    for (std::size_t k : {0u, 1u, 2u, 9u}) {
      if (n > 100000 && k > 0) break;
      const data_set& s = sets[k];
      ASSERT_TRUE(k != 9 || s.name == "overflow and back") << s.name;
      superaccumulator want;
      want.add(s.x.data(), s.x.size());
      for (const tuning& t : tunes) {
        run_options o;
        o.tune = t;
        EXPECT_EQ(exact_sum(ctx(), s.x, o).accumulator, want) << s.name << " n=" << n << " wg=" << t.workgroups;
      }
      EXPECT_EQ(exact_sum(small_binding_ctx(), s.x).accumulator, want) << s.name << " 1 MiB chunks";
      EXPECT_EQ(exact_sum(tiny, s.x).accumulator, want) << s.name << " 16 KiB chunks";
      for (const auto& alg : reduce_algorithms()) {
        run_options o;
        o.algorithm = alg;
        EXPECT_TRUE(same_bits(gpu_sum(ctx(), s.x, o), want.round_to_float())) << s.name << " " << alg;
      }
    }
  }
}

// The column's carry budget: every invocation of one workgroup takes hundreds of values, half of them +-2^66 at
// random places (outside the four-limb window of the small ones, moving it), half filling one limb with 2^24 - 1
// each, so a column that is not normalized in time wraps a limb. Both window modes, tiles of 4 to 116 values.
TEST(Exact, ColumnsNormalizeBeforeALimbOverflows) {
  const float small = from_bits<float>(0x3c7fffffu);  // significand 2^24 - 1 at a limb's lowest bit
  std::mt19937 rng(7);
  std::vector<float> x(256 * 700);
  for (float& v : x) {
    const std::uint32_t r = rng() % 4;
    v = r == 0 ? 0x1p66f : r == 1 ? -0x1p66f : small;
  }
  superaccumulator want;
  want.add(x.data(), x.size());
  for (int window : {0, 1})
    for (std::uint32_t items : {1u, 8u, 29u}) {
      run_options o;
      o.tune.workgroups = 1;
      o.tune.items = items;
      o.tune.small_n = 1;
      o.tune.exact_window = window;
      EXPECT_EQ(exact_sum(ctx(), x, o).accumulator, want) << "window " << window << " items " << items;
    }
}

TEST(Exact, DeviceRangesInitAndErrors) {
  std::vector<float> x = {1e30f, 1.5f, -1e30f, 0x1p-24f};
  device_vector<float> d(ctx(), x);
  EXPECT_EQ(exact_sum(ctx(), d).value, 1.5f);
  EXPECT_EQ(exact_sum(ctx(), d.span().subspan(1, 2)).exact_text, "-1000000015047466219876688855038.5");
  run_options o;
  o.accuracy = accuracy::exact;
  // std::reduce's init joins the exact sum: 2^24 + 1.5 + 2^-24 -> 16777218 (1.5 + 2^-24 is past the tie)
  EXPECT_EQ(reduce(ctx(), x, 16777216.0f, op::sum(), o), 16777218.0f);
  EXPECT_EQ(reduce(ctx(), std::vector<float>{}, 2.5f, op::sum(), o), 2.5f);
  EXPECT_EQ(exact_sum(ctx(), std::vector<float>{}).exact_text, "0");
  o.tune.items = 30;
  EXPECT_THROW(reduce(ctx(), x, op::sum(), o), error);
  EXPECT_EQ(parse_accuracy("exact"), accuracy::reproducible);
  // NaN / Inf flags
  EXPECT_TRUE(std::isnan(exact_sum(ctx(), std::vector<float>{1, inf, -inf}).value));
  EXPECT_EQ(exact_sum(ctx(), std::vector<float>{1, -inf, 3}).exact_text, "-inf");
}

}  // namespace
}  // namespace wgprim::test
