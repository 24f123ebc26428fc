// Segmented sort (cub::DeviceSegmentedSort's stable sorts): every segment of CSR offsets sorted on its own, in
// place, keys or pairs, with the device sort's order (sort_order: direction and bit range). The segments are
// binned by length in one pass over the offsets: on the GPU for device offsets (shaders/sort/segmented_bin.wgsl,
// recorded in the submission that sorts the short and mid segments, which are sized and gated on the device by its
// counts; then four counts and the long segments come back, and bad offsets are an error with the keys untouched),
// on the host for host offsets (checked there):
//   0..1 keys: nothing to do;
//   2..short_max: sort_short (shaders/sort/segmented_short.wgsl), many segments per workgroup: one workgroup per
//     tile of short_tile key positions sorts the short segments starting there in workgroup memory (a rank count
//     per key), loaded and written back coalesced; a binary search per tile over the offsets (tile_starts) finds
//     them, so no list is needed;
//   short_max + 1..segment_mid_max: sort_mid, one workgroup per segment of the list the binning made;
//   longer: record_sort (the device radix sort) on the segment's sub-range, longest first (the scratch buffers
//     grow once), directly where the segment starts at a bindable offset, else through an aligned temporary.
// The short and mid sorts are one submission (with the GPU binning), the long ones a second. Keys outside
// [offsets[0], offsets[n_segments]) are not touched. Keys must fit one storage binding (errc::limit otherwise).
// Many long segments make many record_sort calls (about seven dispatches each): a batched path for them is future
// work.
#include <algorithm>
#include <chrono>
#include <numeric>

#include "core/env.hpp"
#include "core/expr.hpp"
#include "core/host_checks.hpp"
#include "primitives/backend.hpp"
#include "primitives/copy/widen.hpp"
#include "primitives/policy.hpp"
#include "primitives/sort/sort.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

namespace {
struct seg_params {
  std::uint32_t key_kind, descending, mask_lo, mask_hi, pairs, n_segments, grid_x, list_count, gated;
};
static_assert(sizeof(seg_params) == 36);

/// The parameter block of segmented_short.wgsl (short_params).
struct short_params {
  std::uint32_t key_kind, descending, mask_lo, mask_hi, n, n_segments, grid_x, tiles, gated, max_dim;
};
static_assert(sizeof(short_params) == 40);

// Workgroup size of every kernel. Segments of 2..short_max keys are sorted many per workgroup, by tiles of
// short_tile key positions (segmented_short.wgsl: 1 or 2 arrays of short_tile + short_max - 1 u32 in workgroup
// memory, within WebGPU's default 16 KiB: 9.0 or 10.0 KiB); up to segment_mid_max by one workgroup each (that
// many compared keys and their indices: 16 KiB). short_max was 64: on the H200 sort_mid's one workgroup per
// segment cost 13.2 ms for 2^24 keys in segments of 65 and 4.1 ms in segments of 256 (1.9 ms of ~1000, 0.38 ms
// of 64 in sort_short), a fixed cost per segment that the many-per-workgroup rank count does not have.
constexpr std::uint32_t seg_wg = 256, short_max = 256;
/// Key positions per workgroup of the short segments: keys only 2,048 (one array of 2,303 u32: 9.0 KiB), pairs 1,024
/// (two arrays of 1,279: 10.0 KiB).
std::uint32_t short_tile(bool pairs) { return pairs ? 1024 : 2048; }
}  // namespace

const kernel_spec sort_seg_tile_starts_spec{
    "sort/segmented_short.wgsl",
    "tile_starts",
    {slot::uniform, slot::storage_read, slot::storage_rw, slot::storage_rw, slot::storage_rw, slot::storage_rw},
    sizeof(short_params)};
const kernel_spec sort_seg_short_spec{
    "sort/segmented_short.wgsl",
    "sort_short",
    {slot::uniform, slot::storage_read, slot::storage_rw, slot::storage_rw, slot::storage_rw, slot::storage_rw},
    sizeof(short_params)};
const kernel_spec sort_seg_bin_spec{
    "sort/segmented_bin.wgsl",
    "bin_segments",
    {slot::uniform, slot::storage_read, slot::storage_rw, slot::storage_rw, slot::storage_rw},
    16};
const kernel_spec sort_seg_mid_spec{
    "sort/segmented.wgsl",
    "sort_mid",
    {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_rw, slot::storage_rw, slot::storage_read},
    sizeof(seg_params)};

const std::string& sort_compare_source(const std::string& file, const key_compare& c, wgsl_constants constants) {
  if (!c.less) {
    static const monoid m(op::sum(), dtype::u32);
    constants.push_back({"COMPARATOR", "false"});
    return compose_wgsl(file, m, constants);
  }
  constants.push_back({"COMPARATOR", "true"});
  const std::string e = dtype_name(c.type);  // f32, i32 or u32: the WGSL type of the same name
  const std::string prelude = "alias E = " + e + ";\nfn wgprim_less(a: E, b: E) -> bool {\n  return " +
                              c.less->wgsl() + ";\n}\n";
  return compose_wgsl_with_prelude(file, prelude, constants, {"shared/predicate.wgsl"});
}

namespace {
// Bytes of the gate (the GPU binning's four counts, sort_mid's indirect grid and count, its larger size class's
// grid and count of segments: segmented_short.wgsl, segmented_bin.wgsl).
constexpr std::uint64_t gate_bytes = 48;
constexpr std::uint32_t mid_split = segment_mid_split;  // sort.hpp

std::string mid_name(std::uint32_t lo, std::uint32_t hi) {
  return "mid segments (" + std::to_string(lo + 1) + ".." + std::to_string(hi) + " keys)";
}

/// record_segment_sorts, or with `gate` (the GPU binning's counts, recorded earlier in the same recorder; then
/// short_segments must be true and keys not empty): tile_starts gates the short tiles on the counts and writes
/// sort_mid's indirect grid and list count into the gate, so that nothing waits for the host.
void record_segment_sorts_gated(recorder& rec, const key_compare& c, const device_view& keys,
                                const device_view* vals, const device_view& offsets, std::uint64_t n_segments,
                                bool short_segments, const buffer& list, std::uint64_t list_count,
                                const buffer* gate, bool mid_small = true, bool mid_big = true,
                                sort_phase_split* split = nullptr) {
  context& ctx = rec.ctx();
  recorder* r = &rec;  // the phase under way (segmented_sort_phases: each kernel submitted and timed alone)
  const std::uint32_t max_dim = ctx.limits().max_compute_workgroups_per_dimension;
  const binding vals_binding = vals ? bind(*vals) : bind(scratch(ctx, "sort.none_vals_x", 16));
  if (short_segments && keys.count) {
    short_params p{};
    p.key_kind = static_cast<std::uint32_t>(c.kind);
    p.descending = c.ord == order::descending ? 1u : 0u;
    p.mask_lo = static_cast<std::uint32_t>(sort_bit_mask(c.begin_bit, c.end_bit));
    p.n = static_cast<std::uint32_t>(keys.count);
    p.n_segments = static_cast<std::uint32_t>(n_segments);
    const std::uint32_t tile = short_tile(vals != nullptr);
    p.tiles = static_cast<std::uint32_t>((keys.count + tile - 1) / tile);
    wgsl_constants constants = sort_constants(seg_wg, 1, 1);
    constants.push_back({"SHORT", std::to_string(short_max) + "u"});
    constants.push_back({"TILE", std::to_string(tile) + "u"});
    constants.push_back({"PAIRS", vals ? "true" : "false"});
    constants.push_back({"VALS_WIN", vals ? std::to_string(tile + short_max - 1) + "u" : "1u"});
    static const monoid m(op::sum(), dtype::u32);
    const std::string& src = compose_wgsl(sort_seg_short_spec.file, m, constants);
    const buffer& first = scratch(ctx, "sort.seg_tile_first", (std::uint64_t(p.tiles) + 1) * 4);
    std::uint32_t gx, gy;
    grid_2d((std::uint64_t(p.tiles) + 1 + seg_wg - 1) / seg_wg, max_dim, gx, gy);
    p.gated = gate ? 1u : 0u;
    p.max_dim = max_dim;
    const binding gate_binding =
        gate ? bind(*gate, 0, gate_bytes) : bind(scratch(ctx, "sort.seg_gate_off", gate_bytes));
    short_params q = p;
    q.grid_x = gx;
    r->dispatch(get_kernel(ctx, sort_seg_tile_starts_spec, src, true),
                {r->params(q), bind(offsets), bind(first), bind(keys), vals_binding, gate_binding}, gx, gy);
    if (split) r = &split->next("tile starts");
    grid_2d(p.tiles, max_dim, gx, gy);
    q.grid_x = gx;
    r->dispatch(get_kernel(ctx, sort_seg_short_spec, src, true),
                {r->params(q), bind(offsets), bind(first), bind(keys), vals_binding, gate_binding}, gx, gy);
    if (split) r = &split->next("short segments (2.." + std::to_string(short_max) + " keys)");
  }
  if (!list_count && !gate) return;
  seg_params p{};
  p.key_kind = static_cast<std::uint32_t>(c.kind);
  p.descending = c.ord == order::descending ? 1u : 0u;
  p.mask_lo = static_cast<std::uint32_t>(sort_bit_mask(c.begin_bit, c.end_bit));
  p.pairs = vals ? 1u : 0u;
  p.n_segments = static_cast<std::uint32_t>(n_segments);
  wgsl_constants constants = sort_constants(seg_wg, 1, 1);
  constants.push_back({"PAIRS", vals ? "true" : "false"});  // keys only: the values' registers compile away
  // The network's variant (segmented.wgsl): entries in workgroup memory, or in registers with shuffles where the
  // adapter has subgroups; WGPRIM_SORT_MID picks one for A/B runs and tests. By default the radix order keeps the
  // memory network and a comparator takes the shuffles: on the H200 (session 11, call 2) the shuffles made
  // segments of ~1000 slower (2^28: 35.6 vs 29.6 ms; 2048 keys 39.2 vs 25.6) but the comparator sort faster
  // (2^28: 72.2 vs 84.4 ms), whose compares cost more than the moves the shuffles save.
  // Compiled trusted also with a comparator (see comparator.cpp: the expression cannot index memory).
  // GPUs (policy merge.block_network 0) sort a segment by the merge sort in workgroup memory instead (3): see
  // sort/policy.hpp for the measurements.
  const bool subgroups = ctx.features().subgroups;
  int mid = env::sort_mid();
  if (mid == -1) mid = !policy_for(ctx).merge.block_network ? 3 : c.less && subgroups ? 2 : 0;
  if (mid == 2 && !subgroups)
    throw error(errc::unsupported, "WGPRIM_SORT_MID=subgroups needs subgroups, which this adapter lacks");
  constants.push_back({"MID_MERGE", mid == 3 ? "true" : "false"});
  constants.push_back({"MS_POSITIONS", vals && mid == 3 ? "true" : "false"});
  constants.push_back({"MID_REGISTERS", mid == 1 || mid == 2 ? "true" : "false"});
  constants.push_back({"SUBGROUPS", mid == 2 ? "true" : "false"});
  // The size class of segments of (lo, hi] keys: workgroup arrays of hi entries (the merge sort: hi / seg_wg keys
  // per invocation).
  auto mid_kernel = [&](std::uint32_t lo, std::uint32_t hi) -> const kernel& {
    wgsl_constants k = constants;
    if (mid == 3)
      for (auto& [name, value] : k)
        if (name == "ITEMS") value = std::to_string(hi / seg_wg) + "u";
    k.push_back({"MID", std::to_string(hi) + "u"});
    k.push_back({"MID_MIN", std::to_string(lo) + "u"});
    std::uint32_t regs_log2 = 2;  // entries per invocation: at least 4, up to hi / seg_wg
    while ((seg_wg << regs_log2) < hi) ++regs_log2;
    k.push_back({"REGS", std::to_string(1u << regs_log2) + "u"});
    k.push_back({"REGS_LOG2", std::to_string(regs_log2) + "u"});
    return get_kernel(ctx, sort_seg_mid_spec, sort_compare_source("sort/segmented.wgsl", c, k), /*trusted=*/true);
  };
  if (gate) {
    // Both classes over the list the binning made, each sized on the device (the larger one's grid is 0 unless the
    // binning found a segment past mid_split).
    p.gated = 1;
    const std::initializer_list<binding> b = {r->params(p), bind(offsets), bind(list), bind(keys), vals_binding,
                                              bind(*gate, 0, gate_bytes)};
    r->dispatch_indirect(mid_kernel(0, mid_split), b, gate->native(), 16);
    if (split) r = &split->next(mid_name(short_max, mid_split));
    const std::initializer_list<binding> b2 = {r->params(p), bind(offsets), bind(list), bind(keys), vals_binding,
                                               bind(*gate, 0, gate_bytes)};
    r->dispatch_indirect(mid_kernel(mid_split, segment_mid_max), b2, gate->native(), 32);
    if (split) r = &split->next(mid_name(mid_split, segment_mid_max));
    return;
  }
  std::uint32_t gx, gy;
  grid_2d(list_count, max_dim, gx, gy);
  seg_params q = p;
  q.grid_x = gx;
  q.list_count = static_cast<std::uint32_t>(list_count);
  const binding none = bind(scratch(ctx, "sort.seg_gate_none", gate_bytes));
  if (mid_small) {
    r->dispatch(mid_kernel(0, mid_split), {r->params(q), bind(offsets), bind(list), bind(keys), vals_binding, none},
                gx, gy);
    if (split) r = &split->next(mid_name(short_max, mid_split));
  }
  if (mid_big) {
    r->dispatch(mid_kernel(mid_split, segment_mid_max),
                {r->params(q), bind(offsets), bind(list), bind(keys), vals_binding, none}, gx, gy);
    if (split) r = &split->next(mid_name(mid_split, segment_mid_max));
  }
}
}  // namespace

void record_segment_sorts(recorder& rec, const key_compare& c, const device_view& keys, const device_view* vals,
                          const buffer& offsets, std::uint64_t n_segments, bool short_segments,
                          const buffer& list, std::uint64_t list_count, bool mid_small, bool mid_big) {
  record_segment_sorts_gated(rec, c, keys, vals, view_of(offsets, n_segments + 1), n_segments, short_segments,
                             list, list_count, nullptr, mid_small, mid_big);
}

namespace {
std::uint32_t u32(std::uint64_t x) { return static_cast<std::uint32_t>(x); }

/// The offsets as a host vector: the caller's host memory, a native buffer, or a copy read back from the GPU.
std::vector<std::uint32_t> host_offsets(context& ctx, const range_ref& r) {
  std::vector<std::uint32_t> h(r.count);
  if (r.count == 0) return h;
  if (!r.on_device) {
    const auto* p = static_cast<const std::uint32_t*>(r.host);
    std::copy(p, p + r.count, h.begin());
  } else {
    check_view(ctx, r.view, "segmented sort offsets");
    buffer tmp = ctx.create_buffer(r.count * 4);
    recorder rec(ctx);
    rec.copy_raw(r.view.buf, r.view.offset, tmp.native(), 0, r.count * 4);
    rec.submit();
    ctx.read(tmp, 0, h.data(), r.count * 4);
  }
  return h;
}

sort_key_kind kind_of(dtype t) {
  switch (t) {
    case dtype::u32: return sort_key_kind::unsigned_int;
    case dtype::i32: return sort_key_kind::signed_int;
    case dtype::f32: return sort_key_kind::floating;
    default:
      throw error(errc::unsupported,
                  std::string("segmented sort: keys of type ") + dtype_name(t) + " are not supported (u32, i32, f32)");
  }
}

/// The segments by path: whether any has 2..short_max keys, the list of those sort_mid takes (on the device: `mid`
/// of them in `list`), and the long ones as (first, end). `offsets`: the offsets as the kernels bind them.
struct bins {
  bool any_short = false;
  bool mid_small = false, mid_big = false;  // host bins: mid segments of at most / more than mid_split keys
  std::uint64_t mid = 0, broken = 0, large_total = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> large;
  buffer offsets, list;                                  // host bins: uploaded here
  const buffer *list_s = nullptr, *counts_s = nullptr;  // GPU bins: the context's scratch buffers
  std::uint64_t large_at = 0;
  device_view offs;  // the offsets as the kernels bind them
  const buffer& lst() const { return list_s ? *list_s : list; }
};

bins bin_host(context& ctx, const std::vector<std::uint32_t>& off) {
  bins b;
  std::vector<std::uint32_t> mid;
  for (std::uint64_t s = 0; s + 1 < off.size(); ++s) {
    const std::uint32_t len = off[s + 1] - off[s];
    if (len < 2) continue;
    if (len <= short_max) b.any_short = true;
    else if (len <= segment_mid_max) {
      mid.push_back(u32(s));
      (len <= mid_split ? b.mid_small : b.mid_big) = true;
    }
    else b.large.push_back({off[s], off[s + 1]});
  }
  b.mid = mid.size();
  b.large_total = b.large.size();
  b.offsets = ctx.create_buffer(off.size() * 4);
  ctx.write(b.offsets, 0, off.data(), off.size() * 4);
  b.offs = view_of(b.offsets, off.size());
  b.list = ctx.create_buffer(std::max<std::size_t>(mid.size(), 1) * 4);
  if (!mid.empty()) ctx.write(b.list, 0, mid.data(), mid.size() * 4);
  return b;
}

// Long segments the GPU binning brings back one by one (8 bytes each); past that the host reads the offsets.
constexpr std::uint32_t large_cap = 4096;

/// Records the binning of device offsets on the GPU (segmented_bin.wgsl) into `rec`: the list and the counts stay on
/// the device for the gated sorts recorded after it; the counts (16 bytes at 0 of *counts_s) and the long segments
/// (at `large_at`) come back after the submission instead of every offset. `keys` and `vals` (null: none): the
/// buffers the sorts write, which the offsets must not share to be bound as they are.
bins record_bin_gpu(recorder& rec, const device_view& offsets, std::uint64_t segs, std::uint64_t n, WGPUBuffer keys,
                    WGPUBuffer vals) {
  context& ctx = rec.ctx();
  bins b;
  // Scratch buffers (no allocation per call once they are large enough): the list; counts at 0 and the long
  // segments at the next bindable offset (zeroed by a dispatch: a transfer command would end the compute pass).
  // The offsets are bound where they lie, or, at an offset that cannot be bound or in a buffer the sorts write
  // (WebGPU forbids binding one buffer as read-only and writable storage in one dispatch), copied into a scratch
  // buffer of their own (4 (n_segments + 1) bytes).
  b.list_s = &scratch(ctx, "sort.seg_list", std::max<std::uint64_t>(segs, 1) * 4);
  const std::uint64_t align = std::max<std::uint64_t>(ctx.limits().min_storage_buffer_offset_alignment, 4);
  b.large_at = (gate_bytes + align - 1) / align * align;
  b.counts_s = &scratch(ctx, "sort.seg_counts", b.large_at + 2ull * large_cap * 4);
  const buffer& counts = *b.counts_s;
  if (offsets.offset % align == 0 && offsets.buf != keys && offsets.buf != vals) {
    b.offs = offsets;
    b.offs.count = segs + 1;
  } else {
    const buffer& copy = scratch(ctx, "sort.seg_offsets", (segs + 1) * 4);
    rec.copy_raw(offsets.buf, offsets.offset, copy.native(), 0, (segs + 1) * 4);
    b.offs = view_of(copy, segs + 1);
  }
  record_zero(rec, counts, 0, gate_bytes);
  wgsl_constants constants = sort_constants(seg_wg, 1, 1);
  constants.push_back({"SHORT", std::to_string(short_max) + "u"});
  constants.push_back({"MID", std::to_string(segment_mid_max) + "u"});
  constants.push_back({"MID_SPLIT", std::to_string(mid_split) + "u"});
  static const monoid m(op::sum(), dtype::u32);
  const std::string& src = compose_wgsl(sort_seg_bin_spec.file, m, constants);
  std::uint32_t gx, gy;
  grid_2d((segs + seg_wg - 1) / seg_wg, ctx.limits().max_compute_workgroups_per_dimension, gx, gy);
  const std::uint32_t p[4] = {u32(n), u32(segs), gx, large_cap};
  rec.dispatch(get_kernel(ctx, sort_seg_bin_spec, src, true),
               {rec.params(p, sizeof p), bind(b.offs), bind(*b.list_s), bind(counts, 0, gate_bytes),
                bind(counts, b.large_at, 2ull * large_cap * 4)},
               gx, gy);
  return b;
}

/// After the submission of record_bin_gpu: the counts `c` (read back with it) and the long segments.
void read_bins(context& ctx, bins& b, const std::uint32_t c[4]) {
  b.mid = c[0];
  b.large_total = c[1];
  b.broken = c[2];
  b.any_short = c[3] != 0;
  if (!b.broken && b.large_total && b.large_total <= large_cap) {
    std::vector<std::uint32_t> pairs(2 * b.large_total);
    ctx.read(*b.counts_s, b.large_at, pairs.data(), pairs.size() * 4);
    for (std::uint64_t i = 0; i < b.large_total; ++i) b.large.push_back({pairs[2 * i], pairs[2 * i + 1]});
  }
}
}  // namespace

namespace {
/// The checks of every segmented sort's arguments that need no GPU; the bit range with end_bit 0 made 32.
void check_segmented_args(const range_ref& keys, const range_ref* vals, const range_ref& offsets, dtype key_type,
                          const sort_order& so, unsigned& begin_bit_out, unsigned& end_bit_out) {
  kind_of(key_type);  // u32, i32 or f32 keys
  const std::uint32_t begin_bit = so.begin_bit, end_bit = so.end_bit ? so.end_bit : 32;
  if (begin_bit >= end_bit || end_bit > 32)
    throw error(errc::invalid_argument, "segmented sort: bits [" + std::to_string(so.begin_bit) + ", " +
                                            std::to_string(so.end_bit) +
                                            ") are not a bit range of a 32-bit key (0 <= begin_bit < end_bit <= 32)");
  const bool pairs = vals != nullptr;
  const std::uint64_t n = keys.count;
  if (pairs && vals->on_device != keys.on_device)
    throw error(errc::invalid_argument, "segmented sort: keys and values must both be on the device or both on the host");
  if (offsets.on_device != keys.on_device)
    throw error(errc::invalid_argument, "segmented sort: keys and offsets must both be on the device or both on the host");
  if (pairs && vals->count != n)
    throw error(errc::invalid_argument, "segmented sort: the keys and values ranges differ in length");
  if (pairs && dtype_bytes(vals->type) != 4)
    throw error(errc::unsupported, std::string("segmented sort: values of type ") + dtype_name(vals->type) +
                                       " are not supported (values are 32-bit)");
  if (offsets.count == 0)
    throw error(errc::invalid_argument, "segmented sort: give n_segments + 1 offsets (at least one)");
  if (n > 0xffffffffull) throw error(errc::limit, "segmented sort: more than 2^32 - 1 keys");
  begin_bit_out = begin_bit;
  end_bit_out = end_bit;
}
}  // namespace

void segmented_sort_run(context& ctx, const range_ref& keys, const range_ref* vals, const range_ref& offsets,
                        dtype key_type, const sort_order& so, const run_options& opt) {
  unsigned begin_bit, end_bit;
  check_segmented_args(keys, vals, offsets, key_type, so, begin_bit, end_bit);
  backend_of(ctx).segmented_sort(ctx, keys, vals, offsets, key_type, so.direction, begin_bit, end_bit, opt);
}

namespace {
/// The GPU segmented sort; with `phases`, each kernel (the binning, tile starts, the short segments, each mid size
/// class, the long segments) is submitted and timed alone (segmented_sort_phases) and opt.stats is left alone.
void segmented_sort_gpu(context& ctx, const range_ref& keys, const range_ref* vals, const range_ref& offsets,
                        dtype key_type, order direction, unsigned begin_bit, unsigned end_bit, const run_options& opt,
                        phase_timer* phases) {
  using clock = std::chrono::steady_clock;
  const sort_key_kind kind = kind_of(key_type);
  const bool pairs = vals != nullptr;
  const std::uint64_t n = keys.count;
  const algorithm_entry& alg = pick_algorithm(ctx, "segmented_sort", opt.algorithm);
  // Device offsets are binned on the GPU in the submission that sorts the short and mid segments (gated on the
  // counts); host offsets and the offsets of no segment are copied to the host and binned in one pass here.
  const bool gpu_bins = offsets.on_device && offsets.count > 1 && n > 0;
  std::vector<std::uint32_t> off;
  if (!gpu_bins) {
    off = host_offsets(ctx, offsets);
    check_offsets_host(off.data(), off.size(), n, "segmented sort");
  }
  const std::uint64_t segs = offsets.count - 1;
  if (keys.on_device) {
    check_view(ctx, keys.view, "segmented sort keys");
    if (pairs) check_view(ctx, vals->view, "segmented sort values");
    if (pairs && n && vals->view.buf == keys.view.buf)
      throw error(errc::invalid_argument, "segmented sort: keys and values must be in different buffers");
  }
  if (gpu_bins) check_view(ctx, offsets.view, "segmented sort offsets");
  if (n * 4 > ctx.binding_limit() || segs * 4 >= ctx.binding_limit())
    throw error(errc::limit, "segmented sort: " + std::to_string(n) + " keys exceed one storage binding (" +
                                 std::to_string(ctx.binding_limit() / 4) + " keys)");
  auto t0 = clock::now();
  bins bn;
  if (!gpu_bins) {
    bn = bin_host(ctx, off);
    if (!bn.any_short && bn.mid == 0 && bn.large.empty()) {
      if (opt.stats) *opt.stats = run_stats{0, false, 0, 0, alg.name, 0};
      return;
    }
  }
  // Keys and values: uploaded (host ranges) or the caller's views; made bindable below.
  const in_place_keys in(ctx, keys, vals);
  device_view kv = in.kv, vv = in.vv;
  const double upload_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  key_compare c;
  c.kind = kind;
  c.ord = direction;
  c.begin_bit = begin_bit;
  c.end_bit = end_bit;

  gpu_time spent;
  {
    std::optional<recorder> own;
    recorder* rec = phases ? phases->cur.get() : &own.emplace(ctx, opt.timestamps || opt.stats != nullptr);
    // In place: an unaligned view is sorted in an aligned temporary, copied in first and back at the end.
    device_view k1 = kv, v1 = vv;
    bindable_output ok = bindable_in_place(*rec, k1), ov;
    if (pairs) ov = bindable_in_place(*rec, v1);
    if (gpu_bins) {
      bn = record_bin_gpu(*rec, offsets.view, segs, n, k1.buf, pairs ? v1.buf : nullptr);
      if (phases) rec = &phases->next("binning");
      record_segment_sorts_gated(*rec, c, k1, pairs ? &v1 : nullptr, bn.offs, segs, true, bn.lst(), 0,
                                 bn.counts_s, true, true, phases);
    } else {
      record_segment_sorts_gated(*rec, c, k1, pairs ? &v1 : nullptr, bn.offs, segs, bn.any_short, bn.lst(), bn.mid,
                                 nullptr, bn.mid_small, bn.mid_big, phases);
    }
    if (phases) rec = phases->cur.get();
    ok.finish(*rec);
    if (pairs) ov.finish(*rec);
    std::uint32_t counts[4] = {};
    const recorder::readback rb{gpu_bins ? bn.counts_s->native() : nullptr, 0, 16, counts};
    if (phases) {
      phases->next("copy back");  // empty unless the keys were not bindable where they lie
      if (gpu_bins) ctx.read(*bn.counts_s, 0, counts, 16);
    } else {
      spent = rec->submit(gpu_bins ? &rb : nullptr);
    }
    if (gpu_bins) {
      read_bins(ctx, bn, counts);
      if (bn.broken) {  // the gated sorts did nothing; the offsets read back name the first bad one
        off = host_offsets(ctx, offsets);
        check_offsets_host(off.data(), off.size(), n, "segmented sort");
        throw error(errc::invalid_argument, "segmented sort: the offsets decrease or pass n (" +
                                                std::to_string(bn.broken) +
                                                (bn.broken == 1 ? " segment" : " segments") + " out of order)");
      }
      if (bn.large_total > bn.large.size()) {  // too many long segments to bring back one by one: the host lists
        off = host_offsets(ctx, offsets);
        bn.large.clear();
        for (std::uint64_t s = 0; s < segs; ++s)
          if (off[s + 1] - off[s] > segment_mid_max) bn.large.push_back({off[s], off[s + 1]});
      }
    }
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>>& large = bn.large;
  if (!large.empty()) {
    std::optional<recorder> own;
    recorder& rec = phases ? *phases->cur : own.emplace(ctx, opt.timestamps || opt.stats != nullptr);
    bindable_output ok = bindable_in_place(rec, kv), ov;
    if (pairs) ov = bindable_in_place(rec, vv);
    // Longest first: the sort's scratch buffers (and the temporaries here) reach their size at the first one.
    std::stable_sort(large.begin(), large.end(),
                     [](const auto& a, const auto& b) { return a.second - a.first > b.second - b.first; });
    const std::uint64_t longest = large[0].second - large[0].first;
    const std::uint64_t align = std::max<std::uint64_t>(ctx.limits().min_storage_buffer_offset_alignment, 4);
    buffer tmp_k, tmp_v;
    run_options sort_opt = opt;  // the device sort's own default algorithm, no stats of its own
    sort_opt.algorithm.clear();
    sort_opt.stats = nullptr;
    for (const auto& [first, end] : large) {
      const std::uint64_t len = end - first;
      sort_args a;
      a.n = len;
      a.key_words = 1;
      a.kind = kind;
      a.ord = direction;
      a.begin_bit = begin_bit;
      a.end_bit = end_bit;
      a.opt = &sort_opt;
      device_view sk = kv, sv = vv;
      sk.offset += std::uint64_t(first) * 4;
      sk.count = len;
      sv.offset += std::uint64_t(first) * 4;
      sv.count = len;
      const bool direct = sk.offset % align == 0 && (!pairs || sv.offset % align == 0);
      if (!direct) {
        if (!tmp_k) tmp_k = ctx.create_buffer(longest * 4);
        if (pairs && !tmp_v) tmp_v = ctx.create_buffer(longest * 4);
        rec.copy_raw(sk.buf, sk.offset, tmp_k.native(), 0, len * 4);
        if (pairs) rec.copy_raw(sv.buf, sv.offset, tmp_v.native(), 0, len * 4);
        a.keys_in = a.keys_out = view_of(tmp_k, len);
        if (pairs) a.vals_in = a.vals_out = view_of(tmp_v, len);
      } else {
        a.keys_in = a.keys_out = sk;
        if (pairs) a.vals_in = a.vals_out = sv;
      }
      record_sort(rec, a);
      if (!direct) {
        rec.copy_raw(tmp_k.native(), 0, sk.buf, sk.offset, len * 4);
        if (pairs) rec.copy_raw(tmp_v.native(), 0, sv.buf, sv.offset, len * 4);
      }
    }
    ok.finish(rec);
    if (pairs) ov.finish(rec);
    if (phases) {
      phases->next("long segments (" + std::to_string(large.size()) + " device sorts)");
    } else {
      const gpu_time t = rec.submit();
      spent.ms += t.ms;
      spent.compile_ms += t.compile_ms;
      spent.from_timestamps = spent.from_timestamps && t.from_timestamps;
    }
  }
  if (phases) return;  // the keys stay on the device (segmented_sort_phases takes buffers)
  fill_stats(opt, spent, alg.name);
  if (opt.stats) opt.stats->upload_ms = keys.on_device ? 0 : upload_ms;
  in.write_back(ctx);
}

}  // namespace

void segmented_sort_webgpu(context& ctx, const range_ref& keys, const range_ref* vals, const range_ref& offsets,
                           dtype key_type, order direction, unsigned begin_bit, unsigned end_bit,
                           const run_options& opt) {
  segmented_sort_gpu(ctx, keys, vals, offsets, key_type, direction, begin_bit, end_bit, opt, nullptr);
}

bindable_output bindable_in_place(recorder& rec, device_view& v) {
  const device_view v0 = v;
  bindable_output o = bindable_output_of(rec, v);
  if (o.temp) rec.copy_raw(v0.buf, v0.offset, o.view.buf, o.view.offset, v0.bytes());
  v = o.view;
  return o;
}

}  // namespace wgprim::detail

namespace wgprim {
std::vector<sort_phase> segmented_sort_phases(context& ctx, buffer& keys, std::size_t n, const buffer& offsets,
                                              std::size_t n_segments, dtype key_type, sort_order o, buffer* values,
                                              const run_options& opt) {
  using namespace detail;
  range_ref k = in_place_ref(device_span<std::uint32_t>(keys, 0, n)), v;
  k.type = key_type;
  const range_ref off = in_ref(device_span<const std::uint32_t>(offsets, 0, n_segments + 1));
  if (values) v = in_place_ref(device_span<std::uint32_t>(*values, 0, n));
  unsigned begin_bit, end_bit;
  check_segmented_args(k, values ? &v : nullptr, off, key_type, o, begin_bit, end_bit);
  if (ctx.backend() == backend_choice::native)
    return whole_sort_phase([&] {
      backend_of(ctx).segmented_sort(ctx, k, values ? &v : nullptr, off, key_type, o.direction, begin_bit, end_bit,
                                     opt);
    });
  std::vector<sort_phase> out;
  phase_timer split(ctx, out);
  segmented_sort_gpu(ctx, k, values ? &v : nullptr, off, key_type, o.direction, begin_bit, end_bit, opt, &split);
  return out;
}
}  // namespace wgprim
