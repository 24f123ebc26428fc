// select_if / select_flagged / partition / unique: every type over edge sizes against the CPU twins
// (std::copy_if / std::stable_partition / std::unique loops), predicates keeping all, none and some, NaN input,
// arrays past one storage binding, the look-back fallback under stress, in place, device counts and encoders.

#include <cstdlib>
#include <iostream>
#include <limits>

#include "common.hpp"
#include "primitives/primitive.hpp"

namespace wgprim::test {
namespace {

// partition_reversed: partition with run_options::rejected = reversed (cub::DevicePartition::If's order).
enum class what { select_if, select_flagged, partition, unique, partition_reversed };
const char* name_of(what w) {
  switch (w) {
    case what::select_if: return "select_if";
    case what::select_flagged: return "select_flagged";
    case what::partition: return "partition";
    case what::partition_reversed: return "partition (rejected reversed)";
    default: return "unique";
  }
}

tuning policy_override;  // Select.PolicyVariants sets it for the calls it makes

struct outcome {
  std::size_t kept = 0;
  std::vector<std::uint32_t> out;  // the first `kept` (partition: n) elements
};

// The GPU through the typed device-span API (count read back).
outcome run_gpu(context& c, what w, dtype t, const std::vector<std::uint32_t>& x, std::size_t n,
                const std::vector<std::uint32_t>* flags, const std::string& pred, run_stats* stats = nullptr) {
  run_options o;
  o.stats = stats;
  o.tune = policy_override;
  if (w == what::partition_reversed) o.rejected = rejected_order::reversed;
  buffer in = c.create_buffer(std::max<std::size_t>(n, 1) * 4), out = c.create_buffer(std::max<std::size_t>(n, 1) * 4);
  buffer fl = c.create_buffer(std::max<std::size_t>(n, 1) * 4);
  if (n) c.write(in, 0, x.data(), n * 4);
  if (n && flags) c.write(fl, 0, flags->data(), n * 4);
  outcome r;
  with_type(t, [&](auto tag) {
    using T = decltype(tag);
    device_span<const T> din(in, 0, n);
    device_span<T> dout(out, 0, n);
    switch (w) {
      case what::select_if: r.kept = select_if(c, din, dout, predicate::expr(pred), o); break;
      case what::select_flagged:
        r.kept = select_flagged(c, din, device_span<const std::uint32_t>(fl, 0, n), dout, o);
        break;
      case what::partition:
      case what::partition_reversed: r.kept = partition(c, din, dout, predicate::expr(pred), o); break;
      case what::unique: r.kept = unique(c, din, dout, o); break;
    }
  });
  const std::size_t m = w == what::partition || w == what::partition_reversed ? n : r.kept;
  r.out.resize(m);
  if (m) c.read(out, 0, r.out.data(), m * 4);
  return r;
}

outcome run_cpu(what w, dtype t, const std::vector<std::uint32_t>& x, std::size_t n,
                const std::vector<std::uint32_t>* flags, const std::string& pred) {
  outcome r;
  r.out.resize(n);
  switch (w) {
    case what::select_if: r.kept = reference::select_if(x.data(), n, bound_predicate(predicate::expr(pred), t), r.out.data()); break;
    case what::select_flagged: r.kept = reference::select_flagged(x.data(), flags->data(), n, r.out.data()); break;
    case what::partition: r.kept = reference::partition(x.data(), n, bound_predicate(predicate::expr(pred), t), r.out.data()); break;
    case what::unique: r.kept = reference::unique(x.data(), n, t, r.out.data()); break;
    case what::partition_reversed:
      r.kept = reference::partition_reversed(x.data(), n, bound_predicate(predicate::expr(pred), t), r.out.data());
      break;
  }
  r.out.resize(w == what::partition || w == what::partition_reversed ? n : r.kept);
  return r;
}

// Compares bit patterns (NaN payloads move unchanged). Returns the number of differing elements.
std::size_t check(context& c, what w, dtype t, const std::vector<std::uint32_t>& x, std::size_t n,
                  const std::vector<std::uint32_t>* flags, const std::string& pred, run_stats* stats = nullptr) {
  outcome g = run_gpu(c, w, t, x, n, flags, pred, stats), want = run_cpu(w, t, x, n, flags, pred);
  EXPECT_EQ(g.kept, want.kept) << name_of(w) << " " << dtype_name(t) << " '" << pred << "' n=" << n;
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < std::min(g.out.size(), want.out.size()); ++i)
    if (g.out[i] != want.out[i] && !bad++) first = i;
  EXPECT_EQ(bad, 0u) << name_of(w) << " " << dtype_name(t) << " '" << pred << "' n=" << n << ": first at " << first
                     << " got " << format_bits(t, g.out[first]) << " want " << format_bits(t, want.out[first]);
  return bad + (g.kept != want.kept);
}

// Sizes around the tile (4,096 elements with the default policy), and 2^k +- 1.
std::vector<std::size_t> sizes() {
  auto s = edge_sizes(16);
  for (std::size_t v : {4095u, 4096u, 4097u, 8191u, 8192u, 8193u, 12289u}) s.push_back(v);
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

std::vector<std::string> predicates_for(dtype t) {
  switch (t) {
    case dtype::f32: return {"a > 0.0", "true", "false", "abs(a) < 0.25 && a != 0.0", "a < -2.0"};
    case dtype::i32: return {"a > 0", "true", "false", "(a & 3) == 1 || a < -2000000000"};
    default: return {"a < 0x80000000u", "true", "false", "(a % 7u) == 3u"};
  }
}

// Data with runs of equal values (for unique) over a small alphabet; for f32 also -0.0 next to +0.0.
std::vector<std::uint32_t> runs_data(dtype t, std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> v(n);
  std::uint32_t cur = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (rng() % 4 == 0) {
      std::uint32_t k = rng() % 5;
      cur = t == dtype::f32 ? to_bits(k == 0 ? 0.0f : k == 1 ? -0.0f : static_cast<float>(k) - 3.5f) : k * 0x01010101u;
    }
    v[i] = cur;
  }
  return v;
}

TEST(Select, EveryTypePredicateAndEdgeSize) {
  const auto ns = sizes();
  for (dtype t : {dtype::f32, dtype::i32, dtype::u32}) {
    auto x = make_data(t, ns.back(), 31 + static_cast<int>(t));
    for (const std::string& p : predicates_for(t))
      for (std::size_t n : ns) {
        check(ctx(), what::select_if, t, x, n, nullptr, p);
        check(ctx(), what::partition, t, x, n, nullptr, p);
        check(ctx(), what::partition_reversed, t, x, n, nullptr, p);
      }
  }
}

TEST(Select, FlaggedEveryTypeAndEdgeSize) {
  const auto ns = sizes();
  std::mt19937 rng(5);
  const std::size_t n_max = ns.back();
  std::vector<std::uint32_t> some(n_max), none(n_max, 0u), all(n_max);
  for (auto& f : some) f = rng() % 3 == 0 ? 0u : rng();  // any nonzero value keeps
  for (auto& f : all) f = 1u + rng() % 1000;
  for (dtype t : {dtype::f32, dtype::i32, dtype::u32}) {
    auto x = make_data(t, n_max, 41 + static_cast<int>(t));
    for (const auto* f : {&some, &none, &all})
      for (std::size_t n : ns) check(ctx(), what::select_flagged, t, x, n, f, "");
  }
}

TEST(Select, UniqueEveryTypeAndEdgeSize) {
  const auto ns = sizes();
  for (dtype t : {dtype::f32, dtype::i32, dtype::u32}) {
    auto runs = runs_data(t, ns.back(), 51 + static_cast<int>(t));
    auto distinct = make_data(t, ns.back(), 52);
    std::vector<std::uint32_t> same(ns.back(), t == dtype::f32 ? to_bits(1.5f) : 7u);
    for (const auto* x : {&runs, &distinct, &same})
      for (std::size_t n : ns) check(ctx(), what::unique, t, *x, n, nullptr, "");
  }
}

TEST(Select, NanInputFollowsWgslComparisons) {
  // Every comparison with a NaN is false except !=; unique keeps every NaN (NaN == NaN is false) and drops -0.0
  // after +0.0. The CPU twin's C++ comparisons are IEEE, so a GPU that folded NaN compares would differ here.
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::mt19937 rng(3);
  std::vector<std::uint32_t> x(20011);
  const float pool[] = {nan, -nan, inf, -inf, 0.0f, -0.0f, 1.0f, -1.0f, 0.5f, nan};
  for (auto& v : x) v = to_bits(pool[rng() % 10]);
  x[5] = 0x7f800001u;  // a signalling-NaN pattern and a NaN with payload: moved bit for bit
  x[6] = 0xffc12345u;
  for (const char* p : {"a > 0.0", "a != 0.5", "!(a < 0.0)", "a == a", "a != a", "a >= -inf", "a == 0.0"})
    for (std::size_t n : {10u, 4097u, 20011u}) {
      check(ctx(), what::select_if, dtype::f32, x, n, nullptr, p);
      check(ctx(), what::partition, dtype::f32, x, n, nullptr, p);
      check(ctx(), what::partition_reversed, dtype::f32, x, n, nullptr, p);
    }
  for (std::size_t n : {10u, 4097u, 20011u}) check(ctx(), what::unique, dtype::f32, x, n, nullptr, "");
  // By hand: NaN runs stay, -0.0 after +0.0 goes.
  std::vector<float> h = {nan, nan, 0.0f, -0.0f, 1.0f, 1.0f, nan};
  auto u = unique(ctx(), h);
  ASSERT_EQ(u.size(), 5u);
  EXPECT_TRUE(std::isnan(u[0]) && std::isnan(u[1]) && std::isnan(u[4]));
  EXPECT_EQ(to_bits(u[2]), to_bits(0.0f));
  EXPECT_EQ(u[3], 1.0f);
}

TEST(Select, PastOneBinding) {
  // 1 MiB bindings: 2^20 + 77 elements are five input chunks and five output windows.
  context& c = small_binding_ctx();
  const std::size_t n_max = (1u << 20) + 77;
  std::mt19937 rng(8);
  std::vector<std::uint32_t> flags(n_max);
  for (auto& f : flags) f = rng() % 2;
  for (dtype t : {dtype::f32, dtype::u32}) {
    auto x = make_data(t, n_max, 9);
    auto runs = runs_data(t, n_max, 10);
    const std::string p = t == dtype::f32 ? "a > 0.0" : "(a & 1u) == 0u";
    for (std::size_t n : {std::size_t(262143), std::size_t(262145), std::size_t(524288 + 3), n_max}) {
      check(c, what::select_if, t, x, n, nullptr, p);
      check(c, what::partition, t, x, n, nullptr, p);
      check(c, what::partition_reversed, t, x, n, nullptr, p);
      check(c, what::select_flagged, t, x, n, &flags, "");
      check(c, what::unique, t, runs, n, nullptr, "");
    }
    check(c, what::select_if, t, x, n_max, nullptr, "true");
    check(c, what::partition, t, x, n_max, nullptr, "false");
    check(c, what::partition_reversed, t, x, n_max, nullptr, "false");
    check(c, what::partition_reversed, t, x, n_max, nullptr, "true");
  }
}

TEST(Select, LookbackFallbackTakenAndResultUnchanged) {
  struct stress_on {
    stress_on() { testing::set_lookback_stress(ctx(), true); testing::set_lookback_stress(small_binding_ctx(), true); }
    ~stress_on() { testing::set_lookback_stress(ctx(), false); testing::set_lookback_stress(small_binding_ctx(), false); }
  } on;
  // Whether a successor really overtakes a held-back tile depends on how the driver schedules workgroups (on a
  // CPU adapter a thread may run two tiles in turn), so each kind gets a few rounds to show a fallback; every
  // round's result is checked.
  std::uint64_t fallbacks = 0;
  const std::size_t n = 65536 + 3;
  // Both walks of tile/lookback.wgsl fall back: the policy's (subgroup 0 where there are subgroups), then the
  // workgroup's window (lookback_subgroup = 0); and the raked layout's tiles (staged = 2) under the policy's walk.
  struct variant { int walk, layout; };
  for (const variant& var : {variant{-1, -1}, variant{0, -1}, variant{-1, 2}})
  for (what w : {what::select_if, what::partition, what::select_flagged, what::unique, what::partition_reversed}) {
    const int walk = var.walk;
    policy_override = tuning{};
    policy_override.lookback_subgroup = walk;
    policy_override.staged = var.layout;
    std::uint64_t of_kind = 0;
    for (int round = 0; round < 4 && of_kind == 0; ++round)
      for (dtype t : {dtype::f32, dtype::i32, dtype::u32}) {
        auto x = w == what::unique ? runs_data(t, n, 62 + round) : make_data(t, n, 61 + round);
        std::vector<std::uint32_t> flags(n);
        for (std::size_t i = 0; i < n; ++i) flags[i] = x[i] & 1u;
        run_stats st;
        EXPECT_EQ(check(ctx(), w, t, x, n, &flags, predicates_for(t)[0], &st), 0u);
        of_kind += st.lookback_fallbacks;
      }
    EXPECT_GT(of_kind, 0u) << name_of(w) << " walk " << walk << " layout " << var.layout;
    fallbacks += of_kind;
  }
  policy_override = tuning{};
  run_stats st;
  auto x = make_data(dtype::u32, (1u << 20) + 77, 63);
  check(small_binding_ctx(), what::partition, dtype::u32, x, x.size(), nullptr, "a > 0x40000000u", &st);
  EXPECT_GT(st.lookback_fallbacks, 0u);
  // The reversed partition past one binding: a few rounds to show a fallback (scheduling decides, as above), every
  // round's result checked.
  std::uint64_t reversed_fallbacks = 0;
  for (int round = 0; round < 4 && reversed_fallbacks == 0; ++round) {
    run_stats st_reversed;
    check(small_binding_ctx(), what::partition_reversed, dtype::u32, x, x.size(), nullptr, "a > 0x40000000u",
          &st_reversed);
    reversed_fallbacks += st_reversed.lookback_fallbacks;
  }
  EXPECT_GT(reversed_fallbacks, 0u);
  fallbacks += reversed_fallbacks;
  std::cout << "[          ] select look-back fallbacks taken under stress: " << fallbacks + st.lookback_fallbacks
            << "\n";
}

// Every mode of the decoupled select against the CPU twins at each of `sizes` (at most `len`): select_if and both
// partitions over f32 data from `seed`, select_flagged over u32 data from seed + 1 (flag: bit `flag_bit`), unique
// over runs from seed + 2. One data type per kind: each kind compiles once per policy.
void check_every_mode(std::size_t len, std::uint32_t seed, unsigned flag_bit, std::initializer_list<std::size_t> sizes) {
  auto xf = make_data(dtype::f32, len, seed), xu = make_data(dtype::u32, len, seed + 1);
  auto runs = runs_data(dtype::u32, len, seed + 2);
  std::vector<std::uint32_t> flags(len);
  for (std::size_t i = 0; i < len; ++i) flags[i] = (xu[i] >> flag_bit) & 1u;
  for (const std::size_t n : sizes) {
    check(ctx(), what::select_if, dtype::f32, xf, n, nullptr, "a > 0.0");
    check(ctx(), what::partition, dtype::f32, xf, n, nullptr, "abs(a) < 0.25 && a != 0.0");
    check(ctx(), what::partition_reversed, dtype::f32, xf, n, nullptr, "abs(a) < 0.25 && a != 0.0");
    check(ctx(), what::select_flagged, dtype::u32, xu, n, &flags, "");
    check(ctx(), what::unique, dtype::u32, runs, n, nullptr, "");
  }
}

TEST(Select, PolicyVariants) {
  // Every code path whatever the adapter's default: raked, staged or direct writes, subgroup or workgroup-memory scans,
  // short and long tiles (items 1..8; 8 leaves no room to stage on a 32 KiB adapter), a spin limit of one poll.
  // The look-back walked by subgroup 0 (lookback_subgroup 1, the default with subgroups) or by the workgroup's
  // window (0); sizes around each variant's own tile (1,024 * items).
  struct v { int subgroups, staged; std::uint32_t items, spin; int lookback_sg; };
  // staged 2: the raked layout (subgroups; without them the policy stages instead).
  for (const v& p : {v{0, 0, 4, 0, -1}, v{1, 0, 2, 1, 1}, v{0, 1, 1, 0, -1}, v{1, 1, 8, 0, 0}, v{1, 1, 4, 1, 0},
                     v{1, 1, 1, 1, 1}, v{1, 2, 4, 0, -1}, v{1, 2, 1, 1, 0}, v{1, 2, 8, 0, 1}, v{0, 2, 2, 0, -1}}) {
    policy_override = tuning{};
    policy_override.subgroups = p.subgroups;
    policy_override.staged = p.staged;
    policy_override.items = p.items;
    policy_override.spin_limit = p.spin;
    policy_override.lookback_subgroup = p.lookback_sg;
    const std::size_t tile = 1024u * p.items;
    check_every_mode(70001, 81, 3, {1, 1025, tile - 1, tile, tile + 1, 3 * tile + 1, 8195, 70001});
  }
  policy_override = tuning{};
}

TEST(Select, UnrolledVariants) {
  // The kernel's loops over an invocation's elements written out (`//! unroll`, policy select.unroll, forced with
  // WGPRIM_UNROLL=1): direct, staged and raked tiles (raked 8: 32 elements per invocation), with and without
  // subgroups, every mode, against the CPU twins at sizes around each variant's tile.
  env_override unroll("WGPRIM_UNROLL", "1");
  struct v { int subgroups, staged; std::uint32_t items; };
  for (const v& p : {v{1, 0, 4}, v{1, 1, 2}, v{1, 2, 4}, v{1, 2, 8}, v{0, 0, 2}}) {
    policy_override = tuning{};
    policy_override.subgroups = p.subgroups;
    policy_override.staged = p.staged;
    policy_override.items = p.items;
    const std::size_t tile = 1024u * p.items;
    check_every_mode(40001, 91, 5, {1, tile - 1, tile, tile + 1, 3 * tile + 7, 40001});
  }
  policy_override = tuning{};
}

// ---- reduce-by-key and run-length encoding, "decoupled" (shaders/select/by_key.wgsl) against the CPU twins
// and against "tiles" ----

// Keys in runs of 1..max_run over a small alphabet (f32: -0 next to +0, NaN), values small integers.
std::vector<std::uint32_t> by_key_keys(dtype t, std::size_t n, std::uint32_t seed, std::uint32_t max_run) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> k(n);
  const std::uint32_t specials[] = {0x00000000u, 0x80000000u, 0x7fc00000u, to_bits(1.5f), to_bits(-2.0f)};
  for (std::size_t i = 0; i < n;) {
    const std::uint32_t key = t == dtype::f32 ? specials[rng() % 5] : rng() % 4;
    for (std::size_t j = rng() % max_run + 1; j > 0 && i < n; --j) k[i++] = key;
  }
  return k;
}

std::size_t check_by_key_once(context& c, const std::string& alg, dtype kt, dtype vt, const op& o, std::size_t n,
                              std::uint32_t seed, std::uint32_t max_run) {
  const monoid m(o, vt);
  const auto keys = by_key_keys(kt, n, seed, max_run);
  const auto vals = make_data(vt, n, seed + 1, data_kind::small_ints);
  std::vector<std::uint32_t> wk(n), ws(n), wv(n), wc(n);
  const std::size_t want = reference::reduce_by_key(keys.data(), kt, vals.data(), n, wk.data(), ws.data(), m);
  const std::size_t want_runs = reference::run_length_encode(keys.data(), kt, n, wv.data(), wc.data());
  buffer bk = c.create_buffer(std::max<std::size_t>(n, 1) * 4), bv = c.create_buffer(std::max<std::size_t>(n, 1) * 4);
  buffer uk = c.create_buffer(std::max<std::size_t>(n, 1) * 4), us = c.create_buffer(std::max<std::size_t>(n, 1) * 4);
  if (n) {
    c.write(bk, 0, keys.data(), n * 4);
    c.write(bv, 0, vals.data(), n * 4);
  }
  run_options opt;
  opt.algorithm = alg;
  std::size_t bad = 0;
  const std::size_t got = reduce_by_key(c, bk, kt, bv, n, uk, us, m, opt);
  EXPECT_EQ(got, want) << alg << " runs, keys " << dtype_name(kt) << " " << describe(m, n);
  std::vector<std::uint32_t> gk(std::max<std::size_t>(want, 1)), gs(std::max<std::size_t>(want, 1));
  if (got == want && want) {
    c.read(uk, 0, gk.data(), want * 4);
    c.read(us, 0, gs.data(), want * 4);
    for (std::size_t r = 0; r < want; ++r) bad += gk[r] != wk[r] || gs[r] != ws[r];
  }
  EXPECT_EQ(bad, 0u) << alg << " keys " << dtype_name(kt) << " " << describe(m, n);
  const std::size_t runs = run_length_encode(c, bk, kt, n, uk, us, opt);
  EXPECT_EQ(runs, want_runs) << alg << " rle runs " << dtype_name(kt) << " n=" << n;
  if (runs == want_runs && runs) {
    c.read(uk, 0, gk.data(), runs * 4);
    c.read(us, 0, gs.data(), runs * 4);
    std::size_t rle_bad = 0;
    for (std::size_t r = 0; r < runs; ++r) rle_bad += gk[r] != wv[r] || gs[r] != wc[r];
    EXPECT_EQ(rle_bad, 0u) << alg << " rle " << dtype_name(kt) << " n=" << n;
    bad += rle_bad;
  }
  return bad;
}

TEST(Select, ByKeyEveryTypeAndEdgeSize) {
  // Sizes around the tile (4,096) and 2^k +- 1; runs of 1 (every key a head), short runs, one long run.
  std::vector<std::size_t> ns = {0, 1, 2, 3, 4, 5, 255, 1023, 1024, 1025, 4095, 4096, 4097, 8191, 8193, 65537};
  int j = 0;
  for (dtype vt : {dtype::f32, dtype::i32, dtype::u32})
    for (std::size_t n : ns) {
      const dtype kt = static_cast<dtype>(j++ % 3);
      const op o = j % 3 == 0 ? op::max() : j % 3 == 1 ? op::min() : op::sum();
      check_by_key_once(ctx(), "decoupled", kt, vt, op::sum(), n, 100 + j, 20);
      check_by_key_once(ctx(), "decoupled", kt, vt, o, n, 200 + j, 1);
      check_by_key_once(ctx(), "decoupled", kt, vt, o, n, 300 + j, 100000);
    }
  check_by_key_once(ctx(), "tiles", dtype::u32, dtype::u32, op::sum(), 70001, 7, 20);
}

TEST(Select, ByKeyFallbackAndPastOneBinding) {
  struct stress_on {
    stress_on() { testing::set_lookback_stress(ctx(), true); testing::set_lookback_stress(small_binding_ctx(), true); }
    ~stress_on() { testing::set_lookback_stress(ctx(), false); testing::set_lookback_stress(small_binding_ctx(), false); }
  };
  {
    // Stress: with a spin limit of 1, every tile t % 3 == 2 reads its predecessor as NOT_READY and recomputes it
    // (tile/lookback.wgsl), whatever the scheduling: 17 tiles here, 5 fallbacks at least.
    stress_on on;
    EXPECT_EQ(check_by_key_once(ctx(), "decoupled", dtype::u32, dtype::f32, op::sum(), 65536 + 3, 40, 20), 0u);
    EXPECT_EQ(check_by_key_once(ctx(), "decoupled", dtype::f32, dtype::i32, op::max(), 65536 + 3, 41, 1), 0u);
    EXPECT_EQ(check_by_key_once(small_binding_ctx(), "decoupled", dtype::i32, dtype::u32, op::sum(), 700001, 50, 3),
              0u);
  }
  // Keys past one binding (chunks), runs past one binding (output windows), every run of length 1.
  EXPECT_EQ(check_by_key_once(small_binding_ctx(), "decoupled", dtype::u32, dtype::i32, op::max(), 700001, 51, 1), 0u);
}

// ---- run-length encoding, "heads" (unique's pass writing where runs start, then shaders/select/rle_heads.wgsl) ----

// RLE of keys in runs of 1..max_run with the named algorithm against the CPU twin: run count, values, lengths, and
// the algorithm that ran (stats). Returns the number of wrong runs.
std::size_t check_rle_once(context& c, const std::string& alg, dtype kt, std::size_t n, std::uint32_t seed,
                           std::uint32_t max_run, const std::string& ran) {
  const auto keys = by_key_keys(kt, n, seed, max_run);
  std::vector<std::uint32_t> wv(n), wc(n);
  const std::size_t want = reference::run_length_encode(keys.data(), kt, n, wv.data(), wc.data());
  buffer bk = c.create_buffer(std::max<std::size_t>(n, 1) * 4);
  buffer uv = c.create_buffer(std::max<std::size_t>(n, 1) * 4), uc = c.create_buffer(std::max<std::size_t>(n, 1) * 4);
  if (n) c.write(bk, 0, keys.data(), n * 4);
  run_options opt;
  opt.algorithm = alg;
  run_stats st;
  opt.stats = &st;
  const std::size_t runs = run_length_encode(c, bk, kt, n, uv, uc, opt);
  EXPECT_EQ(runs, want) << alg << " rle runs " << dtype_name(kt) << " n=" << n << " max_run=" << max_run;
  if (n) EXPECT_EQ(st.algorithm, ran) << "n=" << n;
  std::size_t bad = 0;
  if (runs == want && runs) {
    std::vector<std::uint32_t> gv(runs), gc(runs);
    c.read(uv, 0, gv.data(), runs * 4);
    c.read(uc, 0, gc.data(), runs * 4);
    for (std::size_t r = 0; r < runs; ++r) bad += gv[r] != wv[r] || gc[r] != wc[r];
  }
  EXPECT_EQ(bad, 0u) << alg << " rle " << dtype_name(kt) << " n=" << n << " max_run=" << max_run;
  return bad + (runs != want);
}

TEST(Select, RleHeadsEveryKeyTypeAndEdgeSize) {
  // Sizes around the select's tile (4,096 with 4 vec4 per invocation) and 2^k +- 1; runs of 1 (every key a head),
  // short runs, one long run; f32 keys with -0 beside +0 and NaNs (a NaN is a run of its own).
  std::vector<std::size_t> ns = {0, 1, 2, 3, 4, 5, 255, 1023, 1024, 1025, 4095, 4096, 4097, 8191, 8193, 65537};
  int j = 0;
  for (std::size_t n : ns)
    for (dtype kt : {dtype::f32, dtype::i32, dtype::u32}) {
      ++j;
      for (std::uint32_t max_run : {1u, 20u, 100000u})
        EXPECT_EQ(check_rle_once(ctx(), "heads", kt, n, 500 + j, max_run, "heads"), 0u);
    }
  // The default: the one pass up to 2^25 keys, heads above on GPUs (the one pass on CPU adapters).
  EXPECT_EQ(check_rle_once(ctx(), "", dtype::u32, 70001, 9, 20, "decoupled"), 0u);
  const bool gpu = ctx().adapter().kind != adapter_kind::cpu;
  EXPECT_STREQ(detail::pick_algorithm(ctx(), "run_length_encode", "", std::uint64_t(1) << 25).name, "decoupled");
  EXPECT_STREQ(detail::pick_algorithm(ctx(), "run_length_encode", "", (std::uint64_t(1) << 25) + 1).name,
               gpu ? "heads" : "decoupled");
}

TEST(Select, RleHeadsFallbackAndPastOneBinding) {
  {
    // Stress: unique's look-back falls back on every tile t % 3 == 2 (17 tiles here).
    testing::set_lookback_stress(ctx(), true);
    EXPECT_EQ(check_rle_once(ctx(), "heads", dtype::u32, 65536 + 3, 60, 20, "heads"), 0u);
    EXPECT_EQ(check_rle_once(ctx(), "heads", dtype::f32, 65536 + 3, 61, 1, "heads"), 0u);
    testing::set_lookback_stress(ctx(), false);
  }
  // Keys past one storage binding: the one by-key pass runs instead (and says so); within one, heads.
  EXPECT_EQ(check_rle_once(small_binding_ctx(), "heads", dtype::i32, 700001, 62, 3, "decoupled"), 0u);
  EXPECT_EQ(check_rle_once(small_binding_ctx(), "heads", dtype::u32, 60001, 63, 3, "heads"), 0u);
  // More runs than the second pass's grid has invocations (at most 4,096 workgroups of 256: 2^20), so its
  // grid-stride loop takes each invocation round more than once; every key a run, and runs of up to 3.
  EXPECT_EQ(check_rle_once(ctx(), "heads", dtype::u32, (std::size_t(1) << 21) + 4097, 64, 1, "heads"), 0u);
  EXPECT_EQ(check_rle_once(ctx(), "heads", dtype::i32, (std::size_t(1) << 21) + 4097, 65, 3, "heads"), 0u);
  // Outputs shorter than the runs: the call says so (nothing written past them).
  const std::size_t n = 5000;
  std::vector<std::uint32_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = std::uint32_t(i / 2);  // 2,500 runs
  device_vector<std::uint32_t> dk(ctx(), host_span<const std::uint32_t>(keys)), dv(ctx(), 1000), dc(ctx(), 1000);
  run_options opt;
  opt.algorithm = "heads";
  try {
    run_length_encode(ctx(), dk, dv, dc, opt);
    ADD_FAILURE() << "2,500 runs into outputs of 1,000 did not throw";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument) << e.what();
  }
}

TEST(Select, InPlaceIsHandled) {
  // in == out: the input is copied to a temporary first (WebGPU cannot bind one buffer read-only and writable
  // in one dispatch, and later tiles would overwrite elements earlier tiles still read).
  const std::size_t n = 10007;
  auto x = make_data(dtype::i32, n, 71);
  std::vector<std::uint32_t> want(n);
  bound_predicate bp(predicate::expr("a > 0"), dtype::i32);
  for (bool part : {false, true}) {
    const std::size_t k = part ? reference::partition(x.data(), n, bp, want.data()) : reference::select_if(x.data(), n, bp, want.data());
    device_vector<std::int32_t> v(ctx(), host_span<const std::int32_t>(reinterpret_cast<const std::int32_t*>(x.data()), n));
    const std::size_t got_k = part ? partition(ctx(), v.span(), v.span(), predicate::expr("a > 0"))
                                   : select_if(ctx(), v.span(), v.span(), predicate::expr("a > 0"));
    EXPECT_EQ(got_k, k);
    auto got = v.to_host();
    std::size_t bad = 0;
    for (std::size_t i = 0; i < (part ? n : k); ++i) bad += to_bits(got[i]) != want[i];
    EXPECT_EQ(bad, 0u) << (part ? "partition" : "select_if");
  }
}

TEST(Select, CountInTheInputsBuffer) {
  // The count's u32 in the buffer the pass reads (after the input, or after the flags): the pass, which writes the
  // count itself elsewhere, cannot bind one buffer read-only and writable, so the count is copied after it. Every
  // mode, a count at an unaligned offset, one tile and several.
  for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(4097), std::size_t(70001)}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    auto x = make_data(dtype::u32, n, 73);
    std::vector<std::uint32_t> f(n);
    for (std::size_t i = 0; i < n; ++i) f[i] = (x[i] >> 3) & 1u;
    std::vector<std::uint32_t> with_count = x, flags_with_count = f;
    with_count.push_back(0xdeadu);
    flags_with_count.push_back(0xdeadu);
    for (what w : {what::select_if, what::select_flagged, what::partition, what::partition_reversed, what::unique}) {
      SCOPED_TRACE(name_of(w));
      device_vector<std::uint32_t> buf(ctx(), with_count), fbuf(ctx(), flags_with_count), out(ctx(), n + 1);
      const auto in = buf.span().first(n);
      // select_flagged: the count after the flags; the others: after the input.
      const auto count = w == what::select_flagged ? fbuf.span().subspan(n, 1) : buf.span().subspan(n, 1);
      const auto pred = predicate::expr("(a & 1u) == 0u");
      run_options o;
      if (w == what::partition_reversed) o.rejected = rejected_order::reversed;
      switch (w) {
        case what::select_if: select_if(ctx(), in, out.span(), count, pred); break;
        case what::select_flagged: select_flagged(ctx(), in, fbuf.span().first(n), out.span(), count); break;
        case what::partition:
        case what::partition_reversed: partition(ctx(), in, out.span(), count, pred, o); break;
        case what::unique: unique(ctx(), in, out.span(), count); break;
      }
      const outcome want = run_cpu(w, dtype::u32, x, n, &f, "(a & 1u) == 0u");
      std::vector<std::uint32_t> got_count = (w == what::select_flagged ? fbuf : buf).to_host();
      EXPECT_EQ(got_count[n], want.kept);
      std::vector<std::uint32_t> got = out.to_host();
      got.resize(want.out.size());
      EXPECT_EQ(got, want.out);
    }
  }
}

TEST(Select, DeviceCountHostVectorsAndEncoder) {
  std::vector<std::uint32_t> h = {5, 150, 7, 101, 100, 9000, 3};
  const auto p = predicate::expr("a > 100");
  EXPECT_EQ(select_if(ctx(), h, p), (std::vector<std::uint32_t>{150, 101, 9000}));
  std::vector<std::uint32_t> part(h.size());
  EXPECT_EQ(partition(ctx(), h, part, p), 3u);
  EXPECT_EQ(part, (std::vector<std::uint32_t>{150, 101, 9000, 5, 7, 100, 3}));
  run_options reversed;
  reversed.rejected = rejected_order::reversed;  // cub::DevicePartition::If's order
  EXPECT_EQ(partition(ctx(), h, part, p, reversed), 3u);
  EXPECT_EQ(part, (std::vector<std::uint32_t>{150, 101, 9000, 3, 100, 7, 5}));
  EXPECT_EQ(unique(ctx(), std::vector<std::int32_t>{1, 1, 2, 2, 2, -3, 1, 1}), (std::vector<std::int32_t>{1, 2, -3, 1}));

  // Counts left on the device, at an element offset of a shared buffer; then several calls in one encoder.
  const std::vector<std::uint32_t> hf = {1, 0, 0, 1, 0, 0, 1};
  device_vector<std::uint32_t> in(ctx(), h), out(ctx(), h.size()), flags(ctx(), hf);
  device_vector<std::uint32_t> counts(ctx(), 8);
  select_if(ctx(), in.span(), out.span(), counts.span().subspan(1, 1), p);
  EXPECT_EQ(counts.to_host()[1], 3u);
  device_vector<std::uint32_t> out2(ctx(), h.size()), out3(ctx(), h.size());
  WGPUCommandEncoder enc = ctx().begin_commands();
  select_flagged(ctx(), enc, in.span(), flags.span(), out2.span(), counts.span().subspan(2, 1));
  unique(ctx(), enc, in.span(), out3.span(), counts.span().subspan(3, 1));
  partition(ctx(), enc, in.span(), out.span(), counts.span().subspan(4, 1), predicate::expr("a < 100"));
  device_vector<std::uint32_t> out4(ctx(), h.size());
  partition(ctx(), enc, in.span(), out4.span(), counts.span().subspan(5, 1), predicate::expr("a < 100"), reversed);
  ctx().submit(enc);
  auto c = counts.to_host();
  EXPECT_EQ(c[2], 3u);
  EXPECT_EQ(c[3], 7u);
  EXPECT_EQ(c[4], 3u);
  auto o2 = out2.to_host();
  EXPECT_EQ(std::vector<std::uint32_t>(o2.begin(), o2.begin() + 3), (std::vector<std::uint32_t>{5, 101, 3}));
  EXPECT_EQ(out.to_host(), (std::vector<std::uint32_t>{5, 7, 3, 150, 101, 100, 9000}));
  EXPECT_EQ(c[5], 3u);
  EXPECT_EQ(out4.to_host(), (std::vector<std::uint32_t>{5, 7, 3, 9000, 100, 101, 150}));
}

TEST(Select, PredicateFrontEnd) {
  // The CPU twin of the predicate language on values where WGSL's rules matter.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  bound_predicate ne(predicate::expr("a != 0.5"), dtype::f32), lt(predicate::expr("!(a < 0.0)"), dtype::f32);
  EXPECT_TRUE(ne(to_bits(nan)));
  EXPECT_FALSE(ne(to_bits(0.5f)));
  EXPECT_TRUE(lt(to_bits(nan)));
  EXPECT_NE(ne.wgsl_expression().find("wgprim_f32_ne"), std::string::npos);
  bound_predicate div(predicate::expr("a / 0 == a && a % 0 == 0"), dtype::i32);  // WGSL: x / 0 = x, x % 0 = 0
  EXPECT_TRUE(div(static_cast<std::uint32_t>(-7)));
  // A run-time shift count is taken modulo 32 (as on the GPU); a constant one of 32 or more is refused, as WGSL does.
  bound_predicate u(predicate::expr("(a >> ((a & 0u) + 33u)) == (a >> 1u)"), dtype::u32);
  EXPECT_TRUE(u(12345u));
  EXPECT_THROW(bound_predicate(predicate::expr("(a >> 33u) == (a >> 1u)"), dtype::u32), wgprim::error);
  // GPU and CPU agree on the same predicates.
  std::vector<std::uint32_t> x = {to_bits(nan), to_bits(0.5f), to_bits(-1.0f), to_bits(2.0f), to_bits(-0.0f)};
  check(ctx(), what::select_if, dtype::f32, x, x.size(), nullptr, "a != 0.5");
  std::vector<std::uint32_t> xi = {static_cast<std::uint32_t>(-7), 0, 5, 0x80000000u};
  check(ctx(), what::select_if, dtype::i32, xi, xi.size(), nullptr, "a / 0 == a && a != 5");
  for (const char* bad : {"a + 1.0", "a > b", "a >", "", "x > 0.0", "a > 0.0;", "a & 1.0 > 0.0"}) {
    try {
      bound_predicate(predicate::expr(bad), dtype::f32);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::invalid_argument);
      EXPECT_EQ(std::string(e.what()).rfind("predicate: ", 0), 0u) << e.what();
    }
  }
}

TEST(Select, RandomizedCasesInOneEncoder) {
  // A differential test for these primitives: random kind x type x size (skewed to tile edges) x data (random,
  // runs, constant, specials) x predicate, all recorded into one command encoder with the counts left on the
  // device, then every result checked against the CPU twin. WGPRIM_SELECT_CASES sets the number (default 200).
  const char* env = std::getenv("WGPRIM_SELECT_CASES");
  const std::size_t cases = env ? std::strtoull(env, nullptr, 10) : 200;
  std::mt19937_64 rng(20261129);
  static const std::size_t edges[] = {0, 1, 3, 4, 5, 1023, 1024, 1025, 4095, 4096, 4097, 8191, 8192, 8193, 12289};
  struct pending {
    what w;
    dtype t;
    std::string pred;
    std::vector<std::uint32_t> x, flags;
    buffer in, fl, out;
  };
  std::vector<pending> all;
  device_vector<std::uint32_t> counts(ctx(), std::max<std::size_t>(cases, 1));
  WGPUCommandEncoder enc = ctx().begin_commands();
  for (std::size_t k = 0; k < cases; ++k) {
    pending p;
    p.w = static_cast<what>(rng() % 5);
    p.t = static_cast<dtype>(rng() % 3);
    const std::size_t n = rng() % 2 ? edges[rng() % (sizeof edges / sizeof *edges)] : rng() % 20000;
    const int data = static_cast<int>(rng() % 4);
    p.x = data == 1 ? runs_data(p.t, n, static_cast<std::uint32_t>(rng())) : make_data(p.t, n, static_cast<std::uint32_t>(rng()));
    if (data == 2 && n) std::fill(p.x.begin(), p.x.end(), p.x[0]);
    if (data == 3 && p.t == dtype::f32)
      for (std::size_t i = 0; i < n; i += 1 + rng() % 5) p.x[i] = rng() % 2 ? 0x7fc00000u : rng() % 2 ? 0x80000000u : 0x7f800000u;
    p.flags.resize(n);
    for (auto& f : p.flags) f = rng() % 3 == 0 ? static_cast<std::uint32_t>(rng()) : 0u;
    auto preds = predicates_for(p.t);
    p.pred = preds[rng() % preds.size()];
    p.in = ctx().create_buffer(std::max<std::size_t>(n, 1) * 4);
    p.fl = ctx().create_buffer(std::max<std::size_t>(n, 1) * 4);
    p.out = ctx().create_buffer(std::max<std::size_t>(n, 1) * 4);
    if (n) {
      ctx().write(p.in, 0, p.x.data(), n * 4);
      ctx().write(p.fl, 0, p.flags.data(), n * 4);
    }
    with_type(p.t, [&](auto tag) {
      using T = decltype(tag);
      device_span<const T> din(p.in, 0, n);
      device_span<T> dout(p.out, 0, n);
      auto cnt = counts.span().subspan(k, 1);
      switch (p.w) {
        case what::select_if: select_if(ctx(), enc, din, dout, cnt, predicate::expr(p.pred)); break;
        case what::partition: partition(ctx(), enc, din, dout, cnt, predicate::expr(p.pred)); break;
        case what::partition_reversed: {
          run_options o;
          o.rejected = rejected_order::reversed;
          partition(ctx(), enc, din, dout, cnt, predicate::expr(p.pred), o);
          break;
        }
        case what::select_flagged:
          select_flagged(ctx(), enc, din, device_span<const std::uint32_t>(p.fl, 0, n), dout, cnt);
          break;
        case what::unique: unique(ctx(), enc, din, dout, cnt); break;
      }
    });
    all.push_back(std::move(p));
  }
  ctx().submit(enc);
  const auto got_counts = counts.to_host();
  std::size_t failures = 0;
  for (std::size_t k = 0; k < all.size(); ++k) {
    const pending& p = all[k];
    const std::size_t n = p.x.size();
    outcome want = run_cpu(p.w, p.t, p.x, n, &p.flags, p.pred);
    std::vector<std::uint32_t> got(want.out.size());
    if (!got.empty()) ctx().read(p.out, 0, got.data(), got.size() * 4);
    if (got_counts[k] != want.kept || got != want.out) {
      if (++failures <= 5)
        ADD_FAILURE() << "case " << k << ": " << name_of(p.w) << " " << dtype_name(p.t) << " '" << p.pred
                      << "' n=" << n << ": kept " << got_counts[k] << " want " << want.kept;
    }
  }
  EXPECT_EQ(failures, 0u);
}

TEST(Select, BadArgumentsAreOneLineErrors) {
  std::vector<float> x = {1, 2, 3}, out(3), small(2);
  auto code = [](auto f) {
    try {
      f();
    } catch (const error& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
      return e.code();
    }
    return errc{};
  };
  EXPECT_EQ(code([&] { select_if(ctx(), x, out, predicate::expr("a + 1.0")); }), errc::invalid_argument);
  EXPECT_EQ(code([&] { select_if(ctx(), x, out, predicate::expr("a > b")); }), errc::invalid_argument);
  EXPECT_EQ(code([&] { select_if(ctx(), x, small, predicate::expr("a > 1.0")); }), errc::invalid_argument);
  std::vector<std::uint32_t> f2(2);
  EXPECT_EQ(code([&] { select_flagged(ctx(), x, f2, out); }), errc::invalid_argument);
  EXPECT_EQ(code([&] { select_if(ctx(), x, out, predicate::expr("(a & 1.0) > 0.0")); }), errc::invalid_argument);
}

}  // namespace
}  // namespace wgprim::test
