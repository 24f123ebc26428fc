// The sort primitive's record functions and its algorithms (one .cpp each). Both algorithms are LSD radix sorts
// over 8-bit digits of the transformed keys (shaders/sort/keys.wgsl) and share the upfront histogram of all four
// digits (record_sort_histogram) and the ping-pong between buffers (record_sort).
#pragma once
#include <memory>

#include "core/wgsl_compose.hpp"
#include "primitives/primitive.hpp"
#include "wgprim/sort.hpp"

namespace wgprim::detail {

/// One digit pass: src -> dst, stably by the digit at `shift`. vals_* are empty views for keys only.
struct sort_pass {
  device_view keys_in, vals_in, keys_out, vals_out;
  std::uint32_t shift, digit_pass;  // digit_pass = shift / 8: its row of the histogram
};

struct sort_args {
  device_view keys_in, keys_out;  // bindable; keys_in may be keys_out (in place) or another buffer
  device_view vals_in, vals_out;  // count 0: keys only
  dtype key_type;
  order ord;
  const run_options* opt;
  const buffer* hist;             // 4 x 256 u32 digit counts (record_sort_histogram)
  std::uint32_t pass_mask;        // bit p: the pass over digit p runs (the others have one digit for all keys)
  const buffer* fallbacks;        // onesweep: 4 u32 look-back fallback counts land here (may be null)
  bool pairs() const { return vals_in.count > 0; }
};

/// Constants every sort kernel takes: its sizes. The key type and order are run-time parameters (key_kind,
/// descending in each kernel's params), so one compiled kernel serves every type and order.
wgsl_constants sort_constants(std::uint32_t wg_size, std::uint32_t items);
std::uint32_t sort_key_kind(dtype t);

/// Zeroes `hist` and records the histogram of all four digits of keys (4 x 256 u32).
void record_sort_histogram(recorder& rec, const device_view& keys, dtype key_type, order ord, const buffer& hist);
/// Records the active passes, alternating between the output and temporaries so that the last pass writes
/// keys_out / vals_out (with one final copy when an in-place sort has an odd number of passes).
void record_sort(recorder& rec, const sort_args& a);

extern const kernel_spec sort_histogram_spec, sort_rts_count_spec, sort_rts_scatter_spec, sort_onesweep_spec;

/// Per-pass state an algorithm keeps between the passes of one sort.
struct sort_algorithm {
  virtual ~sort_algorithm() = default;
  virtual void pass(recorder& rec, const sort_pass& p) = 0;
};
std::unique_ptr<sort_algorithm> make_sort_rts(recorder& rec, const sort_args& a);
std::unique_ptr<sort_algorithm> make_sort_onesweep(recorder& rec, const sort_args& a);

}  // namespace wgprim::detail
