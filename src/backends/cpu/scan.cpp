// Native scans: a chained scan over tiles of 16,384 elements. Each thread takes the next tile in order (an atomic
// ticket), reduces it (reading it from memory into its cache), waits for the inclusive prefix of the tile before
// (published as soon as that tile was reduced, not scanned), publishes its own, then scans the tile from the
// cache with the prefix in front. Memory traffic is what one sequential pass moves (read n, write n), spread
// over every core; there is no second pass over memory. Tiles are taken in increasing order by running
// threads, so the tile waited for is always being worked on: no deadlock, whatever oneTBB schedules.
// The shape depends on n alone (not on the thread count), so every mode gives the same bits on every run.
// Operators: built-ins as typed loops, custom ones through monoid::combine (left operand always earlier: the
// operator need not commute). f32 sums: fast (a two-level local scan), or double-word pairs for compensated /
// reproducible.
#include <oneapi/tbb/parallel_for.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

#include "backends/cpu/backend.hpp"
#include "backends/cpu/loops.hpp"
#include "core/double_word.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail::cpu_backend {

namespace {

constexpr std::size_t tile = 16384;

// Runs s over [0, n): s.total(first, count) -> Acc (the tile alone), s.scan(first, count, has_prefix, prefix),
// s.merge(a, b). `start` is the prefix of tile 0 (init), when has_start.
template <class S>
void chained(S& s, std::size_t n, bool has_start, typename S::acc start) {
  using acc = typename S::acc;
  const std::size_t tiles = (n + tile - 1) / tile;
  const unsigned workers = threads();
  if (tiles <= 2 || workers <= 1) {
    s.scan(0, n, has_start, start);
    return;
  }
  std::vector<acc> prefix(tiles);
  std::unique_ptr<std::atomic<bool>[]> ready(new std::atomic<bool>[tiles]);
  for (std::size_t t = 0; t < tiles; ++t) ready[t].store(false, std::memory_order_relaxed);
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (;;) {
      const std::size_t t = next.fetch_add(1, std::memory_order_relaxed);
      if (t >= tiles) return;
      const std::size_t first = t * tile, count = std::min(tile, n - first);
      const bool last = t + 1 == tiles;
      acc local{};
      if (!last) local = s.total(first, count);
      acc before = start;
      bool has = has_start;
      if (t > 0) {
        // The predecessor publishes right after reducing its tile: a short wait, spinning then yielding.
        for (unsigned spins = 0; !ready[t - 1].load(std::memory_order_acquire); ++spins)
          if (spins > 64) std::this_thread::yield();
        before = prefix[t - 1];
        has = true;
      }
      if (!last) {
        prefix[t] = has ? s.merge(before, local) : local;
        ready[t].store(true, std::memory_order_release);
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

// Compensated / reproducible f32 sums: one double-word running total per tile, in order (the shape is fixed by
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

template <class Op>
void scan_with(const Op& op, bool commutes, const std::uint32_t* x, std::uint32_t* out, std::size_t n,
               bool exclusive, const std::uint32_t* init) {
  using T = typename Op::T;
  op_scanner<Op> s{op, commutes, reinterpret_cast<const T*>(x), reinterpret_cast<T*>(out), exclusive, op.id()};
  chained(s, n, init != nullptr, init ? bits_to<T>(*init) : T{});
}

}  // namespace

void scan(context& ctx, const range_ref& in, const range_ref& out, const monoid& m, scan_kind kind,
          const std::uint32_t* init, const run_options& opt) {
  check_algorithm("scan", opt.algorithm);
  if (in.on_device != out.on_device)
    throw error(errc::invalid_argument, "scan: input and output must both be on the device or both on the host");
  if (in.count != out.count)
    throw error(errc::invalid_argument, "scan: the output holds " + std::to_string(out.count) +
                                            " elements, the input " + std::to_string(in.count));
  const std::uint32_t* x = host_in(ctx, in, "scan input");
  std::uint32_t* y = host_out(ctx, out, "scan output");
  const std::size_t n = in.count;
  const bool f32_sum = m.is_sum() && m.type() == dtype::f32;
  const bool pairs = f32_sum && opt.accuracy != accuracy::fast;
  const std::string name = pairs ? std::string("native-") + accuracy_name(opt.accuracy) : "native";
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
  const float* xf = reinterpret_cast<const float*>(x);
  float* yf = reinterpret_cast<float*>(y);
  if (pairs) {
    sum_dw_scanner s{xf, yf, exclusive};
    chained(s, n, true, dw{init ? bits_to<float>(*init) : 0.0f, 0.0f});
  } else if (f32_sum) {
    sum_f32_scanner s{xf, yf, exclusive};
    chained(s, n, true, init ? bits_to<float>(*init) : 0.0f);
  } else if (!m.is_builtin()) {
    scan_with(op_generic{&m}, false, x, y, n, exclusive, init);
  } else if (is_f32_minmax(m)) {
    const float id = bits_to<float>(m.identity_bits());
    if (m.name() == "min") scan_with(op_minmax_nan<true>{id}, true, x, y, n, exclusive, init);
    else scan_with(op_minmax_nan<false>{id}, true, x, y, n, exclusive, init);
  } else {
    with_op(m, [&](auto op) { scan_with(op, true, x, y, n, exclusive, init); });
  }
  fill(opt, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), name);
}

}  // namespace wgprim::detail::cpu_backend
