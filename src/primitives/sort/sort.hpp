// The sort primitive's record functions and its algorithms (one .cpp each). Both algorithms are LSD radix sorts
// over 8-bit digits of the transformed keys (shaders/sort/keys.wgsl), 32-bit keys (one word) or 64-bit keys (two
// u32 words, low first). record_sort records everything into one recorder without any host wait: the histogram of
// every digit (one read of the keys), the plan (which passes are active: a pass whose digit is the same for every
// key is skipped, decided on the GPU), one dispatch per slot (the j-th active pass; inactive slots return at once),
// and a finish step that copies the result into the output when the passes left it elsewhere. Which buffer each
// slot reads and writes is decided on the GPU too (shaders/sort/buffers.wgsl).
#pragma once
#include <chrono>
#include <memory>

#include "core/wgsl_compose.hpp"
#include "primitives/primitive.hpp"
#include "wgprim/sort.hpp"

namespace wgprim::detail {

/// The parameter block of every sort kernel (shaders/sort/keys.wgsl: sort_params).
struct sort_params {
  std::uint32_t n, tiles, slot, grid_x, key_kind, descending, pairs, in_place, spin_limit, stress, workgroups, blocks;
  // The compared bits of the transformed key (low word, high word), and the digit passes [pass_lo, pass_hi) that
  // cover them: the histogram counts only those, the plan never runs the others.
  std::uint32_t mask_lo, mask_hi, pass_lo, pass_hi;
  std::uint32_t device_n;  // 1: the key count is in the state buffer (sort/count.wgsl), n is the capacity
  std::uint32_t pad[3];
};
static_assert(sizeof(sort_params) == 80);

/// Key kinds of the transform (keys.wgsl): 0 unsigned, 1 signed, 2 float.
enum class sort_key_kind : std::uint32_t { unsigned_int = 0, signed_int = 1, floating = 2 };

struct sort_args {
  std::uint64_t n = 0;            // keys
  std::uint32_t key_words = 1;    // 1: 32-bit keys, 2: 64-bit keys (two u32 words each, low first)
  sort_key_kind kind = sort_key_kind::unsigned_int;
  order ord = order::ascending;
  std::uint32_t begin_bit = 0, end_bit = 32;  // bits [begin_bit, end_bit) of the transformed key are compared
  // Bindable views (aligned offsets). keys_in.buf == keys_out.buf means in place (then the views are the same);
  // otherwise keys_in must not share a buffer with any output. vals_* count 0: keys only.
  device_view keys_in, keys_out, vals_in, vals_out;
  const run_options* opt = nullptr;
  // A counted range (wgprim/counted.hpp): its key count, a u32 on the device (at most n, which is then the
  // capacity); nullptr: all n keys. record_sort copies it into the state buffer and every kernel stops there.
  const device_view* count = nullptr;
  bool pairs() const { return vals_in.count > 0; }
  bool in_place() const { return keys_in.buf == keys_out.buf; }
  std::uint32_t pass_lo() const { return begin_bit / 8; }
  std::uint32_t pass_hi() const { return (end_bit + 7) / 8; }
};

/// Everything a slot dispatch binds besides its own buffers: the roles of sort/buffers.wgsl and the state buffer.
struct sort_bindings {
  binding keys_in, keys_x, keys_y, vals_in, vals_x, vals_y, state;
};

/// The keys (and values, where vals is not null) of an in-place sort: the caller's device views as they are, or
/// its host ranges uploaded into buffers held here, the upload finished before the constructor returns.
/// write_back() reads the sorted host ranges back (nothing for device ranges).
struct in_place_keys {
  const range_ref& keys;
  const range_ref* vals;
  buffer up_k, up_v;
  device_view kv, vv;
  in_place_keys(context& ctx, const range_ref& keys, const range_ref* vals);
  void write_back(context& ctx) const;
};

/// WGSL constants every sort kernel takes.
wgsl_constants sort_constants(std::uint32_t wg_size, std::uint32_t items, std::uint32_t key_words);
sort_params sort_params_of(const sort_args& a);
/// Bits [begin_bit, end_bit) of a 64-bit word (end_bit <= 64).
std::uint64_t sort_bit_mask(std::uint32_t begin_bit, std::uint32_t end_bit);

/// Records the whole sort (no host wait). The state buffer is the context's scratch "sort.state"; the fallback
/// counts of the onesweep slots are in its words 8..15 after the submit.
/// Where record_sort may end a phase (sort_phases): next() submits what was recorded since the last phase as
/// `finished`, and returns the recorder for the next phase.
struct sort_phase_split {
  virtual ~sort_phase_split() = default;
  virtual recorder& next(const std::string& finished) = 0;
};
/// The phase split that times each phase (sort_phases, comparator_sort_phases): `cur` records the phase under way;
/// next() submits it, waits, and appends its GPU time to `out` under the name given.
struct phase_timer final : sort_phase_split {
  context& ctx;
  std::vector<sort_phase>& out;
  std::unique_ptr<recorder> cur;
  phase_timer(context& c, std::vector<sort_phase>& o) : ctx(c), out(o), cur(std::make_unique<recorder>(c, true)) {}
  recorder& next(const std::string& finished) override;
};
/// The native backend's phases (comparator_sort_phases, segmented_sort_phases): one, "sort", the wall time of
/// `run_sort()`.
template <class F> std::vector<sort_phase> whole_sort_phase(F&& run_sort) {
  const auto t0 = std::chrono::steady_clock::now();
  run_sort();
  return {{"sort", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), false,
           false}};
}
void record_sort(recorder& rec, const sort_args& a, sort_phase_split* split = nullptr);
/// The scratch buffer holding the sort's state (for reading the fallback counts after a submit).
const buffer& sort_state(context& ctx);

extern const kernel_spec sort_histogram_spec, sort_plan_spec, sort_finish_spec, sort_rts_count_spec,
    sort_rts_scatter_spec, sort_onesweep_spec, sort_merge_split_spec, sort_merge_spec;

/// Sorts past one storage binding (merge.cpp): record_sort per binding-sized chunk, then merges of sorted runs
/// (no host wait). Takes the same arguments as record_sort, for any n up to 2^31 - 1.
void record_sort_merged(recorder& rec, const sort_args& a);
/// Keys per chunk of record_sort_merged: one binding, at a multiple of twice the offset alignment.
std::uint64_t sort_chunk_keys(const context& ctx, std::uint32_t key_words);
/// Throws errc::limit unless n keys of key_words words fit the sort (the keys, the values and the temporaries each
/// within the device's largest buffer; fewer than 2^31).
void check_sort_size(const context& ctx, std::uint64_t n, std::uint32_t key_words);

/// An algorithm's per-sort state: the tile-state words it needs, and one dispatch (or a few) per slot.
struct sort_algorithm {
  virtual ~sort_algorithm() = default;
  /// Tile-state words the state buffer needs past TILE_STATES, and how many of them (from TILE_STATES on) must be
  /// zero before slot 0: the sort clears them with its state header, in one dispatch; the algorithm keeps the rest
  /// cleared itself.
  virtual std::uint64_t state_words() const = 0;
  virtual std::uint64_t state_words_zeroed_first() const { return 0; }
  virtual void slot(recorder& rec, std::uint32_t j, const sort_bindings& b) = 0;
  /// Whether slot 0 copies the input to the output itself when the plan finds no active pass (out of place): then
  /// the sort records no finish dispatch (one dispatch fewer a call).
  virtual bool copies_input_when_no_pass() const { return false; }
};
std::unique_ptr<sort_algorithm> make_sort_rts(recorder& rec, const sort_args& a);
std::unique_ptr<sort_algorithm> make_sort_onesweep(recorder& rec, const sort_args& a);

class expr_program;
/// How the segment kernels (shaders/sort/segmented.wgsl) and the level merge (merge_level.wgsl) compare 32-bit
/// keys: on the radix sort's transformed bits (kind, order, bits), or by a comparator expression over `type`.
// An operand sorted in place (segmented and comparator sorts): where `v` cannot be bound, the passes work in an
// aligned temporary that starts as a recorded copy of `v`; finish() copies it back. `v` becomes what to bind.
bindable_output bindable_in_place(recorder& rec, device_view& v);

struct key_compare {
  sort_key_kind kind = sort_key_kind::unsigned_int;
  order ord = order::ascending;
  std::uint32_t begin_bit = 0, end_bit = 32;
  const expr_program* less = nullptr;  // a comparator (mode::less): then kind, ord and the bits are unused
  dtype type = dtype::u32;             // the comparator's element type
};
/// The composed text of a sort shader for a comparison: COMPARATOR false, or true with the comparator's prelude
/// (alias E, wgprim_less(a, b)) and shared/predicate.wgsl.
const std::string& sort_compare_source(const std::string& file, const key_compare& c, wgsl_constants constants);
/// The k-way merge of sorted runs laid side by side in `keys` (run i: the run_counts[i] keys after run i - 1's;
/// `vals` null: keys only), in place and stable (equal keys: the earlier run's first), compared as `c` says:
/// log2(runs) levels of pairwise merges (comparator.cpp: the comparator sort's tiled merge kernels with RUNS, a
/// table of the level's pairs). Every key within one storage binding (errc::limit otherwise); bindable views.
/// Returns the buffer of the levels' tables (empty with fewer than two non-empty runs): keep it until submitted.
[[nodiscard]] buffer record_merge_runs(recorder& rec, const key_compare& c, const device_view& keys,
                                       const device_view* vals, const std::vector<std::uint64_t>& run_counts);
/// Segments of at most this many keys are sorted by one workgroup (segmented.wgsl: sort_mid).
constexpr std::uint32_t segment_mid_max = 2048;
/// sort_mid's two size classes (segmented.wgsl): segments of at most this many keys in workgroup arrays of this many
/// entries (8 KiB), longer ones in arrays of segment_mid_max (16 KiB, fewer workgroups at once on the H200).
constexpr std::uint32_t segment_mid_split = 1024;
/// segmented.cpp: with `short_segments`, records the short-segment tiles over every segment of 2..256 keys
/// (segmented_short.wgsl: many per workgroup; radix order only, not a comparator), and sort_mid over the
/// `list_count` segments listed in `list` (each of at most segment_mid_max keys), in place in keys (and vals):
/// its size class of segments of at most 1024 keys where `mid_small`, the longer ones' where `mid_big`.
void record_segment_sorts(recorder& rec, const key_compare& c, const device_view& keys, const device_view* vals,
                          const buffer& offsets, std::uint64_t n_segments, bool short_segments, const buffer& list,
                          std::uint64_t list_count, bool mid_small = true, bool mid_big = true);
extern const kernel_spec sort_seg_tile_starts_spec, sort_seg_short_spec, sort_seg_mid_spec, sort_seg_bin_spec,
    sort_merge_level_spec, sort_merge_tile_split_spec, sort_merge_tile_spec, sort_merge_block_spec;

/// Sorts the first `count` (a u32 on the device, clamped to the range's length) 32-bit keys of a device range in
/// place without the count reaching the host: every kernel reads it (sort/count.wgsl), so the passes cover the
/// counted keys only; the rest of the range is left as it was. Returns false (recording nothing) where the range
/// is past one binding (the merged sort does not take a device count): the caller then sorts the whole capacity.
bool sort_counted_webgpu(context& ctx, WGPUCommandEncoder encoder, const range_ref& keys, const device_view& count,
                         const sort_order& ord, const run_options& opt);
/// Test entry for 64-bit keys until the public element types exist (wgprim/testing.hpp: sort_words).
void sort_words_run(context& ctx, const buffer& keys_in, buffer& keys_out, std::uint64_t n, std::uint32_t key_words,
                    sort_key_kind kind, const sort_order& o, const buffer* vals_in, buffer* vals_out,
                    const run_options& opt);

}  // namespace wgprim::detail
