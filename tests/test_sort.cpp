// sort / sort_pairs: both algorithms x key types x orders over edge sizes and special patterns, against the CPU
// twin (std::stable_sort with the documented order); values are the input indices, so every pairs check is also
// a stability check.
#include <cmath>
#include <limits>

#include "common.hpp"

namespace wgprim::test {
namespace {

constexpr dtype key_types[] = {dtype::u32, dtype::i32, dtype::f32};
constexpr order orders[] = {order::ascending, order::descending};

std::string what(const std::string& alg, dtype t, order o, std::size_t n, bool pairs) {
  return alg + " " + dtype_name(t) + (o == order::descending ? " descending" : " ascending") +
         (pairs ? " pairs" : " keys") + " n=" + std::to_string(n);
}

/// Sorts x (and its indices when pairs) on the GPU and compares bit for bit with the CPU twin.
void check_sort(context& c, const std::string& alg, dtype t, order o, const std::vector<std::uint32_t>& x,
                bool pairs, run_stats* stats = nullptr) {
  const std::size_t n = x.size();
  std::vector<std::uint32_t> want = x, want_v(n);
  for (std::size_t i = 0; i < n; ++i) want_v[i] = static_cast<std::uint32_t>(i);
  cpu::stable_sort(want.data(), n, t, o == order::descending, pairs ? want_v.data() : nullptr);
  run_options opt;
  opt.algorithm = alg;
  opt.stats = stats;
  std::vector<std::uint32_t> got(n), got_v(n);
  buffer in = c.create_buffer(std::max<std::size_t>(n, 1) * 4), out = c.create_buffer(std::max<std::size_t>(n, 1) * 4);
  buffer vin = c.create_buffer(std::max<std::size_t>(n, 1) * 4), vout = c.create_buffer(std::max<std::size_t>(n, 1) * 4);
  if (n) {
    c.write(in, 0, x.data(), n * 4);
    std::vector<std::uint32_t> idx(n);
    for (std::size_t i = 0; i < n; ++i) idx[i] = static_cast<std::uint32_t>(i);
    c.write(vin, 0, idx.data(), n * 4);
  }
  if (pairs) sort_bits(c, in, out, n, t, o, &vin, &vout, opt);
  else sort_bits(c, in, out, n, t, o, nullptr, nullptr, opt);
  if (n) {
    c.read(out, 0, got.data(), n * 4);
    if (pairs) c.read(vout, 0, got_v.data(), n * 4);
  }
  std::size_t bad = 0;
  std::string first;
  for (std::size_t i = 0; i < n; ++i) {
    const bool key_bad = got[i] != want[i], val_bad = pairs && got_v[i] != want_v[i];
    if ((key_bad || val_bad) && !bad++)
      first = "i=" + std::to_string(i) + " got " + format_bits(t, got[i]) + (pairs ? "@" + std::to_string(got_v[i]) : "") +
              " want " + format_bits(t, want[i]) + (pairs ? "@" + std::to_string(want_v[i]) : "");
  }
  EXPECT_EQ(bad, 0u) << what(alg, t, o, n, pairs) << ": " << first;
}

std::vector<std::size_t> sort_sizes() {
  // 0, 1, small, tile +-1 of both algorithms' tiles (1,024 / 2,048 reduce-then-scan, 3,840 onesweep on lavapipe),
  // 2^k +- 1 for k = 4, 7, ..., 16, and a size of many tiles.
  std::vector<std::size_t> s = {0, 1, 2, 3, 7, 255, 256, 257, 1023, 1024, 1025, 2047, 2048, 2049,
                                3839, 3840, 3841, 7679, 7680, 7681, 100003};
  for (int k = 4; k <= 17; k += 3) {
    s.push_back((std::size_t(1) << k) - 1);
    s.push_back((std::size_t(1) << k) + 1);
  }
  return s;
}

/// Random keys: full range, or few distinct values (many duplicates, and digits that are constant so that passes
/// are skipped).
std::vector<std::uint32_t> random_keys(dtype t, std::size_t n, std::uint32_t seed, bool few) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) {
    if (few) x = t == dtype::f32 ? to_bits(static_cast<float>(static_cast<int>(rng() % 13) - 6)) : rng() % 13 - 6;
    else if (t == dtype::f32) x = to_bits(std::uniform_real_distribution<float>(-1e6f, 1e6f)(rng));
    else x = rng();
  }
  return v;
}

TEST(Sort, EveryAlgorithmTypeOrderAndEdgeSize) {
  // Order and keys/pairs rotate with the size, so that every combination meets small, tile-edge and large sizes
  // without running every size four times (lavapipe is slow).
  const auto sizes = sort_sizes();
  for (const auto& alg : algorithms("sort"))
    for (dtype t : key_types)
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        const std::size_t n = sizes[i];
        const order o = orders[i % 2];
        const bool pairs = (i / 2) % 2 == 0;
        check_sort(ctx(), alg, t, o, random_keys(t, n, static_cast<std::uint32_t>(n) + 3, false), pairs);
        if (i % 4 == 3) check_sort(ctx(), alg, t, orders[(i / 4) % 2], random_keys(t, n, 5, true), !pairs);
      }
}

TEST(Sort, DuplicatesAllEqualSortedReversed) {
  const std::size_t n = 9001;
  for (const auto& alg : algorithms("sort"))
    for (dtype t : key_types) {
      auto few = random_keys(t, n, 11, true);
      auto sorted = random_keys(t, n, 12, false);
      cpu::stable_sort(sorted.data(), n, t, false);
      auto reversed = sorted;
      std::reverse(reversed.begin(), reversed.end());
      std::vector<std::uint32_t> equal(n, t == dtype::f32 ? to_bits(2.5f) : 77u);
      for (order o : orders)
        for (const auto* x : {&few, &sorted, &reversed, &equal}) {
          check_sort(ctx(), alg, t, o, *x, true);
          check_sort(ctx(), alg, t, o, *x, false);
        }
    }
}

TEST(Sort, FloatSpecials) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<std::uint32_t> specials = {
      to_bits(0.0f), to_bits(-0.0f), to_bits(inf), to_bits(-inf), 0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u,
      0x7fffffffu, 0xffffffffu, 0x7fc12345u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu,
      to_bits(std::numeric_limits<float>::max()), to_bits(-std::numeric_limits<float>::max()),
      to_bits(std::numeric_limits<float>::min()), to_bits(1.0f), to_bits(-1.0f)};
  std::mt19937 rng(3);
  for (std::size_t n : {std::size_t(20), std::size_t(5000)}) {
    std::vector<std::uint32_t> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = i < specials.size() ? specials[i] : specials[rng() % specials.size()];
    for (const auto& alg : algorithms("sort"))
      for (order o : orders) {
        check_sort(ctx(), alg, dtype::f32, o, x, true);
        check_sort(ctx(), alg, dtype::f32, o, x, false);
      }
  }
  // The documented order itself, independently of the twin: NaNs last (keeping their bits and input order).
  std::vector<float> v = {NAN, 1.0f, -0.0f, -inf, 0.0f, inf};
  sort(ctx(), v);
  EXPECT_EQ(to_bits(v[0]), to_bits(-inf));
  EXPECT_EQ(to_bits(v[1]), to_bits(-0.0f));
  EXPECT_EQ(to_bits(v[2]), to_bits(0.0f));
  EXPECT_EQ(v[3], 1.0f);
  EXPECT_EQ(v[4], inf);
  EXPECT_TRUE(std::isnan(v[5]));
}

TEST(Sort, TypedRangesInPlaceOutOfPlaceAndUnaligned) {
  const std::size_t n = 5003;
  auto bits = random_keys(dtype::i32, n, 8, false);
  std::vector<std::int32_t> keys(n);
  std::vector<float> vals(n);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = static_cast<std::int32_t>(bits[i] % 1000) - 500;
    vals[i] = static_cast<float>(i);
  }
  std::vector<std::uint32_t> want(n), want_v(n);
  for (std::size_t i = 0; i < n; ++i) {
    want[i] = to_bits(keys[i]);
    want_v[i] = to_bits(vals[i]);
  }
  cpu::stable_sort(want.data(), n, dtype::i32, true, want_v.data());
  for (const auto& alg : algorithms("sort")) {
    run_options opt;
    opt.algorithm = alg;
    // Host, in place.
    auto k = keys;
    auto v = vals;
    sort_pairs(ctx(), k, v, order::descending, opt);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(to_bits(k[i]), want[i]) << alg << " host i=" << i;
      ASSERT_EQ(to_bits(v[i]), want_v[i]) << alg << " host i=" << i;
    }
    // Device spans at unaligned offsets (7 elements in), out of place and in place.
    device_vector<std::int32_t> dk(ctx(), n + 20), dko(ctx(), n + 20);
    device_vector<float> dv(ctx(), n + 20), dvo(ctx(), n + 20);
    std::vector<std::int32_t> padded(n + 20, 0);
    std::copy(keys.begin(), keys.end(), padded.begin() + 7);
    dk.assign(padded);
    std::vector<float> padded_v(n + 20, 0.0f);
    std::copy(vals.begin(), vals.end(), padded_v.begin() + 7);
    dv.assign(padded_v);
    device_span<std::int32_t> sk(dk.raw(), 7, n), sko(dko.raw(), 7, n);
    device_span<float> sv(dv.raw(), 7, n), svo(dvo.raw(), 7, n);
    sort_pairs(ctx(), device_span<const std::int32_t>(sk), device_span<const float>(sv), sko, svo, order::descending,
               opt);
    auto gk = dko.to_host();
    auto gv = dvo.to_host();
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(to_bits(gk[7 + i]), want[i]) << alg << " device out of place i=" << i;
      ASSERT_EQ(to_bits(gv[7 + i]), want_v[i]) << alg << " device out of place i=" << i;
    }
    EXPECT_EQ(gk[6], 0);
    EXPECT_EQ(gk[7 + n], 0);
    sort_pairs(ctx(), sk, sv, order::descending, opt);  // in place, unaligned
    gk = dk.to_host();
    gv = dv.to_host();
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(to_bits(gk[7 + i]), want[i]) << alg << " device in place i=" << i;
      ASSERT_EQ(to_bits(gv[7 + i]), want_v[i]) << alg << " device in place i=" << i;
    }
    // Keys only, in place on a whole device_vector.
    device_vector<std::int32_t> whole(ctx(), keys);
    sort(ctx(), whole, order::descending, opt);
    auto gw = whole.to_host();
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(to_bits(gw[i]), want[i]) << alg << " whole i=" << i;
  }
}

TEST(Sort, StressTakesFallbacksAndStaysCorrect) {
  context c(webgpu_options());
  testing::set_lookback_stress(c, true);
  for (dtype t : key_types) {
    run_stats st;
    check_sort(c, "onesweep", t, order::ascending, random_keys(t, 60000, 4, false), true, &st);
    EXPECT_GT(st.lookback_fallbacks, 0u) << dtype_name(t);
    check_sort(c, "reduce-then-scan", t, order::descending, random_keys(t, 60000, 4, false), true);
  }
}

TEST(Sort, PastOneBindingIsAClearLimitError) {
  context& c = small_binding_ctx();  // 1 MiB: 262,144 keys
  const std::size_t fits = (std::size_t(1) << 20) / 4;
  for (const auto& alg : algorithms("sort")) {
    check_sort(c, alg, dtype::u32, order::ascending, random_keys(dtype::u32, fits, 2, false), true);
    std::vector<std::uint32_t> big(fits + 1, 1u);
    run_options opt;
    opt.algorithm = alg;
    try {
      sort(c, big, order::ascending, opt);
      ADD_FAILURE() << alg << ": no error past one binding";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::limit) << e.what();
    }
  }
}

TEST(Sort, BadArguments) {
  std::vector<std::uint32_t> k(10), v(9), o(9);
  EXPECT_THROW(sort_pairs(ctx(), k, v), error);
  EXPECT_THROW(sort(ctx(), k, o), error);
  device_vector<std::uint32_t> d(ctx(), 16);
  EXPECT_THROW(sort_pairs(ctx(), d.span().first(8), d.span().subspan(8)), error);  // keys and values share a buffer
  run_options opt;
  opt.algorithm = "bogus";
  EXPECT_THROW(sort(ctx(), k, order::ascending, opt), error);
}

}  // namespace
}  // namespace wgprim::test
