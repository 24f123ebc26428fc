// scan: every op x type x algorithm x {inclusive, exclusive} over edge sizes, against the CPU running total.
#include <iostream>

#include "common.hpp"

namespace wgprim::test {
namespace {

std::size_t count_mismatches(context& c, const monoid& m, scan_kind kind, const std::vector<std::uint32_t>& x,
                             const std::vector<std::uint32_t>& got, std::size_t n, std::string* first,
                             double tile = 4096) {
  std::vector<std::uint32_t> want(n);
  if (kind == scan_kind::inclusive) reference::inclusive_scan(x.data(), n, want.data(), m);
  else reference::exclusive_scan(x.data(), n, want.data(), m);
  std::size_t bad = 0;
  if (m.is_sum() && m.type() == dtype::f32) {
    // Longest dependent chain of the seed scan: 8 Hillis-Steele steps and 2 add-backs per level (<= 4 levels),
    // plus one carry per storage-binding chunk: h = 64 + chunks bounds it.
    double chunks = std::ceil(static_cast<double>(n) * 4 / static_cast<double>(c.binding_limit())) + 1;
    // Decoupled: per-invocation serial fold of 16, 8 Hillis-Steele steps, then one combine per preceding tile
    // in the look-back chain (at most n / tile: 4,096 elements unless the tuning sets items). The raked tile's chain is shorter: 3 in the vec4 fold and 3 in
    // its scan, log2(subgroup size) Hillis-Steele steps, ITEMS - 1 <= 7 carries between vec4, 2 around the lane
    // prefix and one per lower subgroup (31 on lavapipe's subgroups of 8: 49 in all).
    double h = 64 + chunks + std::ceil(static_cast<double>(n) / tile);
    long double exact = 0, abs_sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double xi = from_bits<float>(x[i]);
      long double e0 = exact, a0 = abs_sum;
      exact += xi;
      abs_sum += std::fabs(xi);
      double w = static_cast<double>(kind == scan_kind::inclusive ? exact : e0);
      double bound = f32_sum_bound(h, static_cast<double>(kind == scan_kind::inclusive ? abs_sum : a0));
      double g = from_bits<float>(got[i]);
      if (!(std::fabs(g - w) <= bound)) {
        if (!bad++ && first) *first = "i=" + std::to_string(i) + " got " + std::to_string(g) + " want " + std::to_string(w);
      }
    }
  } else {
    for (std::size_t i = 0; i < n; ++i)
      if (got[i] != want[i] && !bad++ && first)
        *first = "i=" + std::to_string(i) + " got " + format_bits(m.type(), got[i]) + " want " +
                 format_bits(m.type(), want[i]);
  }
  return bad;
}

void check_scan(context& c, const std::string& alg, const monoid& m, scan_kind kind,
                const std::vector<std::uint32_t>& x, std::size_t n, const tuning& tune = {},
                run_stats* stats = nullptr) {
  run_options o;
  o.algorithm = alg;
  o.tune = tune;
  o.stats = stats;
  std::vector<std::uint32_t> got(n);
  if (n) {
    buffer in = c.create_buffer(n * 4), out = c.create_buffer(n * 4);
    c.write(in, 0, x.data(), n * 4);
    scan(c, in, out, n, m, kind, o);
    c.read(out, 0, got.data(), n * 4);
  }
  std::string first;
  EXPECT_EQ(count_mismatches(c, m, kind, x, got, n, &first, 1024.0 * (tune.items ? tune.items : 4)), 0u)
      << describe(m, n) << (kind == scan_kind::inclusive ? " inclusive" : " exclusive") << " alg=" << alg << ": "
      << first;
}

TEST(Scan, EveryOpTypeAlgorithmAndEdgeSize) {
  auto sizes = edge_sizes(22);
  std::size_t combo = 0;
  for (const auto& alg : scan_algorithms())
    for (dtype t : {dtype::f32, dtype::i32, dtype::u32}) {
      auto data = make_data(t, sizes.back(), 21 + static_cast<int>(t));
      for (const op& o : ops_for(t)) {
        monoid m(o, t);
        for (scan_kind k : {scan_kind::inclusive, scan_kind::exclusive}) {
          for (std::size_t i = 0; i < sizes.size(); ++i)
            if (sweep_runs(i, sizes[i], combo)) check_scan(ctx(), alg, m, k, data, sizes[i]);
          ++combo;
        }
      }
    }
}

TEST(Scan, SmallIntegerFloatSumsAreExact) {
  const std::size_t n = 1u << 20;
  auto x = make_data(dtype::f32, n, 9, data_kind::small_ints);
  std::vector<float> in(n);
  std::memcpy(in.data(), x.data(), n * 4);
  for (const auto& alg : scan_algorithms()) {
    run_options o;
    o.algorithm = alg;
    auto got = inclusive_scan(ctx(), in, op::sum(), o);
    float acc = 0;
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) bad += got[i] != (acc += in[i]);
    EXPECT_EQ(bad, 0u) << alg;
  }
}

TEST(Scan, HostOverloadsAndInPlace) {
  std::vector<std::uint32_t> v = {3, 1, 4, 1, 5};
  EXPECT_EQ(inclusive_scan(ctx(), v), (std::vector<std::uint32_t>{3, 4, 8, 9, 14}));
  EXPECT_EQ(exclusive_scan(ctx(), v), (std::vector<std::uint32_t>{0, 3, 4, 8, 9}));
  EXPECT_EQ(inclusive_scan(ctx(), v, op::max()), (std::vector<std::uint32_t>{3, 3, 4, 4, 5}));
  buffer b = ctx().create_buffer(v.size() * 4);
  ctx().write(b, 0, v.data(), v.size() * 4);
  inclusive_scan(ctx(), device_span<const std::uint32_t>(b), device_span<std::uint32_t>(b));
  std::vector<std::uint32_t> got(v.size());
  ctx().read(b, 0, got.data(), v.size() * 4);
  EXPECT_EQ(got, (std::vector<std::uint32_t>{3, 4, 8, 9, 14}));
}

TEST(Scan, PastTheWorkgroupsPerDimensionCap) {
  // 2^24 + 3 elements = 65,537 blocks of 256: more than one dispatch dimension holds.
  const std::size_t n = (1u << 24) + 3;
  auto x = make_data(dtype::u32, n, 4);
  monoid m(op::sum(), dtype::u32);
  for (const auto& alg : scan_algorithms()) check_scan(ctx(), alg, m, scan_kind::inclusive, x, n);
}

TEST(Scan, ChunkedPastTheBindingLimit) {
  context& c = small_binding_ctx();
  std::size_t op_index = 0;
  for (const auto& alg : scan_algorithms())
    for (dtype t : {dtype::f32, dtype::u32, dtype::i32}) {
      auto data = make_data(t, (1u << 20) + 77, 6);
      for (const op& o : ops_for(t)) {
        for (int k : {0, 1}) {
          // one binding and one past it for every combination; three or five chunks, alternating
          const scan_kind kind = k ? scan_kind::exclusive : scan_kind::inclusive;
          for (std::size_t n : {262143u, 262145u}) check_scan(c, alg, monoid(o, t), kind, data, n);
          check_scan(c, alg, monoid(o, t), kind, data, (op_index + k) % 2 ? 524288u + 3u : (1u << 20) + 77u);
        }
        ++op_index;
      }
    }
}

TEST(Scan, DecoupledPolicyVariants) {
  // Every code path of the decoupled scan, whatever the adapter's default picks: subgroup or workgroup-memory
  // scans, staged through workgroup memory or direct, short and long tiles, a spin limit of one poll.
  std::vector<tuning> variants;
  struct v { int subgroups, staged; std::uint32_t items, spin; };
  // staged: 0 direct, 1 staged; 2 (raked) has its own sweep, Scan.DecoupledRakedLayout (a variant here would add
  // ~20 s on lavapipe).
  for (const v& x : {v{0, 0, 4, 0}, v{1, 0, 2, 1}, v{0, 1, 1, 0}, v{1, 1, 8, 0}, v{1, 0, 4, 0}}) {
    tuning t;
    t.subgroups = x.subgroups;
    t.staged = x.staged;
    t.items = x.items;
    t.spin_limit = x.spin;
    variants.push_back(t);
  }
  std::size_t op_index = 0;
  for (dtype t : {dtype::u32, dtype::f32, dtype::i32})
    for (const op& o : ops_for(t)) {
      monoid m(o, t);
      auto data = make_data(t, 200003, 14);
      for (std::size_t vi = 0; vi < variants.size(); ++vi)
        for (int k : {0, 1}) {
          // 8195 is already two tiles at the longest (8,192); the long look-back chain of 200,003 for half of the
          // combinations, alternating (every variant, op and kind still meets it)
          const scan_kind kind = k ? scan_kind::exclusive : scan_kind::inclusive;
          for (std::size_t n : {1u, 4u, 1023u, 1024u, 1025u, 8192u, 8195u})
            check_scan(ctx(), "decoupled", m, kind, data, n, variants[vi]);
          if ((op_index + vi + k) % 2 == 0) check_scan(ctx(), "decoupled", m, kind, data, 200003u, variants[vi]);
        }
      ++op_index;
    }
}

TEST(Scan, DecoupledFallbackPathRunsAndStaysExact) {
  // Stress mode holds back every third tile's aggregate and lets successors poll only once, so they must reduce
  // their predecessor's tile themselves. The result must not change, and the fallback count proves the path ran.
  struct stress_on {
    stress_on() { testing::set_lookback_stress(ctx(), true); testing::set_lookback_stress(small_binding_ctx(), true); }
    ~stress_on() { testing::set_lookback_stress(ctx(), false); testing::set_lookback_stress(small_binding_ctx(), false); }
  } on;
  const tuning stress{};
  std::uint64_t total_fallbacks = 0;
  for (dtype t : {dtype::u32, dtype::i32, dtype::f32})
    for (const op& o : ops_for(t)) {
      monoid m(o, t);
      auto data = make_data(t, 300000, 12);
      for (scan_kind k : {scan_kind::inclusive, scan_kind::exclusive})
        for (std::size_t n : {8193u, 65536u, 300000u}) {
          run_stats st;
          check_scan(ctx(), "decoupled", m, k, data, n, stress, &st);
          total_fallbacks += st.lookback_fallbacks;
        }
    }
  EXPECT_GT(total_fallbacks, 0u);
  // Also across binding chunks, with fallbacks.
  run_stats st;
  auto data = make_data(dtype::u32, (1u << 20) + 77, 13);
  check_scan(small_binding_ctx(), "decoupled", monoid(op::sum(), dtype::u32), scan_kind::inclusive, data,
             (1u << 20) + 77, stress, &st);
  EXPECT_GT(st.lookback_fallbacks, 0u);
  std::cout << "[          ] look-back fallbacks taken under stress: " << total_fallbacks + st.lookback_fallbacks
            << "\n";
}

// check_scan with an initial value: the result must be the twin's scan of the same kind over [init, x...], from
// position 1 on (inclusive: init op x[0] op ... op x[i]; exclusive: init op x[0] op ... op x[i-1]).
void check_scan_init(context& c, const monoid& m, scan_kind kind, const std::vector<std::uint32_t>& x, std::size_t n,
                     std::uint32_t init, const tuning& tune, run_stats* stats = nullptr) {
  run_options o;
  o.algorithm = "decoupled";
  o.tune = tune;
  o.stats = stats;
  std::vector<std::uint32_t> y(n + 1), got(n + 1);
  y[0] = init;
  std::copy(x.begin(), x.begin() + n, y.begin() + 1);
  got[0] = kind == scan_kind::inclusive ? init : m.identity_bits();  // position 0 is not an output
  if (n) {
    buffer in = c.create_buffer(n * 4), out = c.create_buffer(n * 4);
    c.write(in, 0, x.data(), n * 4);
    const std::uint64_t init64 = init;
    detail::scan_run(c, nullptr, detail::in_ref(device_span<const std::uint32_t>(in, 0, n)),
                     detail::out_ref(device_span<std::uint32_t>(out, 0, n)), m, kind, &init64, o);
    c.read(out, 0, got.data() + 1, n * 4);
  }
  std::string first;
  EXPECT_EQ(count_mismatches(c, m, kind, y, got, n + 1, &first, 1024.0 * (tune.items ? tune.items : 4)), 0u)
      << describe(m, n) << (kind == scan_kind::inclusive ? " inclusive" : " exclusive") << " init "
      << format_bits(m.type(), init) << " staged=" << tune.staged << " items=" << tune.items << ": " << first;
}

TEST(Scan, DecoupledSubgroupLookback) {
  // The look-back walked by subgroup 0 alone (tuning::lookback_subgroup = 1, tile/lookback.wgsl): a
  // non-commutative operator shows any change in the order the window folds in; short tiles make walks longer
  // than a subgroup (lavapipe: 8 lanes); under stress every third tile's predecessor reads NOT_READY, so the
  // fallback (a workgroup-wide verdict between subgroup-only walks) runs; subgroups off take the window walk.
  const op affine = op::custom(
      "((((a >> 16u) * (b >> 16u)) & 0xffffu) << 16u) | (((a & 0xffffu) * (b >> 16u) + (b & 0xffffu)) & 0xffffu)",
      "65536");
  const monoid affine_m(affine, dtype::u32), sum_u32(op::sum(), dtype::u32), sum_f32(op::sum(), dtype::f32);
  auto sg = [](std::uint32_t items, int subgroups = 1, std::uint32_t spin = 0) {
    tuning t;
    t.lookback_subgroup = 1;
    t.items = items;
    t.subgroups = subgroups;
    t.spin_limit = spin;
    return t;
  };
  const std::size_t max_n = 40 * 1024 + 3;
  auto words = make_data(dtype::u32, max_n, 51);
  auto floats = make_data(dtype::f32, max_n, 52);
  for (std::uint32_t items : {1u, 4u}) {
    const std::size_t tile = 256 * 4 * items;
    for (std::size_t n : {std::size_t(0), std::size_t(1), tile - 1, tile, tile + 1, 9 * tile + 5, max_n})
      for (scan_kind k : {scan_kind::inclusive, scan_kind::exclusive}) {
        check_scan(ctx(), "decoupled", affine_m, k, words, n, sg(items));
        check_scan_init(ctx(), sum_u32, k, words, n, 12345u, sg(items));
        if (items == 4) check_scan(ctx(), "decoupled", sum_f32, k, floats, n, sg(items));
      }
  }
  check_scan(ctx(), "decoupled", affine_m, scan_kind::inclusive, words, max_n, sg(1, 0));  // the window walk
  struct stress_on {
    stress_on() { testing::set_lookback_stress(ctx(), true); }
    ~stress_on() { testing::set_lookback_stress(ctx(), false); }
  } on;
  std::uint64_t fallbacks = 0;
  for (const monoid* m : {&affine_m, &sum_u32})
    for (scan_kind k : {scan_kind::inclusive, scan_kind::exclusive}) {
      run_stats st;
      check_scan(ctx(), "decoupled", *m, k, words, max_n, sg(1), &st);
      fallbacks += st.lookback_fallbacks;
      check_scan_init(ctx(), *m, k, words, 17 * 1024 + 1, 0x30007u, sg(1), &st);
      fallbacks += st.lookback_fallbacks;
    }
  EXPECT_GT(fallbacks, 0u);
  std::cout << "[          ] subgroup look-back fallbacks taken under stress: " << fallbacks << "\n";
  run_options bad;
  bad.algorithm = "decoupled";
  bad.tune.lookback_subgroup = 2;
  EXPECT_THROW(inclusive_scan(ctx(), std::vector<std::uint32_t>{1, 2, 3, 4}, op::sum(), bad), error);
}

TEST(Scan, DecoupledRakedLayout) {
  // The subgroup-raked tile (tuning::staged = 2): u32 / i32 / f32 at the tile's edges, with and without init;
  // short and long tiles; the look-back fallback under stress (it must rebuild a tile's aggregate in the raked
  // order: the non-commutative operator below would show any other order); and with subgroups forced off, where
  // the policy falls back to the direct layout.
  // An associative, non-commutative operator: x -> m x + c maps mod 2^16 packed (m << 16) | c, composed left to
  // right; identity the map x -> x.
  const op affine = op::custom(
      "((((a >> 16u) * (b >> 16u)) & 0xffffu) << 16u) | (((a & 0xffffu) * (b >> 16u) + (b & 0xffffu)) & 0xffffu)",
      "65536");
  auto sizes_for = [](std::uint32_t items) {
    const std::size_t tile = 256 * 4 * items;
    return std::vector<std::size_t>{0,        1,        5,        tile - 1,     tile,         tile + 1,
                                    2 * tile, 3 * tile + 7, (1u << 15) - 1, (1u << 15) + 1, 5 * tile + 3};
  };
  auto raked = [](std::uint32_t items, int subgroups = 1, std::uint32_t spin = 0) {
    tuning t;
    t.staged = 2;
    t.items = items;
    t.subgroups = subgroups;
    t.spin_limit = spin;
    return t;
  };
  auto run_all = [&](const monoid& m, const std::vector<std::uint32_t>& data, const tuning& t) {
    const std::uint32_t init = m.type() == dtype::f32 ? to_bits(2.5f) : !m.is_builtin() ? 0x30007u : 12345u;
    auto sizes = sizes_for(t.items);
    for (std::size_t i = 0; i < sizes.size(); ++i)
      for (scan_kind k : {scan_kind::inclusive, scan_kind::exclusive}) {
        if (i % 2 == 0) check_scan(ctx(), "decoupled", m, k, data, sizes[i], t);
        else check_scan_init(ctx(), m, k, data, sizes[i], init, t);
      }
  };
  const std::size_t max_n = 5 * 8192 + 3;
  // A few operators per type, as each pipeline costs ~2 s to compile on a cold lavapipe: the layout moves and
  // combines values the same way whatever the operator, and `affine` shows any change of order. ops_for's
  // bitwise and expression operators go through the raked tile in the differential test.
  auto words = make_data(dtype::u32, max_n, 47), ints = make_data(dtype::i32, max_n, 41);
  auto floats = make_data(dtype::f32, max_n, 48);
  const monoid affine_m(affine, dtype::u32), sum_u32(op::sum(), dtype::u32), sum_f32(op::sum(), dtype::f32);
  const monoid max_i32(op::max(), dtype::i32);
  run_all(sum_u32, words, raked(4));
  run_all(max_i32, ints, raked(4));
  run_all(sum_f32, floats, raked(4));
  run_all(monoid(op::min(), dtype::f32), floats, raked(4));
  run_all(affine_m, words, raked(4));
  run_all(affine_m, words, raked(1, 1, 1));  // short tiles, one poll before the fallback
  run_all(sum_f32, floats, raked(8));        // long tiles
  run_all(affine_m, words, raked(4, 0));     // subgroups off: the direct layout
  run_all(sum_u32, words, raked(4, 0));
  // Across storage-binding chunks (1 MiB bindings: three dispatches, the carry between them), in order.
  auto many = make_data(dtype::u32, 2 * 262144 + 4097, 49);
  for (scan_kind k : {scan_kind::inclusive, scan_kind::exclusive}) {
    check_scan(small_binding_ctx(), "decoupled", affine_m, k, many, many.size(), raked(4));
    check_scan_init(small_binding_ctx(), affine_m, k, many, many.size(), 0x30007u, raked(4));
  }

  struct stress_on {
    stress_on() { testing::set_lookback_stress(ctx(), true); }
    ~stress_on() { testing::set_lookback_stress(ctx(), false); }
  } on;
  std::uint64_t fallbacks = 0;
  for (const monoid& m : {affine_m, sum_u32, sum_f32, max_i32})
    for (std::uint32_t items : {1u, 4u}) {
      if (items == 1 && m.is_builtin()) continue;  // only affine's short-tile pipeline is compiled above
      const tuning t = raked(items);
      const auto& x = m.type() == dtype::f32 ? floats : m.type() == dtype::i32 ? ints : words;
      for (scan_kind k : {scan_kind::inclusive, scan_kind::exclusive}) {
        run_stats st;
        check_scan(ctx(), "decoupled", m, k, x, max_n, t, &st);
        fallbacks += st.lookback_fallbacks;
        check_scan_init(ctx(), m, k, x, 3 * 256 * 4 * items + 1, m.type() == dtype::f32 ? to_bits(-1.5f) : 7u, t, &st);
        fallbacks += st.lookback_fallbacks;
      }
    }
  EXPECT_GT(fallbacks, 0u);
  std::cout << "[          ] raked look-back fallbacks taken under stress: " << fallbacks << "\n";
  // A layout the policy does not know is refused, not ignored.
  run_options bad;
  bad.algorithm = "decoupled";
  bad.tune.staged = 3;
  try {
    inclusive_scan(ctx(), std::vector<std::uint32_t>{1, 2, 3}, op::sum(), bad);
    ADD_FAILURE() << "staged = 3 was accepted";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument) << e.what();
  }
}

TEST(Scan, PastTheRealBindingLimit) {
  context& c = ctx();
  std::size_t n = c.binding_limit() / 4 + 1025;
  if (n * 4 > c.limits().max_buffer_size) GTEST_SKIP() << "the adapter's max buffer equals its binding limit";
  auto x = make_data(dtype::u32, n, 8);
  for (scan_kind k : {scan_kind::inclusive, scan_kind::exclusive})
    check_scan(c, "", monoid(op::sum(), dtype::u32), k, x, n);
}

}  // namespace
}  // namespace wgprim::test
