// segmented_sort / segmented_sort_pairs: every key type and order over segment layouts that meet every path of the
// GPU (1-key; short: many segments per workgroup tile of 2048 key positions (1024 for pairs), at its edge 256/257,
// segments across tile edges, many tiny ones, runs of empty ones; mid: one workgroup, at 1023/1024/1025 and
// 2048/2049; long: the device sort, at aligned and unaligned starts), on the WebGPU and native contexts, against the CPU twin
// (stable_sort_bits per segment). Values are the input indices, so every pairs check is also a stability check.
#include <algorithm>
#include <cmath>
#include <limits>

#include "common.hpp"

namespace wgprim::test {
namespace {

constexpr dtype key_types[] = {dtype::u32, dtype::i32, dtype::f32};

/// Keys with many duplicates (few = true) or the full range; f32 with NaNs (two payloads, both signs), +-0, +-inf.
std::vector<std::uint32_t> seg_keys(dtype t, std::size_t n, std::uint32_t seed, bool few) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> v(n);
  const std::uint32_t specials[] = {0x7fc00000u, 0xffc00001u, 0x80000000u, 0u, 0x7f800000u, 0xff800000u};
  for (auto& x : v) {
    if (t == dtype::f32) {
      const std::uint32_t r = rng() % 16;
      if (r < 6) x = specials[r];
      else x = few ? to_bits(static_cast<float>(static_cast<int>(rng() % 7) - 3))
                   : to_bits(std::uniform_real_distribution<float>(-1e3f, 1e3f)(rng));
    } else {
      x = few ? rng() % 7 - 3 : rng();
    }
  }
  return v;
}

/// Offsets of segments of the given lengths starting at `first`.
std::vector<std::uint32_t> offsets_of(std::uint32_t first, const std::vector<std::uint32_t>& lengths) {
  std::vector<std::uint32_t> off = {first};
  for (std::uint32_t l : lengths) off.push_back(off.back() + l);
  return off;
}

/// Sorts x by segments on `c` (device buffers, runtime-typed) and compares bit for bit with the twin.
void check_segmented(context& c, dtype t, order o, const std::vector<std::uint32_t>& x,
                     const std::vector<std::uint32_t>& off, bool pairs, const std::string& what,
                     unsigned begin_bit = 0, unsigned end_bit = 0) {
  const std::size_t n = x.size(), segs = off.size() - 1;
  std::vector<std::uint32_t> want = x, want_v(n), idx(n);
  for (std::size_t i = 0; i < n; ++i) idx[i] = want_v[i] = static_cast<std::uint32_t>(i);
  reference::segmented_stable_sort(want.data(), off.data(), segs, t, o == order::descending, begin_bit, end_bit,
                             pairs ? want_v.data() : nullptr);
  buffer k = c.create_buffer(std::max<std::size_t>(n, 1) * 4), v = c.create_buffer(std::max<std::size_t>(n, 1) * 4);
  buffer ob = c.create_buffer(off.size() * 4);
  if (n) {
    c.write(k, 0, x.data(), n * 4);
    c.write(v, 0, idx.data(), n * 4);
  }
  c.write(ob, 0, off.data(), off.size() * 4);
  segmented_sort_bits(c, k, n, ob, segs, t, sort_order(o, begin_bit, end_bit), pairs ? &v : nullptr);
  std::vector<std::uint32_t> got(n), got_v(n);
  if (n) {
    c.read(k, 0, got.data(), n * 4);
    c.read(v, 0, got_v.data(), n * 4);
  }
  std::size_t bad = 0;
  std::string first;
  for (std::size_t i = 0; i < n; ++i) {
    const bool kb = got[i] != want[i], vb = pairs ? got_v[i] != want_v[i] : got_v[i] != i;
    if ((kb || vb) && !bad++)
      first = "i=" + std::to_string(i) + " got " + format_bits(t, got[i]) + "@" + std::to_string(got_v[i]) + " want " +
              format_bits(t, want[i]) + "@" + std::to_string(want_v[i]);
  }
  EXPECT_EQ(bad, 0u) << what << " " << dtype_name(t) << (o == order::descending ? " descending" : " ascending")
                     << (pairs ? " pairs" : " keys") << " n=" << n << " segments=" << segs << ": " << first;
}

/// The layouts: (name, offsets, n). Lengths at every path's edges, empty and 1-key segments, mixed lengths, keys
/// before the first and after the last segment, one long segment at an unaligned start.
struct layout {
  std::string name;
  std::vector<std::uint32_t> off;
  std::size_t n;
};
std::vector<layout> layouts() {
  std::vector<layout> out;
  for (std::uint32_t len : {1u, 2u, 3u, 16u, 33u, 63u, 64u, 65u, 128u, 255u, 256u, 257u, 1000u, 1023u, 1024u, 1025u, 2048u, 2049u}) {
    const std::uint32_t count = len <= 65 ? 97 : len <= 257 ? 9 : 3;
    std::vector<std::uint32_t> off = offsets_of(0, std::vector<std::uint32_t>(count, len));
    out.push_back({"segments of " + std::to_string(len), off, off.back()});
  }
  std::mt19937 rng(7);
  std::vector<std::uint32_t> mixed;
  for (int i = 0; i < 200; ++i) {
    const std::uint32_t r = rng() % 10;
    mixed.push_back(r < 3 ? rng() % 3 : r < 7 ? rng() % 40 : r < 9 ? rng() % 2100 : 2049 + rng() % 3000);
  }
  {
    std::vector<std::uint32_t> off = offsets_of(5, mixed);
    out.push_back({"mixed, keys outside the segments", off, off.back() + 11});
  }
  {
    // Many tiny segments (empty ones and 1-key ones among them) over a few dozen short-path tiles.
    std::vector<std::uint32_t> tiny;
    for (int i = 0; i < 3000; ++i) tiny.push_back(rng() % 4 == 0 ? rng() % 3 : rng() % 65);
    std::vector<std::uint32_t> off = offsets_of(3, tiny);
    out.push_back({"many tiny segments", off, off.back()});
  }
  // Short segments across the edges of the 1024-key tiles (64 keys over 1024, 2 over 2048, 64 ending at 3072),
  // beside mid segments starting in the same tiles, and a run of empty segments at a tile's first key (3072).
  out.push_back({"short segments across tile edges",
                 offsets_of(990, {2, 64, 33, 1, 0, 950, 7, 2, 3, 956, 64, 0, 0, 0, 0, 0, 40, 1, 1024, 5, 9}), 5000});
  // The longest short segments at tile edges: 256 keys over 1024 (900..1156), then mid ones of 257 and 379, 255
  // ending at the second tile's last key, 500, two of 256 in the third tile, one key; keys past them untouched.
  out.push_back({"256-key segments across tile edges", offsets_of(900, {256, 257, 379, 255, 500, 256, 256, 1}), 3200});
  {
    // Runs of thousands of empty segments (more than a tile's worth at one position: the short path's search per
    // position), one inside, one at the end (n not a multiple of the tile).
    std::vector<std::uint32_t> lengths(60, 16);
    lengths.insert(lengths.end(), 5000, 0);
    lengths.insert(lengths.end(), 70, 9);
    lengths.insert(lengths.end(), 3000, 0);
    std::vector<std::uint32_t> off = offsets_of(0, lengths);
    out.push_back({"runs of empty segments", off, off.back()});
  }
  out.push_back({"one long segment", {0, 100003}, 100003});
  out.push_back({"long segments at unaligned starts", offsets_of(3, {2, 5000, 0, 4097, 1}), 3 + 2 + 5000 + 4097 + 1 + 2});
  out.push_back({"no keys", {0}, 0});
  out.push_back({"no keys, three empty segments", {0, 0, 0, 0}, 0});
  out.push_back({"empty segments", {0, 0, 0, 0}, 5});
  return out;
}

TEST(SegmentedSort, EveryLayoutTypeAndOrder) {
  const auto ls = layouts();
  for (context* c : {&ctx(), &native_ctx()})
    for (std::size_t i = 0; i < ls.size(); ++i)
      for (dtype t : key_types) {
        const layout& l = ls[i];
        const order o = (i + static_cast<std::size_t>(t)) % 2 ? order::descending : order::ascending;
        const bool pairs = i % 3 != 1;
        check_segmented(*c, t, o, seg_keys(t, l.n, static_cast<std::uint32_t>(i) + 1, i % 2 == 0), l.off, pairs,
                        c->adapter().name + ": " + l.name);
      }
}

TEST(SegmentedSort, BothOrdersAndBitRanges) {
  std::vector<std::uint32_t> lengths;
  for (std::uint32_t len : {0u, 1u, 7u, 33u, 600u, 3000u}) lengths.push_back(len);
  const std::vector<std::uint32_t> off = offsets_of(1, lengths);
  for (context* c : {&ctx(), &native_ctx()})
    for (dtype t : key_types)
      for (order o : {order::ascending, order::descending}) {
        check_segmented(*c, t, o, seg_keys(t, off.back(), 11, false), off, true, c->adapter().name);
        check_segmented(*c, t, o, seg_keys(t, off.back(), 12, false), off, true, c->adapter().name + " bits 4:20", 4, 20);
      }
}

// The short path's tiles (2,048 key positions for keys, 1,024 for pairs): segments of 2..256 keys across both
// kinds of tile edge, the longest short segments over an edge, a run of empty segments at an edge, keys and pairs.
TEST(SegmentedSort, ShortTileEdges) {
  std::vector<std::vector<std::uint32_t>> lens;
  for (const std::uint32_t edge : {1024u, 2048u, 4096u}) {
    lens.push_back({edge - 40, 64, 17, 256, 2});             // 64 keys over the edge
    lens.push_back({edge - 255, 256, 1, 255});                // 256 keys ending at the edge, 1 key at it
    lens.push_back({edge - 128, 256, 0, 0, 0, 3, 300, 256});  // 256 over the edge, empty ones, a mid one
    lens.push_back({edge, 0, 0, 0, 0, 2, 2, 2});              // empty segments at the edge, then pairs of keys
  }
  std::uint32_t seed = 40;
  for (const auto& len : lens) {
    const std::vector<std::uint32_t> off = offsets_of(0, len);
    for (const bool pairs : {false, true})
      for (context* c : {&ctx(), &native_ctx()})
        check_segmented(*c, dtype::i32, pairs ? order::descending : order::ascending,
                        seg_keys(dtype::i32, off.back() + 5, ++seed, seed % 2 == 0), off, pairs,
                        c->adapter().name + " tile edge, first segment " + std::to_string(len[0]));
  }
}

// Every variant of the one-workgroup sort (WGPRIM_SORT_MID, segmented.wgsl's sort_mid: the networks and the merge
// sort): segments padded to every p from 128 to 2048 (at the edges 2^k - 1, 2^k, 2^k + 1), both orders, keys and
// pairs, f32 with NaNs and +-0, a bit range.
TEST(SegmentedSort, MidNetworkVariants) {
  std::vector<const char*> variants = {"memory", "registers", "merge"};
  if (ctx().features().subgroups) variants.push_back("subgroups");
  const std::vector<std::uint32_t> off = offsets_of(
      1, {65, 100, 127, 128, 129, 200, 255, 256, 257, 3, 400, 511, 512, 513, 700, 1000, 1023, 1024, 1025, 1500, 2047, 2048});
  for (const char* v : variants) {
    env_override mid("WGPRIM_SORT_MID", v);
    const std::string what = std::string("WGPRIM_SORT_MID=") + v;
    for (dtype t : key_types)
      for (order o : {order::ascending, order::descending}) {
        const bool pairs = (static_cast<int>(t) + (o == order::descending)) % 2 == 0;
        check_segmented(ctx(), t, o, seg_keys(t, off.back() + 2, 21 + static_cast<std::uint32_t>(t), o == order::ascending),
                        off, pairs, what);
      }
    check_segmented(ctx(), dtype::f32, order::descending, seg_keys(dtype::f32, off.back(), 23, false), off, true,
                    what + " bits 4:20", 4, 20);
    check_segmented(ctx(), dtype::u32, order::ascending, seg_keys(dtype::u32, off.back(), 24, false), off, false,
                    what + " bits 8:9", 8, 9);
  }
}

TEST(SegmentedSort, HostRangesAndUnalignedViews) {
  const std::vector<std::uint32_t> off = offsets_of(0, {3, 40, 700, 2500, 1});
  std::vector<float> x(off.back());
  std::mt19937 rng(3);
  for (auto& f : x) f = static_cast<float>(static_cast<int>(rng() % 50) - 25);
  x[1] = -0.0f;
  x[2] = std::numeric_limits<float>::quiet_NaN();
  for (context* c : {&ctx(), &native_ctx()}) {
    std::vector<float> got = x;
    std::vector<std::uint32_t> vals(x.size());
    for (std::size_t i = 0; i < vals.size(); ++i) vals[i] = static_cast<std::uint32_t>(i);
    segmented_sort_pairs(*c, got, vals, off, order::descending);
    std::vector<std::uint32_t> want(x.size()), want_v(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) want[i] = to_bits(x[i]), want_v[i] = static_cast<std::uint32_t>(i);
    reference::segmented_stable_sort(want.data(), off.data(), off.size() - 1, dtype::f32, true, 0, 0, want_v.data());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < x.size(); ++i) bad += to_bits(got[i]) != want[i] || vals[i] != want_v[i];
    EXPECT_EQ(bad, 0u) << c->adapter().name << " host ranges";
    // A device view starting at key 3 (not a bindable offset on the GPU), offsets also at an odd start.
    std::vector<std::uint32_t> keys = seg_keys(dtype::u32, x.size() + 3, 9, false), off2 = {0, 0, 0};
    off2.insert(off2.end(), off.begin(), off.end());
    buffer kb = c->create_buffer(keys.size() * 4), ob = c->create_buffer(off2.size() * 4);
    c->write(kb, 0, keys.data(), keys.size() * 4);
    c->write(ob, 0, off2.data(), off2.size() * 4);
    segmented_sort(*c, device_span<std::uint32_t>(kb, 3, x.size()), device_span<const std::uint32_t>(ob, 2, off.size()));
    std::vector<std::uint32_t> got_k(keys.size()), want_k = keys;
    c->read(kb, 0, got_k.data(), got_k.size() * 4);
    reference::segmented_stable_sort(want_k.data() + 3, off.data(), off.size() - 1, dtype::u32, false);
    EXPECT_EQ(got_k, want_k) << c->adapter().name << " unaligned views";
    // Offsets in the keys' own buffer, at a bindable offset past the keys (the GPU copies them: one buffer cannot
    // be bound read-only and writable in one dispatch), and in a buffer of their own at a bindable offset (bound
    // where they lie).
    const std::size_t at = (x.size() + 63) / 64 * 64;  // 256-byte aligned, in u32
    for (const bool shared : {true, false}) {
      std::vector<std::uint32_t> both = seg_keys(dtype::u32, at + off.size(), 10, true);
      std::copy(off.begin(), off.end(), both.begin() + static_cast<std::ptrdiff_t>(at));
      buffer b = c->create_buffer(both.size() * 4), o2 = c->create_buffer(both.size() * 4);
      c->write(b, 0, both.data(), both.size() * 4);
      c->write(o2, 0, both.data(), both.size() * 4);
      segmented_sort(*c, device_span<std::uint32_t>(b, 0, x.size()),
                     device_span<const std::uint32_t>(shared ? b : o2, at, off.size()));
      std::vector<std::uint32_t> got_b(both.size()), want_b = both;
      c->read(b, 0, got_b.data(), got_b.size() * 4);
      reference::segmented_stable_sort(want_b.data(), off.data(), off.size() - 1, dtype::u32, false);
      EXPECT_EQ(got_b, want_b) << c->adapter().name << (shared ? " offsets in the keys' buffer" : " aligned offsets");
    }
  }
}

TEST(SegmentedSort, BadArguments) {
  auto code = [](auto f) {
    try {
      f();
    } catch (const error& e) {
      return e.code();
    }
    return errc::gpu;
  };
  for (context* c : {&ctx(), &native_ctx()}) {
    std::vector<std::uint32_t> k(10, 1), v(10), v9(9);
    const std::vector<std::uint32_t> dec = {0, 5, 3, 10}, past = {0, 5, 11}, none;
    EXPECT_EQ(code([&] { segmented_sort(*c, k, dec); }), errc::invalid_argument);
    EXPECT_EQ(code([&] { segmented_sort(*c, k, past); }), errc::invalid_argument);
    EXPECT_EQ(code([&] { segmented_sort(*c, k, none); }), errc::invalid_argument);
    EXPECT_EQ(code([&] { segmented_sort_pairs(*c, k, v9, std::vector<std::uint32_t>{0, 9}); }), errc::invalid_argument);
    EXPECT_EQ(code([&] { segmented_sort(*c, k, std::vector<std::uint32_t>{0, 10}, key_bits(8, 40)); }),
              errc::invalid_argument);
    std::vector<double> d(4);
    EXPECT_EQ(code([&] { segmented_sort(*c, d, std::vector<std::uint32_t>{0, 4}); }), errc::unsupported);
    // Device offsets (binned on the GPU there): the same errors, and the keys untouched.
    std::vector<std::uint32_t> keys = {5, 4, 3, 2, 1, 0, 9, 8, 7, 6};
    buffer kb = c->create_buffer(40), db = c->create_buffer(16), pb = c->create_buffer(12);
    c->write(kb, 0, keys.data(), 40);
    c->write(db, 0, dec.data(), 16);
    c->write(pb, 0, past.data(), 12);
    EXPECT_EQ(code([&] { segmented_sort_bits(*c, kb, 10, db, 3, dtype::u32, {}); }), errc::invalid_argument);
    EXPECT_EQ(code([&] { segmented_sort_bits(*c, kb, 10, pb, 2, dtype::u32, {}); }), errc::invalid_argument);
    // and the host check's words, naming the first bad offset
    EXPECT_NE(thrown_message([&] { segmented_sort_bits(*c, kb, 10, db, 3, dtype::u32, {}); }).find("offsets[1] = 5 > offsets[2] = 3"),
              std::string::npos) << c->adapter().name;
    EXPECT_NE(thrown_message([&] { segmented_sort_bits(*c, kb, 10, pb, 2, dtype::u32, {}); }).find("last offset 11 passes the 10"),
              std::string::npos) << c->adapter().name;
    std::vector<std::uint32_t> after(10);
    c->read(kb, 0, after.data(), 40);
    EXPECT_EQ(after, keys) << c->adapter().name;
  }
  env_override mid("WGPRIM_SORT_MID", "bogus");
  std::vector<std::uint32_t> k(300, 1);
  EXPECT_EQ(code([&] { segmented_sort(ctx(), k, std::vector<std::uint32_t>{0, 300}); }), errc::invalid_argument);
}

// ---- the comparator sort: a stable merge sort by an expression in a and b ----

/// Sorts x by `less` on `c` (device buffers) and compares bit for bit with the twin (std::stable_sort by the same
/// expression's CPU program); values are the indices (stability).
void check_less(context& c, dtype t, const std::string& less, const std::vector<std::uint32_t>& x, bool pairs) {
  const std::size_t n = x.size();
  std::vector<std::uint32_t> want = x, want_v(n), idx(n);
  for (std::size_t i = 0; i < n; ++i) idx[i] = want_v[i] = static_cast<std::uint32_t>(i);
  reference::stable_sort_less(want.data(), n, t, less, pairs ? want_v.data() : nullptr);
  buffer k = c.create_buffer(std::max<std::size_t>(n, 1) * 4), v = c.create_buffer(std::max<std::size_t>(n, 1) * 4);
  if (n) {
    c.write(k, 0, x.data(), n * 4);
    c.write(v, 0, idx.data(), n * 4);
  }
  sort_less_bits(c, k, n, t, comparator::expr(less), pairs ? &v : nullptr);
  std::vector<std::uint32_t> got(n), got_v(n);
  if (n) {
    c.read(k, 0, got.data(), n * 4);
    c.read(v, 0, got_v.data(), n * 4);
  }
  std::size_t bad = 0;
  std::string first;
  for (std::size_t i = 0; i < n; ++i) {
    const bool kb = got[i] != want[i], vb = pairs ? got_v[i] != want_v[i] : got_v[i] != i;
    if ((kb || vb) && !bad++)
      first = "i=" + std::to_string(i) + " got " + format_bits(t, got[i]) + "@" + std::to_string(got_v[i]) + " want " +
              format_bits(t, want[i]) + "@" + std::to_string(want_v[i]);
  }
  EXPECT_EQ(bad, 0u) << c.adapter().name << " '" << less << "' " << dtype_name(t) << (pairs ? " pairs" : " keys")
                     << " n=" << n << ": " << first;
}

/// Keys without NaN (a comparator such as a < b is no strict weak order with NaNs): few distinct values (ties:
/// stability) or many, -0.0 and +0.0 both (equal under abs(a) < abs(b) and a < b).
std::vector<std::uint32_t> less_keys(dtype t, std::size_t n, std::uint32_t seed, bool few) {
  std::vector<std::uint32_t> v = seg_keys(t, n, seed, few);
  if (t == dtype::f32)
    for (auto& x : v)
      if ((x & 0x7fffffffu) > 0x7f800000u) x = (x & 0x80000000u) | 0x3f800000u;  // NaN -> +-1
  return v;
}

TEST(ComparatorSort, ExpressionsTypesAndSizes) {
  struct cmp { dtype t; const char* less; };
  const cmp cmps[] = {{dtype::u32, "a < b"},          {dtype::u32, "(a & 255) > (b & 255)"},
                      {dtype::i32, "abs(a) < abs(b)"}, {dtype::i32, "a > b"},
                      {dtype::f32, "abs(a) < abs(b)"}, {dtype::f32, "a > b"}};
  const std::size_t sizes[] = {0, 1, 2, 7, 2047, 2048, 2049, 4095, 4097, 10007, 65537};
  for (context* c : {&ctx(), &native_ctx()})
    for (std::size_t i = 0; i < std::size(cmps); ++i)
      for (std::size_t j = 0; j < std::size(sizes); ++j) {
        const bool few = (i + j) % 2 == 0;
        check_less(*c, cmps[i].t, cmps[i].less, less_keys(cmps[i].t, sizes[j], static_cast<std::uint32_t>(7 * i + j), few),
                   j % 3 != 1);
      }
}

// The comparator sort's block sort (tiles of 2048 and a last partial tile) through every variant of sort_mid.
TEST(ComparatorSort, MidNetworkVariants) {
  context c(webgpu_options());
  set_policy(c, {{"merge.block_network", 1}});  // the blocks by sort_mid (the CPU adapters' row; GPUs merge)
  std::vector<const char*> variants = {"memory", "registers"};
  if (c.features().subgroups) variants.push_back("subgroups");
  for (const char* v : variants) {
    env_override mid("WGPRIM_SORT_MID", v);
    SCOPED_TRACE(std::string("WGPRIM_SORT_MID=") + v);
    std::uint32_t seed = 40;
    for (std::size_t n : {100, 1000, 2048, 4097})
      for (const auto& [t, less] : {std::pair{dtype::i32, "abs(a) < abs(b)"}, std::pair{dtype::f32, "a > b"}}) {
        ++seed;
        check_less(c, t, less, less_keys(t, n, seed, seed % 2 == 0), seed % 3 != 0);
      }
  }
}

TEST(ComparatorSort, HostRangesAndRefusals) {
  for (context* c : {&ctx(), &native_ctx()}) {
    std::vector<float> x = {3.f, -1.f, -0.f, 2.f, 0.f, -3.f, 1.f, -2.f};
    std::vector<std::uint32_t> v = {0, 1, 2, 3, 4, 5, 6, 7};
    sort_pairs(*c, x, v, comparator::expr("abs(a) < abs(b)"));
    // -0 and +0 tie, then 1 / -1 (input order -1 first), 2 / -2, 3 / -3.
    EXPECT_EQ(v, (std::vector<std::uint32_t>{2, 4, 1, 6, 3, 7, 0, 5})) << c->adapter().name;
    auto code = [](auto f) {
      try {
        f();
      } catch (const error& e) {
        return e.code();
      }
      return errc::gpu;
    };
    std::vector<std::int32_t> k = {5, 3, 1};
    for (const char* bad : {"a <= b", "a != b", "abs(a - b) > 1", "a + b", "a < c"})
      EXPECT_EQ(code([&] { sort(*c, k, comparator::expr(bad)); }), errc::invalid_argument) << bad;
    std::vector<double> d(3);
    EXPECT_EQ(code([&] { sort(*c, d, comparator::expr("a < b")); }), errc::unsupported);
    // An order that holds on the type's sample but not on these keys: `a < b` with a NaN among f32 keys (a NaN
    // ties 1 and 2, which do not tie), a rule broken at one value; the same orders on keys without the culprit sort.
    std::vector<float> with_nan(5000, 1.f);
    for (std::size_t i = 0; i < with_nan.size(); ++i) with_nan[i] = static_cast<float>(i % 97);
    with_nan[4321] = std::numeric_limits<float>::quiet_NaN();  // not at a sampled position
    EXPECT_EQ(code([&] { sort(*c, with_nan, comparator::expr("a < b")); }), errc::invalid_argument);
    with_nan[4321] = 7.f;
    EXPECT_EQ(code([&] { sort(*c, with_nan, comparator::expr("a < b")); }), errc::gpu) << "no NaN: it sorts (gpu: nothing thrown)";
    std::vector<std::int32_t> k41(41);
    for (int i = 0; i < 41; ++i) k41[i] = (i * 17) % 41;  // 0..40 shuffled
    std::iter_swap(k41.begin() + 5, std::find(k41.begin(), k41.end(), 5));  // 5 at a sampled position (41 * 1 / 8)
    EXPECT_EQ(code([&] { sort(*c, k41, comparator::expr("a < b && a != 5")); }), errc::invalid_argument);
    // Few distinct values (at most 16: all are checked), the rule broken only among 100, 101 and 102, none of them
    // at a sampled position; check_comparator refuses the same keys wherever a caller holds them.
    std::vector<std::int32_t> few(3000, 7);
    few[1111] = 100;
    few[1112] = 101;
    few[2222] = 102;
    const char* broken = "a < b && !(a == 100 && b == 101) && !(a == 101 && b == 102)";
    EXPECT_EQ(code([&] { sort(*c, few, comparator::expr(broken)); }), errc::invalid_argument);
    EXPECT_EQ(code([&] {
                check_comparator(comparator::expr(broken), dtype::i32, reinterpret_cast<const std::uint32_t*>(few.data()),
                                 few.size());
              }),
              errc::invalid_argument);
    few[2222] = 7;  // 100 and 101 alone: their tie is consistent, the order sorts
    EXPECT_EQ(code([&] { sort(*c, few, comparator::expr(broken)); }), errc::gpu);
  }
}

// The comparator sort's merge levels (sort/merge_tile_split.wgsl + merge_tile.wgsl; WGPRIM_COMPARATOR_MERGE=level:
// merge_level.wgsl) at the merge tile's edges (2048 keys), with a partner-less last run, over 2^k +- 1 up to 2^18 + 1
// (past 10240 half the comparators, past 2^16 + 1 one each: lavapipe time), keys and pairs alternating.
// '(a & 7) < (b & 7)' on full-range keys: many ties between different keys, so the keys alone show an unstable merge.
TEST(ComparatorSort, MergeLevelsAtTileEdges) {
  struct cmp { dtype t; const char* less; bool few; };
  const cmp cmps[] = {{dtype::u32, "a < b", false},           {dtype::u32, "(a & 7) < (b & 7)", false},
                      {dtype::i32, "a > b", true},            {dtype::i32, "(a & 7) < (b & 7)", false},
                      {dtype::i32, "abs(a) < abs(b)", false}, {dtype::f32, "a < b", true},
                      {dtype::f32, "abs(a) < abs(b)", true},  {dtype::f32, "a > b", false}};
  std::vector<std::size_t> sizes = {0, 1, 2, 2047, 2048, 2049, 4095, 4096, 4097, 6143, 6145, 10240};
  for (int k = 13; k <= 18; ++k) {
    sizes.push_back((std::size_t(1) << k) - 1);
    sizes.push_back((std::size_t(1) << k) + 1);
  }
  for (const char* merge : {"tile", "level"}) {
    ::setenv("WGPRIM_COMPARATOR_MERGE", merge, 1);
    const bool tile = merge[0] == 't';
    for (std::size_t i = 0; i < std::size(cmps); ++i)
      for (std::size_t j = 0; j < sizes.size(); ++j) {
        const bool large = sizes[j] > 65537;
        if (large && (!tile || (i + j) % 8 != 0)) continue;  // each large size once (keys or pairs), tiled
        if (!tile && (i + j) % 3 != 0) continue;             // the level path: a third of the cases
        if (!large && sizes[j] > 10240 && (i + j) % 2 != 0) continue;  // 2^13 +- 1 .. 2^16 +- 1: half
        const bool pairs = large ? sizes[j] % 4 == 1 : (i + j / 2) % 2 == 1;  // large: pairs at 2^k + 1
        check_less(ctx(), cmps[i].t, cmps[i].less,
                   less_keys(cmps[i].t, sizes[j], static_cast<std::uint32_t>(100 + 13 * i + j), cmps[i].few), pairs);
      }
  }
  ::unsetenv("WGPRIM_COMPARATOR_MERGE");
}

TEST(ComparatorSort, MergeItemsPolicies) {
  // The policy's merge.items (keys each invocation merges in a row; workgroups of 2,048 / items), with the blocks
  // by the merge sort in workgroup memory (the GPUs' row) and by the network: every value sorts as the CPU twin, at
  // tile edges, keys and pairs, tiled and per-invocation levels.
  for (const std::uint64_t items : {8u, 16u, 32u}) {
    context c(webgpu_options());
    set_policy(c, {{"merge.items", items}, {"merge.block_network", items == 16 ? 1u : 0u}});
    for (const char* merge : {"tile", "level"}) {
      ::setenv("WGPRIM_COMPARATOR_MERGE", merge, 1);
      std::uint32_t seed = 500;
      for (const std::size_t n : {2, 7, 8, 9, 100, 2047, 2048, 2049, 4095, 4097, 6145, 16385, 65537}) {
        check_less(c, dtype::i32, "(a & 7) < (b & 7)", less_keys(dtype::i32, n, ++seed, false), n % 2 == 1);
        check_less(c, dtype::f32, "abs(a) < abs(b)", less_keys(dtype::f32, n, ++seed, true), n % 2 == 0);
      }
    }
    ::unsetenv("WGPRIM_COMPARATOR_MERGE");
  }
}

/// Reads keys and values (n = want.size() each) from `c` and compares them with the twin's.
void expect_sorted_pairs(context& c, const buffer& k, const buffer& v, const std::vector<std::uint32_t>& want,
                         const std::vector<std::uint32_t>& want_v, const std::string& what) {
  const std::size_t n = want.size();
  std::vector<std::uint32_t> got(n), got_v(n);
  c.read(k, 0, got.data(), n * 4);
  c.read(v, 0, got_v.data(), n * 4);
  EXPECT_EQ(got, want) << what;
  EXPECT_EQ(got_v, want_v) << what;
}

TEST(SegmentedSort, PhasesTimedAlone) {
  // segmented_sort_phases: the same result as segmented_sort_bits, one entry per kernel (device offsets: the binning,
  // tile starts, short segments, both mid size classes, the copy back, then the long segments' device sorts when
  // there are any); the native backend reports one.
  const std::vector<std::vector<std::uint32_t>> lengths = {
      {16, 16, 0, 1, 16, 255}, {300, 2, 1500, 7}, {2, 5000, 16, 4097, 1}};
  for (const auto& len : lengths) {
    const std::vector<std::uint32_t> off = offsets_of(3, len);
    const std::size_t n = off.back() + 2, segs = off.size() - 1;
    const std::vector<std::uint32_t> x = seg_keys(dtype::f32, n, static_cast<std::uint32_t>(n), false);
    std::vector<std::uint32_t> want = x, want_v(n), idx(n);
    for (std::size_t i = 0; i < n; ++i) idx[i] = want_v[i] = static_cast<std::uint32_t>(i);
    reference::segmented_stable_sort(want.data(), off.data(), segs, dtype::f32, true, 0, 0, want_v.data());
    std::size_t long_ones = 0;
    for (std::uint32_t l : len) long_ones += l > 2048;
    for (context* c : {&ctx(), &native_ctx()}) {
      buffer k = c->create_buffer(n * 4), v = c->create_buffer(n * 4), ob = c->create_buffer(off.size() * 4);
      c->write(k, 0, x.data(), n * 4);
      c->write(v, 0, idx.data(), n * 4);
      c->write(ob, 0, off.data(), off.size() * 4);
      const auto phases = segmented_sort_phases(*c, k, n, ob, segs, dtype::f32, order::descending, &v);
      std::vector<std::string> names;
      for (const auto& p : phases) names.push_back(p.name);
      std::vector<std::string> expect = {"sort"};
      if (c != &native_ctx()) {
        expect = {"binning", "tile starts", "short segments (2..256 keys)", "mid segments (257..1024 keys)",
                  "mid segments (1025..2048 keys)", "copy back"};
        if (long_ones) expect.push_back("long segments (" + std::to_string(long_ones) + " device sorts)");
      }
      EXPECT_EQ(names, expect) << c->adapter().name << " n=" << n;
      expect_sorted_pairs(*c, k, v, want, want_v, c->adapter().name + " n=" + std::to_string(n));
    }
  }
}

TEST(ComparatorSort, PhasesTimedAlone) {
  // comparator_sort_phases: the same result as sort_less_bits, one entry per phase (the blocks, a split and a merge
  // per level, the copy back); the native backend reports one.
  for (const std::size_t n : {std::size_t(1), std::size_t(2048), std::size_t(2049), std::size_t(9001)}) {
    const std::vector<std::uint32_t> x = less_keys(dtype::i32, n, static_cast<std::uint32_t>(n), true);
    std::vector<std::uint32_t> want = x, want_v(n), idx(n);
    for (std::size_t i = 0; i < n; ++i) idx[i] = want_v[i] = static_cast<std::uint32_t>(i);
    reference::stable_sort_less(want.data(), n, dtype::i32, "abs(a) < abs(b)", want_v.data());
    for (context* c : {&ctx(), &native_ctx()}) {
      buffer k = c->create_buffer(n * 4), v = c->create_buffer(n * 4);
      c->write(k, 0, x.data(), n * 4);
      c->write(v, 0, idx.data(), n * 4);
      const auto phases = comparator_sort_phases(*c, k, n, dtype::i32, comparator::expr("abs(a) < abs(b)"), &v);
      std::vector<std::string> names;
      for (const auto& p : phases) names.push_back(p.name);
      std::vector<std::string> expect;
      if (c == &native_ctx()) {
        expect = {"sort"};
      } else if (n >= 2) {
        expect = {"blocks of 2048 keys"};
        unsigned levels = 0;
        for (std::size_t run = 2048; run < n; run *= 2, ++levels) {
          const std::string level = "level " + std::to_string(levels + 1) + " (runs of " + std::to_string(run) + ")";
          expect.push_back(level + ": split");
          expect.push_back(level + ": merge");
        }
        expect.push_back("copy back");
      }
      EXPECT_EQ(names, expect) << c->adapter().name << " n=" << n;
      expect_sorted_pairs(*c, k, v, want, want_v, c->adapter().name + " n=" + std::to_string(n));
    }
  }
}

}  // namespace
}  // namespace wgprim::test
