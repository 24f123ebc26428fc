// The select primitive (select by predicate or flags, partition, unique): its record function and algorithms.
#pragma once
#include "primitives/primitive.hpp"
#include "primitives/segmented/segmented.hpp"
#include "wgprim/predicate.hpp"
#include "wgprim/select.hpp"
#include "wgprim/view.hpp"

namespace wgprim::detail {

struct select_args {
  device_view in;                  // bindable; in.count < 2^32
  device_view flags;               // select_mode::flags: bindable, flags.count == in.count (else count 0)
  device_view out;                 // bindable, another buffer than in and flags; out.count >= in.count
  device_view count;               // one u32 (any 4-byte aligned view): the number kept lands here
  select_mode mode;
  bool partition;                  // rejected elements after the kept ones, in input order (or reversed: opt->rejected)
  dtype type;
  const bound_predicate* pred;     // select_mode::predicate
  const run_options* opt;
  const buffer* fallbacks;         // per-dispatch look-back fallback counts land here (may be null)
  device_view in_count = {};       // buf set: the input's length is this u32, read on the device (in.count is
                                   // the capacity; one storage binding at most)
  const view_desc* view = nullptr; // a bindable view read instead of `in` (in.count = its size; one chunk for unique)
  const algorithm_entry* alg = nullptr;  // what the call resolved; null: record_select picks it
  bool heads = false;              // unique: write each kept element's index in the array instead of the element
};

/// Records the whole operation (count pass, select passes, the count copy) without submitting.
void record_select(recorder& rec, const select_args& args);
/// How many u32 fallback counters record_select may write for n elements.
std::uint64_t select_fallback_slots(const context& ctx, std::uint64_t n);

extern const kernel_spec select_decoupled_spec, select_count_spec, by_key_spec, rle_heads_spec;

/// Reduce-by-key / run-length encoding (a.mode == tails, keys given) in one pass of head-flag compaction with
/// the look-back (shaders/select/by_key.wgsl), the "decoupled" algorithm of both: the same workspace contract as
/// record_segmented (tiles[runs_index] = the number of runs). by_key_decoupled_serves: the value and key types
/// it handles (32-bit).
bool by_key_decoupled_serves(const segmented_args& a);
segmented_workspace record_by_key_decoupled(recorder& rec, const segmented_args& a);

/// Run-length encoding (a.ones) from unique's pass: the select writes where each run starts (select_args::heads),
/// then shaders/select/rle_heads.wgsl writes each run's value and length (a grid-stride loop over the run count,
/// read on the device): the "heads" algorithm. The same workspace contract as
/// record_segmented. rle_heads_serves: 32-bit keys within one storage binding (else the caller takes the one
/// by-key pass).
bool rle_heads_serves(const context& ctx, const segmented_args& a);
segmented_workspace record_rle_heads(recorder& rec, const segmented_args& a);

void record_select_decoupled(recorder& rec, const select_args& a);

}  // namespace wgprim::detail
