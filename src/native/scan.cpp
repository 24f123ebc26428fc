// Native scans: a chained scan over tiles of 16,384 elements. Each thread takes the next tile in order (an atomic
// ticket), reduces it (reading it from memory into its cache), gets the inclusive prefix of the tile before
// (published as soon as that tile was reduced, not scanned; exact operators look back instead of waiting, see
// chained()), publishes its own, then scans the tile from the cache with the prefix in front. Memory traffic is what one sequential pass moves (read n, write n), spread
// over every core; there is no second pass over memory. Tiles are taken in increasing order by running
// threads, so the tile waited for is always being worked on: no deadlock, whatever oneTBB schedules.
// The shape depends on n alone (not on the thread count), so every mode gives the same bits on every run.
// Operators: built-ins as typed loops, custom ones through monoid::combine (left operand always earlier: the
// operator need not commute). f32 sums: fast (a two-level local scan), double-word pairs for compensated, or
// exact prefix sums (superaccumulators) rounded once each for reproducible.
#include <oneapi/tbb/parallel_for.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

#include "native/backend.hpp"
#include "native/loops.hpp"
#include "core/double_word.hpp"
#include "core/backend_hooks.hpp"
#include "wgprim/error.hpp"
#include "wgprim/exact.hpp"

namespace wgprim::detail::cpu_backend {

namespace {

constexpr std::size_t tile = 16384;

// Runs s over [0, n): s.total(first, count) -> Acc (the tile alone), s.scan(first, count, has_prefix, prefix),
// s.merge(a, b). `start` is the prefix of tile 0 (init), when has_start.
// `exact` (operators whose every grouping gives the same bits: integer ops, f32 min / max): a thread whose
// predecessor has not published yet looks back over the earlier tiles' published totals (decoupled look-back),
// and reduces a tile itself when its owner is slow to publish (its thread lost the core: the machine is busy),
// so no thread ever waits long for a descheduled one. Sums of f32 and custom operators keep the plain chain,
// whose grouping depends on n alone (the same bits on every run).
// `stress` (testing::set_lookback_stress): the look-back ignores every third published tile and reduces it itself,
// and never waits, so the fallback runs in every test (the result must not change).
template <class S>
void chained(S& s, std::size_t n, bool has_start, typename S::acc start, bool exact, bool stress) {
  using acc = typename S::acc;
  const std::size_t tiles = (n + tile - 1) / tile;
  const unsigned workers = threads();
  if (tiles <= 2 || workers <= 1) {
    s.scan(0, n, has_start, start);
    return;
  }
  // Per tile: 0 nothing yet, 1 its own total (aggregate) published, 2 its inclusive prefix published.
  std::vector<acc> aggregate(tiles), inclusive(tiles);
  std::unique_ptr<std::atomic<unsigned char>[]> state(new std::atomic<unsigned char>[tiles]);
  for (std::size_t t = 0; t < tiles; ++t) state[t].store(0, std::memory_order_relaxed);
  std::atomic<std::size_t> next{0};
  // The prefix of everything before tile t (including start), and whether there is one.
  auto prefix_before = [&](std::size_t t, bool& has) -> acc {
    has = true;
    if (!exact) {
      // The predecessor publishes right after reducing its tile: a short wait, spinning then yielding.
      for (unsigned spins = 0; state[t - 1].load(std::memory_order_acquire) < 2; ++spins)
        if (spins > 64) std::this_thread::yield();
      return inclusive[t - 1];
    }
    acc a{};
    bool have = false;
    auto take = [&](acc v) {  // v lies left of everything taken so far
      a = have ? s.merge(v, a) : v;
      have = true;
    };
    for (std::size_t j = t - 1;;) {
      // Wait for tile j's total about as long as reducing a tile takes (~10 us), checking the clock rarely;
      // past 50 us its thread has most likely lost its core, and reducing the tile here is cheaper.
      unsigned char st;
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(stress ? 0 : 50);
      for (unsigned spins = 1; (st = state[j].load(std::memory_order_acquire)) == 0; ++spins)
        if (spins % 64 == 0 && std::chrono::steady_clock::now() > deadline) break;
      if (stress && j % 3 == 1) st = 0;
      if (st == 2) {
        take(inclusive[j]);
        return a;
      }
      take(st == 1 ? aggregate[j] : s.total(j * tile, tile));  // tiles before t are whole tiles
      if (j == 0) break;
      --j;
    }
    if (has_start) return s.merge(start, a);
    return a;
  };
  auto work = [&] {
    for (;;) {
      const std::size_t t = next.fetch_add(1, std::memory_order_relaxed);
      if (t >= tiles) return;
      const std::size_t first = t * tile, count = std::min(tile, n - first);
      const bool last = t + 1 == tiles;
      acc local{};
      if (!last) {
        local = s.total(first, count);
        aggregate[t] = local;
        state[t].store(1, std::memory_order_release);
      }
      bool has = has_start;
      const acc before = t > 0 ? prefix_before(t, has) : start;
      if (!last) {
        inclusive[t] = has ? s.merge(before, local) : local;
        state[t].store(2, std::memory_order_release);
      }
      s.scan(first, count, has, before);
    }
  };
  tbb::parallel_for(0u, workers, [&](unsigned) { work(); }, tbb::static_partitioner());
}

// Built-in and custom operators on 32-bit values (typed: the loops compile to plain integer / float code).
template <class Op>
struct op_scanner {
  using acc = typename Op::T;
  Op op;
  bool commutes;  // built-ins: the tile total may regroup (lanes16)
  const acc* x;
  acc* out;
  bool exclusive;
  acc id;
  acc total(std::size_t first, std::size_t count) const {
    if (commutes) return lanes16(x + first, count, op);
    acc a = x[first];
    for (std::size_t i = first + 1; i < first + count; ++i) a = op(a, x[i]);
    return a;
  }
  acc merge(acc a, acc b) const { return op(a, b); }
  void scan(std::size_t first, std::size_t count, bool has, acc prefix) const {
    // Locals, not members: the stores through `out` could otherwise alias this object's fields (the backend
    // builds without strict aliasing) and force a reload of x and out per element.
    const acc* const in = x;
    acc* const o = out;
    const Op f = op;
    const std::size_t end = first + count;
    if (exclusive) {
      acc a = has ? prefix : id;
      for (std::size_t i = first; i < end; ++i) {
        const acc v = in[i];  // read before the write: in place works
        o[i] = a;
        a = f(a, v);
      }
      return;
    }
    std::size_t i = first;
    acc a = prefix;
    if (!has) {  // inclusive without init starts from x[0] itself, as the twin
      a = in[i];
      o[i++] = a;
    }
    for (; i < end; ++i) o[i] = a = f(a, in[i]);
  }
};

// f32 min / max with monoid::combine's NaN rule (a NaN operand gives the canonical NaN).
template <bool is_min>
struct op_minmax_nan {
  using T = float;
  float id_;
  float id() const { return id_; }
  float operator()(float a, float b) const {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<float>::quiet_NaN();
    return is_min ? (b < a ? b : a) : (a < b ? b : a);
  }
};

// Fast f32 sums: groups of 1,024 as 32 runs of 32. Inside a run a running sum from zero; each output is
// (carry + run prefix) + running sum. Longest chain of dependent additions per output: 31 + 31 + 2 plus one per
// earlier group (of this tile, and the tile prefixes): gamma_h * sum|x| with h ~ 64 + n / 1,024, the bound of the
// GPU's scans, where a single running total would have h = n.
struct sum_f32_scanner {
  using acc = float;
  const float* x;
  float* out;
  bool exclusive;
  template <bool write>
  float run(std::size_t first, std::size_t count, float carry) const {
    const float* const x = this->x;  // locals: see op_scanner::scan
    float* const out = this->out;
    const bool exclusive = this->exclusive;
    const std::size_t end = first + count;
    for (std::size_t g = first; g < end; g += 1024) {
      const std::size_t g_end = std::min(end, g + 1024);
      float runs = 0;  // sum of the earlier runs of this group
      for (std::size_t r = g; r < g_end; r += 32) {
        const std::size_t r_end = std::min(g_end, r + 32);
        const float base = carry + runs;
        float local = 0;
        for (std::size_t i = r; i < r_end; ++i) {
          const float v = x[i];
          if (write && exclusive) out[i] = base + local;
          local += v;
          if (write && !exclusive) out[i] = base + local;
        }
        runs += local;
      }
      carry += runs;
    }
    return carry;
  }
  float total(std::size_t first, std::size_t count) const { return run<false>(first, count, 0.0f); }
  float merge(float a, float b) const { return a + b; }
  void scan(std::size_t first, std::size_t count, bool, float prefix) const { run<true>(first, count, prefix); }
};

// Compensated f32 sums: one double-word running total per tile, in order (the shape is fixed by
// n and the tile size), pairs merged with the pair combine.
struct sum_dw_scanner {
  using acc = dw;
  const float* x;
  float* out;
  bool exclusive;
  dw total(std::size_t first, std::size_t count) const {
    const float* const x = this->x;
    dw a{0.0f, 0.0f};
    for (std::size_t i = first; i < first + count; ++i) a = dw_add_one(a, x[i]);
    return a;
  }
  dw merge(dw a, dw b) const { return dw_add(a, b); }
  void scan(std::size_t first, std::size_t count, bool, dw a) const {
    const float* const x = this->x;
    float* const out = this->out;
    const bool exclusive = this->exclusive;
    for (std::size_t i = first; i < first + count; ++i) {
      const float v = x[i];
      if (exclusive) out[i] = a.hi;
      a = dw_add_one(a, v);
      if (!exclusive) out[i] = a.hi;
    }
  }
};

// Reproducible (exact) f32 sums: the exact prefix sums (integer superaccumulators, wgprim/exact.hpp), each
// rounded once to the nearest f32: tile totals and prefixes are exact, so the chain's shape does not matter and
// the bits are those of the GPU's exact scan and of reference::exact_scan_f32.
struct sum_exact_scanner {
  using acc = superaccumulator;
  const float* x;
  float* out;
  bool exclusive;
  acc total(std::size_t first, std::size_t count) const {
    superaccumulator a;
    a.add(x + first, count);
    return a;
  }
  acc merge(acc a, const acc& b) const { return a.combine(b); }
  void scan(std::size_t first, std::size_t count, bool, acc a) const {
    const float* const x = this->x;
    float* const out = this->out;
    for (std::size_t i = first; i < first + count; ++i) {
      const float v = x[i];
      if (exclusive) out[i] = a.round_to_float();
      a.add(v);
      if (!exclusive) out[i] = a.round_to_float();
    }
  }
};

template <class Op>
void scan_with(const Op& op, bool commutes, const std::uint32_t* x, std::uint32_t* out, std::size_t n,
               bool exclusive, const std::uint32_t* init, bool stress) {
  using T = typename Op::T;
  op_scanner<Op> s{op, commutes, reinterpret_cast<const T*>(x), reinterpret_cast<T*>(out), exclusive, op.id()};
  // Built-ins are exact under regrouping (integers wrap, min / max pick an operand); custom ones need not be.
  chained(s, n, init != nullptr, init ? bits_to<T>(*init) : T{}, commutes, stress);
}

}  // namespace

namespace {
void scan_impl(context& ctx, const range_ref& in, const range_ref& out, const monoid& m, scan_kind kind,
               const std::uint32_t* init, const run_options& opt, const superaccumulator* carry) {
  if (in.on_device != out.on_device)
    throw error(errc::invalid_argument, "scan: input and output must both be on the device or both on the host");
  if (in.count != out.count)
    throw error(errc::invalid_argument, "scan: the output holds " + std::to_string(out.count) +
                                            " elements, the input " + std::to_string(in.count));
  const std::uint32_t* x = host_in(ctx, in, "scan input");
  std::uint32_t* y = host_out(ctx, out, "scan output");
  const std::size_t n = in.count;
  const bool f32_sum = m.is_sum() && m.type() == dtype::f32;
  const bool pairs = f32_sum && opt.accuracy == accuracy::compensated;
  const bool exact = f32_sum && opt.accuracy == accuracy::reproducible;
  const std::string name = pairs || exact ? std::string("native-") + accuracy_name(opt.accuracy) : "native";
  const auto t0 = std::chrono::steady_clock::now();
  if (n == 0) {
    fill(opt, 0, name);
    return;
  }
  // Overlapping but distinct ranges (a shifted in-place scan): scan a copy of the input. The same range works
  // in place (each element is read before it is written).
  std::vector<std::uint32_t> copy;
  if (x != y && x < y + n && y < x + n) {
    copy.assign(x, x + n);
    x = copy.data();
  }
  const bool exclusive = kind == scan_kind::exclusive;
  const bool stress = lookback_stress(ctx);
  const float* xf = reinterpret_cast<const float*>(x);
  float* yf = reinterpret_cast<float*>(y);
  if (exact) {
    sum_exact_scanner s{xf, yf, exclusive};
    superaccumulator start;
    if (carry) start = *carry;  // a whole accumulator (dist::scan's carry between ranks)
    if (init) start.add(bits_to<float>(*init));
    chained(s, n, true, start, false, false);
  } else if (pairs) {
    sum_dw_scanner s{xf, yf, exclusive};
    chained(s, n, true, dw{init ? bits_to<float>(*init) : 0.0f, 0.0f}, false, false);
  } else if (f32_sum) {
    sum_f32_scanner s{xf, yf, exclusive};
    chained(s, n, true, init ? bits_to<float>(*init) : 0.0f, false, false);
  } else if (!m.is_builtin()) {
    scan_with(op_generic{&m}, false, x, y, n, exclusive, init, stress);
  } else if (is_f32_minmax(m)) {
    const float id = bits_to<float>(m.identity_bits());
    if (m.name() == "min") scan_with(op_minmax_nan<true>{id}, true, x, y, n, exclusive, init, stress);
    else scan_with(op_minmax_nan<false>{id}, true, x, y, n, exclusive, init, stress);
  } else {
    with_op(m, [&](auto op) { scan_with(op, true, x, y, n, exclusive, init, stress); });
  }
  fill(opt, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), name);
}
}  // namespace

void scan(context& ctx, const range_ref& in, const range_ref& out, const monoid& m, scan_kind kind,
          const std::uint32_t* init, const run_options& opt) {
  scan_impl(ctx, in, out, m, kind, init, opt, nullptr);
}

void scan_exact_carry(context& ctx, const range_ref& in, const range_ref& out, scan_kind kind,
                      const superaccumulator& carry, const run_options& opt) {
  const monoid m(op::sum(), dtype::f32);
  scan_impl(ctx, in, out, m, kind, nullptr, opt, &carry);
}

}  // namespace wgprim::detail::cpu_backend
