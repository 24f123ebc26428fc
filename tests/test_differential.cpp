// Randomized differential test: random operator x type x algorithm x accuracy x size (skewed to the edges) x
// data (random, constant, sorted, extremes, NaN/Inf where allowed), every result against the CPU twin.
// Small cases are batched: a few hundred primitives are recorded into one command encoder and submitted once.
//   WGPRIM_DIFF_CASES  number of cases (default 10,000 under make check; `make soak` runs more; the H200 run used 100,000)
//   WGPRIM_DIFF_SEED   seed (default fixed); a failure prints the seed, the case and the command that replays it.
//   WGPRIM_DIFF_ONLY   run only this case index (the replay)

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

enum class prim { reduce, inclusive, exclusive };

struct diff_case {
  std::uint64_t index;
  prim p;
  dtype t;
  op o = op::sum();
  std::string algorithm;
  accuracy acc = accuracy::fast;
  std::vector<std::uint32_t> x;
  std::string describe() const {
    static const char* pn[] = {"reduce", "inclusive_scan", "exclusive_scan"};
    return std::string(pn[static_cast<int>(p)]) + " " + dtype_name(t) + " " +
           (o.is_custom() ? "'" + o.expression() + "'" : o.name()) + " alg=" + algorithm +
           " accuracy=" + accuracy_name(acc) + " n=" + std::to_string(x.size());
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

diff_case make_case(std::uint64_t seed, std::uint64_t index) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + index);
  diff_case c;
  c.index = index;
  c.p = static_cast<prim>(rng() % 3);
  c.t = static_cast<dtype>(rng() % 3);
  auto ops = ops_for(c.t);
  c.o = ops[rng() % ops.size()];
  auto algs = c.p == prim::reduce ? reduce_algorithms() : scan_algorithms();
  c.algorithm = algs[rng() % algs.size()];
  const bool f32_sum = c.t == dtype::f32 && c.o.name() == "sum";
  if (f32_sum && rng() % 50 == 0) c.acc = rng() % 2 ? accuracy::compensated : accuracy::reproducible;
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
  if (c.p == prim::reduce) {
    if (f32_sum) {
      const float* f = reinterpret_cast<const float*>(c.x.data());
      double exact = cpu::exact_sum_f32(f, n);
      float g = from_bits<float>(got[0]);
      if (!std::isfinite(exact)) return same_float(g, static_cast<float>(exact)) ? "" : fail(0, got[0], exact);
      double bound = f32_sum_bound(std::ceil(n / 8192.0) + 64, cpu::abs_sum_f32(f, n));
      // compensated / reproducible: one rounding of the result, plus double-word errors (~u^2 sum|x| per level)
      if (c.acc != accuracy::fast)
        bound = std::fabs(exact) * std::ldexp(1.0, -24) + cpu::abs_sum_f32(f, n) * std::ldexp(1.0, -40);
      return std::fabs(g - exact) <= bound ? "" : fail(0, got[0], exact);
    }
    std::uint32_t want = cpu::reduce(c.x.data(), n, m);
    if (c.t == dtype::f32) return same_float(from_bits<float>(got[0]), from_bits<float>(want)) ? "" : fail(0, got[0], from_bits<float>(want));
    return got[0] == want ? "" : fail(0, got[0], want);
  }
  std::vector<std::uint32_t> want(n);
  if (c.p == prim::inclusive) cpu::inclusive_scan(c.x.data(), n, want.data(), m);
  else cpu::exclusive_scan(c.x.data(), n, want.data(), m);
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

// Runs cases [first, last): fast-accuracy cases batched into one encoder, the others one by one.
std::size_t run_batch(context& ctx, std::uint64_t seed, std::uint64_t first, std::uint64_t last) {
  std::vector<diff_case> cases;
  for (std::uint64_t i = first; i < last; ++i) cases.push_back(make_case(seed, i));
  struct pending {
    const diff_case* c;
    monoid m;
    buffer in, out;
    std::uint64_t read_offset;  // into the batch's readback buffer, bytes
  };
  std::vector<pending> batch;
  std::uint64_t read_bytes = 0;
  std::size_t failures = 0;
  auto report = [&](const diff_case& c, const std::string& why) {
    ++failures;
    std::cout << "MISMATCH seed=" << seed << " case=" << c.index << ": " << c.describe() << ": " << why
              << "\n  replay: WGPRIM_DIFF_SEED=" << seed << " WGPRIM_DIFF_ONLY=" << c.index
              << " build/wgprim_tests --gtest_filter=Differential.*\n";
  };
  WGPUCommandEncoder enc = ctx.begin_commands();
  buffer results = ctx.create_buffer(cases.size() * 4);
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const diff_case& c = cases[k];
    monoid m(c.o, c.t);
    run_options o;
    o.algorithm = c.algorithm;
    o.accuracy = c.acc;
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
    pending p{&c, m, ctx.create_buffer(n * 4), buffer(), 0};
    if (n) ctx.write(p.in, 0, c.x.data(), n * 4);
    if (c.p == prim::reduce) {
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
  for (auto& p : batch)
    if (p.out)  // gathered into one buffer with the public copy, recorded into the same encoder
      copy(ctx, enc, device_span<const std::uint32_t>(p.out, 0, p.c->x.size()),
           device_span<std::uint32_t>(readback, p.read_offset / 4, p.c->x.size()));
  ctx.submit(enc);
  ctx.finish();
  std::vector<std::uint32_t> all(read_bytes / 4), reduced(cases.size());
  if (read_bytes) ctx.read(readback, 0, all.data(), read_bytes);
  ctx.read(results, 0, reduced.data(), cases.size() * 4);
  for (auto& p : batch) {
    const diff_case& c = *p.c;
    std::vector<std::uint32_t> got;
    if (c.p == prim::reduce) got = {reduced[c.index - first]};
    else got.assign(all.begin() + p.read_offset / 4, all.begin() + p.read_offset / 4 + c.x.size());
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
    buffer in = ctx.create_buffer(std::max<std::size_t>(n, 1) * 4), out = ctx.create_buffer(std::max<std::size_t>(n, 1) * 4);
    if (n) ctx.write(in, 0, c.x.data(), n * 4);
    std::vector<std::uint32_t> got(std::max<std::size_t>(n, 1));
    if (c.p == prim::reduce) {
      got[0] = reduce_bits(ctx, in, n, m, o);
    } else {
      scan(ctx, in, out, n, m, c.p == prim::inclusive ? scan_kind::inclusive : scan_kind::exclusive, o);
      if (n) ctx.read(out, 0, got.data(), n * 4);
    }
    auto why = compare(c, m, got, true);
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
  const std::uint64_t total = env_u64("WGPRIM_DIFF_CASES", 100000) / 20;  // one by one: a twentieth keeps it short
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
    for (std::uint64_t first = 0; first < total && failures < 20; first += batch)
      failures += run_batch(ctx(), seed, first, std::min(total, first + batch));
    std::cout << "[          ] differential: " << total << " cases, seed " << seed << ", " << failures
              << " mismatches\n";
  }
  EXPECT_EQ(failures, 0u);
}

}  // namespace
}  // namespace wgprim::test
