// Native segmented reduce / scan, reduce-by-key and run-length encoding. Each is a loop over blocks of 64 Ki
// elements that runs the sequential algorithm inside the block, plus what crosses block boundaries:
//   segmented scan: pass 1 reduces each block's tail (the elements after its last segment start); a short
//     sequential pass turns those into each block's carry-in; pass 2 scans every block with its carry.
//   segmented reduce: segments in parallel, each reduced in index order from its first element (as the twin);
//     a segment longer than a block is reduced by its own parallel reduction over leaves (built-in operators).
//   reduce-by-key / RLE: pass 1 counts run heads per block; their scan numbers the runs; pass 2 writes the runs
//     that start in each block with the block's part of their reduction, and the part before the block's first
//     head; a sequential pass over blocks combines those parts into the runs they continue (left to right, so
//     the operator need not commute).
// Operators: typed loops with monoid::combine's exact semantics (with_exact_op), custom ones through combine.
// f32 sums keep their running value in a double and round once per output (acc_t): a loop that rounds every step
// errs by up to (length - 1) ulps of the running sum, more than the GPU's tree-shaped tiles; the H200 host's
// 2-million-case soak found 194 segment sums past the tree bound before this.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <chrono>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/host_checks.hpp"
#include "native/backend.hpp"
#include "native/loops.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail::cpu_backend {

namespace {

constexpr std::size_t block = std::size_t(1) << 16;
using clock_type = std::chrono::steady_clock;

// The running value of a sequential loop under Op: a double for f32 sums, else the element type.
template <class Op>
using acc_t = std::conditional_t<std::is_same_v<Op, op_sum_f>, double, typename Op::T>;
template <class Op, class A>
A fold(const Op& op, A a, A b) {
  if constexpr (std::is_same_v<A, double>) return a + b;
  else return op(a, b);
}

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

template <class Op>
void segmented_scan_typed(const std::uint32_t* xb, std::size_t n, const unsigned char* start, std::uint32_t* yb,
                          const Op& op, bool exclusive) {
  using T = typename Op::T;
  using A = acc_t<Op>;
  const T* x = reinterpret_cast<const T*>(xb);
  T* y = reinterpret_cast<T*>(yb);
  const std::size_t blocks = (n + block - 1) / block;
  // Pass 1: each block's tail (from its last start, or the whole block) and whether it has a start.
  std::vector<A> tail(blocks);
  std::vector<unsigned char> has_start(blocks, 0);
  auto tails = [&](std::size_t b) {
    const std::size_t lo = b * block, hi = std::min(n, lo + block);
    A acc = x[lo];
    bool any = start[lo];
    for (std::size_t i = lo + 1; i < hi; ++i) {
      if (start[i]) {
        acc = x[i];
        any = true;
      } else {
        acc = fold(op, acc, A(x[i]));
      }
    }
    tail[b] = acc;
    has_start[b] = any;
  };
  // The carry into each block: nothing into block 0 (element 0 starts a group).
  std::vector<A> carry(blocks);
  if (blocks > 1) {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, blocks - 1, 1), [&](const tbb::blocked_range<std::size_t>& r) {
      for (std::size_t b = r.begin(); b != r.end(); ++b) tails(b);
    });
    carry[1] = tail[0];
    for (std::size_t b = 1; b + 1 < blocks; ++b) carry[b + 1] = has_start[b] ? tail[b] : fold(op, carry[b], tail[b]);
  }
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, blocks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t b = r.begin(); b != r.end(); ++b) {
      const std::size_t lo = b * block, hi = std::min(n, lo + block);
      bool open = b > 0;  // a group continues into this block
      A acc = carry[b];
      for (std::size_t i = lo; i < hi; ++i) {
        const A v = x[i];
        if (start[i] || !open) {
          y[i] = exclusive ? op.id() : x[i];
          acc = v;
          open = true;
        } else {
          const A next = fold(op, acc, v);
          y[i] = static_cast<T>(exclusive ? acc : next);
          acc = next;
        }
      }
    }
  });
}

// Reduces x[b, e) (e > b) in index order from x[b], as the twin; a long segment by leaves in parallel.
template <class Op>
typename Op::T segment_reduce(const typename Op::T* x, std::size_t b, std::size_t e, const Op& op, bool regroup) {
  using T = typename Op::T;
  if (regroup && e - b > 2 * block) {
    // leaves of the deterministic reduction, merged left to right; the first element leads, as in the twin
    return op(x[b], over_leaves<T>(
                        e - b - 1, [&](std::size_t f, std::size_t c) { return lanes16(x + b + 1 + f, c, op); },
                        [&](T l, T r) { return op(l, r); }));
  }
  acc_t<Op> acc = x[b];
  for (std::size_t i = b + 1; i < e; ++i) acc = fold(op, acc, acc_t<Op>(x[i]));
  return static_cast<T>(acc);
}

template <class Op>
void segmented_reduce_typed(const std::uint32_t* xb, const std::uint32_t* off, std::size_t segs, std::uint32_t* yb,
                            const Op& op, std::uint32_t identity, bool regroup) {
  using T = typename Op::T;
  const T* x = reinterpret_cast<const T*>(xb);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, segs, 256), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t s = r.begin(); s != r.end(); ++s) {
      const std::uint32_t b = off[s], e = off[s + 1];
      yb[s] = b >= e ? identity : to_bits_of(segment_reduce(x, b, e, op, regroup));
    }
  });
}

}  // namespace

void segmented_scan(context& ctx, const range_ref& in, const range_ref& offsets, const range_ref& out,
                    const monoid& m, scan_kind kind, const run_options& opt) {
  const char* what = "segmented scan";
  const std::size_t n = in.count;
  const std::uint32_t* off = host_in(ctx, offsets, what);
  check_offsets_host(off, offsets.count, n, what);
  if (n == 0) return;
  const std::uint32_t* x = host_in(ctx, in, what);
  std::uint32_t* y = host_out(ctx, out, what);
  const auto t0 = clock_type::now();
  std::vector<std::uint32_t> copy;
  if (x != y && x < y + n && y < x + n) {  // overlapping but not the same: read from a copy
    copy.assign(x, x + n);
    x = copy.data();
  }
  std::vector<unsigned char> start(n, 0);
  start[0] = 1;
  for (std::size_t s = 0; s < offsets.count; ++s)
    if (off[s] < n) start[off[s]] = 1;
  with_exact_op(m, [&](auto op) {
    segmented_scan_typed(x, n, start.data(), y, op, kind == scan_kind::exclusive);
    return 0;
  });
  fill(opt, ms_since(t0), "native");
}

void segmented_reduce(context& ctx, const range_ref& in, const range_ref& offsets, const range_ref& out,
                      const monoid& m, const run_options& opt) {
  const char* what = "segmented reduce";
  const std::uint32_t* off = host_in(ctx, offsets, what);
  check_offsets_host(off, offsets.count, in.count, what);
  const std::size_t segs = offsets.count - 1;
  if (segs == 0) return;
  const std::uint32_t* x = host_in(ctx, in, what);
  std::uint32_t* y = host_out(ctx, out, what);
  const auto t0 = clock_type::now();
  std::vector<std::uint32_t> copy;
  if (in.count && x < y + segs && y < x + in.count) {
    copy.assign(x, x + in.count);
    x = copy.data();
  }
  with_exact_op(m, [&](auto op) {
    segmented_reduce_typed(x, off, segs, y, op, m.identity_bits(), m.is_builtin());
    return 0;
  });
  fill(opt, ms_since(t0), "native");
}

namespace {

template <class Op>
std::uint64_t by_key_typed(const std::uint32_t* keys, dtype kt, const std::uint32_t* vb, std::size_t n,
                           std::uint32_t* uk, std::uint32_t* sb, std::size_t capacity, const Op& op, const char* what) {
  using T = typename Op::T;
  using A = acc_t<Op>;
  const T* v = reinterpret_cast<const T*>(vb);
  T* sums = reinterpret_cast<T*>(sb);
  auto value = [&](std::size_t i) -> T {
    if constexpr (std::is_same_v<T, std::uint32_t>) {
      if (!v) return 1u;  // run-length encoding: each element counts one
    }
    return v[i];
  };
  const bool f32 = kt == dtype::f32;
  const float* kf = reinterpret_cast<const float*>(keys);
  auto head = [&](std::size_t i) { return i == 0 || (f32 ? !(kf[i] == kf[i - 1]) : keys[i] != keys[i - 1]); };
  const std::size_t blocks = (n + block - 1) / block;
  std::vector<std::uint64_t> runs_before(blocks + 1, 0);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, blocks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t b = r.begin(); b != r.end(); ++b) {
      std::uint64_t c = 0;
      for (std::size_t i = b * block, hi = std::min(n, i + block); i < hi; ++i) c += head(i);
      runs_before[b + 1] = c;
    }
  });
  for (std::size_t b = 0; b < blocks; ++b) runs_before[b + 1] += runs_before[b];
  const std::uint64_t runs = runs_before[blocks];
  if (runs > capacity)
    throw error(errc::invalid_argument, std::string(what) + ": " + std::to_string(runs) +
                                            " runs do not fit the outputs' " + std::to_string(capacity) + " elements");
  // Pass 2: the runs that start in each block; `lead` is the block's part of the run open at its start.
  std::vector<T> lead(blocks);
  std::vector<unsigned char> has_lead(blocks, 0);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, blocks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t b = r.begin(); b != r.end(); ++b) {
      const std::size_t lo = b * block, hi = std::min(n, lo + block);
      std::size_t i = lo;
      if (!head(lo)) {
        A acc = value(lo);
        for (++i; i < hi && !head(i); ++i) acc = fold(op, acc, A(value(i)));
        lead[b] = static_cast<T>(acc);
        has_lead[b] = 1;
      }
      std::uint64_t run = runs_before[b];
      while (i < hi) {
        uk[run] = keys[i];  // the run's first key
        A acc = value(i);
        for (++i; i < hi && !head(i); ++i) acc = fold(op, acc, A(value(i)));
        sums[run++] = static_cast<T>(acc);
      }
    }
  });
  for (std::size_t b = 0; b < blocks; ++b)
    if (has_lead[b]) {
      T& s = sums[runs_before[b] - 1];  // the run open at the block's start began in an earlier block
      s = op(s, lead[b]);
    }
  return runs;
}

}  // namespace

std::uint64_t reduce_by_key(context& ctx, const range_ref& keys, dtype key_type, const range_ref* values,
                            const range_ref& unique_keys, const range_ref& sums, const monoid& m,
                            const range_ref* runs_out, const run_options& opt) {
  const char* what = values ? "reduce_by_key" : "run_length_encode";
  const std::size_t n = keys.count;
  const std::uint32_t* k = host_in(ctx, keys, what);
  const std::uint32_t* v = values ? host_in(ctx, *values, what) : nullptr;
  std::uint32_t* uk = host_out(ctx, unique_keys, what);
  std::uint32_t* s = host_out(ctx, sums, what);
  std::uint32_t* runs_at = runs_out ? host_out(ctx, *runs_out, what) : nullptr;
  const std::size_t capacity = std::min(unique_keys.count, sums.count);
  const auto t0 = clock_type::now();
  // Inputs overlapping an output are read from copies (blocks write runs ahead of later blocks' reads).
  std::vector<std::uint32_t> ck, cv;
  auto overlaps = [&](const std::uint32_t* p) {
    return n && ((p < uk + capacity && uk < p + n) || (p < s + capacity && s < p + n));
  };
  if (overlaps(k)) {
    ck.assign(k, k + n);
    k = ck.data();
  }
  if (v && overlaps(v)) {
    cv.assign(v, v + n);
    v = cv.data();
  }
  std::uint64_t runs = 0;
  if (n) {
    if (!v) runs = by_key_typed(k, key_type, nullptr, n, uk, s, capacity, op_sum_u{}, what);
    else
      runs = with_exact_op(m, [&](auto op) { return by_key_typed(k, key_type, v, n, uk, s, capacity, op, what); });
  }
  if (runs_at) *runs_at = static_cast<std::uint32_t>(runs);
  fill(opt, ms_since(t0), "native");
  return runs;
}

}  // namespace wgprim::detail::cpu_backend
