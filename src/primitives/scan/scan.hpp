// The scan primitive's record function and its algorithms (one .cpp each).
#pragma once
#include "primitives/primitive.hpp"
#include "wgprim/op.hpp"
#include "wgprim/scan.hpp"
#include "wgprim/exact.hpp"
#include "wgprim/view.hpp"

namespace wgprim::detail {

struct scan_args {
  device_view in, out;            // bindable, distinct buffers; in.count == out.count > 0
  const monoid* m;
  scan_kind kind;
  const std::uint64_t* init;      // may be null: the scan starts from combine(init, ...) (a carry into tile 0)
  const run_options* opt;
  const buffer* fallbacks;        // decoupled: per-chunk look-back fallback counts land here (may be null)
  const superaccumulator* exact_init = nullptr;  // exact scans: a whole accumulator as the init (dist::scan's carry)
  const view_desc* view = nullptr;            // a bindable view read instead of `in` (decoupled only); in.count = its size
  const bound_transform* transform = nullptr; // the view's transform (applied in the load), may be null
  const algorithm_entry* alg = nullptr;  // what the call resolved (resolve_scan); null: record_scan resolves it
  bool pairs() const;             // double-word accumulation (compensated f32 sums)
  bool exact() const;             // exact prefix sums, correctly rounded (reproducible / exact f32 sums)
};

/// The exact (accuracy::reproducible) f32 sum scan started from a whole accumulator `carry` instead of an f32 init:
/// every output is carry + the exact prefix sum, rounded once (dist::scan's carry between ranks; native or WebGPU).
void scan_run_exact_carry(context& ctx, const range_ref& in, const range_ref& out, scan_kind kind,
                          const superaccumulator& carry, const run_options& opt);

/// Records the scan of args.in into args.out: args.alg, else resolve_scan's.
void record_scan(recorder& rec, const scan_args& args);
/// The algorithm of a scan, from the registry: the accuracy mode's path, run_options::algorithm, or the default.
const algorithm_entry& resolve_scan(const context& ctx, const scan_args& args);
/// How many u32 fallback counters record_scan may write for n elements.
std::uint64_t scan_fallback_slots(const context& ctx, std::uint64_t n);

extern const kernel_spec scan_decoupled_spec, scan_seed_blocks_spec, scan_seed_add_spec, scan_seed_carry_spec;
extern const kernel_spec scan_exact_tiles_spec, scan_exact_prefixes_spec, scan_exact_scan_spec;

void record_scan_decoupled(recorder& rec, const scan_args& a);
void record_scan_seed(recorder& rec, const scan_args& a);
void record_scan_exact(recorder& rec, const scan_args& a);  // scan/exact.cpp

}  // namespace wgprim::detail
