// Native select_if / select_flagged / partition / unique: two passes over blocks of 64 Ki elements. Pass 1 decides
// every element (the predicate through its evaluator, the flag, or "differs from the one before") into a byte
// per element and counts the kept per block; an exclusive scan of the counts gives each block where its kept
// (and, for partition, its rejected) elements go; pass 2 writes them in input order. Results are those of the
// sequential std::copy_if / std::stable_partition / std::unique, whatever the thread count (a reversed partition:
// the rejected elements from the end down, as cub::DevicePartition::If).
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "native/backend.hpp"
#include "native/ops.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail::cpu_backend {

namespace {
constexpr std::size_t block = std::size_t(1) << 16;

bool overlap(const void* a, std::size_t abytes, const void* b, std::size_t bbytes) {
  const char* x = static_cast<const char*>(a);
  const char* y = static_cast<const char*>(b);
  return abytes && bbytes && x < y + bbytes && y < x + abytes;
}
}  // namespace

std::uint64_t select(context& ctx, const range_ref& in, const range_ref* flags, const range_ref& out,
                     const range_ref* count, select_mode mode, bool partition, dtype type,
                     const bound_predicate* pred, const run_options& opt) {
  const char* what = partition ? "partition" : mode == select_mode::unique ? "unique"
                                           : mode == select_mode::flags   ? "select_flagged"
                                                                          : "select_if";
  const std::size_t n = in.count;
  const std::uint32_t* x = host_in(ctx, in, what);
  const std::uint32_t* f = flags ? host_in(ctx, *flags, what) : nullptr;
  std::uint32_t* y = host_out(ctx, out, what);
  std::uint32_t* count_at = count ? host_out(ctx, *count, what) : nullptr;
  const auto t0 = std::chrono::steady_clock::now();
  // An input overlapping the output is read from a copy (blocks write ahead of later blocks' reads).
  std::vector<std::uint32_t> copy_x, copy_f;
  if (overlap(x, n * 4, y, out.count * 4)) {
    copy_x.assign(x, x + n);
    x = copy_x.data();
  }
  if (f && overlap(f, n * 4, y, out.count * 4)) {
    copy_f.assign(f, f + n);
    f = copy_f.data();
  }
  const std::size_t blocks = (n + block - 1) / block;
  std::vector<unsigned char> keep(n);
  std::vector<std::uint64_t> kept(blocks + 1, 0);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, blocks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t b = r.begin(); b != r.end(); ++b) {
      const std::size_t lo = b * block, hi = std::min(n, lo + block);
      unsigned char* k = keep.data();
      if (mode == select_mode::predicate) {
        std::uint32_t buf[1024];  // the predicate's evaluator a column at a time
        for (std::size_t i = lo; i < hi; i += 1024) {
          const std::size_t c = std::min<std::size_t>(1024, hi - i);
          pred->eval_many(x + i, c, buf);
          for (std::size_t j = 0; j < c; ++j) k[i + j] = static_cast<unsigned char>(buf[j]);
        }
      } else if (mode == select_mode::flags) {
        for (std::size_t i = lo; i < hi; ++i) k[i] = f[i] != 0;
      } else if (type == dtype::f32) {
        const float* v = reinterpret_cast<const float*>(x);
        for (std::size_t i = lo; i < hi; ++i) k[i] = i == 0 || !(v[i] == v[i - 1]);
      } else {
        for (std::size_t i = lo; i < hi; ++i) k[i] = i == 0 || x[i] != x[i - 1];
      }
      std::uint64_t c = 0;
      for (std::size_t i = lo; i < hi; ++i) c += k[i];
      kept[b + 1] = c;
    }
  });
  for (std::size_t b = 0; b < blocks; ++b) kept[b + 1] += kept[b];  // exclusive starts
  const std::uint64_t total = kept[blocks];
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, blocks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t b = r.begin(); b != r.end(); ++b) {
      const std::size_t lo = b * block, hi = std::min(n, lo + block);
      std::uint32_t* yes = y + kept[b];
      // Rejected elements (partition): after all kept ones, in input order, or from the end down (reversed).
      const std::size_t rejected_before = lo - kept[b];
      const unsigned char* k = keep.data();
      if (partition && opt.rejected == rejected_order::reversed) {
        std::uint32_t* no = y + n - rejected_before;  // one past this block's first rejected element
        for (std::size_t i = lo; i < hi; ++i) *(k[i] ? yes++ : --no) = x[i];
      } else if (partition) {
        std::uint32_t* no = y + total + rejected_before;
        for (std::size_t i = lo; i < hi; ++i) *(k[i] ? yes++ : no++) = x[i];
      } else {
        for (std::size_t i = lo; i < hi; ++i)
          if (k[i]) *yes++ = x[i];
      }
    }
  });
  fill(opt, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), "native");
  if (count_at) {
    *count_at = static_cast<std::uint32_t>(total);
    return 0;  // as select_run: the count is where the caller asked for it
  }
  return total;
}

}  // namespace wgprim::detail::cpu_backend
