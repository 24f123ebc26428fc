// sort / sort_pairs: both algorithms x key types x orders over edge sizes and special patterns, against the CPU
// twin (std::stable_sort with the documented order); values are the input indices, so every pairs check is also
// a stability check.
#include <cmath>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <tuple>
#include <utility>

#include "common.hpp"
#include "primitives/sort/policy.hpp"
#include "wgprim/testing.hpp"

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
                bool pairs, run_stats* stats = nullptr, unsigned begin_bit = 0, unsigned end_bit = 0,
                std::uint32_t items = 0) {
  const std::size_t n = x.size();
  std::vector<std::uint32_t> want = x, want_v(n);
  for (std::size_t i = 0; i < n; ++i) want_v[i] = static_cast<std::uint32_t>(i);
  reference::stable_sort_bits(want.data(), n, t, o == order::descending, begin_bit, end_bit, pairs ? want_v.data() : nullptr);
  run_options opt;
  opt.algorithm = alg;
  opt.stats = stats;
  opt.tune.items = items;  // 0: the policy's keys per invocation
  std::vector<std::uint32_t> got(n), got_v(n);
  buffer in = c.create_buffer(std::max<std::size_t>(n, 1) * 4), out = c.create_buffer(std::max<std::size_t>(n, 1) * 4);
  buffer vin = c.create_buffer(std::max<std::size_t>(n, 1) * 4), vout = c.create_buffer(std::max<std::size_t>(n, 1) * 4);
  if (n) {
    c.write(in, 0, x.data(), n * 4);
    std::vector<std::uint32_t> idx(n);
    for (std::size_t i = 0; i < n; ++i) idx[i] = static_cast<std::uint32_t>(i);
    c.write(vin, 0, idx.data(), n * 4);
  }
  const sort_order so(o, begin_bit, end_bit);
  if (pairs) sort_bits(c, in, out, n, t, so, &vin, &vout, opt);
  else sort_bits(c, in, out, n, t, so, nullptr, nullptr, opt);
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
  EXPECT_EQ(bad, 0u) << what(alg, t, o, n, pairs) << " bits " << begin_bit << ":" << end_bit << ": " << first;
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
      reference::stable_sort(sorted.data(), n, t, false);
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
  reference::stable_sort(want.data(), n, dtype::i32, true, want_v.data());
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

TEST(Sort, SkippedPassesInPlaceAndOutOfPlace) {
  // Keys below 2^(8k) have k active passes (the others are skipped on the GPU); with an odd count an in-place sort
  // ends in the temporary and the finish step copies it back, with none an out-of-place sort copies the input.
  const std::size_t n = 7001;
  for (const auto& alg : algorithms("sort"))
    for (int active = 0; active <= 4; ++active) {
      std::mt19937 rng(static_cast<std::uint32_t>(active) + 40);
      std::vector<std::uint32_t> x(n);
      for (auto& v : x)
        v = active == 0 ? 0x12345678u : active == 4 ? rng() : 0x40000000u | (rng() & ((1u << (8 * active)) - 1));
      for (order o : orders) {
        check_sort(ctx(), alg, dtype::u32, o, x, true);  // out of place
        std::vector<std::uint32_t> want = x, want_v(n), v(n);
        for (std::size_t i = 0; i < n; ++i) want_v[i] = v[i] = static_cast<std::uint32_t>(i);
        reference::stable_sort(want.data(), n, dtype::u32, o == order::descending, want_v.data());
        device_vector<std::uint32_t> dk(ctx(), x), dv(ctx(), v);
        run_options opt;
        opt.algorithm = alg;
        sort_pairs(ctx(), dk, dv, o, opt);  // in place
        EXPECT_EQ(dk.to_host(), want) << alg << " in place, " << active << " active passes";
        EXPECT_EQ(dv.to_host(), want_v) << alg << " in place, " << active << " active passes";
      }
    }
}

TEST(Sort, EncoderOverloadsBatchSeveralSorts) {
  // Three sorts recorded into one encoder, one submit: no host wait inside, scratch buffers reused in order.
  for (const auto& alg : algorithms("sort")) {
    run_options opt;
    opt.algorithm = alg;
    auto a = random_keys(dtype::f32, 20011, 61, false), b = random_keys(dtype::i32, 4099, 62, true);
    auto c = random_keys(dtype::u32, 33333, 63, false);
    std::vector<float> af(a.size());
    std::vector<std::int32_t> bi(b.size());
    for (std::size_t i = 0; i < a.size(); ++i) af[i] = from_bits<float>(a[i]);
    for (std::size_t i = 0; i < b.size(); ++i) bi[i] = static_cast<std::int32_t>(b[i]);
    std::vector<std::uint32_t> cv(c.size());
    for (std::size_t i = 0; i < c.size(); ++i) cv[i] = static_cast<std::uint32_t>(i);
    device_vector<float> da(ctx(), af), da_out(ctx(), af.size());
    device_vector<std::int32_t> db(ctx(), bi);
    device_vector<std::uint32_t> dc(ctx(), c), dcv(ctx(), cv);
    WGPUCommandEncoder enc = ctx().begin_commands();
    sort(ctx(), enc, da, da_out, order::ascending, opt);
    sort(ctx(), enc, db, order::descending, opt);
    sort_pairs(ctx(), enc, dc, dcv, order::ascending, opt);
    ctx().submit(enc);
    reference::stable_sort(a.data(), a.size(), dtype::f32, false);
    reference::stable_sort(b.data(), b.size(), dtype::i32, true);
    std::vector<std::uint32_t> want_cv = cv;
    reference::stable_sort(c.data(), c.size(), dtype::u32, false, want_cv.data());
    const auto ga = da_out.to_host();
    const auto gb = db.to_host();
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(to_bits(ga[i]), a[i]) << alg << " f32 i=" << i;
    for (std::size_t i = 0; i < b.size(); ++i) ASSERT_EQ(to_bits(gb[i]), b[i]) << alg << " i32 i=" << i;
    EXPECT_EQ(dc.to_host(), c) << alg;
    EXPECT_EQ(dcv.to_host(), want_cv) << alg;
  }
}

/// 64-bit keys (two u32 words each) through testing::sort_words against the CPU twin on uint64_t / int64_t / double.
void check_sort64(context& c, const std::string& alg, int kind, order o, const std::vector<std::uint64_t>& x, bool pairs,
                  bool in_place, run_stats* stats = nullptr, unsigned begin_bit = 0, unsigned end_bit = 0) {
  const std::size_t n = x.size();
  std::vector<std::uint64_t> want = x;
  std::vector<std::uint32_t> want_v(n), idx(n);
  for (std::size_t i = 0; i < n; ++i) want_v[i] = idx[i] = static_cast<std::uint32_t>(i);
  reference::stable_sort64_bits(want.data(), n, kind, o == order::descending, begin_bit, end_bit,
                          pairs ? want_v.data() : nullptr);
  run_options opt;
  opt.algorithm = alg;
  opt.stats = stats;
  const std::size_t bytes = std::max<std::size_t>(n, 1) * 8;
  buffer in = c.create_buffer(bytes), out = c.create_buffer(bytes), vin = c.create_buffer(bytes / 2),
         vout = c.create_buffer(bytes / 2);
  if (n) {
    c.write(in, 0, x.data(), n * 8);
    c.write(vin, 0, idx.data(), n * 4);
  }
  buffer& ko = in_place ? in : out;
  buffer& vo = in_place ? vin : vout;
  testing::sort_words(c, in, ko, n, 2, static_cast<unsigned>(kind), o == order::descending, pairs ? &vin : nullptr,
                      pairs ? &vo : nullptr, opt, begin_bit, end_bit);
  std::vector<std::uint64_t> got(n);
  std::vector<std::uint32_t> got_v(n);
  if (n) {
    c.read(ko, 0, got.data(), n * 8);
    if (pairs) c.read(vo, 0, got_v.data(), n * 4);
  }
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i)
    if ((got[i] != want[i] || (pairs && got_v[i] != want_v[i])) && !bad++)
      ADD_FAILURE() << alg << " 64-bit kind " << kind << (o == order::descending ? " descending" : " ascending")
                    << (pairs ? " pairs" : " keys") << (in_place ? " in place" : "") << " n=" << n << " bits "
                    << begin_bit << ":" << end_bit << ": i=" << i
                    << " got " << got[i] << "@" << got_v[i] << " want " << want[i] << "@" << want_v[i];
  EXPECT_EQ(bad, 0u);
}

std::vector<std::uint64_t> random_keys64(int kind, std::size_t n, std::uint32_t seed, bool few) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> v(n);
  const double inf = std::numeric_limits<double>::infinity();
  const double specials[] = {0.0, -0.0, inf, -inf, std::nan(""), -std::nan(""), 1.0, -1.0, 5e-324, -5e-324,
                             std::numeric_limits<double>::max(), -std::numeric_limits<double>::max()};
  for (auto& x : v) {
    if (kind == 2) {
      double d = few ? static_cast<double>(static_cast<int>(rng() % 13) - 6)
                     : std::uniform_real_distribution<double>(-1e300, 1e300)(rng);
      if (!few && rng() % 8 == 0) d = specials[rng() % 12];
      std::memcpy(&x, &d, 8);
      if (!few && rng() % 64 == 0) x = 0x7ff0000000000001ull + (rng() >> 13);  // a NaN with a payload in the low word
    } else {
      x = few ? static_cast<std::uint64_t>(static_cast<std::int64_t>(rng() % 13) - 6) : rng();
      if (!few && rng() % 4 == 0) x &= 0xffffffffull;  // keys whose high word is 0: the high passes still matter
    }
  }
  return v;
}

TEST(Sort, SixtyFourBitKeys) {
  // Kinds u64 / i64 / f64 (the NaN test needs the low word), orders, pairs, in place, sizes around the tiles.
  const std::size_t sizes[] = {0, 1, 255, 3841, 6145, 20000};
  for (const auto& alg : algorithms("sort"))
    for (int kind = 0; kind < 3; ++kind)
      for (std::size_t i = 0; i < std::size(sizes); ++i) {
        const std::size_t n = sizes[i];
        const order o = orders[(i + kind) % 2];
        check_sort64(ctx(), alg, kind, o, random_keys64(kind, n, static_cast<std::uint32_t>(n + kind), false), i % 2 == 0,
                     i % 3 == 1);
        if (i % 3 == 2) check_sort64(ctx(), alg, kind, o, random_keys64(kind, n, 9, true), true, i % 2 == 0);
      }
  // Skipped passes with 64-bit keys: one active pass of eight (odd: in place ends in the temporary) and two.
  for (const auto& alg : algorithms("sort"))
    for (std::uint64_t mask : {0xffull, 0xff00000000ull | 0xffull}) {
      auto x = random_keys64(0, 5000, 17, false);
      for (auto& k : x) k = (k & mask) | 0x0100000000000000ull;
      check_sort64(ctx(), alg, 0, order::ascending, x, true, true);
      check_sort64(ctx(), alg, 0, order::descending, x, false, false);
    }
  // The float order independently of the twin: -inf < -0.0 < +0.0 < 1 < inf < NaN.
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> v = {std::nan(""), 1.0, -0.0, -inf, 0.0, inf};
  buffer b = ctx().create_buffer(v.size() * 8);
  ctx().write(b, 0, v.data(), v.size() * 8);
  testing::sort_words(ctx(), b, b, v.size(), 2, 2, false);
  ctx().read(b, 0, v.data(), v.size() * 8);
  EXPECT_EQ(v[0], -inf);
  EXPECT_TRUE(std::signbit(v[1]) && v[1] == 0.0);
  EXPECT_TRUE(!std::signbit(v[2]) && v[2] == 0.0);
  EXPECT_EQ(v[3], 1.0);
  EXPECT_EQ(v[4], inf);
  EXPECT_TRUE(std::isnan(v[5]));
}

TEST(Sort, SixtyFourBitKeysNoActivePass) {
  // 64-bit keys with no active pass (every key equal), out of place: the onesweep's slot 0 copies both words of
  // every key (and the values) where other algorithms' finish step does; sizes around its 64-bit tile.
  const detail::sort_onesweep_policy pol = detail::sort_onesweep_policy_for(ctx(), {}, false, 2);
  const std::size_t tile64 = std::size_t(pol.wg_size) * pol.items;
  for (const auto& alg : algorithms("sort"))
    for (const std::size_t m : {std::size_t(1), tile64 - 1, tile64 + 1, 2 * tile64 + 7})
      for (int kind = 0; kind < 3; ++kind) {
        SCOPED_TRACE(alg + " 64-bit kind " + std::to_string(kind) + " n=" + std::to_string(m));
        check_sort64(ctx(), alg, kind, orders[m % 2], std::vector<std::uint64_t>(m, 0x0123456789abcdefull), m % 2 == 1,
                     false);
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

/// A context whose storage bindings hold 16 KiB (4,096 32-bit keys, 2,048 64-bit keys): small arrays take the
/// merged path (chunks sorted, then merged).
context& merge_ctx() {
  static context c = [] {
    context_options o;
    o.backend = backend_choice::webgpu;  // the WGSL merge path, also where the default would be the native backend
    context x(o);
    testing::set_binding_limit(x, 16384);
    return x;
  }();
  return c;
}

TEST(Sort, PastOneBindingChunksAndMerges) {
  // Sizes around chunk multiples (chunk = 4,096 keys): one binding exactly (today's path), one past, 2, 3, 5 chunks
  // +-1 (an odd run without a partner, uneven last runs, three merge levels). Order, pairs and the data pattern
  // rotate with the size.
  context& c = merge_ctx();
  const std::size_t chunk = 4096;
  const std::size_t sizes[] = {chunk, chunk + 1, 2 * chunk - 1, 2 * chunk, 2 * chunk + 1, 3 * chunk - 1, 3 * chunk + 1,
                               5 * chunk, 5 * chunk + 7};
  for (const auto& alg : algorithms("sort"))
    for (dtype t : key_types)
      for (std::size_t i = 0; i < std::size(sizes); ++i) {
        const std::size_t n = sizes[i];
        const order o = orders[(i + static_cast<std::size_t>(t)) % 2];
        const bool few = i % 3 == 1;  // duplicates across the runs: stability through the values
        check_sort(c, alg, t, o, random_keys(t, n, static_cast<std::uint32_t>(n + 7), few), i % 2 == 0 || few);
      }
}

TEST(Sort, PastOneBindingPatternsAndSpecials) {
  context& c = merge_ctx();
  const std::size_t n = 3 * 4096 + 5;
  const std::string alg = algorithms("sort").front();
  for (dtype t : key_types) {
    auto sorted = random_keys(t, n, 12, false);
    reference::stable_sort(sorted.data(), n, t, false);
    auto reversed = sorted;
    std::reverse(reversed.begin(), reversed.end());
    std::vector<std::uint32_t> equal(n, t == dtype::f32 ? to_bits(-2.5f) : 0x80000001u);
    for (order o : orders)
      for (const auto* x : {&sorted, &reversed, &equal}) check_sort(c, alg, t, o, *x, true);
  }
  // Float specials (NaNs with payloads and signs, zeros, infinities, subnormals) spread over every run.
  const float inf = std::numeric_limits<float>::infinity();
  const std::uint32_t specials[] = {to_bits(0.0f), to_bits(-0.0f), to_bits(inf), to_bits(-inf), 0x7fc00000u,
                                    0xffc00000u, 0x7f800001u, 0xff800001u, 0x00000001u, 0x80000001u, to_bits(1.0f),
                                    to_bits(-1.0f)};
  std::mt19937 rng(5);
  std::vector<std::uint32_t> x(n);
  for (auto& v : x) v = specials[rng() % std::size(specials)];
  for (order o : orders) {
    check_sort(c, alg, dtype::f32, o, x, true);
    check_sort(c, alg, dtype::f32, o, x, false);
  }
}

TEST(Sort, PastOneBindingInPlaceHostAndEncoder) {
  context& c = merge_ctx();
  const std::size_t n = 2 * 4096 + 300;
  const auto bits = random_keys(dtype::i32, n, 21, true);
  std::vector<std::uint32_t> want = bits, want_v(n), idx(n);
  for (std::size_t i = 0; i < n; ++i) want_v[i] = idx[i] = static_cast<std::uint32_t>(i);
  reference::stable_sort(want.data(), n, dtype::i32, true, want_v.data());
  std::vector<std::int32_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = static_cast<std::int32_t>(bits[i]);
  // Host ranges (sorted in place in the upload buffers).
  auto k = keys;
  auto v = idx;
  sort_pairs(c, k, v, order::descending);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(to_bits(k[i]), want[i]) << "host i=" << i;
    ASSERT_EQ(v[i], want_v[i]) << "host i=" << i;
  }
  // Device vectors in place, recorded into the caller's encoder.
  device_vector<std::int32_t> dk(c, keys);
  device_vector<std::uint32_t> dv(c, idx);
  WGPUCommandEncoder enc = c.begin_commands();
  sort_pairs(c, enc, dk, dv, order::descending);
  c.submit(enc);
  const auto gk = dk.to_host();
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(to_bits(gk[i]), want[i]) << "device i=" << i;
  EXPECT_EQ(dv.to_host(), want_v);
  // Device spans at an unaligned offset (7 elements in), out of place: copied through aligned temporaries.
  std::vector<std::int32_t> padded(n + 20, 0);
  std::copy(keys.begin(), keys.end(), padded.begin() + 7);
  std::vector<std::uint32_t> padded_v(n + 20, 0);
  std::copy(idx.begin(), idx.end(), padded_v.begin() + 7);
  device_vector<std::int32_t> pk(c, padded), pko(c, n + 20);
  device_vector<std::uint32_t> pv(c, padded_v), pvo(c, n + 20);
  sort_pairs(c, device_span<const std::int32_t>(pk.raw(), 7, n), device_span<const std::uint32_t>(pv.raw(), 7, n),
             device_span<std::int32_t>(pko.raw(), 7, n), device_span<std::uint32_t>(pvo.raw(), 7, n), order::descending);
  const auto uk = pko.to_host();
  const auto uv = pvo.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(to_bits(uk[7 + i]), want[i]) << "unaligned i=" << i;
    ASSERT_EQ(uv[7 + i], want_v[i]) << "unaligned i=" << i;
  }
}

TEST(Sort, PastOneBindingSixtyFourBitKeys) {
  // 64-bit keys: 2,048 per chunk; in place and out of place, every kind, both orders.
  context& c = merge_ctx();
  const std::size_t sizes[] = {2048 + 1, 3 * 2048 - 1, 5 * 2048 + 3};
  const std::string alg = algorithms("sort").front();
  for (int kind = 0; kind < 3; ++kind)
    for (std::size_t i = 0; i < std::size(sizes); ++i) {
      const order o = orders[(i + kind) % 2];
      check_sort64(c, alg, kind, o, random_keys64(kind, sizes[i], static_cast<std::uint32_t>(i + 3 * kind), i == 1),
                   kind != 1, i % 2 == 0);
    }
}

/// Bit ranges [begin, end) of the ordered key (CUB's begin_bit / end_bit): digit-aligned, inside one digit, across
/// digits, single bits at both ends, and the whole key.
struct bit_range_case {
  unsigned begin, end;
};
constexpr bit_range_case bit_ranges32[] = {{0, 16}, {8, 24}, {16, 32}, {0, 1}, {31, 32}, {4, 12}, {3, 29}, {0, 32}};

std::vector<std::size_t> bit_range_sizes() {
  // 0, 1, tile -1/0/+1 of both algorithms' tiles on lavapipe (2,048 reduce-then-scan, 6,144 onesweep), 2^k +- 1.
  return {0, 1, 2047, 2048, 2049, 6143, 6144, 6145, (1u << 12) - 1, (1u << 12) + 1, (1u << 15) + 1};
}

/// Keys whose bits outside a range differ (so that a sort of the range alone must keep them in input order) and
/// whose bits inside repeat often (ties): full-range random words with a few values of the range's bits.
std::vector<std::uint32_t> bit_range_keys(dtype t, std::size_t n, std::uint32_t seed, bool specials) {
  static constexpr std::uint32_t float_specials[] = {0x7fc00000u, 0xffc00001u, 0x80000000u, 0u, 0x7f800000u, 0xff800000u};
  auto x = random_keys(t, n, seed, false);
  std::mt19937 rng(seed + 1);
  for (auto& k : x) {
    if (rng() % 2) k = (k & 0xff00ff00u) | (rng() % 3) * 0x00010001u;  // repeats in bytes 0 and 2
    if (specials && t == dtype::f32 && rng() % 16 == 0)
      k = float_specials[rng() % std::size(float_specials)];
  }
  return x;
}

TEST(Sort, BitRangesEveryTypeAlgorithmAndSize) {
  // Ranges, orders and keys/pairs rotate with the size so that each meets small, tile-edge and larger sizes.
  const auto sizes = bit_range_sizes();
  for (const auto& alg : algorithms("sort"))
    for (dtype t : key_types)
      for (std::size_t r = 0; r < std::size(bit_ranges32); ++r)
        for (std::size_t i = r % 3; i < sizes.size(); i += 3) {
          const auto [b, e] = bit_ranges32[r];
          const std::size_t n = sizes[i];
          const auto x = bit_range_keys(t, n, static_cast<std::uint32_t>(n + r), true);
          check_sort(ctx(), alg, t, orders[(i + r) % 2], x, (i + r) % 3 != 0, nullptr, b, e);
        }
}

TEST(Sort, BitRangesNative) {
  const auto sizes = bit_range_sizes();
  for (dtype t : key_types)
    for (std::size_t r = 0; r < std::size(bit_ranges32); ++r)
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        const auto [b, e] = bit_ranges32[r];
        const std::size_t n = sizes[i];
        const auto x = bit_range_keys(t, n, static_cast<std::uint32_t>(n + 3 * r), true);
        check_sort(native_ctx(), "", t, orders[(i + r) % 2], x, i % 2 == 0, nullptr, b, e);
      }
  // In place through the typed API.
  std::vector<std::int32_t> k(5000), v(5000);
  std::mt19937 rng(4);
  for (std::size_t i = 0; i < k.size(); ++i) {
    k[i] = static_cast<std::int32_t>(rng());
    v[i] = static_cast<std::int32_t>(i);
  }
  std::vector<std::uint32_t> want(k.begin(), k.end()), want_v(v.begin(), v.end());
  reference::stable_sort_bits(want.data(), want.size(), dtype::i32, true, 8, 24, want_v.data());
  sort_pairs(native_ctx(), k, v, key_bits(8, 24, order::descending));
  EXPECT_EQ(std::vector<std::uint32_t>(k.begin(), k.end()), want);
  EXPECT_EQ(std::vector<std::uint32_t>(v.begin(), v.end()), want_v);
}

TEST(Sort, BitRangesSixtyFourBitKeys) {
  constexpr bit_range_case ranges[] = {{0, 16}, {8, 24}, {16, 32}, {0, 1}, {31, 32}, {32, 64},
                                       {20, 44}, {63, 64}, {48, 64}, {0, 64}};
  const std::size_t sizes[] = {0, 1, 3071, 3072, 3073, 6145, (1u << 13) + 1};
  for (const auto& alg : algorithms("sort"))
    for (int kind = 0; kind < 3; ++kind)
      for (std::size_t r = 0; r < std::size(ranges); ++r)
        for (std::size_t i = (r + kind) % 3; i < std::size(sizes); i += 3) {
          const auto [b, e] = ranges[r];
          auto x = random_keys64(kind, sizes[i], static_cast<std::uint32_t>(i + 7 * r + kind), false);
          std::mt19937_64 rng(r);
          for (auto& k : x)
            if (rng() % 2) k = (k & 0xff00ff00ff00ff00ull) | (rng() % 3) * 0x0001000100010001ull;
          check_sort64(ctx(), alg, kind, orders[(i + r) % 2], x, (i + r) % 2 == 0, i % 3 == 1, nullptr, b, e);
        }
}

TEST(Sort, BitRangesPastOneBinding) {
  context& c = merge_ctx();
  const std::string alg = algorithms("sort").front();
  for (dtype t : key_types)
    for (const auto& [b, e] : {bit_range_case{0, 16}, bit_range_case{8, 24}, bit_range_case{31, 32}}) {
      const std::size_t n = 3 * 4096 + 5;
      check_sort(c, alg, t, order::ascending, bit_range_keys(t, n, b + e, true), true, nullptr, b, e);
      check_sort(c, alg, t, order::descending, bit_range_keys(t, n, b + e + 1, false), false, nullptr, b, e);
    }
  check_sort64(c, alg, 2, order::descending, random_keys64(2, 2 * 2048 + 9, 3, false), true, false, nullptr, 16, 48);
}

TEST(Sort, BitRangeArguments) {
  std::vector<std::uint32_t> k(10);
  std::vector<float> f(10);
  for (context* c : {&ctx(), &native_ctx()}) {
    EXPECT_THROW(sort(*c, k, key_bits(16, 16)), error);
    EXPECT_THROW(sort(*c, k, key_bits(20, 10)), error);
    EXPECT_THROW(sort(*c, f, key_bits(0, 33)), error);
    EXPECT_THROW(sort(*c, std::vector<std::uint32_t>{}, key_bits(32, 32)), error);  // checked at n = 0 too
    EXPECT_NO_THROW(sort(*c, k, key_bits(31, 32)));
    EXPECT_NO_THROW(sort(*c, f, key_bits(5, 0)));  // end 0: the key's width
  }
  buffer b = ctx().create_buffer(64);
  EXPECT_THROW(testing::sort_words(ctx(), b, b, 4, 2, 0, false, nullptr, nullptr, {}, 0, 65), error);
  EXPECT_NO_THROW(testing::sort_words(ctx(), b, b, 4, 2, 0, false, nullptr, nullptr, {}, 40, 64));
  // The typed API with a bit range on the GPU (device_vector, in place).
  std::vector<std::uint32_t> x = random_keys(dtype::u32, 3000, 9, false), want = x;
  reference::stable_sort_bits(want.data(), want.size(), dtype::u32, false, 0, 16);
  device_vector<std::uint32_t> d(ctx(), x);
  sort(ctx(), d, key_bits(0, 16));
  EXPECT_EQ(d.to_host(), want);
}

TEST(Sort, SkippedPassesAreReported) {
  // The upfront histogram skips a pass whose digit is the same for every key; a bit range runs only the passes
  // covering it. testing::sort_passes_run shows which ran, on both backends and with both algorithms.
  struct run_on {
    context* c;
    std::string alg;
  };
  std::vector<run_on> runs = {{&native_ctx(), ""}};
  for (const auto& alg : algorithms("sort")) runs.push_back({&ctx(), alg});
  const std::size_t n = 7001;
  std::mt19937 rng(12);
  std::vector<std::uint32_t> small(n), mid(n), all(n), same(n, 0xdeadbeefu);
  for (std::size_t i = 0; i < n; ++i) {
    small[i] = rng() & 0xffffu;                 // high bytes shared: passes 0, 1
    mid[i] = 0x11000022u | (rng() & 0xffff00u);  // bytes 1, 2 differ: passes 1, 2
    all[i] = rng();
  }
  using passes = std::vector<unsigned>;
  for (const auto& r : runs)
    for (order o : orders) {
      const std::string tag = (r.alg.empty() ? std::string("native") : r.alg) + (o == order::descending ? " desc" : "");
      check_sort(*r.c, r.alg, dtype::u32, o, small, true);
      EXPECT_EQ(testing::sort_passes_run(*r.c), (passes{0, 1})) << tag;
      check_sort(*r.c, r.alg, dtype::u32, o, mid, false);
      EXPECT_EQ(testing::sort_passes_run(*r.c), (passes{1, 2})) << tag;
      check_sort(*r.c, r.alg, dtype::u32, o, same, true);
      EXPECT_EQ(testing::sort_passes_run(*r.c), passes{}) << tag;
      check_sort(*r.c, r.alg, dtype::u32, o, all, false);
      EXPECT_EQ(testing::sort_passes_run(*r.c), (passes{0, 1, 2, 3})) << tag;
      check_sort(*r.c, r.alg, dtype::u32, o, all, true, nullptr, 8, 24);
      EXPECT_EQ(testing::sort_passes_run(*r.c), (passes{1, 2})) << tag << " bits 8:24";
      check_sort(*r.c, r.alg, dtype::u32, o, small, false, nullptr, 12, 32);  // bits 16.. all zero: pass 1 only
      EXPECT_EQ(testing::sort_passes_run(*r.c), (passes{1})) << tag << " bits 12:32";
    }
}

TEST(Sort, PhasesTimedAlone) {
  // sort_phases: the same result as sort_bits, one entry per phase, slots named by the pass they ran.
  const std::size_t n = 20011;
  std::mt19937 rng(31);
  std::vector<std::uint32_t> x(n), idx(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = rng() & 0xffffu;  // passes 2 and 3 skipped
    idx[i] = static_cast<std::uint32_t>(i);
  }
  for (const auto& alg : algorithms("sort"))
    for (const unsigned end : {0u, 16u}) {
      run_options opt;
      opt.algorithm = alg;
      std::vector<std::uint32_t> want = x, want_v = idx;
      reference::stable_sort(want.data(), n, dtype::u32, false, want_v.data());
      buffer ki = ctx().create_buffer(n * 4), ko = ctx().create_buffer(n * 4), vi = ctx().create_buffer(n * 4),
             vo = ctx().create_buffer(n * 4);
      ctx().write(ki, 0, x.data(), n * 4);
      ctx().write(vi, 0, idx.data(), n * 4);
      const auto phases = sort_phases(ctx(), ki, ko, n, dtype::u32, key_bits(0, end), &vi, &vo, opt);
      std::vector<std::string> names;
      for (const auto& p : phases) {
        names.push_back(p.name);
        EXPECT_GE(p.gpu_ms, 0.0) << p.name;
      }
      std::vector<std::string> expect = {"histogram + plan", "pass 0 (bits 0..7)", "pass 1 (bits 8..15)"};
      if (end == 0) expect.insert(expect.end(), {"slot 2 (skipped)", "slot 3 (skipped)"});
      expect.push_back("finish");
      EXPECT_EQ(names, expect) << alg << " end_bit " << end;
      std::vector<std::uint32_t> got(n), got_v(n);
      ctx().read(ko, 0, got.data(), n * 4);
      ctx().read(vo, 0, got_v.data(), n * 4);
      EXPECT_EQ(got, want) << alg;
      EXPECT_EQ(got_v, want_v) << alg;
    }
  // The native backend: one phase, the same result.
  buffer ki = native_ctx().create_buffer(n * 4), ko = native_ctx().create_buffer(n * 4);
  native_ctx().write(ki, 0, x.data(), n * 4);
  EXPECT_EQ(sort_phases(native_ctx(), ki, ko, n, dtype::u32, {}).size(), 1u);
  std::vector<std::uint32_t> got(n), want = x;
  native_ctx().read(ko, 0, got.data(), n * 4);
  reference::stable_sort(want.data(), n, dtype::u32, false);
  EXPECT_EQ(got, want);
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

// The onesweep on a context whose look-back is stressed: against the CPU twin (pairs), with fallbacks taken.
void check_onesweep_stressed(dtype t, order o, std::size_t n, std::uint32_t seed) {
  context c(webgpu_options());
  testing::set_lookback_stress(c, true);
  run_stats st;
  check_sort(c, "onesweep", t, o, random_keys(t, n, seed, false), true, &st);
  EXPECT_GT(st.lookback_fallbacks, 0u);
}

// A onesweep sort of 100 u32 keys, which the WGPRIM_ONESWEEP_* value now set must make it refuse.
void expect_onesweep_refused(const char* value) {
  std::vector<std::uint32_t> k = random_keys(dtype::u32, 100, 1, false);
  run_options opt;
  opt.algorithm = "onesweep";
  EXPECT_THROW(sort(ctx(), k, order::ascending, opt), error) << value;
}

TEST(Sort, OnesweepWorkgroupsOf512) {
  // The GPU policy's tiles of 512 invocations (invocations 256..511 own no digit: they rank, count in the fallback
  // and scatter), forced on this adapter through WGPRIM_ONESWEEP_WG: sizes around its tiles (512 x 24 on a CPU
  // adapter, 512 x 15 or fewer items where workgroup memory is short), pairs, 64-bit keys, skipped passes and the
  // fallback under stress.
  const env_override wg("WGPRIM_ONESWEEP_WG", "512");
  const std::size_t sizes[] = {0, 1, 257, 7679, 7680, 7681, 12287, 12288, 12289, 60001};
  for (std::size_t i = 0; i < std::size(sizes); ++i) {
    const std::size_t n = sizes[i];
    const dtype t = key_types[i % 3];
    check_sort(ctx(), "onesweep", t, orders[i % 2], random_keys(t, n, static_cast<std::uint32_t>(n) + 11, false), i % 2 == 0);
    if (i % 3 == 2) check_sort(ctx(), "onesweep", t, orders[i % 2], random_keys(t, n, 7, true), i % 2 == 1);
  }
  for (std::size_t n : {std::size_t(6145), std::size_t(20000)})
    check_sort64(ctx(), "onesweep", 0, order::ascending, random_keys64(0, n, static_cast<std::uint32_t>(n), false), true,
                 false);
  check_onesweep_stressed(dtype::u32, order::ascending, 60000, 4);
}

TEST(Sort, OnesweepRankAtomicAndBallot) {
  // Both rankings forced, so that each runs on every adapter (GPUs default to atomic, CPU adapters to ballot): atomic
  // (WGPRIM_ONESWEEP_RANK=atomic: every key's ballots, then each digit's running count bumped with a workgroup
  // atomicAdd, then the shuffles; no barrier per key) and ballot (a workgroup barrier per key) against the CPU twin:
  // pairs (values are the input indices, so a rank out of input order among equal digits fails), keys with few
  // distinct values, both orders, sizes around the tiles. Small sizes: lavapipe's workgroup atomics are slow.
  env_override ranking("WGPRIM_ONESWEEP_RANK", "atomic");
  for (const char* rank : {"atomic", "ballot"}) {
    SCOPED_TRACE(rank);
    ranking.set(rank);
    const std::size_t sizes[] = {0, 1, 257, 3839, 3840, 3841, 6145, 12289};
    for (std::size_t i = 0; i < std::size(sizes); ++i) {
      const std::size_t n = sizes[i];
      for (dtype t : key_types) {
        const order o = orders[(i + static_cast<std::size_t>(t)) % 2];
        check_sort(ctx(), "onesweep", t, o, random_keys(t, n, static_cast<std::uint32_t>(n) + 41, i % 2 == 1), true);
      }
    }
  }
  // Any other value is refused, the removed `counters` ranking too.
  for (const char* rank : {"counters", "bogus"}) {
    ranking.set(rank);
    expect_onesweep_refused(rank);
  }
}

TEST(Sort, OnesweepKeysHeldAndReadAgain) {
  // Both ways of keeping a tile's 32-bit keys, forced so that each runs on every adapter (GPUs read the keys again,
  // CPU adapters hold them: sort.reload_keys): held in registers through the pass (WGPRIM_ONESWEEP_RELOAD=0), or the
  // digits packed four to a word and the keys read again for the scatter (1). Against the CPU twin: every key type
  // and order, pairs (values are the input indices: a key read from the wrong place or rank fails), few distinct
  // keys, bit ranges (skipped passes), sizes around the tiles, and the fallback under stress.
  env_override reload("WGPRIM_ONESWEEP_RELOAD", "1");
  for (const char* r : {"1", "0"}) {
    SCOPED_TRACE(r);
    reload.set(r);
    const std::size_t sizes[] = {0, 1, 4, 255, 4607, 4608, 4609, 6143, 6144, 6145, 24577};
    for (std::size_t i = 0; i < std::size(sizes); ++i) {
      const std::size_t n = sizes[i];
      for (dtype t : key_types) {
        const order o = orders[(i + static_cast<std::size_t>(t)) % 2];
        check_sort(ctx(), "onesweep", t, o, random_keys(t, n, static_cast<std::uint32_t>(n) + 61, i % 3 == 1), i % 2 == 0);
      }
      check_sort(ctx(), "onesweep", dtype::u32, order::ascending, random_keys(dtype::u32, n, 62, false), true, nullptr,
                 4, 20);
    }
    // 64-bit keys, read again word by word (forced: their default holds them).
    for (std::size_t n : {std::size_t(3071), std::size_t(3073), std::size_t(20000)})
      check_sort64(ctx(), "onesweep", static_cast<int>(n % 3), orders[n % 2],
                   random_keys64(static_cast<int>(n % 3), n, static_cast<std::uint32_t>(n), n == 3073), true, n == 3071);
    check_onesweep_stressed(dtype::f32, order::descending, 40000, 63);
  }
  reload.set("2");
  expect_onesweep_refused("2");
}

TEST(Sort, OnesweepFoldedDigitStarts) {
  // The tile's digit starts folded into the slots' prefixes when every subgroup ranks in one phase
  // (WGPRIM_ONESWEEP_FOLD=1, the default: GPUs with subgroups of 16 lanes or more), or added after the look-back (0).
  // lavapipe's 8-lane subgroups rank in two phases and take the unfolded path either way; on a GPU both run. Against
  // the CPU twin: key types and orders, pairs, a bit range, sizes around the 4,608-key tile, the fallback under stress.
  env_override fold("WGPRIM_ONESWEEP_FOLD", "1");
  for (const char* f : {"1", "0"}) {
    SCOPED_TRACE(f);
    fold.set(f);
    const std::size_t sizes[] = {0, 1, 4607, 4608, 4609, 24577};
    for (std::size_t i = 0; i < std::size(sizes); ++i) {
      const std::size_t n = sizes[i];
      for (dtype t : key_types) {
        const order o = orders[(i + static_cast<std::size_t>(t)) % 2];
        check_sort(ctx(), "onesweep", t, o, random_keys(t, n, static_cast<std::uint32_t>(n) + 71, i % 3 == 1), i % 2 == 0);
      }
      check_sort(ctx(), "onesweep", dtype::u32, order::ascending, random_keys(dtype::u32, n, 72, false), true, nullptr,
                 4, 20);
    }
    check_onesweep_stressed(dtype::u32, order::ascending, 40000, 73);
  }
  fold.set("2");
  expect_onesweep_refused("2");
}

// The onesweep (under whatever variant the caller's environment picks) against the CPU twin at each of `sizes`:
// every 32-bit key type (orders alternating, pairs every other size), u32 pairs over bits 4:20 in `bits_order`,
// 64-bit keys; keys from seeds n + seed, seed + 1 and n + seed + 3.
// sizes(tile, chunk): the sizes to sort around a tile of `tile` keys scattered in chunks of `chunk`; called with the
// onesweep policy's tile for 32-bit keys and again for 64-bit keys (their tiles differ: items_wide, wg_size_wide).
void check_onesweep_at(const std::function<std::vector<std::size_t>(std::size_t, std::size_t)>& sizes,
                       std::uint32_t seed, order bits_order) {
  auto tile_of = [](std::uint32_t key_words) {
    const detail::sort_onesweep_policy pol = detail::sort_onesweep_policy_for(ctx(), {}, false, key_words);
    const std::size_t tile = std::size_t(pol.wg_size) * pol.items;
    return std::pair<std::size_t, std::size_t>(tile, tile / pol.scatter_rounds);
  };
  const auto [tile, chunk] = tile_of(1);
  std::size_t i = 0;
  for (const std::size_t n : sizes(tile, chunk)) {
    for (dtype t : key_types) {
      const order o = orders[(i + static_cast<std::size_t>(t)) % 2];
      check_sort(ctx(), "onesweep", t, o, random_keys(t, n, static_cast<std::uint32_t>(n) + seed, i % 3 == 1), i % 2 == 0);
    }
    check_sort(ctx(), "onesweep", dtype::u32, bits_order, random_keys(dtype::u32, n, seed + 1, false), true, nullptr, 4,
               20);
    ++i;
  }
  const auto [tile64, chunk64] = tile_of(2);
  i = 0;
  for (const std::size_t n : sizes(tile64, chunk64)) {
    const int kind = static_cast<int>(i % 3);
    check_sort64(ctx(), "onesweep", kind, orders[i % 2],
                 random_keys64(kind, n, static_cast<std::uint32_t>(n) + seed + 3, false), i % 2 == 1, false);
    ++i;
  }
}

TEST(Sort, OnesweepScatterRounds) {
  // The scatter in rounds through a pool of 1/rounds of the tile (WGPRIM_ONESWEEP_ROUNDS, policy
  // sort.scatter_rounds), with fewer subgroup histograms (WGPRIM_ONESWEEP_SLOTS: more ranking phases where the
  // subgroups outnumber them), the keys held or read again for the scatter (WGPRIM_ONESWEEP_RELOAD). Rounds that do
  // not divide the keys per invocation take its largest divisor below them. Against the CPU twin: every key type
  // (64-bit keys word by word), both orders, pairs, a bit range, sizes around this adapter's tile and the rounds'
  // chunks, the fallback under stress.
  env_override rounds("WGPRIM_ONESWEEP_ROUNDS", "1");
  env_override slots("WGPRIM_ONESWEEP_SLOTS", "8");
  env_override reload("WGPRIM_ONESWEEP_RELOAD", "1");
  for (const auto& [r, sl, rl] : {std::tuple<const char*, const char*, const char*>{"2", "8", "1"}, {"3", "4", "0"},
                                  {"5", "16", "1"}, {"4", "8", "0"}}) {
    SCOPED_TRACE(std::string("rounds ") + r + ", slots " + sl + ", reload " + rl);
    rounds.set(r);
    slots.set(sl);
    reload.set(rl);
    const detail::sort_onesweep_policy pol = detail::sort_onesweep_policy_for(ctx(), {}, false, 1);
    ASSERT_EQ(pol.items % pol.scatter_rounds, 0u);
    if (pol.items % 2 == 0) EXPECT_GT(pol.scatter_rounds, 1u) << "the rounds asked for were not taken";
    check_onesweep_at([](std::size_t tile, std::size_t chunk) {
      return std::vector<std::size_t>{0, 1, chunk - 1, chunk, chunk + 1, tile - 1, tile, tile + 1, 4 * tile + chunk + 3};
    }, 81, order::descending);
    check_onesweep_stressed(dtype::u32, order::ascending, 40000, 83);
  }
  rounds.set("7");
  EXPECT_THROW(check_sort(ctx(), "onesweep", dtype::u32, order::ascending, random_keys(dtype::u32, 10, 1, false), false),
               error);
}

TEST(Sort, OnesweepEarlyCounts) {
  // CUB's early counts (WGPRIM_ONESWEEP_EARLY=1, knob sort.early_counts): each tile publishes its digit counts from a
  // workgroup histogram before it ranks. With keys held or read again, each ranking, tiles of 256 and 512
  // invocations, against the CPU twin: 32- and 64-bit keys, both orders, pairs, a bit range, sizes around the tile,
  // and the fallback under stress (a held-back tile's successors count it themselves).
  env_override early("WGPRIM_ONESWEEP_EARLY", "1");
  env_override reload("WGPRIM_ONESWEEP_RELOAD", "1");
  env_override rank("WGPRIM_ONESWEEP_RANK", "ballot");
  env_override wg("WGPRIM_ONESWEEP_WG", "256");
  for (const auto& [rl, rk, w] : {std::tuple<const char*, const char*, const char*>{"1", "atomic", "256"},
                                  {"0", "ballot", "512"}}) {
    SCOPED_TRACE(std::string("reload ") + rl + ", rank " + rk + ", workgroup " + w);
    reload.set(rl);
    rank.set(rk);
    wg.set(w);
    check_onesweep_at([](std::size_t tile, std::size_t) {
      return std::vector<std::size_t>{0, 1, tile - 1, tile, tile + 1, 3 * tile + 5};
    }, 97, order::descending);
    check_onesweep_stressed(dtype::u32, order::ascending, 40000, 99);
  }
}

TEST(Sort, OnesweepMatchRanking) {
  // Ranking by match words (WGPRIM_ONESWEEP_MATCH=1, knob sort.rank_match): each key sets its lane's bit in its
  // subgroup's word of its digit and reads the word back after a subgroup barrier. Taken wherever the adapter has the
  // subgroup barrier (lavapipe and NVIDIA do) with the atomic counts; with keys held or read again, tiles of 256 and
  // 512 invocations, early counts or not, one ranking phase or several (8 histograms for more subgroups), against
  // the CPU twin: 32- and 64-bit keys (few distinct digits every third size: many peers per word), both orders,
  // pairs, a bit range, sizes around the tile, and the fallback under stress; each way of clearing the words (the
  // lowest peer after a third barrier, every lane its own bit, or every lane its bit of the previous key in the
  // other of two words: `pair`, with an odd number of keys per invocation too, so that either word is the last).
  env_override match("WGPRIM_ONESWEEP_MATCH", "1");
  env_override rank("WGPRIM_ONESWEEP_RANK", "atomic");
  env_override reload("WGPRIM_ONESWEEP_RELOAD", "1");
  env_override wg("WGPRIM_ONESWEEP_WG", "256");
  env_override early("WGPRIM_ONESWEEP_EARLY", "0");
  env_override slots("WGPRIM_ONESWEEP_SLOTS", "8");
  env_override clear("WGPRIM_ONESWEEP_MATCH_CLEAR", "leader");
  for (const auto& [rl, w, e, sl, cl] :
       {std::tuple<const char*, const char*, const char*, const char*, const char*>{"1", "256", "0", "8", "leader"},
        {"0", "512", "1", "16", "own"}, {"1", "512", "0", "4", "leader"}, {"1", "256", "0", "8", "own"},
        {"1", "512", "0", "16", "pair"}, {"0", "256", "1", "8", "pair"}}) {
    SCOPED_TRACE(std::string("reload ") + rl + ", workgroup " + w + ", early " + e + ", slots " + sl + ", clear " + cl);
    reload.set(rl);
    wg.set(w);
    early.set(e);
    slots.set(sl);
    clear.set(cl);
    const detail::sort_onesweep_policy pol = detail::sort_onesweep_policy_for(ctx(), {}, false, 1);
    EXPECT_EQ(pol.rank_match, ctx().features().subgroup_barrier) << "the match ranking was not taken";
    check_onesweep_at([](std::size_t tile, std::size_t) {
      return std::vector<std::size_t>{0, 1, 31, 33, tile - 1, tile, tile + 1, 2 * tile + 7};
    }, 101, order::ascending);
    check_onesweep_stressed(dtype::u32, order::descending, 40000, 103);
    if (std::string(cl) == "pair")
      for (const std::uint32_t items : {9u, 3u}) {
        SCOPED_TRACE("keys per invocation " + std::to_string(items));
        const std::size_t tile = std::size_t(pol.wg_size) * items;
        for (const std::size_t n : {tile - 1, tile + 1, 2 * tile + 7})
          check_sort(ctx(), "onesweep", dtype::u32, order::ascending, random_keys(dtype::u32, n, 107, n % 2 == 0), true,
                     nullptr, 0, 0, items);
      }
  }
  // The policy's histograms (WGPRIM_ONESWEEP_SLOTS unset): the words do not grow the pool past the tile's (or past
  // what one histogram per 32 lanes needs), for either workgroup size, and the sort is still right.
  slots.set("");
  for (const char* w : {"256", "512"}) {
    SCOPED_TRACE(std::string("policy histograms, workgroup ") + w);
    wg.set(w);
    const detail::sort_onesweep_policy pol = detail::sort_onesweep_policy_for(ctx(), {}, false, 1);
    if (!pol.rank_match) continue;
    EXPECT_LE(2 * pol.slots * 256, std::max(pol.wg_size * (pol.items / pol.scatter_rounds), 2 * (pol.wg_size / 32) * 256));
    EXPECT_GE(pol.slots, 1u);
    const std::size_t tile = std::size_t(pol.wg_size) * pol.items;
    for (const std::size_t n : {tile - 1, 3 * tile + 1})
      check_sort(ctx(), "onesweep", dtype::u32, order::ascending, random_keys(dtype::u32, n, 105, n % 2 == 0), n % 2 == 1);
  }
  // Without the atomic counts (the ballots' barrier per key) the match words are not used.
  rank.set("ballot");
  EXPECT_FALSE(detail::sort_onesweep_policy_for(ctx(), {}, false, 1).rank_match);
  match.set("2");
  EXPECT_THROW(detail::sort_onesweep_policy_for(ctx(), {}, false, 1), error);
}

TEST(Sort, OnesweepUnrolled) {
  // The onesweep with its loops over a tile's keys written out by wgsl_compose (`//! unroll`: the GPU policy's
  // sort.unroll; CPU adapters keep the loops, so this test forces it with WGPRIM_UNROLL=1, and on GPUs the loops
  // with 0), keys held or read again, one scatter round or two, each ranking (ballots with a barrier per key, or
  // workgroup atomics: the GPU default), against the CPU twin: 32- and 64-bit keys, both orders, pairs, a bit range,
  // sizes around the tile and the rounds' chunks, the fallback under stress.
  env_override unroll("WGPRIM_UNROLL", "1");
  env_override rounds("WGPRIM_ONESWEEP_ROUNDS", "1");
  env_override reload("WGPRIM_ONESWEEP_RELOAD", "1");
  env_override rank("WGPRIM_ONESWEEP_RANK", "ballot");
  for (const auto& [u, r, rl, rk] : {std::tuple<const char*, const char*, const char*, const char*>{"1", "2", "1", "ballot"},
                                     {"1", "1", "0", "atomic"}, {"0", "2", "0", "atomic"}}) {
    SCOPED_TRACE(std::string("unroll ") + u + ", rounds " + r + ", reload " + rl + ", rank " + rk);
    unroll.set(u);
    rounds.set(r);
    reload.set(rl);
    rank.set(rk);
    const detail::sort_onesweep_policy pol = detail::sort_onesweep_policy_for(ctx(), {}, false, 1);
    if (std::string(r) == "2" && pol.items % 2 == 0) EXPECT_EQ(pol.scatter_rounds, 2u);
    check_onesweep_at([](std::size_t tile, std::size_t chunk) {
      return std::vector<std::size_t>{0, 1, chunk - 1, chunk + 1, tile - 1, tile, tile + 1, 3 * tile + 5};
    }, 91, order::ascending);
    check_onesweep_stressed(dtype::u32, order::descending, 40000, 93);
  }
}

}  // namespace
}  // namespace wgprim::test
