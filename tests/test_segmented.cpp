// Segmented reduce/scan over CSR offsets, reduce-by-key and run-length encoding against their CPU twins: every
// type x op x edge size, segment layouts from one huge segment to many empty ones, outputs past one binding,
// the caller's encoder, and bad offsets. f32 data are small integers, so every grouping of a sum is exact and
// the comparison is bit for bit.

#include <cstdlib>

#include "common.hpp"

namespace wgprim::test {
namespace {

enum class layout { random, huge, empties, ones, lead_trail, fours };

// CSR offsets over n elements in a given shape.
std::vector<std::uint32_t> make_offsets(std::size_t n, layout l, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> off;
  switch (l) {
    case layout::huge:
      return {0, static_cast<std::uint32_t>(n)};
    case layout::empties:  // thousands of empty segments around a few real ones
      for (int i = 0; i < 2000; ++i) off.push_back(0);
      off.push_back(static_cast<std::uint32_t>(n / 3));
      for (int i = 0; i < 1000; ++i) off.push_back(static_cast<std::uint32_t>(n / 3));
      off.push_back(static_cast<std::uint32_t>(n));
      for (int i = 0; i < 1000; ++i) off.push_back(static_cast<std::uint32_t>(n));
      return off;
    case layout::ones:
      for (std::size_t i = 0; i <= n; ++i) off.push_back(static_cast<std::uint32_t>(i));
      return off;
    case layout::lead_trail: {  // elements before the first offset and after the last
      std::uint32_t a = static_cast<std::uint32_t>(n / 5), b = static_cast<std::uint32_t>(n - n / 7);
      return {a, (a + b) / 2, (a + b) / 2, b};
    }
    case layout::fours:  // segments of 1..7 elements, some empty
      off.push_back(0);
      while (off.back() < n)
        off.push_back(static_cast<std::uint32_t>(std::min<std::size_t>(n, off.back() + rng() % 8)));
      return off;
    case layout::random:
      break;
  }
  std::uint32_t at = 0;
  off.push_back(0);
  while (at < n) {
    std::uint32_t len = rng() % 4 == 0 ? 0 : rng() % 3 == 0 ? rng() % 5000 : rng() % 40;
    at = static_cast<std::uint32_t>(std::min<std::size_t>(n, at + len));
    off.push_back(at);
  }
  return off;
}

std::vector<std::uint32_t> data_for(dtype t, std::size_t n, std::uint32_t seed) {
  return make_data(t, n, seed, t == dtype::f32 ? data_kind::small_ints : data_kind::random);
}

template <class T>
host_span<const T> typed(const std::vector<std::uint32_t>& v) {
  return host_span<const T>(reinterpret_cast<const T*>(v.data()), v.size());
}
template <class T>
host_span<T> typed_out(std::vector<std::uint32_t>& v) {
  return host_span<T>(reinterpret_cast<T*>(v.data()), v.size());
}

void check_segmented(context& c, const op& o, dtype t, std::size_t n, layout l, std::uint32_t seed,
                     const run_options& opt = {}, const run_options* scan_opt = nullptr) {
  const run_options& sopt = scan_opt ? *scan_opt : opt;
  const monoid m(o, t);
  auto x = data_for(t, n, seed);
  auto off = make_offsets(n, l, seed);
  const std::size_t segs = off.size() - 1;
  std::vector<std::uint32_t> want_r(segs), got_r(segs, 0xdeadbeefu);
  reference::segmented_reduce(x.data(), off.data(), segs, want_r.data(), m);
  with_type(t, [&](auto tag) {
    using T = decltype(tag);
    segmented_reduce(c, typed<T>(x), off, typed_out<T>(got_r), o, opt);
  });
  for (std::size_t s = 0; s < segs; ++s)
    ASSERT_EQ(got_r[s], want_r[s]) << "reduce " << describe(m, n) << " layout " << static_cast<int>(l) << " segment "
                                   << s << " [" << off[s] << ", " << off[s + 1] << ")";
  for (bool exclusive : {false, true}) {
    std::vector<std::uint32_t> want(n), got(n, 0xdeadbeefu);
    reference::segmented_scan(x.data(), n, off.data(), segs, want.data(), m, exclusive);
    with_type(t, [&](auto tag) {
      using T = decltype(tag);
      if (exclusive) segmented_exclusive_scan(c, typed<T>(x), off, typed_out<T>(got), o, sopt);
      else segmented_inclusive_scan(c, typed<T>(x), off, typed_out<T>(got), o, sopt);
    });
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(got[i], want[i]) << (exclusive ? "exclusive " : "inclusive ") << describe(m, n) << " layout "
                                 << static_cast<int>(l) << " i=" << i;
  }
}

TEST(Segmented, EveryOpTypeAndEdgeSize) {
  auto sizes = edge_sizes(16);
  for (dtype t : {dtype::f32, dtype::i32, dtype::u32}) {
    const auto ops = ops_for(t);
    for (std::size_t j = 0; j < sizes.size(); ++j)  // every size; the ops rotate over the sizes
      check_segmented(ctx(), ops[(j + static_cast<int>(t)) % ops.size()], t, sizes[j], layout::random,
                      static_cast<std::uint32_t>(j));
    for (const op& o : ops) check_segmented(ctx(), o, t, 5000, layout::random, 3);
  }
}

TEST(Segmented, Layouts) {
  for (layout l : {layout::huge, layout::empties, layout::ones, layout::lead_trail})
    for (std::size_t n : {0u, 1u, 2047u, 2048u, 2049u, 100000u}) {
      if (l == layout::lead_trail && n < 8) continue;
      check_segmented(ctx(), op::sum(), dtype::i32, n, l, 5);
      check_segmented(ctx(), op::custom("select(a, b, b < a)", "inf"), dtype::f32, n, l, 6);
    }
  // No segments at all: nothing to reduce; the scan runs as one group.
  std::vector<std::uint32_t> x = {1, 2, 3}, off = {0}, out(3);
  std::vector<std::uint32_t> none;
  segmented_reduce(ctx(), x, off, none);
  segmented_inclusive_scan(ctx(), x, off, out);
  EXPECT_EQ(out, (std::vector<std::uint32_t>{1, 3, 6}));
  // Zero segments starting past 0: [0, 1) and [1, 3) are groups of their own; past n is an error.
  std::vector<std::uint32_t> off1 = {1}, off4 = {4};
  segmented_inclusive_scan(ctx(), x, off1, out);
  EXPECT_EQ(out, (std::vector<std::uint32_t>{1, 2, 5}));
  device_vector<std::uint32_t> d_x(ctx(), x), d_off1(ctx(), off1), d_off4(ctx(), off4), d_out(ctx(), 3);
  segmented_exclusive_scan(ctx(), d_x, d_off1, d_out);
  EXPECT_EQ(d_out.to_host(), (std::vector<std::uint32_t>{0, 0, 2}));
  EXPECT_THROW(segmented_inclusive_scan(ctx(), d_x, d_off4, d_out), error);
  EXPECT_THROW(segmented_inclusive_scan(ctx(), x, off4, out), error);
}

TEST(Segmented, PastOneBinding) {
  context& c = small_binding_ctx();  // 1 MiB bindings
  check_segmented(c, op::sum(), dtype::u32, 600001, layout::random, 8);
  check_segmented(c, op::max(), dtype::f32, 600001, layout::huge, 9);
  check_segmented(c, op::sum(), dtype::i32, 300001, layout::ones, 10);  // 300,002 offsets: two chunks of them
}

// The streaming ("tiles") reduce and scan take tiles of 2,048 values: sizes around one and several tiles, every
// layout, one segment over many tiles, segments that end exactly at tile boundaries (the default decoupled passes
// on the device); and the earlier paths (scan-gather, bitmap), still selectable.
TEST(Segmented, StreamingTileEdges) {
  run_options streaming;
  streaming.algorithm = "tiles";
  for (layout l : {layout::random, layout::huge, layout::empties, layout::ones, layout::lead_trail, layout::fours})
    for (std::size_t n : {1u, 2u, 2047u, 2048u, 2049u, 4095u, 4096u, 4097u, 65535u, 65537u, 2048u * 300 + 1}) {
      if (l == layout::lead_trail && n < 8) continue;
      check_segmented(ctx(), op::sum(), dtype::u32, n, l, static_cast<std::uint32_t>(n), streaming);
    }
  // Segments of exactly one tile, and of a tile +- 1, on the device (the GPU's offset checks).
  for (std::size_t len : {2047u, 2048u, 2049u, 1u << 16}) {
    const std::size_t n = 2048 * 40 + 3;
    std::vector<std::uint32_t> off;
    for (std::size_t at = 0; at < n; at += len) off.push_back(static_cast<std::uint32_t>(at));
    off.push_back(static_cast<std::uint32_t>(n));
    auto x = data_for(dtype::u32, n, 12);
    const monoid m(op::max(), dtype::u32);
    std::vector<std::uint32_t> want(off.size() - 1);
    reference::segmented_reduce(x.data(), off.data(), want.size(), want.data(), m);
    device_vector<std::uint32_t> d_x(ctx(), x), d_off(ctx(), off), d_r(ctx(), want.size());
    segmented_reduce(ctx(), d_x, d_off, d_r, op::max());
    ASSERT_EQ(d_r.to_host(), want) << "len " << len;
  }
  run_options seed, seed_scan;
  seed.algorithm = "scan-gather";
  seed_scan.algorithm = "bitmap";
  check_segmented(ctx(), op::sum(), dtype::u32, 100000, layout::random, 13, seed, &seed_scan);
  check_segmented(ctx(), op::min(), dtype::f32, 5000, layout::fours, 14, seed, &seed_scan);
  for (dtype t : {dtype::f32, dtype::i32, dtype::u32})
    for (const op& o : ops_for(t)) check_segmented(ctx(), o, t, 9000, layout::fours, 15);
}

// One subgroup per segment ("subgroups": the reduce's default for built-in operators over segments of 32 or more
// values on average, the scan's over 32 to 2,048): every layout and type and op, sizes around a subgroup, around
// 8,192 and 256 x narrow subgroups' lanes (segments past the cut are cut into chunks that workgroups fold), many long segments, bad offsets on the device, custom operators (commutative ones
// run, others are refused), several calls in one encoder (they share the workspace).
TEST(Segmented, PerSubgroup) {
  run_options sub, scans;
  sub.algorithm = "subgroups";
  scans.algorithm = "subgroups";
  if (!ctx().features().subgroups) {  // the algorithm needs subgroups: named without them, it is refused
    std::vector<std::uint32_t> x(10, 1), off = {0, 10}, r(1);
    EXPECT_THROW(segmented_reduce(ctx(), x, off, r, op::sum(), sub), error);
    return;
  }
  for (layout l : {layout::random, layout::huge, layout::empties, layout::ones, layout::lead_trail, layout::fours})
    for (std::size_t n : {1u, 2u, 31u, 33u, 1025u, 2047u, 2048u, 2049u, 8191u, 8192u, 8193u, 16385u, 100000u}) {
      if (l == layout::lead_trail && n < 8) continue;
      check_segmented(ctx(), op::sum(), dtype::u32, n, l, static_cast<std::uint32_t>(n), sub, &scans);
    }
  for (dtype t : {dtype::f32, dtype::i32, dtype::u32})
    for (const op& o : ops_for(t)) {
      check_segmented(ctx(), o, t, 20000, layout::random, 21, sub, &scans);
      check_segmented(ctx(), o, t, 30000, layout::huge, 22, sub, &scans);
      check_segmented(ctx(), o, t, 8000, layout::huge, 29, sub, &scans);  // one subgroup's, or chunks (narrow)
    }
  // Long groups before the first offset and after the last (the scan's), and a scan whose operator does not
  // commute (the first non-zero value: every step keeps the order).
  check_segmented(ctx(), op::sum(), dtype::i32, 200001, layout::lead_trail, 26, sub, &scans);
  {
    const std::size_t n = 70001;
    auto x = data_for(dtype::u32, n, 27);
    for (std::size_t i = 0; i < n; ++i) x[i] = i % 9 < 5 ? 0 : x[i];
    std::vector<std::uint32_t> off = {100, 130, 130, 20000, 20001, 60000};
    const op first = op::custom("select(a, b, a == 0u)", "0");
    const monoid m(first, dtype::u32);
    for (bool exclusive : {false, true}) {
      std::vector<std::uint32_t> want(n), got(n);
      reference::segmented_scan(x.data(), n, off.data(), off.size() - 1, want.data(), m, exclusive);
      if (exclusive) segmented_exclusive_scan(ctx(), x, off, got, first, scans);
      else segmented_inclusive_scan(ctx(), x, off, got, first, scans);
      ASSERT_EQ(got, want) << (exclusive ? "exclusive" : "inclusive");
    }
  }
  // No segments: the scan's two groups (before and after the only offset), the second one long.
  {
    auto x = data_for(dtype::u32, 20000, 28);
    std::vector<std::uint32_t> off = {5}, want(x.size()), got(x.size());
    reference::segmented_scan(x.data(), x.size(), off.data(), 0, want.data(), monoid(op::sum(), dtype::u32), false);
    segmented_inclusive_scan(ctx(), x, off, got, op::sum(), scans);
    ASSERT_EQ(got, want);
  }
  // Many long segments (lengths around the 8,192 cut and its multiples, and around the narrow subgroups' cuts:
  // 256 x 4 and 256 x 8 lanes) beside short ones.
  for (std::size_t len : {1025u, 2049u, 8192u, 8193u, 16384u, 16385u, 40000u}) {
    const std::size_t n = 300001;
    std::vector<std::uint32_t> off;
    for (std::size_t at = 0, k = 0; at < n; at += (k++ % 3 == 0 ? 5 : len)) off.push_back(static_cast<std::uint32_t>(at));
    off.push_back(static_cast<std::uint32_t>(n));
    auto x = data_for(dtype::u32, n, 23);
    for (const op& o : {op::sum(), op::max()}) {
      const monoid m(o, dtype::u32);
      std::vector<std::uint32_t> want(off.size() - 1);
      reference::segmented_reduce(x.data(), off.data(), want.size(), want.data(), m);
      device_vector<std::uint32_t> d_x(ctx(), x), d_off(ctx(), off), d_r(ctx(), want.size());
      run_options so = sub;
      run_stats st;
      so.stats = &st;
      segmented_reduce(ctx(), d_x, d_off, d_r, o, so);
      ASSERT_EQ(d_r.to_host(), want) << "len " << len;
      EXPECT_EQ(st.algorithm, "subgroups");
      std::vector<std::uint32_t> want_s(n);
      reference::segmented_scan(x.data(), n, off.data(), off.size() - 1, want_s.data(), m, false);
      device_vector<std::uint32_t> d_s(ctx(), n);
      segmented_inclusive_scan(ctx(), d_x, d_off, d_s, o, so);
      ASSERT_EQ(d_s.to_host(), want_s) << "scan, len " << len;
      EXPECT_EQ(st.algorithm, "subgroups");
    }
  }
  // Three calls in one encoder, the long ones between short ones: each finds its own chunks.
  {
    std::vector<std::uint32_t> x1 = data_for(dtype::u32, 50000, 24), o1 = {0, 3, 20003, 20003, 50000};
    std::vector<std::uint32_t> x2 = data_for(dtype::u32, 9000, 25), o2 = {0, 100, 200, 9000};
    const monoid m(op::sum(), dtype::u32);
    std::vector<std::uint32_t> w1(4), w2(3);
    reference::segmented_reduce(x1.data(), o1.data(), 4, w1.data(), m);
    reference::segmented_reduce(x2.data(), o2.data(), 3, w2.data(), m);
    device_vector<std::uint32_t> d_x1(ctx(), x1), d_o1(ctx(), o1), d_x2(ctx(), x2), d_o2(ctx(), o2), r1(ctx(), 4),
        r2(ctx(), 3), r3(ctx(), 4);
    WGPUCommandEncoder enc = ctx().begin_commands();
    segmented_reduce(ctx(), enc, d_x1, d_o1, r1, op::sum(), sub);
    segmented_reduce(ctx(), enc, d_x2, d_o2, r2, op::sum(), sub);
    segmented_reduce(ctx(), enc, d_x1, d_o1, r3, op::sum(), sub);
    ctx().submit(enc);
    EXPECT_EQ(r1.to_host(), w1);
    EXPECT_EQ(r2.to_host(), w2);
    EXPECT_EQ(r3.to_host(), w1);
  }
  // Bad offsets found on the device; a non-commutative custom operator refused before anything runs.
  std::vector<std::uint32_t> x(20000, 1), dec = {0, 50, 40}, past = {0, 50, 20001}, longdec = {0, 15000, 9000};
  device_vector<std::uint32_t> d_x(ctx(), x), d_r(ctx(), 2);
  for (const auto& bad : {dec, past, longdec}) {
    device_vector<std::uint32_t> d_bad(ctx(), bad);
    EXPECT_THROW(segmented_reduce(ctx(), d_x, d_bad, d_r, op::sum(), sub), error);
  }
  std::vector<std::uint32_t> off = {0, 10, 20000}, r(2);
  try {
    segmented_reduce(ctx(), x, off, r, op::custom("select(a, b, a == 0u)", "0"), sub);  // the first non-zero
    ADD_FAILURE() << "a non-commutative operator ran";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
  }
}

// The segmented reduce and both scans against the twin, with given offsets; returns the look-back fallbacks.
std::uint64_t check_scan_with(context& c, const op& o, dtype t, const std::vector<std::uint32_t>& x,
                              const std::vector<std::uint32_t>& off, const run_options& opt, const char* what) {
  const monoid m(o, t);
  const std::size_t n = x.size(), segs = off.size() - 1;
  std::uint64_t fallbacks = 0;
  run_stats st;
  run_options so = opt;
  so.stats = &st;
  std::vector<std::uint32_t> want_r(segs), got_r(segs, 0xdeadbeefu);
  reference::segmented_reduce(x.data(), off.data(), segs, want_r.data(), m);
  with_type(t, [&](auto tag) {
    using T = decltype(tag);
    segmented_reduce(c, typed<T>(x), off, typed_out<T>(got_r), o, so);
  });
  fallbacks += st.lookback_fallbacks;
  for (std::size_t s = 0; s < segs; ++s)
    if (got_r[s] != want_r[s]) {
      ADD_FAILURE() << what << " reduce " << describe(m, n) << " segment " << s << " [" << off[s] << ", "
                    << off[s + 1] << ")";
      return fallbacks;
    }
  for (bool exclusive : {false, true}) {
    std::vector<std::uint32_t> want(n), got(n, 0xdeadbeefu);
    reference::segmented_scan(x.data(), n, off.data(), segs, want.data(), m, exclusive);
    with_type(t, [&](auto tag) {
      using T = decltype(tag);
      if (exclusive) segmented_exclusive_scan(c, typed<T>(x), off, typed_out<T>(got), o, so);
      else segmented_inclusive_scan(c, typed<T>(x), off, typed_out<T>(got), o, so);
    });
    fallbacks += st.lookback_fallbacks;
    for (std::size_t i = 0; i < n; ++i)
      if (got[i] != want[i]) {
        ADD_FAILURE() << what << (exclusive ? " exclusive " : " inclusive ") << describe(m, n) << " i=" << i;
        return fallbacks;
      }
  }
  return fallbacks;
}

// Offsets of segments of `len` elements (len 0: every segment empty but one spanning everything).
std::vector<std::uint32_t> fixed_offsets(std::size_t n, std::size_t len) {
  std::vector<std::uint32_t> off = {0};
  if (len == 0) return {0, 0, 0, static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(n)};
  for (std::size_t at = len; at < n; at += len) off.push_back(static_cast<std::uint32_t>(at));
  off.push_back(static_cast<std::uint32_t>(n));
  return off;
}

// The decoupled passes' tiles (TILE = 256 invocations x items vec4: 1,024 with items 1, 4,096 by default), in both
// layouts: sizes and segment lengths around one and several tiles, one segment over many tiles, many tiny
// segments, and the streaming tiles path it replaced, still selectable.
TEST(Segmented, DecoupledTileEdges) {
  for (int staged : {0, 2})  // blocked and subgroup-raked layouts (raked where the adapter has subgroups)
  for (std::uint32_t items : {1u, 4u}) {
    run_options opt;
    opt.algorithm = "decoupled";  // named: the reduce's default is tiles
    opt.tune.items = items;
    opt.tune.staged = ctx().features().subgroups ? staged : 0;
    const std::size_t tile = 1024 * items;
    for (std::size_t n : {tile - 1, tile, tile + 1, 3 * tile - 1, 3 * tile + 1, 17 * tile + 5})
      for (std::size_t len : {std::size_t(0), std::size_t(1), tile - 1, tile, tile + 1, std::size_t(1000), n}) {
        auto x = data_for(dtype::u32, n, static_cast<std::uint32_t>(n + len));
        check_scan_with(ctx(), op::sum(), dtype::u32, x, fixed_offsets(n, len), opt, "fixed");
        if (::testing::Test::HasFailure()) return;
      }
    for (layout l : {layout::fours, layout::empties, layout::lead_trail, layout::random}) {
      const std::size_t n = 9 * tile + 3;
      auto x = data_for(dtype::i32, n, 50);
      check_scan_with(ctx(), op::max(), dtype::i32, x, make_offsets(n, l, 51), opt, "layout");
    }
  }
  for (std::size_t n : {(1u << 17) - 1, (1u << 17) + 1}) {
    auto x = data_for(dtype::u32, n, 52);
    run_options dec;
    dec.algorithm = "decoupled";
    check_scan_with(ctx(), op::bit_xor(), dtype::u32, x, make_offsets(n, layout::random, 53), dec, "2^k+-1");
  }
  // f32 values in [-1, 1): the chain of additions of element i is at most its place in its segment, plus the
  // tiles and invocations folded before it (Higham's bound with h = that place + 64).
  const std::size_t n = 50000;
  auto x = make_data(dtype::f32, n, 54);
  auto off = make_offsets(n, layout::random, 55);
  std::vector<float> got(n);
  segmented_inclusive_scan(ctx(), typed<float>(x), off, host_span<float>(got.data(), n));
  std::vector<bool> head(n, false);
  head[0] = true;
  for (std::uint32_t o : off)
    if (o < n) head[o] = true;
  long double exact = 0, abs_sum = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (head[i]) exact = abs_sum = 0, start = i;
    const float v = from_bits<float>(x[i]);
    exact += v;
    abs_sum += std::fabs(v);
    const double h = 64.0 + static_cast<double>(i - start + 1);
    ASSERT_LE(std::fabs(got[i] - static_cast<double>(exact)), f32_sum_bound(h, static_cast<double>(abs_sum)))
        << "f32 sum i=" << i;
  }
  std::vector<float> got_r(off.size() - 1);
  run_options dec;
  dec.algorithm = "decoupled";
  segmented_reduce(ctx(), typed<float>(x), off, host_span<float>(got_r.data(), got_r.size()), op::sum(), dec);
  for (std::size_t s = 0; s + 1 < off.size(); ++s) {
    long double sum = 0, abs = 0;
    for (std::uint32_t i = off[s]; i < off[s + 1]; ++i) {
      sum += from_bits<float>(x[i]);
      abs += std::fabs(from_bits<float>(x[i]));
    }
    const double h = 64.0 + static_cast<double>(off[s + 1] - off[s]);
    ASSERT_LE(std::fabs(got_r[s] - static_cast<double>(sum)), f32_sum_bound(h, static_cast<double>(abs)))
        << "f32 reduce segment " << s;
  }
  run_options tiles;
  tiles.algorithm = "tiles";
  check_segmented(ctx(), op::sum(), dtype::u32, 70001, layout::random, 56, {}, &tiles);
}

// Several decoupled calls recorded into the caller's encoder and submitted once: each records its own bounds and
// state clearing before its pass, so the context's scratch buffers serve them in turn.
TEST(Segmented, DecoupledCallsInOneEncoder) {
  const std::size_t n1 = 70001, n2 = 5000;
  auto x1 = data_for(dtype::u32, n1, 70), x2 = data_for(dtype::u32, n2, 71);
  auto o1 = make_offsets(n1, layout::random, 72), o2 = make_offsets(n2, layout::fours, 73);
  const monoid m(op::sum(), dtype::u32);
  std::vector<std::uint32_t> w1(n1), w2(n2), wr(o2.size() - 1);
  reference::segmented_scan(x1.data(), n1, o1.data(), o1.size() - 1, w1.data(), m, false);
  reference::segmented_scan(x2.data(), n2, o2.data(), o2.size() - 1, w2.data(), m, true);
  reference::segmented_reduce(x2.data(), o2.data(), o2.size() - 1, wr.data(), m);
  device_vector<std::uint32_t> d_x1(ctx(), x1), d_x2(ctx(), x2), d_o1(ctx(), o1), d_o2(ctx(), o2), d_y1(ctx(), n1),
      d_y2(ctx(), n2), d_r(ctx(), wr.size());
  WGPUCommandEncoder enc = ctx().begin_commands();
  segmented_scan(ctx(), enc, d_x1, d_o1, d_y1, scan_kind::inclusive);
  segmented_scan(ctx(), enc, d_x2, d_o2, d_y2, scan_kind::exclusive);
  run_options dec;
  dec.algorithm = "decoupled";
  segmented_reduce(ctx(), enc, d_x2, d_o2, d_r, op::sum(), dec);
  ctx().submit(enc);
  ctx().finish();
  EXPECT_EQ(d_y1.to_host(), w1);
  EXPECT_EQ(d_y2.to_host(), w2);
  EXPECT_EQ(d_r.to_host(), wr);
}

// Stress mode: every third tile holds back its state and its successor sees it as not ready, so the fallback
// (the waiting workgroup marks the predecessor's heads and folds it from memory) runs on every adapter. The
// results must not change, and the fallback count proves the path ran.
TEST(Segmented, DecoupledFallbackUnderStress) {
  struct stress_on {
    stress_on() { testing::set_lookback_stress(ctx(), true); }
    ~stress_on() { testing::set_lookback_stress(ctx(), false); }
  } on;
  std::uint64_t fallbacks = 0;
  run_options small;
  small.algorithm = "decoupled";  // named: the reduce's default is tiles
  small.tune.items = 1;
  const layout shapes[] = {layout::random, layout::huge, layout::fours};
  for (dtype t : {dtype::u32, dtype::i32, dtype::f32}) {
    const auto ops = ops_for(t);
    for (std::size_t i = 0; i < ops.size(); ++i) {  // the layouts rotate over the ops
      const std::size_t n = 8 * 1024 + 7;
      fallbacks += check_scan_with(ctx(), ops[i], t, data_for(t, n, 60), make_offsets(n, shapes[i % 3], 61), small,
                                   "stress");
      if (::testing::Test::HasFailure()) return;
    }
  }
  run_options raked = small;
  raked.tune.staged = ctx().features().subgroups ? 2 : 0;
  for (std::size_t len : {1023u, 1024u, 1025u, 5000u}) {
    const std::size_t n = 20 * 1024 + 1;
    for (const run_options& o : {small, raked})
      fallbacks += check_scan_with(ctx(), op::sum(), dtype::u32, data_for(dtype::u32, n, 62), fixed_offsets(n, len),
                                   o, "stress fixed");
  }
  for (const op& o : ops_for(dtype::f32))
    fallbacks += check_scan_with(ctx(), o, dtype::f32, data_for(dtype::f32, 9000, 65),
                                 make_offsets(9000, layout::random, 66), raked, "stress raked");
  // The workgroup's window walk (no subgroup walk) and the lanes without subgroups.
  run_options window = small, no_subgroups = small;
  window.tune.lookback_subgroup = 0;
  no_subgroups.tune.subgroups = 0;
  for (const run_options& o : {window, no_subgroups})
    for (layout l : {layout::random, layout::huge})
      fallbacks += check_scan_with(ctx(), op::max(), dtype::i32, data_for(dtype::i32, 12000, 67),
                                   make_offsets(12000, l, 68), o, "stress window");
  run_options dec;
  dec.algorithm = "decoupled";
  fallbacks += check_scan_with(ctx(), op::min(), dtype::f32, data_for(dtype::f32, 100003, 63),
                               make_offsets(100003, layout::random, 64), dec, "stress default tile");
  EXPECT_GT(fallbacks, 0u);
  std::cout << "[          ] segmented scan look-back fallbacks under stress: " << fallbacks << "\n";
}

TEST(Segmented, BadOffsets) {
  std::vector<std::uint32_t> x(100, 1), out(100), r(2);
  auto code = [](auto f) {
    try {
      f();
    } catch (const error& e) {
      return e.code();
    }
    return errc::gpu;
  };
  std::vector<std::uint32_t> dec = {0, 50, 40}, past = {0, 50, 101};
  EXPECT_EQ(code([&] { segmented_reduce(ctx(), x, dec, r); }), errc::invalid_argument);
  EXPECT_EQ(code([&] { segmented_reduce(ctx(), x, past, r); }), errc::invalid_argument);
  EXPECT_EQ(code([&] { segmented_inclusive_scan(ctx(), x, past, out); }), errc::invalid_argument);
  std::vector<std::uint32_t> empty_off;
  EXPECT_EQ(code([&] { segmented_inclusive_scan(ctx(), x, empty_off, out); }), errc::invalid_argument);
  std::vector<std::uint32_t> r3(3);
  std::vector<std::uint32_t> good = {0, 50, 100};
  EXPECT_EQ(code([&] { segmented_reduce(ctx(), x, good, r3); }), errc::invalid_argument);  // output size
  // On the device the GPU finds them.
  device_vector<std::uint32_t> d_x(ctx(), x), d_dec(ctx(), dec), d_past(ctx(), past), d_r(ctx(), 2), d_out(ctx(), 100);
  EXPECT_EQ(code([&] { segmented_reduce(ctx(), d_x, d_dec, d_r); }), errc::invalid_argument);
  EXPECT_EQ(code([&] { segmented_exclusive_scan(ctx(), d_x, d_past, d_out); }), errc::invalid_argument);
  // with the host check's words, naming the first bad offset
  EXPECT_NE(thrown_message([&] { segmented_reduce(ctx(), d_x, d_dec, d_r); }).find("offsets[1] = 50 > offsets[2] = 40"),
            std::string::npos);
  EXPECT_NE(thrown_message([&] { segmented_exclusive_scan(ctx(), d_x, d_past, d_out); }).find("last offset 101 passes the 100"),
            std::string::npos);
  device_vector<std::uint32_t> d_good(ctx(), good);
  segmented_reduce(ctx(), d_x, d_good, d_r);
  EXPECT_EQ(d_r.to_host(), (std::vector<std::uint32_t>{50, 50}));
}

// ---- reduce-by-key and run-length encoding ----

// Keys in runs: lengths mostly short, some long, some 1; f32 keys include -0/+0 and NaN.
std::vector<std::uint32_t> make_keys(dtype t, std::size_t n, std::uint32_t seed, std::uint32_t max_run = 40) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> k(n);
  std::uint32_t key = rng();
  for (std::size_t i = 0; i < n;) {
    std::size_t len = rng() % 16 == 0 ? rng() % 3000 + 1 : rng() % max_run + 1;
    key = rng() % 3 == 0 ? key + 1 : rng();
    if (t == dtype::f32) {
      const std::uint32_t specials[] = {0x00000000u, 0x80000000u, 0x7fc00000u, to_bits(1.5f), to_bits(-2.0f)};
      key = rng() % 4 == 0 ? specials[rng() % 5] : to_bits(static_cast<float>(rng() % 7));
    }
    for (std::size_t j = 0; j < len && i < n; ++j, ++i) k[i] = key;
  }
  return k;
}

void check_by_key(context& c, const op& o, dtype kt, dtype vt, std::size_t n, std::uint32_t seed,
                  std::uint32_t max_run = 40, const run_options& opt = {}) {
  const monoid m(o, vt);
  auto keys = make_keys(kt, n, seed, max_run);
  auto vals = data_for(vt, n, seed + 1);
  std::vector<std::uint32_t> wk(n), ws(n), gk(n, 0xdeadbeefu), gs(n, 0xdeadbeefu);
  const std::size_t want = reference::reduce_by_key(keys.data(), kt, vals.data(), n, wk.data(), ws.data(), m);
  std::size_t got = 0;
  with_type(kt, [&](auto ktag) {
    using K = decltype(ktag);
    with_type(vt, [&](auto vtag) {
      using V = decltype(vtag);
      got = reduce_by_key(c, typed<K>(keys), typed<V>(vals), typed_out<K>(gk), typed_out<V>(gs), o, opt);
    });
  });
  ASSERT_EQ(got, want) << "runs, keys " << dtype_name(kt) << " " << describe(m, n);
  for (std::size_t r = 0; r < want; ++r) {
    ASSERT_EQ(gk[r], wk[r]) << "key of run " << r << " " << describe(m, n);
    ASSERT_EQ(gs[r], ws[r]) << "sum of run " << r << " " << describe(m, n);
  }
  // Run-length encoding of the keys.
  std::vector<std::uint32_t> wv(n), wc(n), gv(n), gc(n);
  const std::size_t want_runs = reference::run_length_encode(keys.data(), kt, n, wv.data(), wc.data());
  with_type(kt, [&](auto ktag) {
    using K = decltype(ktag);
    got = run_length_encode(c, typed<K>(keys), typed_out<K>(gv), gc, opt);
  });
  ASSERT_EQ(got, want_runs) << "rle runs " << dtype_name(kt) << " n=" << n;
  for (std::size_t r = 0; r < want_runs; ++r) {
    ASSERT_EQ(gv[r], wv[r]) << "rle value " << r << " n=" << n;
    ASSERT_EQ(gc[r], wc[r]) << "rle count " << r << " n=" << n;
  }
}

TEST(ReduceByKey, EveryOpTypeAndEdgeSize) {
  auto sizes = edge_sizes(16);
  for (dtype vt : {dtype::f32, dtype::i32, dtype::u32}) {
    const auto ops = ops_for(vt);
    for (std::size_t j = 0; j < sizes.size(); ++j) {
      const dtype kt = static_cast<dtype>((j + static_cast<int>(vt)) % 3);
      check_by_key(ctx(), ops[(j + static_cast<int>(vt)) % ops.size()], kt, vt, sizes[j], static_cast<std::uint32_t>(j));
    }
    for (const op& o : ops) check_by_key(ctx(), o, dtype::u32, vt, 3000, 4);
  }
  check_by_key(ctx(), op::sum(), dtype::u32, dtype::u32, 100000, 12, 1);  // every run of length 1
  // One run.
  std::vector<std::uint32_t> k(70000, 9), v(70000, 2), uk(70000), s(70000);
  EXPECT_EQ(reduce_by_key(ctx(), k, v, uk, s), 1u);
  EXPECT_EQ(uk[0], 9u);
  EXPECT_EQ(s[0], 140000u);
}

TEST(ReduceByKey, PastOneBindingEncoderAndCapacity) {
  context& c = small_binding_ctx();
  check_by_key(c, op::sum(), dtype::i32, dtype::f32, 700001, 21, 3);  // ~350,000 runs: two output windows
  check_by_key(c, op::max(), dtype::u32, dtype::i32, 700001, 22, 1);
  // Recorded into the caller's encoder, the run count on the device.
  auto keys = make_keys(dtype::u32, 50000, 30);
  auto vals = data_for(dtype::u32, 50000, 31);
  std::vector<std::uint32_t> wk(50000), ws(50000);
  const monoid m(op::sum(), dtype::u32);
  const std::size_t want = reference::reduce_by_key(keys.data(), dtype::u32, vals.data(), 50000, wk.data(), ws.data(), m);
  device_vector<std::uint32_t> d_k(ctx(), keys), d_v(ctx(), vals), d_uk(ctx(), 50000), d_s(ctx(), 50000),
      d_runs(ctx(), 1);
  WGPUCommandEncoder enc = ctx().begin_commands();
  reduce_by_key(ctx(), enc, d_k, d_v, d_uk, d_s, d_runs.span());
  ctx().submit(enc);
  ctx().finish();
  EXPECT_EQ(d_runs.to_host()[0], want);
  auto gk = d_uk.to_host(), gs = d_s.to_host();
  EXPECT_TRUE(std::equal(wk.begin(), wk.begin() + static_cast<std::ptrdiff_t>(want), gk.begin()));
  EXPECT_TRUE(std::equal(ws.begin(), ws.begin() + static_cast<std::ptrdiff_t>(want), gs.begin()));
  // Outputs too small for the runs: a clear error.
  std::vector<std::uint32_t> small_k(10), small_s(10);
  try {
    reduce_by_key(ctx(), keys, vals, small_k, small_s);
    ADD_FAILURE() << "no error";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
  }
  std::vector<std::uint32_t> short_vals(10);
  EXPECT_THROW(reduce_by_key(ctx(), keys, short_vals, wk, ws), error);
}

// The spine takes 16 tiles per invocation (4,096 tiles of 4,096 elements per step); with 1 per invocation 256
// tiles (about a million elements) already take two steps.
TEST(Segmented, SpineSteps) {
  run_options one;
  one.tune.items = 1;
  one.algorithm = "tiles";  // the spine is the tiles paths' (the decoupled passes have none)
  check_segmented(ctx(), op::sum(), dtype::u32, 4096 * 260 + 5, layout::random, 40, one);
  check_segmented(ctx(), op::custom("select(b, a, a < b)", "max"), dtype::i32, 4096 * 257, layout::huge, 41, one);
  check_by_key(ctx(), op::sum(), dtype::u32, dtype::i32, 4096 * 260 + 1, 42, 40, one);
  run_options bad;
  bad.tune.items = 17;
  std::vector<std::uint32_t> x(10), off = {0, 10}, out(1);
  EXPECT_THROW(segmented_reduce(ctx(), x, off, out, op::sum(), bad), error);
}


// ---- randomized differential test: random primitive x type x op x size x data x segment layout ----
// WGPRIM_SEG_DIFF_CASES (default 60), WGPRIM_SEG_DIFF_SEED; a failure names the seed and the case.
bool f32_near(std::uint32_t got, long double exact, long double abs_sum, std::size_t n) {
  const float g = from_bits<float>(got);
  if (!std::isfinite(static_cast<double>(exact))) return std::isnan(static_cast<double>(exact)) ? std::isnan(g) : g == static_cast<float>(exact);
  const double h = 96.0 + std::ceil(static_cast<double>(n) / 1024.0);  // see cmd_segmented.cpp
  return std::fabs(g - static_cast<double>(exact)) <= f32_sum_bound(h, static_cast<double>(abs_sum));
}

TEST(SegmentedDifferential, RandomCases) {
  const char* ce = std::getenv("WGPRIM_SEG_DIFF_CASES");
  const char* se = std::getenv("WGPRIM_SEG_DIFF_SEED");
  const std::uint64_t cases = ce ? std::strtoull(ce, nullptr, 10) : 60, seed = se ? std::strtoull(se, nullptr, 10) : 7;
  for (std::uint64_t index = 0; index < cases; ++index) {
    std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + index);
    const int prim = static_cast<int>(rng() % 5);  // segmented reduce, inclusive, exclusive, by key, histogram
    const dtype t = static_cast<dtype>(rng() % 3);
    const auto ops = ops_for(t);
    const op o = ops[rng() % ops.size()];
    const monoid m(o, t);
    static const std::size_t edges[] = {0, 1, 2, 31, 32, 33, 2047, 2048, 2049, 4095, 4097, 65535, 65537};
    const std::size_t n = rng() % 2 ? edges[rng() % 13] : rng() % (rng() % 4 ? 5000 : 200000);
    // Data: random (f32 in +-100), constant, sorted, or with the type's extremes / NaN and Inf (not for f32 sums,
    // whose error bound needs finite data).
    auto x = make_data(t, n, static_cast<std::uint32_t>(rng()));
    if (t == dtype::f32)
      for (auto& v : x) v = to_bits(from_bits<float>(v) * 100.0f);
    const int kind = static_cast<int>(rng() % 4);
    if (kind == 1 && n) std::fill(x.begin(), x.end(), x[0]);
    if (kind == 2) std::sort(x.begin(), x.end());
    if (kind == 3 && n && !(t == dtype::f32 && m.is_sum()))
      for (int k = 0; k < 5; ++k)
        x[rng() % n] = t == dtype::f32 ? (rng() % 2 ? 0x7fc00000u : 0xff800000u) : (rng() % 2 ? 0xffffffffu : 0x80000000u);
    const std::string what = "seed " + std::to_string(seed) + " case " + std::to_string(index) + " prim " +
                             std::to_string(prim) + " kind " + std::to_string(kind) + " " + describe(m, n);
    if (prim <= 2) {
      auto off = make_offsets(n, static_cast<layout>(rng() % 5), static_cast<std::uint32_t>(rng()));
      if (n < 8) off = {0, static_cast<std::uint32_t>(n)};
      const std::size_t segs = off.size() - 1;
      std::vector<std::uint32_t> want(prim == 0 ? segs : n), got(want.size(), 0xdeadbeefu);
      with_type(t, [&](auto tag) {
        using T = decltype(tag);
        if (prim == 0) segmented_reduce(ctx(), typed<T>(x), off, typed_out<T>(got), o);
        else if (prim == 1) segmented_inclusive_scan(ctx(), typed<T>(x), off, typed_out<T>(got), o);
        else segmented_exclusive_scan(ctx(), typed<T>(x), off, typed_out<T>(got), o);
      });
      if (prim == 0) reference::segmented_reduce(x.data(), off.data(), segs, want.data(), m);
      else reference::segmented_scan(x.data(), n, off.data(), segs, want.data(), m, prim == 2);
      if (t == dtype::f32 && m.is_sum()) {
        // Exact group sums: recompute the CPU twin's groups in long double.
        std::vector<bool> start(n + 1, false);
        if (n) start[0] = true;
        for (auto s2 : off) if (s2 < n) start[s2] = true;
        if (prim == 0) {
          for (std::size_t s2 = 0; s2 < segs; ++s2) {
            long double e = 0, a = 0;
            for (std::uint32_t i = off[s2]; i < off[s2 + 1]; ++i) {
              e += from_bits<float>(x[i]);
              a += std::fabs(from_bits<float>(x[i]));
            }
            if (off[s2] == off[s2 + 1]) ASSERT_EQ(got[s2], want[s2]) << what << " segment " << s2;
            else ASSERT_TRUE(f32_near(got[s2], e, a, n)) << what << " segment " << s2;
          }
        } else {
          long double e = 0, a = 0;
          for (std::size_t i = 0; i < n; ++i) {
            if (start[i]) e = a = 0;
            const long double e0 = e, a0 = a;
            e += from_bits<float>(x[i]);
            a += std::fabs(from_bits<float>(x[i]));
            if (prim == 2 && start[i]) ASSERT_EQ(got[i], want[i]) << what << " i=" << i;
            else ASSERT_TRUE(f32_near(got[i], prim == 1 ? e : e0, prim == 1 ? a : a0, n)) << what << " i=" << i;
          }
        }
      } else {
        for (std::size_t i = 0; i < want.size(); ++i) {
          if (t == dtype::f32 && std::isnan(from_bits<float>(want[i]))) ASSERT_TRUE(std::isnan(from_bits<float>(got[i]))) << what << " i=" << i;
          else ASSERT_EQ(got[i], want[i]) << what << " i=" << i;
        }
      }
    } else if (prim == 3) {
      const dtype kt = static_cast<dtype>(rng() % 3);
      auto keys = make_keys(kt, n, static_cast<std::uint32_t>(rng()), 1 + static_cast<std::uint32_t>(rng() % 60));
      std::vector<std::uint32_t> wk(n), ws(n), gk(n), gs(n);
      const std::size_t want = reference::reduce_by_key(keys.data(), kt, x.data(), n, wk.data(), ws.data(), m);
      std::size_t got = 0;
      with_type(kt, [&](auto ktag) {
        using K = decltype(ktag);
        with_type(t, [&](auto vtag) {
          using V = decltype(vtag);
          got = reduce_by_key(ctx(), typed<K>(keys), typed<V>(x), typed_out<K>(gk), typed_out<V>(gs), o);
        });
      });
      ASSERT_EQ(got, want) << what;
      std::size_t i = 0;
      for (std::size_t r = 0; r < want; ++r) {
        ASSERT_EQ(gk[r], wk[r]) << what << " run " << r;
        long double e = 0, a = 0;
        do {
          e += t == dtype::f32 ? from_bits<float>(x[i]) : 0;
          a += t == dtype::f32 ? std::fabs(from_bits<float>(x[i])) : 0;
          ++i;
        } while (i < n && reference::keys_equal(kt, keys[i - 1], keys[i]));
        if (t == dtype::f32 && m.is_sum()) ASSERT_TRUE(f32_near(gs[r], e, a, n)) << what << " run " << r;
        else if (t == dtype::f32 && std::isnan(from_bits<float>(ws[r]))) ASSERT_TRUE(std::isnan(from_bits<float>(gs[r]))) << what;
        else ASSERT_EQ(gs[r], ws[r]) << what << " run " << r;
      }
    } else {
      const std::size_t bins = rng() % 3 ? 1 + rng() % 300 : 1 + rng() % 70000;
      double lo = std::uniform_real_distribution<double>(-200, 100)(rng), hi = lo + std::uniform_real_distribution<double>(0, 300)(rng);
      if (t == dtype::u32 && rng() % 2) { lo = std::ldexp(static_cast<double>(rng() % 1000), 22); hi = lo + std::ldexp(1.0, 30); }
      if (t != dtype::f32) for (auto& v : x) v = t == dtype::i32 ? static_cast<std::uint32_t>(static_cast<std::int32_t>(v) % 300) : (rng() % 2 ? v : v % 300);
      std::vector<std::uint32_t> want(bins), got(bins);
      reference::histogram(x.data(), n, t, reference::histogram_edges(bins, lo, hi), want.data());
      with_type(t, [&](auto tag) {
        using T = decltype(tag);
        histogram_even(ctx(), typed<T>(x), got, bins, lo, hi);
      });
      ASSERT_EQ(got, want) << what << " bins " << bins << " range " << lo << ":" << hi;
    }
  }
}
}  // namespace
}  // namespace wgprim::test
