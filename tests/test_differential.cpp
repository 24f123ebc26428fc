// Randomized differential test: random operator x type x algorithm x accuracy x size (skewed to the edges) x
// data (random, constant, sorted, extremes, NaN/Inf where allowed), every result against the CPU twin.
// Small reduce/scan cases are batched: a few hundred primitives are recorded into one command encoder and submitted
// once. Some of the cases (WGPRIM_DIFF_OTHER_PERCENT) are the other primitives (select_if, select_flagged,
// partition, unique, histogram even and by levels, segmented reduce/scan, reduce-by-key, run-length encoding,
// transform-reduce, arg-min/arg-max), each run through its runtime-typed or host-range call; integers compare
// exactly, f32 sums within Higham's bound, f32 min/max and everything that only moves or counts values bit for bit
// (NaN == NaN).
//   WGPRIM_DIFF_CASES  number of cases (default 10,000 under make check; `make soak` runs more; the H200 run used 100,000)
//   WGPRIM_DIFF_NATIVE_CASES  cases of the native backend's test (default WGPRIM_DIFF_CASES / 20)
//   WGPRIM_DIFF_SEED   seed (default fixed); a failure prints the seed, the case and the command that replays it.
//   WGPRIM_DIFF_ONLY   run only this case index (the replay)
//   WGPRIM_DIFF_OTHER_PERCENT  share of the cases that are not reduce/scan (default 6; part of the replay)

#include <array>
#include <cinttypes>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>

#include "common.hpp"

namespace wgprim::test {
namespace {

std::uint64_t env_u64(const char* name, std::uint64_t dflt) {
  const char* v = std::getenv(name);
  return v ? std::strtoull(v, nullptr, 10) : dflt;
}

enum class prim {
  reduce, inclusive, exclusive,
  sort_keys, sort_pairs,  // recorded into the batch like reduce and scan
  // the primitives run one call each (run_other); add new kinds before `end_of_kinds`
  select_if, select_flagged, partition, unique, histogram_even, histogram_range, segmented_reduce, segmented_scan,
  reduce_by_key, rle, transform_reduce, arg_min, arg_max,
  end_of_kinds
};
constexpr int first_other = static_cast<int>(prim::select_if);
constexpr int other_kinds = static_cast<int>(prim::end_of_kinds) - first_other;
// Percentage of the cases that are other_kinds (WGPRIM_DIFF_OTHER_PERCENT, default 6): each costs a few
// submissions and waits (the reduce/scan cases share one per batch), ~8x a reduce/scan case on lavapipe, so 6% keeps
// the default 10,000 cases near their former time; the soak raises it.
std::uint64_t other_percent() {
  static const std::uint64_t p = [] {
    const char* v = std::getenv("WGPRIM_DIFF_OTHER_PERCENT");
    return v ? std::min<std::uint64_t>(std::strtoull(v, nullptr, 10), 100) : 6;
  }();
  return p;
}

const char* prim_name(prim p) {
  static const char* const names[] = {"reduce", "inclusive_scan", "exclusive_scan", "sort", "sort_pairs",
                                      "select_if", "select_flagged", "partition", "unique", "histogram_even",
                                      "histogram_range", "segmented_reduce", "segmented_scan", "reduce_by_key",
                                      "run_length_encode", "transform_reduce", "arg_min", "arg_max"};
  static_assert(sizeof names / sizeof *names == static_cast<int>(prim::end_of_kinds), "a name per kind");
  return names[static_cast<int>(p)];
}

struct diff_case {
  std::uint64_t index;
  prim p;
  dtype t;
  op o = op::sum();
  std::string algorithm;
  accuracy acc = accuracy::fast;
  int staged = -1;          // decoupled scans: tuning::staged (-1 the policy's direct tile, 2 the raked tile)
  bool descending = false;  // sorts
  std::vector<std::uint32_t> x;
  bool sorts() const { return p == prim::sort_keys || p == prim::sort_pairs; }
  // the other kinds: predicate / transform text, a second array (flags, offsets, levels, keys) and its type,
  // even bins
  std::string expr;
  std::vector<std::uint32_t> y;
  dtype y_type = dtype::u32;
  std::size_t bins = 0;
  double lo = 0, hi = 0;
  bool exclusive = false;
  std::string describe() const {
    if (sorts())
      return std::string(prim_name(p)) + " " + dtype_name(t) + (descending ? " descending" : " ascending") +
             " alg=" + algorithm + " n=" + std::to_string(x.size());
    std::string d = std::string(prim_name(p)) + " " + dtype_name(t) + " " +
                    (o.is_custom() ? "'" + o.expression() + "'" : o.name()) + " alg=" + algorithm +
                    " accuracy=" + accuracy_name(acc) + " n=" + std::to_string(x.size());
    if (staged != -1) d += " staged=" + std::to_string(staged);
    if (!expr.empty()) d += " expr='" + expr + "'";
    if (p >= prim::select_if) d += " second=" + std::to_string(y.size()) + " " + dtype_name(y_type);
    if (p == prim::segmented_scan) d += exclusive ? " exclusive" : " inclusive";
    if (p == prim::histogram_even) d += " bins=" + std::to_string(bins) + " range=" + std::to_string(lo) + ":" + std::to_string(hi);
    return d;
  }
};

std::size_t pick_size(std::mt19937_64& rng) {
  static const std::size_t edges[] = {0,    1,    2,    3,    4,    5,    7,     8,     63,    64,    65,
                                      255,  256,  257,  511,  512,  1023,  1024,  1025,  4095,  4096,  4097,
                                      8191, 8192, 8193, 16383, 16384, 16385, 65535, 65536, 65537};
  std::uint64_t r = rng() % 100;
  if (r < 45) return edges[rng() % (sizeof edges / sizeof *edges)];
  if (r < 75) return rng() % 300;
  if (r < 95) return rng() % 5000;
  return rng() % 70000;
}

double value_of(dtype t, std::uint32_t b) {
  if (t == dtype::f32) return from_bits<float>(b);
  if (t == dtype::i32) return static_cast<std::int32_t>(b);
  return b;
}

// Runs of equal neighbours (what unique, reduce-by-key and run-length encoding work on); f32 keys get -0/+0 and
// NaN (equal / unequal to everything) among them.
void make_runs(std::vector<std::uint32_t>& v, dtype t, std::mt19937_64& rng) {
  for (std::size_t i = 1; i < v.size(); ++i)
    if (rng() % 3) v[i] = v[i - 1];
  if (t == dtype::f32)
    for (std::size_t k = 0; k < v.size() / 16; ++k)
      v[rng() % v.size()] = std::array<std::uint32_t, 3>{0u, 0x80000000u, 0x7fc00000u}[rng() % 3];
}

// The second array, expression and parameters of the other kinds.
void complete_other(diff_case& c, std::mt19937_64& rng, int kind) {
  static const std::vector<std::string> preds[] = {
      {"a > 0.0", "a < -50.0 || a > 50.0", "a != a", "a == 0.0", "abs(a) <= 10.0"},          // f32
      {"a > 0", "a % 3 == 0", "(a & 1) == 1", "a / -7 < 1000", "a < -1000000 || a == 0"},     // i32
      {"a > 2147483648u", "(a & 7u) == 0u", "a % 5u != 1u", "a < 100u", "a == 4294967295u"}};  // u32
  static const std::vector<std::string> transforms[] = {
      {"a * a", "abs(a)", "a * 0.5", "select(0.0, 1.0, a > 0.0)", "-a"},
      {"abs(a)", "a / 7", "a % 5", "f32(a)", "u32(a) >> 3u", "a * a"},
      {"a & 255u", "a / 3u", "select(0u, 1u, a > 10u)", "f32(a & 65535u)", "a * 3u", "i32(a) % -9"}};
  const std::size_t n = c.x.size();
  const int ti = static_cast<int>(c.t);
  switch (c.p) {
    case prim::select_if:
    case prim::partition:
      c.expr = preds[ti][rng() % preds[ti].size()];
      break;
    case prim::select_flagged: {
      c.y_type = rng() % 2 ? dtype::u32 : dtype::i32;
      const int fk = static_cast<int>(rng() % 4);  // 0/1, any bits (nonzero keeps), all kept, none kept
      c.y.resize(n);
      for (auto& f : c.y) {
        const std::uint32_t r = static_cast<std::uint32_t>(rng());
        f = fk == 0 ? r & 1 : fk == 1 ? r & (r & 2 ? 0x80000000u : 0xffu) : fk == 2 ? 1u : 0u;
      }
      break;
    }
    case prim::unique:
    case prim::rle:
      make_runs(c.x, c.t, rng);
      break;
    case prim::reduce_by_key:
      c.y_type = static_cast<dtype>(rng() % 3);
      c.y.resize(n);
      for (auto& k : c.y) k = c.y_type == dtype::f32 ? to_bits(static_cast<float>(rng() % 5)) : static_cast<std::uint32_t>(rng() % 4);
      make_runs(c.y, c.y_type, rng);
      break;
    case prim::histogram_even:
      c.bins = rng() % 8 ? 1 + rng() % 300 : 1 + rng() % 4096;
      if (c.t == dtype::f32) {
        c.lo = -static_cast<double>(rng() % 150) - (rng() % 4) * 0.25;
        c.hi = c.lo + 1 + static_cast<double>(rng() % 250) + (rng() % 2) * 0.5;
      } else if (n && rng() % 2) {  // the range between two of the data's values (NumPy widens an empty one)
        c.lo = value_of(c.t, c.x[rng() % n]);
        c.hi = value_of(c.t, c.x[rng() % n]);
        if (c.lo > c.hi) std::swap(c.lo, c.hi);
      } else {
        c.lo = value_of(c.t, static_cast<std::uint32_t>(rng())) - 0.5;
        c.hi = c.lo + static_cast<double>(rng() % 5000000000ull) + 0.25;
      }
      break;
    case prim::histogram_range: {
      c.y_type = c.t;
      c.y.resize(2 + rng() % 64);
      std::vector<double> lv;
      for (std::size_t i = 0; i < c.y.size(); ++i) {
        if (i && rng() % 8 == 0) lv.push_back(lv.back());  // an empty bin
        else if (c.t == dtype::f32) lv.push_back(std::uniform_real_distribution<float>(-120.0f, 120.0f)(rng));
        else lv.push_back(value_of(c.t, n && rng() % 2 ? c.x[rng() % n] : static_cast<std::uint32_t>(rng())));
      }
      std::sort(lv.begin(), lv.end());
      for (std::size_t i = 0; i < lv.size(); ++i)
        c.y[i] = c.t == dtype::f32 ? to_bits(static_cast<float>(lv[i]))
                 : c.t == dtype::i32 ? static_cast<std::uint32_t>(static_cast<std::int32_t>(lv[i]))
                                     : static_cast<std::uint32_t>(lv[i]);
      break;
    }
    case prim::segmented_reduce:
    case prim::segmented_scan: {
      c.exclusive = rng() % 2;
      const std::size_t segs = rng() % 8 == 0 ? 0 : 1 + rng() % (rng() % 2 ? 5 : 200);
      c.y.resize(segs + 1);
      for (auto& o : c.y) o = static_cast<std::uint32_t>(rng() % (n + 1));
      std::sort(c.y.begin(), c.y.end());
      if (rng() % 2) {  // the usual CSR form: from 0 to n
        c.y.front() = 0;
        c.y.back() = static_cast<std::uint32_t>(n);
      }
      break;
    }
    case prim::transform_reduce: {
      c.expr = transforms[ti][rng() % transforms[ti].size()];
      static const op ops[] = {op::sum(), op::min(), op::max()};
      c.o = ops[rng() % 3];
      if (c.t == dtype::f32)  // partial sums of +-max overflow in some bracketings only
        for (auto& v : c.x)
          if (std::fabs(from_bits<float>(v)) > 1e30f) v = to_bits(std::copysign(1e30f, from_bits<float>(v)));
      break;
    }
    default:
      break;
  }
  (void)kind;
}

diff_case make_case(std::uint64_t seed, std::uint64_t index) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + index);
  diff_case c;
  c.index = index;
  if (rng() % 100 < other_percent()) {
    c.p = static_cast<prim>(first_other + rng() % other_kinds);
  } else {  // one case in twenty of the rest is a sort (keys or pairs; a sort records more passes)
    const std::uint64_t r = rng() % 40;
    c.p = r < 38 ? static_cast<prim>(r % 3) : r == 38 ? prim::sort_keys : prim::sort_pairs;
  }
  c.t = static_cast<dtype>(rng() % 3);
  auto ops = ops_for(c.t);
  c.o = ops[rng() % ops.size()];
  if (c.p < prim::select_if) {
    auto algs = c.p == prim::reduce ? reduce_algorithms() : c.sorts() ? algorithms("sort") : scan_algorithms();
    c.algorithm = algs[rng() % algs.size()];
  }
  // Half the decoupled scans take the raked tile layout; drawn from a stream of its own, so that the other draws
  // (and every earlier seed's cases) stay as they were.
  if ((c.p == prim::inclusive || c.p == prim::exclusive) && c.algorithm == "decoupled")
    c.staged = std::mt19937_64(seed * 0xD1B54A32D192ED03ull + index)() % 2 ? 2 : -1;
  if (c.sorts()) c.descending = rng() % 2;
  const bool f32_sum = c.t == dtype::f32 && c.o.name() == "sum";
  if (f32_sum && !c.sorts() && rng() % 50 == 0) c.acc = rng() % 2 ? accuracy::compensated : accuracy::reproducible;
  std::size_t n = pick_size(rng);
  c.x.resize(n);
  int kind = static_cast<int>(rng() % 5);  // random, constant, sorted, extremes, special floats
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t v;
    if (c.t == dtype::f32) v = to_bits(std::uniform_real_distribution<float>(-100.0f, 100.0f)(rng));
    else v = static_cast<std::uint32_t>(rng());
    c.x[i] = v;
  }
  if (kind == 1 && n) std::fill(c.x.begin(), c.x.end(), c.x[0]);
  if (kind == 2) {
    if (c.t == dtype::f32) std::sort(c.x.begin(), c.x.end(), [](auto a, auto b) { return from_bits<float>(a) < from_bits<float>(b); });
    else if (c.t == dtype::i32) std::sort(c.x.begin(), c.x.end(), [](auto a, auto b) { return static_cast<std::int32_t>(a) < static_cast<std::int32_t>(b); });
    else std::sort(c.x.begin(), c.x.end());
  }
  if (kind == 3) {  // the type's extremes sprinkled in (f32: large finite values only where the sum stays finite)
    for (std::size_t i = 0; i < n; i += 1 + rng() % 7) {
      if (c.t == dtype::f32) c.x[i] = to_bits((rng() & 1 ? 1.0f : -1.0f) * (f32_sum ? 1e30f : std::numeric_limits<float>::max()));
      else if (c.t == dtype::i32) c.x[i] = rng() & 1 ? 0x7fffffffu : 0x80000000u;
      else c.x[i] = rng() & 1 ? 0xffffffffu : 0u;
    }
  }
  if (kind == 4 && c.t == dtype::f32 && n && c.o.name() != "custom") {  // NaN / Inf for sums and min / max
    const float specials[] = {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                              std::numeric_limits<float>::quiet_NaN()};
    for (int k = 0; k < 2; ++k) c.x[rng() % n] = to_bits(specials[rng() % 3]);
  }
  if (c.p >= prim::select_if) complete_other(c, rng, kind);
  return c;
}

bool same_float(float got, float want) {
  if (std::isnan(want)) return std::isnan(got);
  return got == want;
}

// Compares one result against the CPU twin; returns an empty string when it matches. `native`: the native CPU
// backend's fast f32 scan has 2 more additions in its longest chain (src/native/scan.cpp).
std::string compare(const diff_case& c, const monoid& m, const std::vector<std::uint32_t>& got, bool native = false) {
  const std::size_t n = c.x.size();
  const bool f32_sum = c.t == dtype::f32 && m.is_sum();
  auto fail = [&](std::size_t i, std::uint32_t g, double w) {
    return "i=" + std::to_string(i) + " got " + format_bits(c.t, g) + " want " + std::to_string(w);
  };
  if (c.sorts()) {  // got: the keys, then (pairs) the values, which started as the input indices
    std::vector<std::uint32_t> want = c.x, want_v(n);
    for (std::size_t i = 0; i < n; ++i) want_v[i] = static_cast<std::uint32_t>(i);
    reference::stable_sort(want.data(), n, c.t, c.descending, c.p == prim::sort_pairs ? want_v.data() : nullptr);
    for (std::size_t i = 0; i < n; ++i) {
      if (got[i] != want[i]) return "i=" + std::to_string(i) + " key " + format_bits(c.t, got[i]) + " want " + format_bits(c.t, want[i]);
      if (c.p == prim::sort_pairs && got[n + i] != want_v[i])
        return "i=" + std::to_string(i) + " value " + std::to_string(got[n + i]) + " want " + std::to_string(want_v[i]);
    }
    return "";
  }
  if (c.p == prim::reduce) {
    if (f32_sum) {
      const float* f = reinterpret_cast<const float*>(c.x.data());
      double exact = reference::exact_sum_f32(f, n);
      float g = from_bits<float>(got[0]);
      if (!std::isfinite(exact)) return same_float(g, static_cast<float>(exact)) ? "" : fail(0, got[0], exact);
      double bound = f32_sum_bound(std::ceil(n / 8192.0) + 64, reference::abs_sum_f32(f, n));
      // compensated / reproducible: one rounding of the result, plus double-word errors (~u^2 sum|x| per level)
      if (c.acc != accuracy::fast)
        bound = std::fabs(exact) * std::ldexp(1.0, -24) + reference::abs_sum_f32(f, n) * std::ldexp(1.0, -40);
      return std::fabs(g - exact) <= bound ? "" : fail(0, got[0], exact);
    }
    std::uint32_t want = reference::reduce(c.x.data(), n, m);
    if (c.t == dtype::f32) return same_float(from_bits<float>(got[0]), from_bits<float>(want)) ? "" : fail(0, got[0], from_bits<float>(want));
    return got[0] == want ? "" : fail(0, got[0], want);
  }
  std::vector<std::uint32_t> want(n);
  if (c.p == prim::inclusive) reference::inclusive_scan(c.x.data(), n, want.data(), m);
  else reference::exclusive_scan(c.x.data(), n, want.data(), m);
  long double exact = 0, abs_sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (f32_sum) {
      long double e0 = exact, a0 = abs_sum;
      double xi = from_bits<float>(c.x[i]);
      exact += xi;
      abs_sum += std::fabs(xi);
      long double w = c.p == prim::inclusive ? exact : e0, a = c.p == prim::inclusive ? abs_sum : a0;
      float g = from_bits<float>(got[i]);
      if (!std::isfinite(static_cast<double>(w))) {
        // once a NaN/Inf entered the prefix, IEEE decides: the exact prefix is then NaN or the same infinity
        if (!same_float(g, static_cast<float>(w))) return fail(i, got[i], static_cast<double>(w));
        continue;
      }
      double bound = f32_sum_bound(64 + (native ? 2 : 0) + std::ceil(n / 1024.0), static_cast<double>(a));
      if (!(std::fabs(g - static_cast<double>(w)) <= bound)) return fail(i, got[i], static_cast<double>(w));
    } else if (c.t == dtype::f32) {
      if (!same_float(from_bits<float>(got[i]), from_bits<float>(want[i]))) return fail(i, got[i], from_bits<float>(want[i]));
    } else if (got[i] != want[i]) {
      return fail(i, got[i], want[i]);
    }
  }
  return "";
}

// ---- the other kinds: one call each, against their twins ----

std::string bits_differ(dtype t, const std::vector<std::uint32_t>& got, const std::vector<std::uint32_t>& want,
                        std::size_t count, const char* what) {
  for (std::size_t i = 0; i < count; ++i)
    if (got[i] != want[i])
      return std::string(what) + "[" + std::to_string(i) + "] got " + format_bits(t, got[i]) + " want " + format_bits(t, want[i]);
  return "";
}

// Results of a monoid over groups: exact for integers and f32 min/max/custom, f32 sums within Higham's bound with
// the chain of the tiled algorithms (96 + len / 1,024, as the segmented tests), NaN/Inf as IEEE decides.
std::string groups_differ(const monoid& m, const std::vector<std::uint32_t>& got, const std::vector<std::uint32_t>& want,
                          const std::vector<long double>& exact, const std::vector<long double>& abs_sum,
                          const std::vector<std::size_t>& len, const char* what) {
  for (std::size_t i = 0; i < want.size(); ++i) {
    bool ok;
    if (m.type() == dtype::f32 && m.is_sum()) {
      const float g = from_bits<float>(got[i]);
      const double w = static_cast<double>(exact[i]);
      ok = std::isfinite(w) ? std::fabs(g - w) <= f32_sum_bound(96 + std::ceil(len[i] / 1024.0), static_cast<double>(abs_sum[i]))
                            : same_float(g, static_cast<float>(w));
    } else if (m.type() == dtype::f32) {
      ok = same_float(from_bits<float>(got[i]), from_bits<float>(want[i]));
    } else {
      ok = got[i] == want[i];
    }
    if (!ok)
      return std::string(what) + "[" + std::to_string(i) + "] got " + format_bits(m.type(), got[i]) + " want " +
             format_bits(m.type(), want[i]);
  }
  return "";
}

buffer upload(context& ctx, const std::vector<std::uint32_t>& v) {
  buffer b = ctx.create_buffer(std::max<std::size_t>(v.size(), 1) * 4);
  if (!v.empty()) ctx.write(b, 0, v.data(), v.size() * 4);
  return b;
}

std::vector<std::uint32_t> download(context& ctx, const buffer& b, std::size_t n) {
  std::vector<std::uint32_t> v(n);
  if (n) ctx.read(b, 0, v.data(), n * 4);
  return v;
}

std::string run_other(context& ctx, const diff_case& c) {
  const std::size_t n = c.x.size();
  const std::uint32_t* x = c.x.data();
  switch (c.p) {
    case prim::select_if:
    case prim::partition:
    case prim::select_flagged:
    case prim::unique: {
      std::vector<std::uint32_t> got(n), want(n);
      std::size_t got_count = 0, want_count = 0;
      const predicate pr = predicate::expr(c.expr);
      with_type(c.t, [&](auto tag) {
        using T = decltype(tag);
        host_span<const T> in(reinterpret_cast<const T*>(x), n);
        host_span<T> out(reinterpret_cast<T*>(got.data()), n);
        if (c.p == prim::select_if) got_count = select_if(ctx, in, out, pr);
        else if (c.p == prim::partition) got_count = partition(ctx, in, out, pr);
        else if (c.p == prim::unique) got_count = unique(ctx, in, out);
        else got_count = select_flagged(ctx, in, host_span<const std::uint32_t>(c.y.data(), n), out);
      });
      if (c.p == prim::select_if) want_count = reference::select_if(x, n, bound_predicate(pr, c.t), want.data());
      else if (c.p == prim::partition) want_count = reference::partition(x, n, bound_predicate(pr, c.t), want.data());
      else if (c.p == prim::unique) want_count = reference::unique(x, n, c.t, want.data());
      else want_count = reference::select_flagged(x, c.y.data(), n, want.data());
      if (got_count != want_count)
        return "count " + std::to_string(got_count) + " want " + std::to_string(want_count);
      return bits_differ(c.t, got, want, c.p == prim::partition ? n : want_count, "out");
    }
    case prim::histogram_even:
    case prim::histogram_range: {
      buffer in = upload(ctx, c.x);
      std::vector<double> edges;
      std::size_t bins;
      if (c.p == prim::histogram_even) {
        bins = c.bins;
        edges = reference::histogram_edges(bins, c.lo, c.hi);
      } else {
        bins = c.y.size() - 1;
        for (auto l : c.y) edges.push_back(value_of(c.t, l));
      }
      buffer counts = ctx.create_buffer(bins * 4);
      if (c.p == prim::histogram_even) histogram_even(ctx, in, n, c.t, counts, bins, c.lo, c.hi);
      else histogram_range(ctx, in, n, c.t, counts, upload(ctx, c.y), c.y.size());
      std::vector<std::uint32_t> want(bins);
      reference::histogram(x, n, c.t, edges, want.data());
      return bits_differ(dtype::u32, download(ctx, counts, bins), want, bins, "counts");
    }
    case prim::segmented_reduce:
    case prim::segmented_scan: {
      const monoid m(c.o, c.t);
      const std::size_t segs = c.y.size() - 1, out_n = c.p == prim::segmented_scan ? n : segs;
      buffer in = upload(ctx, c.x), off = upload(ctx, c.y), out = ctx.create_buffer(std::max<std::size_t>(out_n, 1) * 4);
      std::vector<std::uint32_t> want(out_n);
      // exact f32 sums of every group (a segment; for the scan every prefix within its group)
      std::vector<long double> exact(out_n), abs_sum(out_n);
      std::vector<std::size_t> len(out_n);
      if (c.p == prim::segmented_reduce) {
        segmented_reduce(ctx, in, n, off, segs, out, m);
        reference::segmented_reduce(x, c.y.data(), segs, want.data(), m);
        for (std::size_t s = 0; s < segs; ++s)
          for (std::uint32_t i = c.y[s]; i < c.y[s + 1]; ++i) {
            exact[s] += from_bits<float>(x[i]);
            abs_sum[s] += std::fabs(from_bits<float>(x[i]));
            ++len[s];
          }
      } else {
        segmented_scan(ctx, in, n, off, segs, out, m, c.exclusive ? scan_kind::exclusive : scan_kind::inclusive);
        reference::segmented_scan(x, n, c.y.data(), segs, want.data(), m, c.exclusive);
        std::vector<bool> head(n + 1, false);
        for (auto o : c.y) head[o] = true;
        long double e = 0, a = 0;
        std::size_t l = 0;
        for (std::size_t i = 0; i < n; ++i) {
          if (head[i]) e = a = 0, l = 0;
          const double v = from_bits<float>(x[i]);
          if (!c.exclusive) e += v, a += std::fabs(v), ++l;
          exact[i] = e, abs_sum[i] = a, len[i] = l;
          if (c.exclusive) e += v, a += std::fabs(v), ++l;
        }
      }
      return groups_differ(m, download(ctx, out, out_n), want, exact, abs_sum, len, "out");
    }
    case prim::reduce_by_key:
    case prim::rle: {
      const std::vector<std::uint32_t>& keys = c.p == prim::rle ? c.x : c.y;
      const dtype kt = c.p == prim::rle ? c.t : c.y_type;
      buffer k = upload(ctx, keys), uk = ctx.create_buffer(std::max<std::size_t>(n, 1) * 4),
             sums = ctx.create_buffer(std::max<std::size_t>(n, 1) * 4);
      std::vector<std::uint32_t> want_keys(n), want_sums(n);
      if (c.p == prim::rle) {
        const std::size_t runs = run_length_encode(ctx, k, kt, n, uk, sums);
        const std::size_t want_runs = reference::run_length_encode(x, kt, n, want_keys.data(), want_sums.data());
        if (runs != want_runs) return "runs " + std::to_string(runs) + " want " + std::to_string(want_runs);
        auto why = bits_differ(kt, download(ctx, uk, runs), want_keys, runs, "values");
        return why.empty() ? bits_differ(dtype::u32, download(ctx, sums, runs), want_sums, runs, "counts") : why;
      }
      const monoid m(c.o, c.t);
      const std::size_t runs = reduce_by_key(ctx, k, kt, upload(ctx, c.x), n, uk, sums, m);
      const std::size_t want_runs = reference::reduce_by_key(keys.data(), kt, x, n, want_keys.data(), want_sums.data(), m);
      if (runs != want_runs) return "runs " + std::to_string(runs) + " want " + std::to_string(want_runs);
      want_sums.resize(runs);
      std::vector<long double> exact, abs_sum;
      std::vector<std::size_t> len;
      for (std::size_t i = 0; i < n; ++i) {
        if (i == 0 || !reference::keys_equal(kt, keys[i - 1], keys[i])) exact.push_back(0), abs_sum.push_back(0), len.push_back(0);
        exact.back() += from_bits<float>(x[i]);
        abs_sum.back() += std::fabs(from_bits<float>(x[i]));
        ++len.back();
      }
      auto why = bits_differ(kt, download(ctx, uk, runs), want_keys, runs, "keys");
      return why.empty() ? groups_differ(m, download(ctx, sums, runs), want_sums, exact, abs_sum, len, "sums") : why;
    }
    case prim::transform_reduce: {
      const bound_transform bt(transform::expr(c.expr), c.t);
      const monoid m(c.o, bt.result_type());
      buffer in = upload(ctx, c.x);
      const std::uint32_t got = transform_reduce_bits(ctx, in, n, c.t, transform::expr(c.expr), c.o);
      const std::uint32_t want = reference::transform_reduce(x, n, bt, m);
      long double e = 0, a = 0;
      if (m.type() == dtype::f32)
        for (std::size_t i = 0; i < n; ++i) {
          const double v = from_bits<float>(bt.apply(x[i]));
          e += v, a += std::fabs(v);
        }
      return groups_differ(m, {got}, {want}, {e}, {a}, {n}, "result");
    }
    case prim::arg_min:
    case prim::arg_max: {
      const arg_op ao = c.p == prim::arg_min ? arg_op::min : arg_op::max;
      buffer in = upload(ctx, c.x);
      if (n == 0) {
        try {
          arg_reduce_bits(ctx, in, 0, c.t, ao);
        } catch (const error&) {
          return "";
        }
        return "no error for an empty range";
      }
      const auto got = arg_reduce_bits(ctx, in, n, c.t, ao);
      const auto want = reference::arg_reduce(x, n, c.t, ao);
      if (got.index != want.index || got.value != want.value)
        return "got [" + std::to_string(got.index) + "] " + format_bits(c.t, got.value) + " want [" +
               std::to_string(want.index) + "] " + format_bits(c.t, want.value);
      return "";
    }
    default:
      return "unknown kind";
  }
}

// Runs cases [first, last): fast-accuracy cases batched into one encoder, the others one by one.
std::size_t run_batch(context& ctx, std::uint64_t seed, std::uint64_t first, std::uint64_t last) {
  std::vector<diff_case> cases;
  for (std::uint64_t i = first; i < last; ++i) cases.push_back(make_case(seed, i));
  struct pending {
    const diff_case* c;
    monoid m;
    buffer in, out;
    std::uint64_t read_offset;  // into the batch's readback buffer, bytes
    buffer vals_out;            // sort_pairs: the values (read back after the keys)
  };
  std::vector<pending> batch;
  std::uint64_t read_bytes = 0;
  std::size_t failures = 0;
  auto report = [&](const diff_case& c, const std::string& why) {
    ++failures;
    std::cout << "MISMATCH seed=" << seed << " case=" << c.index << ": " << c.describe() << ": " << why
              << "\n  replay: WGPRIM_DIFF_SEED=" << seed << " WGPRIM_DIFF_ONLY=" << c.index
              << " WGPRIM_DIFF_OTHER_PERCENT=" << other_percent() << " build/wgprim_tests --gtest_filter=Differential.*\n";
  };
  WGPUCommandEncoder enc = ctx.begin_commands();
  buffer results = ctx.create_buffer(cases.size() * 4);
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const diff_case& c = cases[k];
    monoid m(c.o, c.t);
    if (c.p >= prim::select_if) {
      std::string why;
      try {
        why = run_other(ctx, c);
      } catch (const error& e) {
        why = std::string("error: ") + e.what();
      }
      if (!why.empty()) report(c, why);
      continue;
    }
    run_options o;
    o.algorithm = c.algorithm;
    o.accuracy = c.acc;
    o.tune.staged = c.staged;
    const std::size_t n = c.x.size();
    if (c.acc != accuracy::fast) {  // the host path (accuracy modes are not recorded into a caller's encoder)
      std::vector<std::uint32_t> got(std::max<std::size_t>(n, 1));
      if (c.p == prim::reduce) {
        buffer in = ctx.create_buffer(n * 4);
        if (n) ctx.write(in, 0, c.x.data(), n * 4);
        got[0] = reduce_bits(ctx, in, n, m, o);
      } else if (n) {
        scan(ctx, host_span<const float>(reinterpret_cast<const float*>(c.x.data()), n),
             host_span<float>(reinterpret_cast<float*>(got.data()), n),
             c.p == prim::inclusive ? scan_kind::inclusive : scan_kind::exclusive, c.o, o);
      }
      auto why = compare(c, m, got);
      if (!why.empty()) report(c, why);
      continue;
    }
    pending p{&c, m, ctx.create_buffer(n * 4), buffer(), 0, buffer()};
    if (n) ctx.write(p.in, 0, c.x.data(), n * 4);
    if (c.sorts()) {
      const order ord = c.descending ? order::descending : order::ascending;
      p.out = ctx.create_buffer(n * 4);
      with_type(c.t, [&](auto tag) {
        using T = decltype(tag);
        const device_span<const T> ki(p.in, 0, n);
        const device_span<T> ko(p.out, 0, n);
        if (c.p == prim::sort_keys) {
          sort(ctx, enc, ki, ko, ord, o);
          return;
        }
        std::vector<std::uint32_t> idx(n);
        for (std::size_t i = 0; i < n; ++i) idx[i] = static_cast<std::uint32_t>(i);
        buffer vi = ctx.create_buffer(n * 4);
        if (n) ctx.write(vi, 0, idx.data(), n * 4);
        p.vals_out = ctx.create_buffer(n * 4);
        sort_pairs(ctx, enc, ki, device_span<const std::uint32_t>(vi, 0, n), ko,
                   device_span<std::uint32_t>(p.vals_out, 0, n), ord, o);
      });
      p.read_offset = read_bytes;
      read_bytes += n * 4 * (c.p == prim::sort_pairs ? 2 : 1);
    } else if (c.p == prim::reduce) {
      with_type(c.t, [&](auto tag) {
        using T = decltype(tag);
        reduce(ctx, enc, device_span<const T>(p.in, 0, n), device_span<T>(results, k, 1), c.o, o);
      });
    } else if (n) {
      p.out = ctx.create_buffer(n * 4);
      with_type(c.t, [&](auto tag) {
        using T = decltype(tag);
        if (c.p == prim::inclusive)
          inclusive_scan(ctx, enc, device_span<const T>(p.in, 0, n), device_span<T>(p.out, 0, n), c.o, o);
        else
          exclusive_scan(ctx, enc, device_span<const T>(p.in, 0, n), device_span<T>(p.out, 0, n), c.o, o);
      });
      p.read_offset = read_bytes;
      read_bytes += n * 4;
    }
    batch.push_back(std::move(p));
  }
  buffer readback = ctx.create_buffer(std::max<std::uint64_t>(read_bytes, 4));
  for (auto& p : batch) {
    const std::size_t n = p.c->x.size();
    if (p.out && n)  // gathered into one buffer with the public copy, recorded into the same encoder
      copy(ctx, enc, device_span<const std::uint32_t>(p.out, 0, n), device_span<std::uint32_t>(readback, p.read_offset / 4, n));
    if (p.vals_out && n)
      copy(ctx, enc, device_span<const std::uint32_t>(p.vals_out, 0, n),
           device_span<std::uint32_t>(readback, p.read_offset / 4 + n, n));
  }
  ctx.submit(enc);
  ctx.finish();
  std::vector<std::uint32_t> all(read_bytes / 4), reduced(cases.size());
  if (read_bytes) ctx.read(readback, 0, all.data(), read_bytes);
  ctx.read(results, 0, reduced.data(), cases.size() * 4);
  for (auto& p : batch) {
    const diff_case& c = *p.c;
    std::vector<std::uint32_t> got;
    if (c.p == prim::reduce) got = {reduced[c.index - first]};
    else got.assign(all.begin() + p.read_offset / 4,
                    all.begin() + p.read_offset / 4 + c.x.size() * (c.p == prim::sort_pairs ? 2 : 1));
    auto why = compare(c, p.m, got);
    if (!why.empty()) report(c, why);
  }
  return failures;
}

// The native CPU backend: the same cases (every algorithm name runs the native code there), each run on its own
// (a native context has no encoder to batch into), on device spans of the native context.
std::size_t run_native(context& ctx, std::uint64_t seed, std::uint64_t first, std::uint64_t last) {
  std::size_t failures = 0;
  for (std::uint64_t i = first; i < last; ++i) {
    const diff_case c = make_case(seed, i);
    monoid m(c.o, c.t);
    run_options o;
    o.algorithm = c.algorithm;
    o.accuracy = c.acc;
    const std::size_t n = c.x.size();
    std::string why;
    if (c.p >= prim::select_if) {  // the other primitives: the same call and check as on WebGPU
      try {
        why = run_other(ctx, c);
      } catch (const std::exception& e) {
        why = std::string("error: ") + e.what();
      }
    } else if (c.sorts()) {  // host keys (and input positions as values), sorted natively in place
      std::vector<std::uint32_t> got(c.x);
      got.resize(2 * n);
      for (std::size_t k = 0; k < n; ++k) got[n + k] = static_cast<std::uint32_t>(k);
      run_options so;  // the native sort has one algorithm
      with_type(c.t, [&](auto tag) {
        using T = decltype(tag);
        host_span<T> keys(reinterpret_cast<T*>(got.data()), n);
        const order ord = c.descending ? order::descending : order::ascending;
        if (c.p == prim::sort_keys) sort(ctx, keys, ord, so);
        else sort_pairs(ctx, keys, host_span<std::uint32_t>(got.data() + n, n), ord, so);
      });
      why = compare(c, m, got, true);
    }
    if (c.p >= prim::sort_keys) {
      if (!why.empty()) {
        ++failures;
        std::cout << "MISMATCH (native) seed=" << seed << " case=" << c.index << ": " << c.describe() << ": " << why
                  << "\n";
        if (failures >= 20) break;
      }
      continue;
    }
    buffer in = ctx.create_buffer(std::max<std::size_t>(n, 1) * 4), out = ctx.create_buffer(std::max<std::size_t>(n, 1) * 4);
    if (n) ctx.write(in, 0, c.x.data(), n * 4);
    std::vector<std::uint32_t> got(std::max<std::size_t>(n, 1));
    if (c.p == prim::reduce) {
      got[0] = reduce_bits(ctx, in, n, m, o);
    } else {
      scan(ctx, in, out, n, m, c.p == prim::inclusive ? scan_kind::inclusive : scan_kind::exclusive, o);
      if (n) ctx.read(out, 0, got.data(), n * 4);
    }
    why = compare(c, m, got, true);
    if (!why.empty()) {
      ++failures;
      std::cout << "MISMATCH (native) seed=" << seed << " case=" << c.index << ": " << c.describe() << ": " << why
                << "\n  replay: WGPRIM_DIFF_SEED=" << seed << " WGPRIM_DIFF_ONLY=" << c.index
                << " build/wgprim_tests --gtest_filter=Differential.*Native*\n";
      if (failures >= 20) break;
    }
  }
  return failures;
}

TEST(Differential, RandomCasesOnTheNativeBackend) {
  const std::uint64_t seed = env_u64("WGPRIM_DIFF_SEED", 20261129);
  // one by one: a twentieth keeps it short; WGPRIM_DIFF_NATIVE_CASES sets it alone (scripts/soak.sh)
  const std::uint64_t total = env_u64("WGPRIM_DIFF_NATIVE_CASES", env_u64("WGPRIM_DIFF_CASES", 100000) / 20);
  const char* only = std::getenv("WGPRIM_DIFF_ONLY");
  std::size_t failures;
  if (only) {
    std::uint64_t i = std::strtoull(only, nullptr, 10);
    failures = run_native(native_ctx(), seed, i, i + 1);
  } else {
    failures = run_native(native_ctx(), seed, 0, total);
    std::cout << "[          ] differential (native): " << total << " cases, seed " << seed << ", " << failures
              << " mismatches\n";
  }
  EXPECT_EQ(failures, 0u);
}

TEST(Differential, RandomCasesAgainstTheCpuTwin) {
  const std::uint64_t seed = env_u64("WGPRIM_DIFF_SEED", 20261129);
  const std::uint64_t total = env_u64("WGPRIM_DIFF_CASES", 10000);
  const char* only = std::getenv("WGPRIM_DIFF_ONLY");
  std::size_t failures = 0;
  if (only) {
    std::uint64_t i = std::strtoull(only, nullptr, 10);
    std::cout << "replaying " << make_case(seed, i).describe() << "\n";
    failures = run_batch(ctx(), seed, i, i + 1);
  } else {
    const std::uint64_t batch = 200;
    for (std::uint64_t first = 0; first < total && failures < 20; first += batch) {
      const std::uint64_t last = std::min(total, first + batch);
      crash_note("seed " + std::to_string(seed) + ", cases " + std::to_string(first) + " to " + std::to_string(last - 1));
      failures += run_batch(ctx(), seed, first, last);
    }
    std::cout << "[          ] differential: " << total << " cases, seed " << seed << ", " << failures
              << " mismatches\n";
  }
  EXPECT_EQ(failures, 0u);
}

}  // namespace
}  // namespace wgprim::test
