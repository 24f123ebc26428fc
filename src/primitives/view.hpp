// Fused input views (include/wgprim/view.hpp) on the host side: the compose-time constants of tile/load.wgsl,
// the bindings of one chunk of a view, the checks, and the values on the host (the native backend's loops and
// nothing else: on WebGPU a view is never materialised).
#pragma once
#include <cstdint>
#include <vector>

#include "core/wgsl_compose.hpp"
#include "primitives/primitive.hpp"
#include "wgprim/view.hpp"

namespace wgprim::detail {

/// Whether v (may be null) is computed in the load: counting, constant, gather or zip (a buffer view, with or without
/// its transform, is read as an input buffer is, with vec4 loads).
inline bool view_fused(const view_desc* v) { return v && v->kind != view_desc::source::buffer; }

/// tile/load.wgsl's constants for v (null: the input buffer): VIEW_COUNTING, VIEW_CONSTANT, VIEW_GATHER (also for
/// a zip: it declares the view_index binding), VIEW_ZIP (with the function view_zip, a declaration without a name),
/// VIEW_FLOAT, and VIEW_FUSED (a fused view, or a buffer view with a transform: primitives without a vec4 load
/// that applies the prelude's lift read it through load_input). Every module that imports tile/load.wgsl (tile/walk.wgsl
/// does) takes them.
wgsl_constants view_constants(const view_desc* v);
/// view_lift (the kernels that read a view's values as u32 bits, VIEW_FUSED): a transform view's expression on the
/// bits (of the view's source type, yielding the bits of its result type), else the bits as they are.
std::string view_lift_wgsl(const view_desc* v);
/// Whether the view reads the buffer under `out` (its base or its indices).
bool view_reads(const view_desc& v, const device_view& out);

/// Checks a view against ctx before any recording: its views belong to ctx and lie inside their buffers, the
/// element types, and the sizes a kernel indexes with u32. `what` names the caller.
void check_view_desc(const context& ctx, const view_desc& v, const char* what);

/// v with its buffers bindable: unaligned ones copied into temporaries (bindable_input), recorded into rec.
view_desc bindable_view(recorder& rec, const view_desc& v, std::vector<buffer>& temps);

/// A bindable view (bindable_view) ready to bind for a list of chunks: the parameters of counting / constant
/// views in a small buffer of the call, one 256-byte slot per chunk.
class bound_view {
 public:
  /// `parts`: the chunks the caller dispatches (their first indices go to counting views).
  bound_view(context& ctx, const view_desc& v, const std::vector<chunk>& parts);
  /// The `src` binding (tile/load.wgsl) of chunk `part`: the base (gather, whole), else the parameters.
  binding src(std::size_t part) const;
  /// Binding 1 of chunk `part`: the chunk's indices (gather), else `dummy`.
  binding slot1(std::size_t part, const binding& dummy) const;

 private:
  view_desc v_;
  std::vector<chunk> parts_;
  buffer params_;
};

/// The view's values before its transform (32-bit bits), computed on the host from host-visible buffers (the
/// native backend).
std::vector<std::uint32_t> view_values_on_host(const context& ctx, const view_desc& v);

}  // namespace wgprim::detail
