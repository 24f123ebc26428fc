// Accuracy modes of f32 sums, and the NaN/Inf rules on every path.
#include <cmath>
#include <limits>

#include "common.hpp"

namespace wgprim::test {
namespace {

std::vector<float> prices(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>((500 + rng() % 4501) / 100.0);
  return v;
}

// Mixed signs and magnitudes with a chosen condition number sum|x| / |sum x| (about `cond`).
std::vector<float> mixed(std::size_t n, double cond, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> mag(-8.0f, 8.0f), unit(0.5f, 1.0f);
  std::vector<float> v(n);
  double s = 0, a = 0;
  for (auto& x : v) {
    x = unit(rng) * std::exp2(mag(rng)) * ((rng() & 1) ? 1.0f : -1.0f);
    s += x;
    a += std::fabs(x);
  }
  // shift the sum so that |sum| ~ a / cond, by adjusting the last element
  double target = a / cond;
  v.back() = static_cast<float>(v.back() + (target - s));
  return v;
}

float run(context& c, const std::vector<float>& x, accuracy acc, const run_options& base = {}) {
  run_options o = base;
  o.accuracy = acc;
  return reduce(c, x, op::sum(), o);
}

TEST(Numerics, CompensatedAndReproducibleAreWithinOneUlp) {
  for (std::size_t n : {1000u, 65537u, 1u << 20}) {
    for (int set = 0; set < 4; ++set) {
      std::vector<float> x = set == 0 ? prices(n, 1) : mixed(n, set == 1 ? 1e2 : set == 2 ? 1e4 : 1e6, set);
      double exact = reference::exact_sum_f32(x.data(), n);
      for (accuracy a : {accuracy::compensated, accuracy::reproducible}) {
        float got = run(ctx(), x, a);
        EXPECT_LE(reference::ulp_error_f32(got, exact), 1.0)
            << accuracy_name(a) << " n=" << n << " set=" << set << " got " << got << " exact " << exact;
      }
    }
  }
}

TEST(Numerics, ReproducibleBitsMatchTheCpuTwinAndIgnoreThePolicy) {
  for (std::size_t n : {1u, 4095u, 4096u, 4097u, 300001u, (1u << 20) + 7u}) {
    auto x = mixed(n, 1e3, static_cast<std::uint32_t>(n));
    const std::uint32_t want = to_bits(reference::correctly_rounded_sum_f32(x.data(), n));
    std::vector<run_options> variants(5);
    variants[1].algorithm = "seed";
    variants[2].tune.workgroups = 3;
    variants[3].tune.subgroups = 0;
    variants[4].tune.items = 8;
    for (const auto& v : variants) EXPECT_EQ(to_bits(run(ctx(), x, accuracy::reproducible, v)), want) << "n=" << n;
    // A 1 MiB binding limit cuts the first level into chunks: the same bits.
    EXPECT_EQ(to_bits(run(small_binding_ctx(), x, accuracy::reproducible)), want) << "n=" << n << " chunked";
  }
}

TEST(Numerics, FastSumsStayWithinTheirBound) {
  auto x = mixed(1u << 20, 1e2, 5);
  double exact = reference::exact_sum_f32(x.data(), x.size());
  double bound = f32_sum_bound(64 + 16, reference::abs_sum_f32(x.data(), x.size()));
  EXPECT_LE(std::fabs(run(ctx(), x, accuracy::fast) - exact), bound);
}

TEST(Numerics, NanAndInfFollowIeeeOnEveryPath) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (std::size_t n : {5u, 70000u}) {
    auto base = prices(n, 3);
    auto with = [&](std::initializer_list<std::pair<std::size_t, float>> at) {
      auto v = base;
      for (auto& p : at) v[p.first % n] = p.second;
      return v;
    };
    for (accuracy a : {accuracy::fast, accuracy::compensated, accuracy::reproducible})
      for (const char* alg : {"fast", "seed"}) {
        run_options o;
        o.algorithm = alg;
        std::string what = std::string(accuracy_name(a)) + " " + alg + " n=" + std::to_string(n);
        EXPECT_TRUE(std::isnan(run(ctx(), with({{n / 2, nan}}), a, o))) << what;
        EXPECT_EQ(run(ctx(), with({{1, inf}}), a, o), inf) << what;
        EXPECT_EQ(run(ctx(), with({{1, -inf}, {n - 1, -inf}}), a, o), -inf) << what;
        EXPECT_TRUE(std::isnan(run(ctx(), with({{1, inf}, {n - 1, -inf}}), a, o))) << what;
        EXPECT_TRUE(std::isnan(run(ctx(), with({{0, inf}, {2, nan}}), a, o))) << what;
      }
    // min / max propagate NaN, on every algorithm
    for (const char* alg : {"fast", "seed"}) {
      run_options o;
      o.algorithm = alg;
      auto v = with({{n / 3, nan}});
      EXPECT_TRUE(std::isnan(reduce(ctx(), v, op::min(), o))) << alg;
      EXPECT_TRUE(std::isnan(reduce(ctx(), v, op::max(), o))) << alg;
      EXPECT_EQ(reduce(ctx(), with({{2, -inf}}), op::min(), o), -inf) << alg;
      EXPECT_EQ(reduce(ctx(), with({{2, inf}}), op::max(), o), inf) << alg;
    }
    // scans: NaN from its position on, inf + finite = inf
    for (const auto& alg : scan_algorithms()) {
      run_options o;
      o.algorithm = alg;
      auto v = with({{n / 2, nan}});
      auto s = inclusive_scan(ctx(), v, op::sum(), o);
      EXPECT_FALSE(std::isnan(s[n / 2 - 1])) << alg;
      EXPECT_TRUE(std::isnan(s[n / 2])) << alg;
      EXPECT_TRUE(std::isnan(s[n - 1])) << alg;
      auto m = inclusive_scan(ctx(), v, op::max(), o);
      EXPECT_TRUE(std::isnan(m[n - 1])) << alg;
      auto w = inclusive_scan(ctx(), with({{1, inf}}), op::sum(), o);
      EXPECT_EQ(w[n - 1], inf) << alg;
      EXPECT_LT(w[0], inf) << alg;
    }
  }
}

}  // namespace
}  // namespace wgprim::test

namespace wgprim::test {
namespace {

// Compensated scans: each prefix is within 1 ulp of the exact prefix, plus the one rounding of its 256-block
// local prefix that the seed shape adds (0.5 ulp of a value no larger than the block's sum of |x|).
TEST(Numerics, CompensatedScanPrefixesAreAccurate) {
  const double u = std::ldexp(1.0, -24);
  for (std::size_t n : {1000u, 300001u}) {
    for (int set = 0; set < 2; ++set) {
      auto x = set == 0 ? prices(n, 7) : mixed(n, 1e4, 8);
      for (scan_kind k : {scan_kind::inclusive, scan_kind::exclusive}) {
        run_options o;
        o.accuracy = accuracy::compensated;
        std::vector<float> got(n);
        scan(ctx(), x, got, k, op::sum(), o);
        long double exact = 0;
        double block_abs = 0;
        std::size_t bad = 0;
        for (std::size_t i = 0; i < n; ++i) {
          if (i % 256 == 0) block_abs = 0;
          long double before = exact;
          exact += x[i];
          block_abs += std::fabs(x[i]);
          double want = static_cast<double>(k == scan_kind::inclusive ? exact : before);
          float w = static_cast<float>(want);
          double ulp = static_cast<double>(std::nextafter(std::fabs(w), INFINITY)) - std::fabs(static_cast<double>(w));
          if (!(std::fabs(got[i] - want) <= ulp + u * block_abs)) ++bad;
        }
        EXPECT_EQ(bad, 0u) << "n=" << n << " set=" << set;
      }
    }
  }
}

TEST(Numerics, ReproducibleScanIgnoresThePolicy) {
  const std::size_t n = 300001;
  auto x = mixed(n, 1e3, 9);
  run_options base;
  base.accuracy = accuracy::reproducible;
  std::vector<float> want = inclusive_scan(ctx(), x, op::sum(), base);
  std::vector<run_options> variants(4, base);
  variants[0].algorithm = "seed";
  variants[1].algorithm = "decoupled";
  variants[2].tune.subgroups = 0;
  variants[3].tune.items = 8;
  for (const auto& v : variants) {
    auto got = inclusive_scan(ctx(), x, op::sum(), v);
    EXPECT_EQ(std::memcmp(got.data(), want.data(), n * 4), 0) << v.algorithm;
  }
  // The last value is also close to the exact sum.
  EXPECT_LE(reference::ulp_error_f32(want.back(), reference::exact_sum_f32(x.data(), n)), 1.0);
}

}  // namespace
}  // namespace wgprim::test
