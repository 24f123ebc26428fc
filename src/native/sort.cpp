// Native sort: a stable LSD radix sort over 8-bit digits on oneTBB. The digits are those of an order-preserving
// u32 key computed from each element as it is read (f32: negatives bit-inverted, positives with the sign bit
// set, every NaN the largest key so that NaNs come last and keep their order; i32: sign bit flipped;
// descending: the key inverted), so the elements themselves (NaN payloads included) move, never a transformed
// copy. That is the order of the twin's std::stable_sort (NaNs last and equal to each other, -0 before +0).
// A pass: every block of the input counts its digits; an exclusive scan over (digit, block) gives each block
// its write position per digit; every block then scatters its elements (and values) in order: stable. Passes
// whose digit is the same for every key (one bucket holds all n) are skipped, as the GPU's do. A bit range
// [begin_bit, end_bit) masks the ordered key (bits outside compare equal) and limits the passes to the digits that
// cover it.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <vector>

#include "core/expr.hpp"
#include "native/backend.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail::cpu_backend {

namespace {

using hist = std::array<std::uint32_t, 256>;

template <dtype T, bool Desc>
struct key_fn {
  std::uint32_t mask;  // the compared bits
  std::uint32_t operator()(std::uint32_t b) const {
    std::uint32_t k;
    if constexpr (T == dtype::f32) {
      if ((b & 0x7fffffffu) > 0x7f800000u) k = 0xffffffffu;
      else k = (b & 0x80000000u) ? ~b : (b | 0x80000000u);
    } else if constexpr (T == dtype::i32) {
      k = b ^ 0x80000000u;
    } else {
      k = b;
    }
    return (Desc ? ~k : k) & mask;  // descending: the twin swaps the comparator's arguments, so NaNs lead
  }
};

struct last_passes {
  const context* ctx = nullptr;
  std::vector<unsigned> passes;
};
thread_local last_passes last;

template <class Key>
void radix_sort(const std::uint32_t* kin, std::uint32_t* kout, const std::uint32_t* vin, std::uint32_t* vout,
                std::size_t n, Key key, int pass_lo, int pass_hi) {
  const bool pairs = vin != nullptr;
  const std::size_t block = std::max<std::size_t>(std::size_t(1) << 16, (n + 255) / 256);
  const std::size_t blocks = (n + block - 1) / block;
  // Which passes are needed: one histogram of all four digits over the input.
  std::vector<std::array<hist, 4>> part(blocks);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, blocks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t b = r.begin(); b != r.end(); ++b) {
      auto& h = part[b];
      for (auto& d : h) d.fill(0);
      for (std::size_t i = b * block, hi = std::min(n, i + block); i < hi; ++i) {
        const std::uint32_t k = key(kin[i]);
        ++h[0][k & 0xff];
        ++h[1][(k >> 8) & 0xff];
        ++h[2][(k >> 16) & 0xff];
        ++h[3][k >> 24];
      }
    }
  });
  std::vector<int> passes;
  for (int p = pass_lo; p < pass_hi; ++p) {
    bool one = false;
    for (int d = 0; d < 256 && !one; ++d) {
      std::size_t c = 0;
      for (std::size_t b = 0; b < blocks; ++b) c += part[b][p][d];
      one = c == n;
    }
    if (!one) passes.push_back(p);
  }
  last.passes.assign(passes.begin(), passes.end());
  // Ping-pong between the output and a temporary. Out of place with an odd number of passes, the first pass
  // writes the output, so the last one does too; otherwise the first writes the temporary (in place, the output
  // is the input: never a scatter from a range into itself), and an odd count ends with a copy.
  std::vector<std::uint32_t> tmp_k(passes.empty() ? 0 : n), tmp_v(pairs && !passes.empty() ? n : 0);
  const bool in_place = kin == kout || (pairs && vin == vout);
  const std::size_t np = passes.size();
  const bool out_first = np % 2 == 1 && !in_place;
  const std::uint32_t* src_k = kin;
  const std::uint32_t* src_v = vin;
  std::vector<hist> pos(blocks);
  for (std::size_t q = 0; q < np; ++q) {
    const int p = passes[q];
    const std::uint32_t shift = 8u * static_cast<std::uint32_t>(p);
    const bool to_out = (q % 2 == 0) == out_first;
    std::uint32_t* dst_k = to_out ? kout : tmp_k.data();
    std::uint32_t* dst_v = pairs ? (to_out ? vout : tmp_v.data()) : nullptr;
    // Counts per block: the first pass reuses the input's histograms; later passes count again (blocks hold
    // other elements after a scatter).
    if (q > 0) {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, blocks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t b = r.begin(); b != r.end(); ++b) {
          hist& h = part[b][p];
          h.fill(0);
          for (std::size_t i = b * block, hi = std::min(n, i + block); i < hi; ++i) ++h[(key(src_k[i]) >> shift) & 0xff];
        }
      });
    }
    std::uint64_t run = 0;
    for (int d = 0; d < 256; ++d)
      for (std::size_t b = 0; b < blocks; ++b) {
        pos[b][d] = static_cast<std::uint32_t>(run);
        run += part[b][p][d];
      }
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, blocks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
      for (std::size_t b = r.begin(); b != r.end(); ++b) {
        hist at = pos[b];
        const std::size_t lo = b * block, hi = std::min(n, lo + block);
        if (pairs) {
          for (std::size_t i = lo; i < hi; ++i) {
            const std::uint32_t e = src_k[i], w = at[(key(e) >> shift) & 0xff]++;
            dst_k[w] = e;
            dst_v[w] = src_v[i];
          }
        } else {
          for (std::size_t i = lo; i < hi; ++i) {
            const std::uint32_t e = src_k[i];
            dst_k[at[(key(e) >> shift) & 0xff]++] = e;
          }
        }
      }
    });
    src_k = dst_k;
    src_v = dst_v;
  }
  // Where the data ended: copy it to the output when it is elsewhere (no pass, or in place with an odd count).
  if (src_k != kout) std::memcpy(kout, src_k, n * 4);
  if (pairs && src_v != vout) std::memcpy(vout, src_v, n * 4);
}

template <dtype T>
void sort_typed(const std::uint32_t* ki, std::uint32_t* ko, const std::uint32_t* vi, std::uint32_t* vo,
                std::size_t n, order ord, unsigned begin_bit, unsigned end_bit) {
  const std::uint32_t mask = static_cast<std::uint32_t>(((end_bit >= 32 ? 1ull << 32 : 1ull << end_bit) - 1) &
                                                        ~((1ull << begin_bit) - 1));
  const int lo = static_cast<int>(begin_bit / 8), hi = static_cast<int>((end_bit + 7) / 8);
  if (ord == order::descending) radix_sort(ki, ko, vi, vo, n, key_fn<T, true>{mask}, lo, hi);
  else radix_sort(ki, ko, vi, vo, n, key_fn<T, false>{mask}, lo, hi);
}

}  // namespace

void sort(context& ctx, const range_ref& keys_in, const range_ref& keys_out, const range_ref* vals_in,
          const range_ref* vals_out, dtype key_type, order ord, unsigned begin_bit, unsigned end_bit,
          const run_options& opt) {
  const bool pairs = vals_in && vals_out;
  const std::size_t n = keys_in.count;
  if (n > 0xffffffffull) throw error(errc::limit, "sort: at most 2^32 - 1 keys");
  const std::uint32_t* ki = host_in(ctx, keys_in, "sort keys input");
  std::uint32_t* ko = host_out(ctx, keys_out, "sort keys output");
  const std::uint32_t* vi = pairs ? host_in(ctx, *vals_in, "sort values input") : nullptr;
  std::uint32_t* vo = pairs ? host_out(ctx, *vals_out, "sort values output") : nullptr;
  auto overlap = [&](const void* a, const void* b) {
    const char* x = static_cast<const char*>(a);
    const char* y = static_cast<const char*>(b);
    return n && x < y + n * 4 && y < x + n * 4;
  };
  if (pairs && (overlap(vi, ki) || overlap(vi, ko) || overlap(vo, ki) || overlap(vo, ko)))
    throw error(errc::invalid_argument, "sort: keys and values must be in different buffers");
  const auto t0 = std::chrono::steady_clock::now();
  // Partly overlapping input and output (not the same range): sort from a copy.
  std::vector<std::uint32_t> ck, cv;
  if (ki != ko && overlap(ki, ko)) {
    ck.assign(ki, ki + n);
    ki = ck.data();
  }
  if (pairs && vi != vo && overlap(vi, vo)) {
    cv.assign(vi, vi + n);
    vi = cv.data();
  }
  last.ctx = &ctx;
  last.passes.clear();
  if (n) {
    if (key_type == dtype::f32) sort_typed<dtype::f32>(ki, ko, vi, vo, n, ord, begin_bit, end_bit);
    else if (key_type == dtype::i32) sort_typed<dtype::i32>(ki, ko, vi, vo, n, ord, begin_bit, end_bit);
    else sort_typed<dtype::u32>(ki, ko, vi, vo, n, ord, begin_bit, end_bit);
  }
  fill(opt, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), "native-radix");
}

namespace {
/// Every segment sorted on (ordered key, index within the segment): a unique 64-bit pattern per element, so an
/// unstable std::sort gives the stable order; keys and values are then gathered from a copy of the segment.
template <class Key>
void sort_segments(std::uint32_t* k, std::uint32_t* v, const std::uint32_t* off, std::uint64_t segs, Key key) {
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, segs), [&](const tbb::blocked_range<std::uint64_t>& r) {
    std::vector<std::uint64_t> order_of;
    std::vector<std::uint32_t> ck, cv;
    for (std::uint64_t s = r.begin(); s != r.end(); ++s) {
      const std::uint32_t b = off[s], len = off[s + 1] - b;
      if (len < 2) continue;
      order_of.resize(len);
      ck.assign(k + b, k + b + len);
      for (std::uint32_t i = 0; i < len; ++i) order_of[i] = (std::uint64_t(key(ck[i])) << 32) | i;
      std::sort(order_of.begin(), order_of.end());
      for (std::uint32_t i = 0; i < len; ++i) k[b + i] = ck[static_cast<std::uint32_t>(order_of[i])];
      if (v) {
        cv.assign(v + b, v + b + len);
        for (std::uint32_t i = 0; i < len; ++i) v[b + i] = cv[static_cast<std::uint32_t>(order_of[i])];
      }
    }
  });
}

template <dtype T>
void segmented_typed(std::uint32_t* k, std::uint32_t* v, const std::uint32_t* off, std::uint64_t segs, order ord,
                     unsigned begin_bit, unsigned end_bit) {
  const std::uint32_t mask = static_cast<std::uint32_t>(((end_bit >= 32 ? 1ull << 32 : 1ull << end_bit) - 1) &
                                                        ~((1ull << begin_bit) - 1));
  if (ord == order::descending) sort_segments(k, v, off, segs, key_fn<T, true>{mask});
  else sort_segments(k, v, off, segs, key_fn<T, false>{mask});
}
}  // namespace

void segmented_sort(context& ctx, const range_ref& keys, const range_ref* vals, const std::uint32_t* off,
                    std::uint64_t segs, dtype key_type, order ord, unsigned begin_bit, unsigned end_bit,
                    const run_options& opt) {
  std::uint32_t* k = host_out(ctx, keys, "segmented sort keys");
  std::uint32_t* v = vals ? host_out(ctx, *vals, "segmented sort values") : nullptr;
  const std::size_t n = keys.count;
  if (v && n && k < v + n && v < k + n)
    throw error(errc::invalid_argument, "segmented sort: keys and values must be in different buffers");
  const auto t0 = std::chrono::steady_clock::now();
  if (key_type == dtype::f32) segmented_typed<dtype::f32>(k, v, off, segs, ord, begin_bit, end_bit);
  else if (key_type == dtype::i32) segmented_typed<dtype::i32>(k, v, off, segs, ord, begin_bit, end_bit);
  else segmented_typed<dtype::u32>(k, v, off, segs, ord, begin_bit, end_bit);
  fill(opt, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), "native-segmented");
}

namespace {
// A stable sort over the oneTBB threads: runs of about n / (2 threads) sorted by std::stable_sort each, then merged
// pairwise (std::merge takes the left run first on ties: stable), the merges of one round in parallel. With an
// interpreted comparator (the CPU twin of the expression) the compares are the cost, so the work is split, not
// the memory traffic; the keys (or key-value pairs) are sorted in place of an index array (no indirection).
template <class T, class Less>
void stable_sort_parallel(std::vector<T>& a, Less less) {
  const std::size_t n = a.size();
  const std::size_t min_run = 1 << 14;
  std::size_t runs = std::min<std::size_t>(2 * std::max(threads(), 1u), std::max<std::size_t>(n / min_run, 1));
  if (runs <= 1) {
    std::stable_sort(a.begin(), a.end(), less);
    return;
  }
  std::vector<std::size_t> cut(runs + 1);
  for (std::size_t r = 0; r <= runs; ++r) cut[r] = n * r / runs;
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, runs, 1), [&](const tbb::blocked_range<std::size_t>& rr) {
    for (std::size_t r = rr.begin(); r < rr.end(); ++r) std::stable_sort(a.begin() + cut[r], a.begin() + cut[r + 1], less);
  });
  std::vector<T> b(n);
  std::vector<T>* src = &a;
  std::vector<T>* dst = &b;
  while (cut.size() > 2) {
    const std::size_t pairs = (cut.size() - 1) / 2;
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, pairs + (cut.size() - 1) % 2, 1),
                      [&](const tbb::blocked_range<std::size_t>& rr) {
                        for (std::size_t p = rr.begin(); p < rr.end(); ++p) {
                          const std::size_t lo = cut[2 * p], mid = cut[std::min(2 * p + 1, cut.size() - 1)],
                                            hi = cut[std::min(2 * p + 2, cut.size() - 1)];
                          std::merge(src->begin() + lo, src->begin() + mid, src->begin() + mid, src->begin() + hi,
                                     dst->begin() + lo, less);
                        }
                      });
    std::vector<std::size_t> next;
    for (std::size_t i = 0; i < cut.size(); i += 2) next.push_back(cut[i]);
    if (next.back() != n) next.push_back(n);
    cut.swap(next);
    std::swap(src, dst);
  }
  if (src != &a) a.swap(*src);
}
}  // namespace

void sort_less(context& ctx, const range_ref& keys, const range_ref* vals, const expr_program& less,
               const run_options& opt) {
  std::uint32_t* k = host_out(ctx, keys, "sort keys");
  std::uint32_t* v = vals ? host_out(ctx, *vals, "sort values") : nullptr;
  const std::size_t n = keys.count;
  if (v && n && k < v + n && v < k + n)
    throw error(errc::invalid_argument, "sort: keys and values must be in different buffers");
  const auto t0 = std::chrono::steady_clock::now();
  if (v) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> kv(n);
    for (std::size_t i = 0; i < n; ++i) kv[i] = {k[i], v[i]};
    stable_sort_parallel(kv, [&](const auto& x, const auto& y) { return less.eval(x.first, y.first) != 0; });
    for (std::size_t i = 0; i < n; ++i) {
      k[i] = kv[i].first;
      v[i] = kv[i].second;
    }
  } else {
    std::vector<std::uint32_t> ck(k, k + n);
    stable_sort_parallel(ck, [&](std::uint32_t x, std::uint32_t y) { return less.eval(x, y) != 0; });
    std::memcpy(k, ck.data(), n * 4);
  }
  fill(opt, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), "native-merge");
}

std::vector<unsigned> sort_passes_run(const context& ctx) {
  return last.ctx == &ctx ? last.passes : std::vector<unsigned>{};
}

}  // namespace wgprim::detail::cpu_backend
