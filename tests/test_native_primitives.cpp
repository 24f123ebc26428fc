// The native CPU backend's primitives beyond reduce / scan (src/native/), as a randomized differential test
// against the CPU twins: arg-min/max, transform-reduce, exact sums, select / partition / unique, histograms,
// segmented reduce / scan, reduce-by-key, run-length encoding and sort. Sizes are skewed to the edges of the
// backend's blocks and leaves (2^15, 2^16: where work is split between threads). Integer results, min / max and
// sums of small integers are compared exactly; f32 sums of random data against Higham's bound.
//   WGPRIM_NATIVE_CASES  random cases per primitive (default 60; `make soak`-style runs can raise it)
#include <cstdlib>
#include <cstring>

#include "common.hpp"
#include "wgprim/exact.hpp"

namespace wgprim::test {
namespace {

std::size_t cases() {
  const char* v = std::getenv("WGPRIM_NATIVE_CASES");
  return v ? std::strtoull(v, nullptr, 10) : 60;
}

std::size_t pick_size(std::mt19937& rng) {
  static const std::size_t edges[] = {0,     1,     2,     3,     15,    16,    17,     255,    256,   257,
                                      1023,  1024,  1025,  32767, 32768, 32769, 65535,  65536,  65537, 131071,
                                      131072, 131073, 200003};
  const std::uint32_t r = rng() % 100;
  if (r < 50) return edges[rng() % (sizeof edges / sizeof *edges)];
  if (r < 85) return rng() % 3000;
  return rng() % 300000;
}

// Data of type t: random bits (integers), uniform or small integers (f32); `dups`: values from a small set, so
// that runs, ties and equal keys occur; `specials`: a few NaN / +-Inf / -0 in f32 data.
std::vector<std::uint32_t> data(std::mt19937& rng, dtype t, std::size_t n, bool dups, bool specials,
                                bool small_ints = false) {
  std::vector<std::uint32_t> v(n);
  const std::uint32_t range = 1 + rng() % 9;
  std::size_t i = 0;
  while (i < n) {
    std::uint32_t x;
    if (dups) x = t == dtype::f32 ? to_bits(static_cast<float>(static_cast<int>(rng() % range) - 4)) : rng() % range - (t == dtype::i32 ? 4 : 0);
    else if (t != dtype::f32) x = rng();
    else if (small_ints) x = to_bits(static_cast<float>(static_cast<int>(rng() % 7) - 3));
    else x = to_bits(std::uniform_real_distribution<float>(-100.0f, 100.0f)(rng));
    // runs of equal values now and then
    const std::size_t len = dups && rng() % 3 == 0 ? 1 + rng() % 40 : 1;
    for (std::size_t k = 0; k < len && i < n; ++k) v[i++] = x;
  }
  if (specials && t == dtype::f32 && n) {
    const std::uint32_t sp[] = {0x7fc00000u, 0xffc00001u, 0x7f800000u, 0xff800000u, 0x80000000u, 0u};
    for (int k = 0; k < 3; ++k) v[rng() % n] = sp[rng() % 6];
  }
  return v;
}

buffer upload(context& c, const std::vector<std::uint32_t>& x) {
  buffer b = c.create_buffer(std::max<std::size_t>(x.size(), 1) * 4);
  if (!x.empty()) c.write(b, 0, x.data(), x.size() * 4);
  return b;
}
std::vector<std::uint32_t> download(context& c, const buffer& b, std::size_t n) {
  std::vector<std::uint32_t> v(n);
  if (n) c.read(b, 0, v.data(), n * 4);
  return v;
}

const dtype types[] = {dtype::f32, dtype::i32, dtype::u32};

std::string what(const char* prim, dtype t, std::size_t n, std::size_t k) {
  return std::string(prim) + " " + dtype_name(t) + " n=" + std::to_string(n) + " case " + std::to_string(k);
}

TEST(Native, ArgReduceAgainstTheTwin) {
  context& c = native_ctx();
  std::mt19937 rng(101);
  for (std::size_t k = 0; k < cases(); ++k)
    for (dtype t : types) {
      const std::size_t n = std::max<std::size_t>(1, pick_size(rng));
      const auto x = data(rng, t, n, rng() % 2, rng() % 4 == 0);
      buffer in = upload(c, x);
      for (arg_op o : {arg_op::min, arg_op::max}) {
        const auto want = reference::arg_reduce(x.data(), n, t, o);
        const auto got = arg_reduce_bits(c, in, n, t, o);
        ASSERT_EQ(got.index, want.index) << what("arg_reduce", t, n, k);
        ASSERT_EQ(got.value, want.value) << what("arg_reduce", t, n, k);
      }
    }
}

TEST(Native, TransformReduceAgainstTheTwin) {
  context& c = native_ctx();
  std::mt19937 rng(102);
  struct tcase { dtype in; const char* expr; op o; };
  const tcase tc[] = {{dtype::u32, "a ^ (a >> 3u)", op::sum()},     {dtype::u32, "select(0u, 1u, a > 100u)", op::sum()},
                      {dtype::i32, "abs(a)", op::max()},            {dtype::i32, "a * 3", op::min()},
                      {dtype::f32, "a * a", op::max()},             {dtype::f32, "abs(a) - 2.0", op::min()},
                      {dtype::f32, "a * 0.5", op::sum()},           {dtype::u32, "a & 255u", op::custom("a + b", "0")}};
  for (std::size_t k = 0; k < cases(); ++k)
    for (const tcase& t : tc) {
      const std::size_t n = pick_size(rng);
      const bool small = t.in == dtype::f32 && t.o.name() == "sum";
      const auto x = data(rng, t.in, n, false, !small && rng() % 4 == 0, small);
      buffer in = upload(c, x);
      const bound_transform b(transform::expr(t.expr), t.in);
      const monoid m(t.o, b.result_type());
      const std::uint32_t want = reference::transform_reduce(x.data(), n, b, m);
      const std::uint32_t got = transform_reduce_bits(c, in, n, t.in, transform::expr(t.expr), t.o);
      if (b.result_type() == dtype::f32 && std::isnan(from_bits<float>(want)))
        ASSERT_TRUE(std::isnan(from_bits<float>(got))) << t.expr << " n=" << n;
      else
        ASSERT_EQ(got, want) << t.expr << " n=" << n << " got " << format_bits(b.result_type(), got);
    }
}

TEST(Native, ExactSumsAreTheSuperaccumulatorsWordForWord) {
  context& c = native_ctx();
  std::mt19937 rng(103);
  for (std::size_t k = 0; k < cases(); ++k) {
    const std::size_t n = pick_size(rng);
    std::vector<float> x(n);
    const int mode = static_cast<int>(rng() % 4);
    for (auto& v : x) {
      if (mode == 0) v = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
      else if (mode == 1) v = std::ldexp(static_cast<float>(rng() % 1000) - 500.0f, static_cast<int>(rng() % 250) - 140);
      else if (mode == 2) v = from_bits<float>(rng() & 0xff7fffffu);  // any finite bits (exponent 255 never)
      else v = (rng() % 2 ? 3.0e38f : -3.0e38f);  // cancelling giants
    }
    if (n && rng() % 6 == 0) x[rng() % n] = rng() % 2 ? INFINITY : NAN;
    superaccumulator want;
    want.add(x.data(), n);
    const exact_sum_result got = exact_sum(c, x);
    ASSERT_TRUE(got.accumulator == want) << "mode " << mode << " n=" << n;
    run_options o;
    o.accuracy = accuracy::reproducible;
    const float r = reduce(c, x, 2.5f, op::sum(), o);  // the init joins the exact sum
    want.add(2.5f);
    ASSERT_EQ(to_bits(r), to_bits(want.round_to_float())) << "mode " << mode << " n=" << n;
  }
}

TEST(Native, SelectPartitionUniqueAgainstTheTwin) {
  context& c = native_ctx();
  std::mt19937 rng(104);
  const char* preds[] = {"a > 0", "(a & 1) == 0", "a != a || a < 2"};
  for (std::size_t k = 0; k < cases(); ++k)
    for (dtype t : types) {
      const std::size_t n = pick_size(rng);
      const auto x = data(rng, t, n, rng() % 2, rng() % 3 == 0);
      buffer in = upload(c, x), out = c.create_buffer(std::max<std::size_t>(n, 1) * 4);
      const std::string pe = t == dtype::f32 ? (rng() % 2 ? "a > 0.0" : "a != a || a < 2.0") : preds[rng() % 2];
      const predicate p = predicate::expr(pe);
      const bound_predicate bp(p, t);
      std::vector<std::uint32_t> want(n);
      auto in_r = detail::in_ref(device_span<const std::uint32_t>(in, 0, n));
      auto out_r = detail::out_ref(device_span<std::uint32_t>(out, 0, n));
      std::size_t kept = detail::select_run(c, nullptr, in_r, nullptr, out_r, nullptr, select_mode::predicate, false, t, &p, {});
      ASSERT_EQ(kept, reference::select_if(x.data(), n, bp, want.data())) << what("select_if", t, n, k) << " " << pe;
      ASSERT_EQ(download(c, out, kept), std::vector<std::uint32_t>(want.begin(), want.begin() + kept)) << what("select_if", t, n, k);
      kept = detail::select_run(c, nullptr, in_r, nullptr, out_r, nullptr, select_mode::predicate, true, t, &p, {});
      ASSERT_EQ(kept, reference::partition(x.data(), n, bp, want.data())) << what("partition", t, n, k);
      ASSERT_EQ(download(c, out, n), want) << what("partition", t, n, k);
      run_options reversed;
      reversed.rejected = rejected_order::reversed;
      kept = detail::select_run(c, nullptr, in_r, nullptr, out_r, nullptr, select_mode::predicate, true, t, &p, reversed);
      ASSERT_EQ(kept, reference::partition_reversed(x.data(), n, bp, want.data())) << what("partition reversed", t, n, k);
      ASSERT_EQ(download(c, out, n), want) << what("partition reversed", t, n, k);
      kept = detail::select_run(c, nullptr, in_r, nullptr, out_r, nullptr, select_mode::unique, false, t, nullptr, {});
      ASSERT_EQ(kept, reference::unique(x.data(), n, t, want.data())) << what("unique", t, n, k);
      ASSERT_EQ(download(c, out, kept), std::vector<std::uint32_t>(want.begin(), want.begin() + kept)) << what("unique", t, n, k);
      std::vector<std::uint32_t> flags(n);
      for (auto& f : flags) f = rng() % 3 == 0 ? 0 : rng();
      buffer fl = upload(c, flags);
      auto fl_r = detail::in_ref(device_span<const std::uint32_t>(fl, 0, n));
      // the count into a device span this time
      buffer cnt = c.create_buffer(4);
      auto cnt_r = detail::out_ref(device_span<std::uint32_t>(cnt, 0, 1));
      EXPECT_EQ(detail::select_run(c, nullptr, in_r, &fl_r, out_r, &cnt_r, select_mode::flags, false, t, nullptr, {}), 0u);
      kept = download(c, cnt, 1)[0];
      ASSERT_EQ(kept, reference::select_flagged(x.data(), flags.data(), n, want.data())) << what("select_flagged", t, n, k);
      ASSERT_EQ(download(c, out, kept), std::vector<std::uint32_t>(want.begin(), want.begin() + kept)) << what("select_flagged", t, n, k);
    }
  // In place: the output is the input.
  std::vector<std::uint32_t> x = data(rng, dtype::u32, 150001, true, false), want(x.size());
  const std::size_t kw = reference::unique(x.data(), x.size(), dtype::u32, want.data());
  buffer io = upload(c, x);
  auto r = detail::out_ref(device_span<std::uint32_t>(io, 0, x.size()));
  ASSERT_EQ(detail::select_run(c, nullptr, r, nullptr, r, nullptr, select_mode::unique, false, dtype::u32, nullptr, {}), kw);
  ASSERT_EQ(download(c, io, kw), std::vector<std::uint32_t>(want.begin(), want.begin() + kw));
}

TEST(Native, HistogramsAgainstTheTwin) {
  context& c = native_ctx();
  std::mt19937 rng(105);
  for (std::size_t k = 0; k < cases(); ++k)
    for (dtype t : types) {
      const std::size_t n = pick_size(rng);
      auto x = data(rng, t, n, false, rng() % 3 == 0);
      if (t == dtype::f32 && n)  // values on edges too
        for (std::size_t i = 0; i < n; i += 1 + rng() % 5) x[i] = to_bits(static_cast<float>(static_cast<int>(rng() % 21) - 10) * 0.5f);
      buffer in = upload(c, x);
      const std::size_t bins = rng() % 4 == 0 ? 70000 + rng() % 10 : 1 + rng() % 300;  // per-thread and atomic
      double lo = t == dtype::u32 ? static_cast<double>(rng() % 1000) : -100.0 * (rng() % 20);
      double hi = lo + (t == dtype::f32 ? 1.0 + rng() % 300 : std::ldexp(1.0, 10 + static_cast<int>(rng() % 22)));
      if (t == dtype::f32 && bins > 1000) hi = lo + 1e6;
      buffer counts = c.create_buffer(bins * 4);
      histogram_even(c, in, n, t, counts, bins, lo, hi);
      std::vector<std::uint32_t> want(bins);
      reference::histogram(x.data(), n, t, reference::histogram_edges(bins, lo, hi), want.data());
      ASSERT_EQ(download(c, counts, bins), want) << what("histogram_even", t, n, k) << " bins=" << bins;
      // Range levels: sorted values of the type, repeats allowed.
      std::vector<std::uint32_t> lv = data(rng, t, 2 + rng() % 40, false, false);
      for (auto& v : lv)
        if (t == dtype::f32 && (from_bits<float>(v) != from_bits<float>(v))) v = 0;
      std::sort(lv.begin(), lv.end(), [&](std::uint32_t a, std::uint32_t b) {
        if (t == dtype::f32) return from_bits<float>(a) < from_bits<float>(b);
        if (t == dtype::i32) return static_cast<std::int32_t>(a) < static_cast<std::int32_t>(b);
        return a < b;
      });
      buffer levels = upload(c, lv), rc = c.create_buffer(lv.size() * 4);
      histogram_range(c, in, n, t, rc, levels, lv.size());
      std::vector<double> edges;
      for (auto v : lv)
        edges.push_back(t == dtype::f32   ? static_cast<double>(from_bits<float>(v))
                        : t == dtype::i32 ? static_cast<double>(static_cast<std::int32_t>(v))
                                          : static_cast<double>(v));
      std::vector<std::uint32_t> want_r(lv.size() - 1);
      reference::histogram(x.data(), n, t, edges, want_r.data());
      ASSERT_EQ(download(c, rc, lv.size() - 1), want_r) << what("histogram_range", t, n, k);
    }
}

std::vector<std::uint32_t> random_offsets(std::mt19937& rng, std::size_t n, std::size_t segs) {
  std::vector<std::uint32_t> off(segs + 1);
  for (auto& o : off) o = static_cast<std::uint32_t>(n ? rng() % (n + 1) : 0);
  std::sort(off.begin(), off.end());
  if (segs && rng() % 2) {  // a long segment now and then
    off.front() = 0;
    off.back() = static_cast<std::uint32_t>(n);
  }
  return off;
}

TEST(Native, SegmentedReduceAndScanAgainstTheTwin) {
  context& c = native_ctx();
  std::mt19937 rng(106);
  for (std::size_t k = 0; k < cases(); ++k)
    for (dtype t : types) {
      const std::size_t n = pick_size(rng);
      const auto ops = ops_for(t);
      const op o = ops[rng() % ops.size()];
      const monoid m(o, t);
      // f32 sums of small integers are exact in any grouping; other f32 operators are exact anyway
      const auto x = data(rng, t, n, false, t == dtype::f32 && !m.is_sum() && rng() % 3 == 0, true);
      const std::size_t segs = rng() % 4 == 0 ? 1 : rng() % (n / 8 + 3);
      const auto off = random_offsets(rng, n, segs);
      buffer in = upload(c, x), ob = upload(c, off), out = c.create_buffer(std::max<std::size_t>(n, segs) * 4 + 4);
      segmented_reduce(c, in, n, ob, segs, out, m);
      std::vector<std::uint32_t> want(std::max<std::size_t>(n, segs));
      reference::segmented_reduce(x.data(), off.data(), segs, want.data(), m);
      auto got = download(c, out, segs);
      for (std::size_t s = 0; s < segs; ++s)
        if (!(t == dtype::f32 && std::isnan(from_bits<float>(want[s])) && std::isnan(from_bits<float>(got[s]))))
          ASSERT_EQ(got[s], want[s]) << what("segmented_reduce", t, n, k) << " " << describe(m, n) << " segment " << s;
      for (scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
        segmented_scan(c, in, n, ob, segs, out, m, kind);
        reference::segmented_scan(x.data(), n, off.data(), segs, want.data(), m, kind == scan_kind::exclusive);
        got = download(c, out, n);
        for (std::size_t i = 0; i < n; ++i)
          if (!(t == dtype::f32 && std::isnan(from_bits<float>(want[i])) && std::isnan(from_bits<float>(got[i]))))
            ASSERT_EQ(got[i], want[i]) << what("segmented_scan", t, n, k) << " " << describe(m, n) << " i=" << i;
      }
    }
}

TEST(Native, ReduceByKeyAndRunLengthAgainstTheTwin) {
  context& c = native_ctx();
  std::mt19937 rng(107);
  for (std::size_t k = 0; k < cases(); ++k)
    for (dtype t : types) {
      const std::size_t n = pick_size(rng);
      const auto keys = data(rng, t, n, true, rng() % 3 == 0);
      const dtype vt = types[rng() % 3];
      const auto ops = ops_for(vt);
      const monoid m(ops[rng() % ops.size()], vt);
      const auto vals = data(rng, vt, n, false, false, true);
      buffer kb = upload(c, keys), vb = upload(c, vals), uk = c.create_buffer(std::max<std::size_t>(n, 1) * 4),
             sb = c.create_buffer(std::max<std::size_t>(n, 1) * 4);
      std::vector<std::uint32_t> wk(n), ws(n);
      const std::size_t runs = reference::reduce_by_key(keys.data(), t, vals.data(), n, wk.data(), ws.data(), m);
      ASSERT_EQ(reduce_by_key(c, kb, t, vb, n, uk, sb, m), runs) << what("reduce_by_key", t, n, k);
      ASSERT_EQ(download(c, uk, runs), std::vector<std::uint32_t>(wk.begin(), wk.begin() + runs)) << what("reduce_by_key", t, n, k);
      ASSERT_EQ(download(c, sb, runs), std::vector<std::uint32_t>(ws.begin(), ws.begin() + runs))
          << what("reduce_by_key", t, n, k) << " " << describe(m, n);
      const std::size_t rle = reference::run_length_encode(keys.data(), t, n, wk.data(), ws.data());
      ASSERT_EQ(run_length_encode(c, kb, t, n, uk, sb), rle) << what("run_length_encode", t, n, k);
      ASSERT_EQ(download(c, uk, rle), std::vector<std::uint32_t>(wk.begin(), wk.begin() + rle));
      ASSERT_EQ(download(c, sb, rle), std::vector<std::uint32_t>(ws.begin(), ws.begin() + rle));
    }
}

TEST(Native, SortKeysAndPairsAgainstTheTwin) {
  context& c = native_ctx();
  std::mt19937 rng(108);
  for (std::size_t k = 0; k < cases(); ++k)
    for (dtype t : types) {
      const std::size_t n = pick_size(rng);
      auto keys = data(rng, t, n, rng() % 2, rng() % 2);
      if (rng() % 4 == 0)  // keys that differ only in their high byte (passes skipped) or low byte
        for (auto& v : keys) v = rng() % 2 ? (v & 0xff000000u) : (v & 0xffu);
      std::vector<std::uint32_t> vals(n);
      for (std::size_t i = 0; i < n; ++i) vals[i] = static_cast<std::uint32_t>(i);
      for (order o : {order::ascending, order::descending}) {
        std::vector<std::uint32_t> wk = keys, wv = vals;
        reference::stable_sort(wk.data(), n, t, o == order::descending, wv.data());
        buffer ki = upload(c, keys), ko = c.create_buffer(std::max<std::size_t>(n, 1) * 4), vi = upload(c, vals),
               vo = c.create_buffer(std::max<std::size_t>(n, 1) * 4);
        sort_bits(c, ki, ko, n, t, o);
        ASSERT_EQ(download(c, ko, n), wk) << what("sort", t, n, k);
        sort_bits(c, ki, ko, n, t, o, &vi, &vo);
        ASSERT_EQ(download(c, ko, n), wk) << what("sort_pairs", t, n, k);
        ASSERT_EQ(download(c, vo, n), wv) << what("sort_pairs", t, n, k);
        sort_bits(c, ki, ki, n, t, o, &vi, &vi);  // in place
        ASSERT_EQ(download(c, ki, n), wk) << what("sort_pairs in place", t, n, k);
        ASSERT_EQ(download(c, vi, n), wv) << what("sort_pairs in place", t, n, k);
      }
    }
  // The typed API on host containers.
  std::vector<float> f = {3.0f, -0.0f, NAN, 0.0f, -INFINITY, 1.0f};
  sort(c, f);
  EXPECT_EQ(to_bits(f[0]), to_bits(-INFINITY));
  EXPECT_EQ(to_bits(f[1]), to_bits(-0.0f));
  EXPECT_EQ(to_bits(f[2]), to_bits(0.0f));
  EXPECT_TRUE(std::isnan(f[5]));
}

TEST(Native, EveryEncoderEntryPointIsUnsupported) {
  context& c = native_ctx();
  device_vector<std::uint32_t> in(c, 16), out(c, 16), res(c, 3), cnt(c, 1);
  device_vector<float> fin(c, 16);
  auto fake = reinterpret_cast<WGPUCommandEncoder>(std::uintptr_t{1});
  auto unsupported = [](auto f, const char* what) {
    try {
      f();
      ADD_FAILURE() << what << " did not throw";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::unsupported) << what << ": " << e.what();
    }
  };
  const device_span<const std::uint32_t> ci(in);
  unsupported([&] { argmin(c, fake, ci, device_span<std::uint32_t>(res)); }, "argmin");
  unsupported([&] { transform_reduce(c, fake, ci, transform::expr("a + 1u"), device_span<std::uint32_t>(res).first(1)); },
              "transform_reduce");
  unsupported([&] { select_if(c, fake, ci, device_span<std::uint32_t>(out), device_span<std::uint32_t>(cnt), predicate::expr("a > 1")); },
              "select_if");
  unsupported([&] { unique(c, fake, ci, device_span<std::uint32_t>(out), device_span<std::uint32_t>(cnt)); }, "unique");
  unsupported([&] { histogram_even(c, fake, ci, device_span<std::uint32_t>(out), 16, 0.0, 16.0); }, "histogram_even");
  const std::vector<std::uint32_t> off_h = {0, 8, 16};
  device_vector<std::uint32_t> off(c, off_h);
  unsupported([&] { segmented_reduce(c, fake, ci, device_span<const std::uint32_t>(off), device_span<std::uint32_t>(out).first(2)); },
              "segmented_reduce");
  unsupported([&] { segmented_scan(c, fake, ci, device_span<const std::uint32_t>(off), device_span<std::uint32_t>(out), scan_kind::inclusive); },
              "segmented_scan");
  unsupported([&] { reduce_by_key(c, fake, ci, ci, device_span<std::uint32_t>(out), device_span<std::uint32_t>(res).first(1), device_span<std::uint32_t>(cnt)); },
              "reduce_by_key");
  unsupported([&] { copy(c, fake, ci, device_span<std::uint32_t>(out)); }, "copy");
}

}  // namespace
}  // namespace wgprim::test
