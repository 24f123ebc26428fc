// histogram: every type x bin count x edge size against the CPU twin (NumPy's edges and a binary search over
// them), values exactly at and one ulp around every edge, NaN/Inf/outside, integer ranges past the type's ends,
// uneven levels, the chunked path, the caller's encoder, and bad arguments.

#include <algorithm>
#include <cmath>
#include <limits>

#include "common.hpp"
#include "core/host_checks.hpp"

namespace wgprim::test {
namespace {

std::vector<std::uint32_t> gpu_even(context& c, dtype t, const std::vector<std::uint32_t>& x, std::size_t bins,
                                    double lo, double hi, const run_options& opt = {}) {
  std::vector<std::uint32_t> got(bins, 0xdeadbeefu);
  with_type(t, [&](auto tag) {
    using T = decltype(tag);
    histogram_even(c, host_span<const T>(reinterpret_cast<const T*>(x.data()), x.size()), got, bins, lo, hi, opt);
  });
  return got;
}

std::vector<std::uint32_t> cpu_even(dtype t, const std::vector<std::uint32_t>& x, std::size_t bins, double lo,
                                    double hi) {
  std::vector<std::uint32_t> want(bins);
  reference::histogram(x.data(), x.size(), t, reference::histogram_edges(bins, lo, hi), want.data());
  return want;
}

std::string first_diff(const std::vector<std::uint32_t>& got, const std::vector<std::uint32_t>& want) {
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i])
      return "bin " + std::to_string(i) + ": got " + std::to_string(got[i]) + " want " + std::to_string(want[i]);
  return "";
}

std::uint64_t total(const std::vector<std::uint32_t>& c) {
  std::uint64_t s = 0;
  for (auto v : c) s += v;
  return s;
}

// Values spread over a little more than [lo, hi] so that some fall outside.
std::vector<std::uint32_t> spread(dtype t, std::size_t n, double lo, double hi, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(lo - 0.1 * (hi - lo) - 1, hi + 0.1 * (hi - lo) + 1);
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) {
    double r = d(rng);
    if (t == dtype::f32) x = to_bits(static_cast<float>(r));
    else if (t == dtype::i32) x = static_cast<std::uint32_t>(static_cast<std::int32_t>(std::llround(std::clamp(r, -2147483648.0, 2147483647.0))));
    else x = static_cast<std::uint32_t>(std::llround(std::clamp(r, 0.0, 4294967295.0)));
  }
  return v;
}

TEST(Histogram, EvenEveryTypeBinCountAndEdgeSize) {
  // Every size with every type; the bin counts and ranges rotate over the sizes (each meets many sizes).
  auto sizes = edge_sizes(17);
  struct range { double lo, hi; };
  const std::size_t bin_counts[] = {1, 7, 256, 4097, 65536};
  const range ranges[] = {{-500, 500}, {3, 1000.5}, {-1e6, 2.5e6}};
  for (dtype t : {dtype::f32, dtype::i32, dtype::u32})
    for (std::size_t j = 0; j < sizes.size(); ++j) {
      const std::size_t n = sizes[j], bins = bin_counts[(j + static_cast<int>(t)) % 5];
      const range r = ranges[(j / 5 + static_cast<int>(t)) % 3];
      auto x = spread(t, n, r.lo, r.hi, static_cast<std::uint32_t>(j) + static_cast<int>(t));
      auto want = cpu_even(t, x, bins, r.lo, r.hi);
      auto got = gpu_even(ctx(), t, x, bins, r.lo, r.hi);
      ASSERT_EQ(got, want) << dtype_name(t) << " bins=" << bins << " n=" << n << " range " << r.lo << ":" << r.hi
                           << ": " << first_diff(got, want);
      if (n > 100) EXPECT_GT(total(got), n / 2);
    }
}

// Bin counts around what workgroup memory holds (private bins, then the edges' keys): 256, 4095..4097, 8192,
// sizes around the four-strides-per-step loop of the grid-stride walk; the default, the GPU shape asked for by
// name, and the earlier kernel.
TEST(Histogram, EvenManyBins) {
  for (dtype t : {dtype::f32, dtype::i32, dtype::u32})
    for (std::size_t bins : {255u, 256u, 4095u, 4096u, 4097u, 8192u})
      for (std::size_t n : {0u, 1u, 4096u, 4097u, 262145u, 1000003u}) {
        auto x = spread(t, n, -500, 500, static_cast<std::uint32_t>(n + bins));
        auto want = cpu_even(t, x, bins, -500, 500);
        for (const char* alg : {"", "atomic", "atomic-plain"}) {  // "atomic" named: the GPU shape on CPU adapters too
          run_options ro;
          ro.algorithm = alg;
          auto got = gpu_even(ctx(), t, x, bins, -500, 500, ro);
          ASSERT_EQ(got, want) << dtype_name(t) << " bins=" << bins << " n=" << n << " " << alg << ": "
                               << first_diff(got, want);
        }
      }
}

// The kernel's shortcut on the host: where the estimate (x - lo) * scale, evaluated in any of the orders a GPU may
// pick (as written, reassociated, fused, denormals flushed), lies farther than even_edges' margin from every
// integer, its floor must be the bin the edges give. Values at, around and between every edge of many ranges, and
// outside them (no value outside may take the shortcut).
TEST(Histogram, EstimateMarginNeverMisbins) {
  std::mt19937 rng(11);
  std::uint64_t shortcut = 0, checked = 0;
  struct range { double lo, hi; };
  std::vector<range> ranges = {{0, 1}, {-500, 500}, {0.1, 0.7}, {-1e-3, 3e7}, {-3.3, -3.2999}, {1000, 1001},
                               {-1e30, 1e30}, {1e-30, 2e-30}, {-7, 1e6}, {123456, 123999}};
  std::uniform_real_distribution<double> mag(-8, 8);
  for (int i = 0; i < 40; ++i) {
    const double lo = (rng() % 2 ? -1 : 1) * std::pow(10.0, mag(rng));
    ranges.push_back({lo, lo + std::pow(10.0, mag(rng))});
  }
  auto ftz = [](float v) { return std::fabs(v) < std::numeric_limits<float>::min() ? 0.0f : v; };
  for (const range& r : ranges)
    for (std::size_t bins : {1u, 2u, 10u, 256u, 4096u, 65536u}) {
      detail::kernel_edges ke;
      try {
        ke = detail::even_edges(dtype::f32, bins, r.lo, r.hi);
      } catch (const error&) {
        continue;  // bins NumPy refuses
      }
      if (!ke.use_estimate || ke.margin >= 0.5f) continue;
      std::vector<float> e;
      for (auto b : ke.bits) e.push_back(from_bits<float>(b));
      std::vector<float> xs;
      for (std::size_t i = 0; i < e.size(); i += std::max<std::size_t>(1, e.size() / 300)) {
        float v = e[i];
        for (int k = 0; k < 4; ++k) v = std::nextafter(v, -INFINITY);
        for (int k = 0; k < 9; ++k, v = std::nextafter(v, INFINITY)) xs.push_back(v);
      }
      std::uniform_real_distribution<float> in(e.front(), e.back());
      for (int k = 0; k < 3000; ++k) xs.push_back(in(rng));
      // Outside the range (the kernel tries the shortcut before any range check): within a few widths, far out,
      // NaN and the infinities; none may take it.
      const double w = double(e.back()) - double(e.front());
      std::uniform_real_distribution<double> near(0, 3 * w);
      for (int k = 0; k < 500; ++k) {
        xs.push_back(static_cast<float>(double(e.front()) - near(rng)));
        xs.push_back(static_cast<float>(double(e.back()) + near(rng)));
      }
      for (float v : {std::numeric_limits<float>::quiet_NaN(), INFINITY, -INFINITY, 3e38f, -3e38f})
        xs.push_back(v);
      for (float x : xs) {
        const bool inside = x >= e.front() && x <= e.back();
        const std::size_t want =
            inside ? std::min<std::size_t>(std::upper_bound(e.begin(), e.end(), x) - e.begin() - 1, ke.reach - 1)
                   : std::size_t(-1);
        const float lo = ke.lo, s = ke.scale;
        const float orders[] = {(x - lo) * s, x * s - lo * s, std::fma(x, s, -(lo * s)), (ftz(x) - ftz(lo)) * s};
        for (float d : orders) {
          const float f = std::floor(d), frac = d - f;
          if (!(frac > ke.margin && frac < 1.0f - ke.margin && f >= 0.0f && f < float(ke.reach))) continue;
          ++shortcut;
          ASSERT_EQ(static_cast<std::size_t>(f), want)
              << "x=" << x << " range " << r.lo << ":" << r.hi << " bins=" << bins << " d=" << d << " margin=" << ke.margin;
        }
        ++checked;
      }
    }
  EXPECT_GT(shortcut, checked);  // most values take the shortcut in at least one order
}

// Every f32 edge, one ulp below and above it: the edges decide, not the estimate (x - lo) * scale.
TEST(Histogram, F32ValuesAtEveryEdge) {
  struct range { double lo, hi; };
  for (std::size_t bins : {1u, 3u, 10u, 1000u, 65536u})
    for (range r : {range{-500, 500}, range{0.1, 0.7}, range{-1e-3, 3e7}, range{1, 1}, range{-3.3, -3.2999}}) {
      auto e = reference::histogram_edges(bins, r.lo, r.hi);
      bool distinct = true;
      for (std::size_t i = 0; i + 1 < e.size(); ++i) distinct &= static_cast<float>(e[i]) < static_cast<float>(e[i + 1]);
      if (!distinct) {  // bins narrower than a float's spacing: NumPy refuses them, and so does wgprim
        std::vector<float> one = {1.0f};
        std::vector<std::uint32_t> c(bins);
        EXPECT_THROW(histogram_even(ctx(), one, c, bins, r.lo, r.hi), error) << bins << " " << r.lo << ":" << r.hi;
        continue;
      }
      std::vector<std::uint32_t> x;
      for (double d : e) {
        float f = static_cast<float>(d);
        x.push_back(to_bits(f));
        x.push_back(to_bits(std::nextafter(f, -INFINITY)));
        x.push_back(to_bits(std::nextafter(f, INFINITY)));
      }
      auto want = cpu_even(dtype::f32, x, bins, r.lo, r.hi);
      auto got = gpu_even(ctx(), dtype::f32, x, bins, r.lo, r.hi);
      ASSERT_EQ(got, want) << "bins=" << bins << " range " << r.lo << ":" << r.hi << ": " << first_diff(got, want);
      // Every edge value itself is counted (the last in the last bin), the one below the first and the one above
      // the last are not.
      EXPECT_EQ(total(got), x.size() - 2) << "bins=" << bins << " range " << r.lo << ":" << r.hi;
      if (bins == 1000 && r.lo == -500) {
        // Exactly at an inner edge goes to the bin on its right: bin i gets edge i, the ulp above it, and the ulp
        // below edge i + 1.
        for (std::size_t i = 0; i + 1 < bins; ++i) EXPECT_EQ(got[i], 3u) << i;
        EXPECT_EQ(got[bins - 1], 4u);
      }
    }
}

TEST(Histogram, IntegerValuesAtEveryEdge) {
  struct range { double lo, hi; };
  for (dtype t : {dtype::i32, dtype::u32})
    for (std::size_t bins : {1u, 7u, 10u, 64u})
      for (range r : {range{0, 100}, range{-10.5, 20.25}, range{3, 3}, range{0.2, 0.8}}) {
        std::vector<std::uint32_t> x;
        for (int v = -130; v <= 130; ++v)
          if (t == dtype::i32 || v >= 0) x.push_back(static_cast<std::uint32_t>(v));
        auto want = cpu_even(t, x, bins, r.lo, r.hi);
        auto got = gpu_even(ctx(), t, x, bins, r.lo, r.hi);
        ASSERT_EQ(got, want) << dtype_name(t) << " bins=" << bins << " range " << r.lo << ":" << r.hi << ": "
                             << first_diff(got, want);
      }
  // 0..100 in 10 bins: 10 each, the last bin also takes 100.
  std::vector<std::uint32_t> x;
  for (std::uint32_t v = 0; v <= 100; ++v) x.push_back(v);
  auto got = gpu_even(ctx(), dtype::u32, x, 10, 0, 100);
  for (std::size_t i = 0; i < 9; ++i) EXPECT_EQ(got[i], 10u);
  EXPECT_EQ(got[9], 11u);
}

// Ranges reaching past the type's ends, and extreme values.
TEST(Histogram, IntegerRangesPastTheTypesEnds) {
  struct range { double lo, hi; };
  std::vector<std::uint32_t> x = {0u, 1u, 2u, 0x7fffffffu, 0x80000000u, 0x80000001u, 0xfffffffeu, 0xffffffffu,
                                  12345u, 0x40000000u, 0xc0000000u};
  auto more = make_data(dtype::u32, 5000, 3);
  x.insert(x.end(), more.begin(), more.end());
  for (dtype t : {dtype::i32, dtype::u32})
    for (std::size_t bins : {1u, 3u, 1000u})
      for (range r : {range{-3e9, 3e9}, range{-5, 5}, range{4294967290.5, 5e9}, range{-1e10, -3e9},
                      range{2147483000, 2147483647}, range{-2147483648.0, -2147483000.0}, range{0, 4294967295.0},
                      range{4294967295.0, 4294967296.0}}) {
        auto want = cpu_even(t, x, bins, r.lo, r.hi);
        auto got = gpu_even(ctx(), t, x, bins, r.lo, r.hi);
        ASSERT_EQ(got, want) << dtype_name(t) << " bins=" << bins << " range " << r.lo << ":" << r.hi << ": "
                             << first_diff(got, want);
      }
}

TEST(Histogram, NanInfOutsideAndOneBin) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::vector<float> v = {nan, -nan, inf, -inf, -0.0f, 0.0f, 1.0f, -1.0f, 2.0f, 0.5f, -2.5f, 3e38f, -3e38f};
  for (int i = 0; i < 1000; ++i) v.push_back(i % 3 ? nan : 0.25f);
  std::vector<std::uint32_t> c(4);
  histogram_even(ctx(), v, c, 4, -1.0, 1.0);
  // Edges -1, -0.5, 0, 0.5, 1: -1 | -0, 0 (0 is an edge: bin 2) and 334 x 0.25 | 0.5, 1 (last bin is closed).
  EXPECT_EQ(c, (std::vector<std::uint32_t>{1, 0, 2 + 334, 2}));
  std::vector<std::uint32_t> one(1);
  histogram_even(ctx(), v, one, 1, -1.0, 1.0);
  EXPECT_EQ(one[0], 5u + 334u);
  // Every value in one bin (contention on one counter), a million of them.
  std::vector<float> same(1 << 20, 7.0f);
  std::vector<std::uint32_t> c256(256);
  histogram_even(ctx(), same, c256, 256, 0.0, 256.0);
  std::vector<std::uint32_t> want(256, 0);
  want[7] = 1u << 20;
  EXPECT_EQ(c256, want);
}

TEST(Histogram, PastOneBindingAndDeviceSpans) {
  context& c = small_binding_ctx();  // 1 MiB bindings: 262,144 elements each
  for (dtype t : {dtype::f32, dtype::i32}) {
    const std::size_t n = 700001;
    auto x = spread(t, n, -100, 100, 5);
    for (std::size_t bins : {100u, 65536u}) {
      auto want = cpu_even(t, x, bins, -100, 100);
      auto got = gpu_even(c, t, x, bins, -100, 100);
      ASSERT_EQ(got, want) << dtype_name(t) << " bins=" << bins << ": " << first_diff(got, want);
    }
  }
  // Device spans at unaligned offsets, counts in the input's buffer, and the caller's encoder.
  const std::size_t n = 100003;
  auto x = spread(dtype::f32, n + 3, -10, 10, 6);
  buffer in = ctx().create_buffer((n + 3) * 4), out = ctx().create_buffer(300 * 4);
  ctx().write(in, 0, x.data(), (n + 3) * 4);
  std::vector<std::uint32_t> sub(x.begin() + 3, x.end());
  auto want = cpu_even(dtype::f32, sub, 37, -10, 10);
  histogram_even(ctx(), device_span<const float>(in, 3, n), device_span<std::uint32_t>(out, 5, 37), 37, -10.0, 10.0);
  std::vector<std::uint32_t> got(300);
  ctx().read(out, 0, got.data(), 300 * 4);
  EXPECT_EQ(std::vector<std::uint32_t>(got.begin() + 5, got.begin() + 42), want);
  EXPECT_EQ(got[4], 0u);
  EXPECT_EQ(got[42], 0u);

  // Counts at an aligned offset are counted where they are (zeroed first: stale values there), unless they lie in
  // the input's buffer (bound read-only by the pass: then counted aside and copied).
  const std::size_t at = (n + 3 + 63) / 64 * 64;  // 256-byte aligned
  buffer both = ctx().create_buffer((at + 37) * 4);
  ctx().write(both, 0, x.data(), (n + 3) * 4);
  const std::vector<std::uint32_t> stale(37, 0xdeadu);
  ctx().write(both, at * 4, stale.data(), 37 * 4);
  // (the input from offset 0: an unaligned one would be copied to a buffer of its own first)
  histogram_even(ctx(), device_span<const float>(both, 0, n + 3), device_span<std::uint32_t>(both, at, 37), 37, -10.0,
                 10.0);
  std::vector<std::uint32_t> got_both(37);
  ctx().read(both, at * 4, got_both.data(), 37 * 4);
  EXPECT_EQ(got_both, cpu_even(dtype::f32, x, 37, -10, 10));

  WGPUCommandEncoder enc = ctx().begin_commands();
  buffer out2 = ctx().create_buffer(37 * 4);
  ctx().write(out2, 0, stale.data(), 37 * 4);
  histogram_even(ctx(), enc, device_span<const float>(in, 3, n), device_span<std::uint32_t>(out2, 0, 37), 37, -10.0,
                 10.0);
  ctx().submit(enc);
  ctx().finish();
  std::vector<std::uint32_t> got2(37);
  ctx().read(out2, 0, got2.data(), 37 * 4);
  EXPECT_EQ(got2, want);
}

TEST(Histogram, RangeLevels) {
  std::mt19937 rng(11);
  for (dtype t : {dtype::f32, dtype::i32, dtype::u32})
    for (std::size_t n_levels : {2u, 3u, 17u, 1000u, 65537u}) {
      // Uneven, with repeated levels: sorted random values of the type.
      auto lv_bits = spread(t, n_levels, -1000, 1000, static_cast<std::uint32_t>(n_levels));
      std::vector<double> lv;
      for (auto b : lv_bits)
        lv.push_back(t == dtype::f32 ? static_cast<double>(from_bits<float>(b))
                     : t == dtype::i32 ? static_cast<double>(static_cast<std::int32_t>(b)) : static_cast<double>(b));
      std::sort(lv.begin(), lv.end());
      if (n_levels > 3) lv[n_levels / 2] = lv[n_levels / 2 - 1];  // an empty bin
      for (std::size_t i = 0; i < n_levels; ++i)
        lv_bits[i] = t == dtype::f32 ? to_bits(static_cast<float>(lv[i]))
                     : t == dtype::i32 ? static_cast<std::uint32_t>(static_cast<std::int32_t>(lv[i]))
                                       : static_cast<std::uint32_t>(lv[i]);
      for (std::size_t n : {0u, 1u, 1000u, 65537u}) {
        auto x = spread(t, n, -1000, 1000, static_cast<std::uint32_t>(n));
        x.insert(x.end(), lv_bits.begin(), lv_bits.end());  // every level itself
        std::vector<std::uint32_t> want(n_levels - 1), got(n_levels - 1);
        reference::histogram(x.data(), x.size(), t, lv, want.data());
        with_type(t, [&](auto tag) {
          using T = decltype(tag);
          histogram_range(ctx(), host_span<const T>(reinterpret_cast<const T*>(x.data()), x.size()), got,
                          host_span<const T>(reinterpret_cast<const T*>(lv_bits.data()), n_levels));
        });
        ASSERT_EQ(got, want) << dtype_name(t) << " levels=" << n_levels << " n=" << n << ": " << first_diff(got, want);
      }
    }
  // Device levels, checked by reading them back.
  const std::vector<float> lv = {0, 1, 0.5f}, x = {0.2f};
  device_vector<float> d_lv(ctx(), lv);
  device_vector<float> d_x(ctx(), x);
  device_vector<std::uint32_t> d_c(ctx(), 2);
  EXPECT_THROW(histogram_range(ctx(), d_x, d_c, d_lv), error);
}

TEST(Histogram, BadArguments) {
  std::vector<float> x = {1, 2, 3};
  std::vector<std::uint32_t> c(4);
  auto code = [](auto f) {
    try {
      f();
    } catch (const error& e) {
      return e.code();
    }
    return errc::gpu;
  };
  EXPECT_EQ(code([&] { histogram_even(ctx(), x, c, 3, 0.0, 1.0); }), errc::invalid_argument);  // counts size
  std::vector<std::uint32_t> c0;
  EXPECT_EQ(code([&] { histogram_even(ctx(), x, c0, 0, 0.0, 1.0); }), errc::invalid_argument);
  EXPECT_EQ(code([&] { histogram_even(ctx(), x, c, 4, 1.0, 0.0); }), errc::invalid_argument);
  EXPECT_EQ(code([&] { histogram_even(ctx(), x, c, 4, 0.0, INFINITY); }), errc::invalid_argument);
  EXPECT_EQ(code([&] { histogram_even(ctx(), x, c, 4, NAN, 1.0); }), errc::invalid_argument);
  std::vector<float> lv = {0, 1, NAN, 3, 4};
  EXPECT_EQ(code([&] { histogram_range(ctx(), x, c, lv); }), errc::invalid_argument);
  std::vector<float> lv1 = {0};
  EXPECT_EQ(code([&] { histogram_range(ctx(), x, c0, lv1); }), errc::invalid_argument);
}

}  // namespace
}  // namespace wgprim::test
