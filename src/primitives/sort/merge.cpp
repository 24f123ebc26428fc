// The sort past one storage binding: each binding-sized chunk is sorted by record_sort (the radix sort, keys or
// pairs), then sorted runs are merged pairwise, log2(chunks) levels, ping-ponging between the output and a
// temporary (the chunks are sorted into whichever makes the last level end in the output). Every dispatch binds
// only windows of at most one binding at aligned offsets, and nothing is read back to the host (the encoder
// overloads keep working):
//   split (sort/merge_split.wgsl): the merge-path split a(d) of every output window boundary d (every `window`
//     keys) of a pair; one dispatch per (A chunk, B chunk) pair of binding-sized windows, atomic maximum.
//   merge (sort/merge.wgsl): one output window of `window` keys, whose keys lie in A[a0, a1) and B[b0, b1), each at
//     most `window` long. The host does not know a0, so it dispatches the output window with every A window of
//     2 * window keys starting at a multiple of window (and the one or two B windows consistent with it); the
//     dispatch holding both ranges merges, the others return at once. Dispatches per level and pair:
//     (la / chunk) * (lb / chunk) splits and about 8 * (la / chunk) * (la + lb) / chunk merges (4 chunks^2 at
//     most on the top level: 16 for two chunks, the only case on a GPU whose largest buffer is two bindings).
// Keys compare on the radix sort's transformed bits (same float total order, same descending), ties take the left
// run first: the result is the stable sort, identical to the radix sort's.
#include <algorithm>

#include "primitives/sort/sort.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

namespace {
struct merge_params {
  std::uint32_t key_kind, descending, pairs, la, lb, a_first, a_count, b_first, b_count, out_first, out_count,
      split_base, split_index, window, step, diagonals, grid_x, mask_lo, mask_hi, pad2;
};
static_assert(sizeof(merge_params) == 80);
constexpr std::uint32_t split_wg = 64, merge_wg = 256, merge_items = 8;

std::uint32_t u32(std::uint64_t x) { return static_cast<std::uint32_t>(x); }

device_view sub(const device_view& v, std::uint64_t first, std::uint64_t count) {
  device_view s = v;
  s.offset += first * v.elem_bytes;
  s.count = count;
  return s;
}
}  // namespace

const kernel_spec sort_merge_split_spec{"sort/merge_split.wgsl",
                                        "merge_split",
                                        {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_rw},
                                        sizeof(merge_params)};
const kernel_spec sort_merge_spec{"sort/merge.wgsl",
                                  "merge",
                                  {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_rw,
                                   slot::storage_read, slot::storage_read, slot::storage_rw, slot::storage_read},
                                  sizeof(merge_params)};

std::uint64_t sort_chunk_keys(const context& ctx, std::uint32_t key_words) {
  // Chunks, and the merge's windows of half a chunk, start at multiples of the offset alignment for keys and for
  // (4-byte) values alike.
  const std::uint64_t align = std::max<std::uint64_t>(ctx.limits().min_storage_buffer_offset_alignment, 4);
  const std::uint64_t c = elements_per_binding(ctx, 4ull * key_words, 2 * (align / 4));
  return std::min<std::uint64_t>(c, 1ull << 29);
}

void record_sort_merged(recorder& rec, const sort_args& a) {
  context& ctx = rec.ctx();
  const std::uint64_t n = a.n, kw = a.key_words, chunk_keys = sort_chunk_keys(ctx, a.key_words), window = chunk_keys / 2;
  const bool pairs = a.pairs();
  if (n >= (1ull << 31)) throw error(errc::limit, "sort: " + std::to_string(n) + " keys (at most 2^31 - 1)");
  unsigned levels = 0;
  for (std::uint64_t r = chunk_keys; r < n; r *= 2) ++levels;

  device_view x = a.keys_out, y = view_of(scratch(ctx, "sort.merge_keys", n * kw * 4), n, u32(4 * kw));
  y.count = n;
  device_view xv, yv;
  if (pairs) {
    xv = a.vals_out;
    yv = view_of(scratch(ctx, "sort.merge_vals", n * 4), n);
  }
  // The chunks, sorted into the buffer that makes the last level write the output.
  const device_view& first_k = levels % 2 == 0 ? x : y;
  const device_view& first_v = levels % 2 == 0 ? xv : yv;
  for (const chunk& c : chunks_of(n, chunk_keys)) {
    sort_args s = a;
    s.n = c.count;
    s.keys_in = sub(a.keys_in, c.first, c.count);
    s.keys_out = sub(first_k, c.first, c.count);
    if (pairs) {
      s.vals_in = sub(a.vals_in, c.first, c.count);
      s.vals_out = sub(first_v, c.first, c.count);
    }
    record_sort(rec, s);
  }
  if (levels == 0) return;

  const monoid m(op::sum(), dtype::u32);
  auto constants = [&](std::uint32_t wg, std::uint32_t items) {
    wgsl_constants c = sort_constants(wg, items, a.key_words);
    c.push_back({"COMPARATOR", "false"});
    return c;
  };
  const auto& split_k = get_kernel(ctx, sort_merge_split_spec,
                                   compose_wgsl(sort_merge_split_spec.file, m, constants(split_wg, 1)), true);
  const auto& merge_k = get_kernel(ctx, sort_merge_spec,
                                   compose_wgsl(sort_merge_spec.file, m, constants(merge_wg, merge_items)), true);
  // Split entries of a level: (la + lb) / window + 2 per pair at most; the first level has the most pairs.
  const std::uint64_t split_words = n / window + 2 * (n / chunk_keys + 2);
  const buffer& splits = scratch(ctx, "sort.merge_splits", split_words * 4);
  const buffer& none_vals_in = scratch(ctx, "sort.none_vals_in", 16);
  const buffer& none_vals_out = scratch(ctx, "sort.none_vals_x", 16);

  merge_params base{};
  base.key_kind = static_cast<std::uint32_t>(a.kind);
  base.descending = a.ord == order::descending ? 1u : 0u;
  base.pairs = pairs ? 1u : 0u;
  const std::uint64_t mask = sort_bit_mask(a.begin_bit, a.end_bit);
  base.mask_lo = u32(mask & 0xffffffffu);
  base.mask_hi = u32(mask >> 32);
  base.window = u32(window);
  base.step = u32(window);

  device_view src_k = levels % 2 == 0 ? x : y, dst_k = levels % 2 == 0 ? y : x;
  device_view src_v = levels % 2 == 0 ? xv : yv, dst_v = levels % 2 == 0 ? yv : xv;
  for (unsigned level = 0; level < levels; ++level) {
    const std::uint64_t run = chunk_keys << level;
    rec.clear(splits, 0, split_words * 4);
    std::uint64_t split_base = 0;
    for (std::uint64_t s = 0; s < n; s += 2 * run) {
      const std::uint64_t la = std::min(run, n - s), lb = std::min(run, n - s - la), total = la + lb;
      if (lb == 0) {  // a run without a partner: copied as it is
        rec.copy_raw(src_k.buf, src_k.offset + s * kw * 4, dst_k.buf, dst_k.offset + s * kw * 4, la * kw * 4);
        if (pairs) rec.copy_raw(src_v.buf, src_v.offset + s * 4, dst_v.buf, dst_v.offset + s * 4, la * 4);
        continue;
      }
      merge_params p = base;
      p.la = u32(la);
      p.lb = u32(lb);
      p.split_base = u32(split_base);
      const std::uint64_t windows = (total + window - 1) / window;
      p.diagonals = u32(windows + 1);
      split_base += windows + 1;
      // The split points: every pair of binding-sized windows of A and B.
      for (const chunk& ca : chunks_of(la, chunk_keys))
        for (const chunk& cb : chunks_of(lb, chunk_keys)) {
          merge_params q = p;
          q.a_first = u32(ca.first);
          q.a_count = u32(ca.count);
          q.b_first = u32(cb.first);
          q.b_count = u32(cb.count);
          rec.dispatch(split_k,
                       {rec.params(q), bind(src_k, s + ca.first, ca.count), bind(src_k, s + la + cb.first, cb.count),
                        bind(splits, 0, split_words * 4)},
                       u32((p.diagonals + split_wg - 1) / split_wg));
        }
      // The merge of each output window, dispatched with every candidate pair of A and B windows.
      const std::uint64_t last_a = (la - 1) / window, last_b = (lb - 1) / window;
      for (std::uint64_t w = 0; w < windows; ++w) {
        const std::uint64_t d0 = w * window, count = std::min(window, total - d0);
        const std::uint64_t lo = d0 > lb ? d0 - lb : 0, hi = std::min(d0, la);
        merge_params q = p;
        q.out_first = u32(d0);
        q.out_count = u32(count);
        q.split_index = u32(w);
        const std::uint64_t threads = (count + merge_items - 1) / merge_items;
        std::uint32_t gx, gy;
        grid_2d((threads + merge_wg - 1) / merge_wg, ctx.limits().max_compute_workgroups_per_dimension, gx, gy);
        q.grid_x = gx;
        for (std::uint64_t i = 0; i <= last_a; ++i) {
          // a0 values whose A window is i (the last window also takes a0 == la), within [lo, hi].
          const std::uint64_t amin = std::max(i * window, lo);
          const std::uint64_t amax = std::min(i == last_a ? la : (i + 1) * window - 1, hi);
          if (amin > amax) continue;
          const std::uint64_t kmin = std::min((d0 - amax) / window, last_b), kmax = std::min((d0 - amin) / window, last_b);
          for (std::uint64_t k = kmin; k <= kmax; ++k) {
            merge_params r = q;
            r.a_first = u32(i * window);
            r.a_count = u32(std::min(2 * window, la - i * window));
            r.b_first = u32(k * window);
            r.b_count = u32(std::min(2 * window, lb - k * window));
            const binding va = pairs ? bind(src_v, s + r.a_first, r.a_count) : bind(none_vals_in);
            const binding vb = pairs ? bind(src_v, s + la + r.b_first, r.b_count) : bind(none_vals_in);
            const binding vo = pairs ? bind(dst_v, s + d0, count) : bind(none_vals_out);
            rec.dispatch(merge_k,
                         {rec.params(r), bind(src_k, s + r.a_first, r.a_count), bind(src_k, s + la + r.b_first, r.b_count),
                          bind(dst_k, s + d0, count), va, vb, vo, bind(splits, 0, split_words * 4)},
                         gx, gy);
          }
        }
      }
    }
    std::swap(src_k, dst_k);
    std::swap(src_v, dst_v);
  }
}

}  // namespace wgprim::detail
