// What every primitive shares, between its public entry points and its passes: argument checks on device views,
// binding views (aligned, chunked over the storage-binding limit, separated when in place), the statistics of a
// call, the algorithm registry, and kernel contracts.
//
// A primitive is a folder src/primitives/<name>/ with:
//   <name>.hpp   its record function, record_<name>(recorder&, const <name>_args&): records every pass into a
//                recorder without submitting, so other primitives compose it (a sort records histogram + scan +
//                scatter into one submission);
//   <name>.cpp   the dispatch: picks the algorithm from the registry, checks arguments, runs or records;
//   policy.hpp   plain data keyed on adapter_kind, overridable through run_options::tune;
//   one .cpp per algorithm;
// and a folder shaders/<name>/ with one WGSL file per algorithm. Its algorithms are listed in registry.cpp.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/backend_hooks.hpp"
#include "core/views.hpp"
#include "gpu/gpu.hpp"
#include "wgprim/algorithm.hpp"
#include "wgprim/device_vector.hpp"

namespace wgprim::detail {

// ---- views ----

// check_view (core/views.hpp): a view belongs to ctx and lies inside its buffer.
/// A binding of elements [first, first + count) of a view; the view's byte offset must be bindable (see below).
binding bind(const device_view& v, std::uint64_t first = 0, std::uint64_t count = ~0ull);
/// Elements [first, first + count) of a view (elem_bytes each) as whole vec4s: the vector binding of a chunk
/// (count / 4 vectors; the kernel takes the last count % 4 elements from the scalar binding), or `placeholder`
/// when there is no whole vector.
binding bind_vec4(const device_view& v, std::uint64_t first, std::uint64_t count, const buffer& placeholder,
                  std::uint64_t elem_bytes = 4);
/// A view of a buffer (whole, or `count` elements).
device_view view_of(const buffer& b, std::uint64_t count = ~0ull, std::uint32_t elem_bytes = 4);

/// Storage bindings must start at multiples of the adapter's offset alignment (256 bytes). A view of the caller's
/// that starts elsewhere is copied into a temporary first (inputs) or written through one (outputs): one extra
/// copy, recorded in the same encoder. Aligned views are used as they are.
/// `in_place_with` (may be null): an output the input must not alias (WebGPU forbids binding one buffer as both a
/// read-only and a writable storage binding in one dispatch), in which case the input is copied too.
device_view bindable_input(recorder& rec, const device_view& in, std::vector<buffer>& temps,
                           const device_view* in_place_with = nullptr);
struct bindable_output {
  device_view view;   // what the passes write
  device_view final;  // where the caller wants it
  buffer temp;
  /// Records the copy into `final` when a temporary was used.
  void finish(recorder& rec) const;
};
bindable_output bindable_output_of(recorder& rec, const device_view& out);

/// Uploads a host range into `holder` (a new buffer) and waits; returns a view of it. `ms` (may be null) receives the
/// wall time of the upload, which the statistics report apart from the GPU time.
device_view upload_host(context& ctx, const range_ref& in, buffer& holder, double* ms);

// ---- chunks over the storage-binding limit ----

struct chunk { std::uint64_t first, count; };
/// Splits [0, n) into chunks of at most `per_chunk` elements (n == 0: none).
std::vector<chunk> chunks_of(std::uint64_t n, std::uint64_t per_chunk);
/// Elements of `elem_bytes` that one binding holds, rounded down to a multiple of `multiple`.
std::uint64_t elements_per_binding(const context& ctx, std::uint64_t elem_bytes = 4, std::uint64_t multiple = 1);

/// The first pass of a two-pass reduction (reduce, exact sum, arg-reduce; CUB's DeviceReduce): n elements cut into
/// chunks of one binding, each walked by enough workgroups to fill the GPU and never more than it has tiles (at
/// least one), each workgroup writing one partial; the second pass folds the `total` partials.
struct reduction_grid {
  std::vector<chunk> parts;
  std::vector<std::uint32_t> groups;  // workgroups of each part
  std::uint64_t total = 0;            // partials: the sum of groups
};
reduction_grid reduction_grid_for(std::uint64_t n, std::uint64_t per_binding, std::uint64_t tile,
                                  std::uint32_t max_groups);

// ---- element types ----

/// Throws errc::unsupported naming the type when `primitive` does not take it (narrow: f16/u8/i8, wide:
/// f64/i64/u64), or naming the missing adapter feature when the context lacks it.
void require_type(const context& ctx, dtype t, const char* primitive, bool narrow_ok = false, bool wide_ok = false);

// ---- statistics ----

/// Fills run_options::stats (when set) after a submit.
void fill_stats(const run_options& opt, const gpu_time& t, const std::string& algorithm);
/// run_stats::lookback_fallbacks (when stats are asked for) = the sum of the u32 counters in `fallbacks` (read back;
/// none: 0) — the scan's and the select's per-chunk fallback slots.
void fill_fallbacks(context& ctx, const run_options& opt, const buffer& fallbacks);

// ---- the registry ----

/// Which algorithm an entry is, for the dispatch code that must tell them apart (record functions that share
/// one entry point, workspaces): compared as values, never by name.
enum class algorithm_id : std::uint8_t {
  other,
  reduce_single, reduce_fast, reduce_seed, reduce_render, reduce_exact, reduce_fast_compensated,
  scan_decoupled, scan_seed, scan_exact, scan_seed_compensated,
  arg_reduce_fast,
  sort_onesweep, sort_reduce_then_scan, segmented_sort_binned, comparator_sort_merge,
  histogram_atomic, histogram_atomic_plain,
  segmented_reduce_tiles, segmented_reduce_scan_gather, segmented_scan_tiles, segmented_scan_bitmap,
  segmented_scan_decoupled, segmented_reduce_decoupled, segmented_reduce_per_subgroup, segmented_scan_per_subgroup,
  reduce_by_key_decoupled, reduce_by_key_tiles, run_length_encode_heads, run_length_encode_decoupled, run_length_encode_tiles,
  select_decoupled,
};

/// A record function, type-erased: `args` points at the primitive's own argument struct (reduce_args, scan_args).
using record_fn = void (*)(recorder& rec, const void* args);
/// The record_fn of `F`, a record function of argument struct A.
template <class A, void (*F)(recorder&, const A&)>
void erased_record(recorder& rec, const void* args) { F(rec, *static_cast<const A*>(args)); }

/// One algorithm of one primitive: its name, when it is the default, what it serves and needs, and what records
/// it. The dispatch code resolves a call's algorithm once (resolve_algorithm) and runs and reports that entry.
struct algorithm_entry {
  const char* primitive;
  const char* name;                     // run_options::algorithm, run_stats::algorithm, `wgprim info`
  const char* about;                    // one line for `wgprim info`
  bool default_on_gpu, default_on_cpu;  // cpu: CPU adapters such as lavapipe
  bool needs_subgroups;                 // the adapter capability it needs
  algorithm_id id = algorithm_id::other;
  record_fn record = nullptr;           // null: the primitive's dispatch code tells its algorithms apart by id
  /// The default on GPUs for inputs of more than this many elements (0: no size rule), ahead of default_on_gpu.
  std::uint64_t gpu_default_above = 0;
  /// f32 sums in this accuracy mode run this entry whatever algorithm was asked (fast: an ordinary algorithm).
  /// Such entries are the accuracy modes' own paths: not listed, not selectable by name.
  accuracy serves = accuracy::fast;
  bool counts_fallbacks = false;        // a look-back algorithm: run_stats::lookback_fallbacks is read back
};
/// The selectable algorithms (`wgprim info`, run_options::algorithm), in the order `wgprim info` lists them.
const std::vector<algorithm_entry>& algorithm_registry();
/// The algorithm to run: `requested` if it is registered for `primitive` (else errc::invalid_argument listing the
/// names), or the default for the context's adapter kind and, where a size rule applies, for `n` elements.
const algorithm_entry& pick_algorithm(const context& ctx, const char* primitive, const std::string& requested,
                                      std::uint64_t n = 0);
/// A call's algorithm, resolved once: pick_algorithm's, or the path of the accuracy mode `acc` of an f32 sum
/// (accuracy::fast: none) where the primitive registers one. Its name is what the call reports.
const algorithm_entry& resolve_algorithm(const context& ctx, const char* primitive, const std::string& requested,
                                         std::uint64_t n, accuracy acc);
/// Checks a run_options::algorithm for a backend that has one algorithm per primitive (native): empty, "native" or
/// any registered name of the primitive passes; anything else is errc::invalid_argument listing the names.
void check_algorithm_name(const char* primitive, const std::string& requested);
/// The shader module of a kernel's lane operations: shared/lanes_subgroup.wgsl or shared/lanes_workgroup.wgsl.
inline const char* lanes_module(bool subgroups) {
  return subgroups ? "shared/lanes_subgroup.wgsl" : "shared/lanes_workgroup.wgsl";
}

// ---- kernel contracts ----

/// A kernel's contract, declared once: its WGSL file, entry point, binding slots and the size of its uniform
/// parameter block (the C++ struct's size, static_assert'ed where it is defined; a test reads the WGSL struct
/// and the @binding declarations and compares them with this).
struct kernel_spec {
  const char* file;
  const char* entry;
  std::vector<slot> layout;
  std::size_t params_bytes;  // 0: no parameter block
};
/// Every kernel contract of the library (tests iterate over them).
const std::vector<const kernel_spec*>& kernel_specs();
/// get_kernel for a contract: the composed source must come from spec.file.
const kernel& get_kernel(context& ctx, const kernel_spec& spec, const std::string& source, bool trusted);

}  // namespace wgprim::detail
