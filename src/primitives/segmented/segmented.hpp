// Segmented scans over head flags (shaders/segmented/tiles.wgsl): the record layer under segmented reduce/scan
// over CSR offsets, reduce-by-key and run-length encoding.
#pragma once
#include "primitives/primitive.hpp"
#include "wgprim/op.hpp"

namespace wgprim::detail {

struct segmented_args {
  std::uint64_t n = 0;              // elements (> 0)
  device_view values;               // bindable, n values of the monoid's type (unused when ones)
  bool ones = false;                // every value is 1u (run-length encoding)
  // Where segments start: CSR offsets (n_segments + 1, bindable) or runs of equal keys (n keys, bindable).
  device_view offsets;
  std::uint64_t n_segments = 0;
  device_view keys;
  dtype key_type = dtype::u32;
  const monoid* m = nullptr;
  // scan: out (n elements, bindable) gets the segmented scan. tails (reduce-by-key): sums[r] and unique_keys[r]
  // for runs r < capacity (both bindable, at least `capacity` elements).
  enum class output { scan, tails } mode = output::scan;
  bool exclusive = false;
  device_view out, sums, unique_keys;
  std::uint64_t capacity = 0;
  std::uint32_t spine_items = 16;   // tiles per invocation of the spine (1..16)
};

/// What a recorded segmented pass leaves behind, in context scratch buffers (read or copied before the next call
/// records over them): heads[words] counts broken offsets, word 1 of `fallbacks` a look-back pass's fallbacks (where
/// it counts them), tiles[runs_index] holds the number of segments (heads) in the array. Each pass sets what its
/// caller reads.
struct segmented_workspace {
  const buffer* heads = nullptr;
  const buffer* tiles = nullptr;
  const buffer* fallbacks = nullptr;  // the look-back's tile states (word 1: its fallback count)
  std::uint64_t words = 0, runs_index = 0;
};

/// Records the passes.
segmented_workspace record_segmented(recorder& rec, const segmented_args& a);

/// out[s] (s < n_segments) = inclusive[offsets[s+1] - 1], identity for empty segments: the gather behind
/// segmented reduce. `inclusive` has n elements.
void record_segment_gather(recorder& rec, const monoid& m, const device_view& inclusive, std::uint64_t n,
                           const device_view& offsets, std::uint64_t n_segments, const device_view& out);

/// Whether record_segmented_reduce serves n values in n_segments segments (everything in one binding each).
bool segmented_reduce_streams(const context& ctx, std::uint64_t n, std::uint64_t n_segments);
/// out[s] = the reduction of values[offsets[s], offsets[s+1]) (identity for empty segments) in one pass over the
/// values (shaders/segmented/reduce.wgsl). n >= 1, n_segments >= 1; heads[0] of the result counts broken offsets.
segmented_workspace record_segmented_reduce(recorder& rec, const monoid& m, const device_view& values, std::uint64_t n,
                                            const device_view& offsets, std::uint64_t n_segments,
                                            const device_view& out);

/// Whether the one-subgroup-per-segment reduce and scan serve n values in n_segments segments (subgroups, one
/// binding each).
bool segmented_per_subgroup_serves(const context& ctx, std::uint64_t n, std::uint64_t n_segments);
/// The segmented reduce with one subgroup per segment (shaders/segmented/per_subgroup.wgsl), segments of more
/// than min(8,192, 256 x the subgroup's lanes) values in chunks folded by workgroups; needs a commutative combine.
/// n >= 1, n_segments >= 1; the result's heads[0] counts broken offsets.
segmented_workspace record_segmented_reduce_per_subgroup(recorder& rec, const monoid& m, const device_view& values,
                                                         std::uint64_t n, const device_view& offsets,
                                                         std::uint64_t n_segments, const device_view& out);

/// The segmented scan by the same passes (every step in order: any associative combine); out holds n values.
segmented_workspace record_segmented_scan_per_subgroup(recorder& rec, const monoid& m, const device_view& values,
                                                       std::uint64_t n, const device_view& offsets,
                                                       std::uint64_t n_segments, const device_view& out,
                                                       bool exclusive);

/// The segmented scan (n values into out) by the same passes plus a rescan of every tile; n_segments may be 0.
segmented_workspace record_segmented_scan_streaming(recorder& rec, const monoid& m, const device_view& values,
                                                    std::uint64_t n, const device_view& offsets,
                                                    std::uint64_t n_segments, const device_view& out, bool exclusive);

/// The segmented scan in one decoupled look-back pass over the values (shaders/segmented/decoupled.wgsl), after a
/// bounds pass over the offsets; the same conditions as the streaming passes (segmented_reduce_streams). tune: the
/// look-back's knobs (items 1..8: vec4 per invocation; larger is the spine's knob and ignored here).
/// heads[0] of the result counts broken offsets, fallbacks[1] the look-back's fallbacks.
segmented_workspace record_segmented_scan_decoupled(recorder& rec, const monoid& m, const device_view& values,
                                                    std::uint64_t n, const device_view& offsets,
                                                    std::uint64_t n_segments, const device_view& out, bool exclusive,
                                                    const tuning& tune);
/// The segmented reduce by the same pass: out[s] (n_segments values) = the reduction of segment s, written by the
/// tile that owns its end offset (identity for empty segments). n >= 1, n_segments >= 1.
segmented_workspace record_segmented_reduce_decoupled(recorder& rec, const monoid& m, const device_view& values,
                                                      std::uint64_t n, const device_view& offsets,
                                                      std::uint64_t n_segments, const device_view& out,
                                                      const tuning& tune);

/// The WGSL prelude of a look-back over (word, value) pairs, shared by the decoupled segmented scan (word: a segment
/// head flag) and reduce-by-key (word: a run count): alias V and the value monoid (v_identity, v_combine), alias
/// T = vec2<u32> (x the word, y the value's bits), identity(), combine(a, b) that runs `when_b_word` (WGSL
/// statements returning a T) when b.x != 0 and otherwise combines the values keeping a.x, and the two-word
/// conversions the look-back needs.
std::string pair_scan_prelude(const monoid& m, const std::string& when_b_word);

extern const kernel_spec seg_decoupled_bounds_spec, seg_decoupled_spec;
extern const kernel_spec segr_bounds_spec, segr_tile_spec, segr_spine_up_spec, segr_spine_top_spec, segr_spine_down_spec,
    segr_scan_spec;
extern const kernel_spec segr_subgroup_spec, segr_chunk_args_spec, segr_chunks_spec, segr_longs_spec,
    segr_chunk_scan_spec;
extern const kernel_spec seg_heads_offsets_spec, seg_heads_keys_spec, seg_tile_reduce_spec, seg_spine_spec,
    seg_tile_scan_spec, seg_gather_spec;

}  // namespace wgprim::detail
