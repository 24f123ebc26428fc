// The backends, as the primitives' entry points see them: one table of operations per backend, chosen once per
// context (backend_of: the context's backend_choice, fixed when it was made). An entry point (reduce_run,
// scan_run, select_run, segmented_sort_run, comparator_sort_run, histogram_run, the view and counted forms, ...)
// checks what every backend needs (element types, lengths, the operator), then calls
// backend_of(ctx).<op>; each backend does the rest.
//   webgpu_backend: the dispatch code of src/primitives/<name>/<name>.cpp (the <name>_webgpu functions below):
//                   picks the algorithm from the registry, records its passes, submits;
//   native_backend: src/primitives/backends.cpp, which checks the algorithm name against the registry and calls
//                   src/native (native/backend.hpp), host code on the oneTBB threads.
// Neither src/gpu nor src/native includes this folder; a third backend is a third table. Nothing outside the
// table asks which backend a context runs: what differs (recording into encoders, the counted calls, the sort's
// phases, the message for a type the context does not take) is an operation here.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/host_checks.hpp"
#include "primitives/primitive.hpp"
#include "primitives/sort/sort.hpp"
#include "wgprim/view.hpp"
#include "wgprim/arg_reduce.hpp"
#include "wgprim/exact.hpp"
#include "wgprim/histogram.hpp"
#include "wgprim/predicate.hpp"
#include "wgprim/scan.hpp"
#include "wgprim/select.hpp"
#include "wgprim/sort.hpp"
#include "wgprim/transform_reduce.hpp"

namespace wgprim::detail {

class expr_program;

/// What one backend runs, one operation per primitive; the arguments arrive checked as the entry point's comment
/// (in src/primitives/<name>/<name>.cpp) says.
struct backend_ops {
  const char* name;
  /// view (may be null): a checked view of counting / constant / gather kind read instead of `in` (in.count is
  /// its size); tr: transform_reduce's transform, or the view's.
  std::uint64_t (*reduce)(context&, const range_ref& in, const monoid&, const std::uint64_t* init,
                          const run_options&, const bound_transform* tr, const view_desc* view);
  superaccumulator (*exact_sum)(context&, const range_ref& in, const run_options&);
  void (*reduce_into)(context&, WGPUCommandEncoder, const range_ref& in, const range_ref& result, const monoid&,
                      const run_options&, const bound_transform*);
  /// carry (may be null): an exact f32 sum scan's whole-accumulator init (dist::scan); view (may be null): a checked
  /// view read instead of `in`, with its transform tr (may be null).
  void (*scan)(context&, WGPUCommandEncoder, const range_ref& in, const range_ref& out, const monoid&, scan_kind,
               const std::uint64_t* init, const run_options&, const superaccumulator* carry, const view_desc* view,
               const bound_transform* tr);
  void (*copy)(context&, WGPUCommandEncoder, const range_ref& in, const range_ref& out, const run_options&);
  /// view (may be null): a checked counting / constant / gather view read instead of `in`.
  arg_result<std::uint32_t> (*arg_reduce)(context&, const range_ref& in, dtype, arg_op, const run_options&,
                                          const view_desc* view);
  void (*arg_reduce_into)(context&, WGPUCommandEncoder, const range_ref& in, const range_ref& result, dtype, arg_op,
                          const run_options&);
  /// in_count (may be null): a counted input, its length a u32 on the device (in.count is the capacity).
  std::uint64_t (*select)(context&, WGPUCommandEncoder, const range_ref& in, const device_view* in_count,
                          const range_ref* flags, const range_ref& out, const range_ref* count, select_mode,
                          bool partition, dtype, const bound_predicate*, const run_options&);
  /// select_if / partition / unique over a checked view into a device range; returns the number kept.
  std::uint64_t (*select_view)(context&, const view_desc&, const range_ref& out, select_mode, bool partition,
                               dtype, const predicate*, const run_options&);
  void (*sort)(context&, WGPUCommandEncoder, const range_ref& keys_in, const range_ref& keys_out,
               const range_ref* vals_in, const range_ref* vals_out, std::uint32_t key_words, sort_key_kind, order,
               unsigned begin_bit, unsigned end_bit, const run_options&);
  std::vector<unsigned> (*sort_passes_run)(context&);  // testing::sort_passes_run
  /// Every segment [offsets[s], offsets[s + 1]) sorted in place, stably; offsets unchecked (n_segments + 1 of
  /// them, on the keys' side).
  void (*segmented_sort)(context&, const range_ref& keys, const range_ref* vals, const range_ref& offsets,
                         dtype key_type, order, unsigned begin_bit, unsigned end_bit, const run_options&);
  /// keys (and values) sorted in place, stably, by a checked comparator program.
  void (*comparator_sort)(context&, const range_ref& keys, const range_ref* vals, dtype key_type,
                          const expr_program& less, const run_options&);
  void (*segmented_scan)(context&, WGPUCommandEncoder, const range_ref& in, const range_ref& offsets,
                         const range_ref& out, const monoid&, scan_kind, const run_options&);
  void (*segmented_reduce)(context&, WGPUCommandEncoder, const range_ref& in, const range_ref& offsets,
                           const range_ref& out, const monoid&, const run_options&);
  std::uint64_t (*reduce_by_key)(context&, WGPUCommandEncoder, const range_ref& keys, dtype key_type,
                                 const range_ref* values, const range_ref& unique_keys, const range_ref& sums,
                                 const monoid&, const range_ref* runs_out, const run_options&);
  /// The counts of `in` per bin; ke: the kernel's edges of even bins (b.levels null) or the bin count (reach) of
  /// checked host levels; device levels are the backend's to check.
  void (*histogram)(context&, WGPUCommandEncoder, const range_ref& in, dtype, const range_ref& counts,
                    const histogram_bins& b, const kernel_edges& ke, const run_options&);

  // ---- counted ranges and chains of calls (wgprim/counted.hpp, src/pipeline) ----
  /// A command encoder for a chain of calls submitted once (a pipeline's run), or null where the backend runs
  /// every call at once (each call of the chain then gets a null encoder).
  WGPUCommandEncoder (*begin_chain)(context&);
  /// A chain recorded now and run later (a pipeline records its next run while the GPU runs this one): an encoder
  /// for it, or null where the backend cannot hold recorded work (no chain encoders; an `input` (may be null) that
  /// is a caller's own buffer, which could be destroyed before the run); then finish_chain encodes it (keeping
  /// `input` referenced), submit_chain runs it after the calls queued before, drop_chain releases it unrun.
  WGPUCommandEncoder (*begin_early_chain)(context&, const device_view* input);
  finished_commands (*finish_chain)(context&, WGPUCommandEncoder, const device_view* input);
  void (*submit_chain)(context&, finished_commands&);
  void (*drop_chain)(finished_commands&) noexcept;  // needs no context (a destructor's)
  /// Copies `bytes` from one device view of this context to another (recorded into `encoder` when not null).
  void (*copy_bytes)(context&, WGPUCommandEncoder, const device_view& from, const device_view& to,
                     std::uint64_t bytes);
  /// The sort of a counted range: keys.count is its capacity, `count` its length (a u32 on the device); pad_key
  /// (checked by the caller) sorts after every key of the range's type and order.
  void (*sort_counted)(context&, WGPUCommandEncoder, const range_ref& keys, const device_view& count,
                       const sort_order&, std::uint32_t pad_key, const run_options&);
  /// The reduce of a counted range (32-bit elements, checked): recorded into `result` (may be null: returned).
  std::uint64_t (*reduce_counted)(context&, WGPUCommandEncoder, const range_ref& in, const device_view& count,
                                  const range_ref* result, const monoid&, const run_options&);
  /// wgprim::sort_phases: the sort of sort_bits, split into phases each timed alone.
  std::vector<sort_phase> (*sort_phases)(context&, const buffer& keys_in, buffer& keys_out, std::size_t n,
                                         dtype key_type, sort_order, const buffer* values_in, buffer* values_out,
                                         const run_options&);
  /// The message of require_type for an element type the context does not take (context::supports is false).
  std::string (*type_refusal)(const context&, dtype, const char* primitive);
};

extern const backend_ops webgpu_backend;
extern const backend_ops native_backend;

/// The table of the context's backend.
inline const backend_ops& backend_of(const context& ctx) {
  return ctx.backend() == backend_choice::native ? native_backend : webgpu_backend;
}

// ---- the WebGPU backend's operations (defined in each primitive's dispatch file) ----

std::uint64_t reduce_webgpu(context&, const range_ref&, const monoid&, const std::uint64_t*, const run_options&,
                            const bound_transform*, const view_desc*);
superaccumulator exact_sum_webgpu(context&, const range_ref&, const run_options&);
void reduce_into_webgpu(context&, WGPUCommandEncoder, const range_ref&, const range_ref&, const monoid&,
                        const run_options&, const bound_transform*);
void scan_webgpu(context&, WGPUCommandEncoder, const range_ref&, const range_ref&, const monoid&, scan_kind,
                 const std::uint64_t*, const run_options&, const superaccumulator*, const view_desc*,
                 const bound_transform*);
void copy_webgpu(context&, WGPUCommandEncoder, const range_ref&, const range_ref&, const run_options&);
arg_result<std::uint32_t> arg_reduce_webgpu(context&, const range_ref&, dtype, arg_op, const run_options&,
                                            const view_desc*);
void arg_reduce_into_webgpu(context&, WGPUCommandEncoder, const range_ref&, const range_ref&, dtype, arg_op,
                            const run_options&);
std::uint64_t select_webgpu(context&, WGPUCommandEncoder, const range_ref&, const device_view*, const range_ref*,
                            const range_ref&, const range_ref*, select_mode, bool, dtype, const bound_predicate*,
                            const run_options&);
std::uint64_t select_view_webgpu(context&, const view_desc&, const range_ref&, select_mode, bool, dtype,
                                 const predicate*, const run_options&);
void sort_webgpu(context&, WGPUCommandEncoder, const range_ref&, const range_ref&, const range_ref*,
                 const range_ref*, std::uint32_t, sort_key_kind, order, unsigned, unsigned, const run_options&);
std::vector<unsigned> sort_passes_webgpu(context&);
void segmented_sort_webgpu(context&, const range_ref&, const range_ref*, const range_ref&, dtype, order, unsigned,
                           unsigned, const run_options&);
void comparator_sort_webgpu(context&, const range_ref&, const range_ref*, dtype, const expr_program&,
                            const run_options&);
void segmented_scan_webgpu(context&, WGPUCommandEncoder, const range_ref&, const range_ref&, const range_ref&,
                           const monoid&, scan_kind, const run_options&);
void segmented_reduce_webgpu(context&, WGPUCommandEncoder, const range_ref&, const range_ref&, const range_ref&,
                             const monoid&, const run_options&);
void histogram_webgpu(context&, WGPUCommandEncoder, const range_ref&, dtype, const range_ref&, const histogram_bins&,
                      const kernel_edges&, const run_options&);
std::uint64_t reduce_by_key_webgpu(context&, WGPUCommandEncoder, const range_ref&, dtype, const range_ref*,
                                   const range_ref&, const range_ref&, const monoid&, const range_ref*,
                                   const run_options&);
void counted_sort_webgpu(context&, WGPUCommandEncoder, const range_ref&, const device_view&, const sort_order&,
                         std::uint32_t, const run_options&);
std::uint64_t counted_reduce_webgpu(context&, WGPUCommandEncoder, const range_ref&, const device_view&,
                                    const range_ref*, const monoid&, const run_options&);
std::vector<sort_phase> sort_phases_webgpu(context&, const buffer&, buffer&, std::size_t, dtype, sort_order,
                                           const buffer*, buffer*, const run_options&);

}  // namespace wgprim::detail
