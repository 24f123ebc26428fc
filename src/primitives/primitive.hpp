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

#include "gpu/gpu.hpp"
#include "wgprim/algorithm.hpp"
#include "wgprim/device_vector.hpp"

namespace wgprim::detail {

// ---- views ----

/// Checks that a view belongs to ctx and lies inside its buffer; `what` names the argument in the message.
void check_view(const context& ctx, const device_view& v, const char* what);
/// A binding of elements [first, first + count) of a view; the view's byte offset must be bindable (see below).
binding bind(const device_view& v, std::uint64_t first = 0, std::uint64_t count = ~0ull);
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

// ---- element types ----

/// Throws errc::unsupported naming the type when `primitive` does not take it (narrow: f16/u8/i8, wide:
/// f64/i64/u64), or naming the missing adapter feature when the context lacks it.
void require_type(const context& ctx, dtype t, const char* primitive, bool narrow_ok = false, bool wide_ok = false);

// ---- statistics ----

/// Fills run_options::stats (when set) after a submit.
void fill_stats(const run_options& opt, const gpu_time& t, const std::string& algorithm);

// ---- the registry ----

/// One algorithm of one primitive: its name, what it supports, whether it is the default on an adapter kind.
struct algorithm_entry {
  const char* primitive;
  const char* name;
  const char* about;                  // one line for `wgprim info`
  bool default_on_gpu, default_on_cpu;  // cpu: CPU adapters such as lavapipe
  bool needs_subgroups;
};
const std::vector<algorithm_entry>& algorithm_registry();
/// The algorithm to run: `requested` if it is registered for `primitive` (else errc::invalid_argument listing the
/// names), or the default for the context's adapter kind.
const algorithm_entry& pick_algorithm(const context& ctx, const char* primitive, const std::string& requested);

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
