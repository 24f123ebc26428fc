#include "primitives/view.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "native/backend.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

void check_view_type(dtype t, const char* what) {
  if (t != dtype::u32 && t != dtype::i32 && t != dtype::f32)
    throw error(errc::invalid_argument,
                std::string(what) + ": views yield u32, i32 or f32 elements, not " + dtype_name(t));
}

wgsl_constants view_constants(const view_desc* v) {
  using s = view_desc::source;
  const bool fused = view_fused(v);
  auto b = [](bool x) { return std::string(x ? "true" : "false"); };
  return {{"VIEW_COUNTING", b(fused && v->kind == s::counting)},
          {"VIEW_CONSTANT", b(fused && v->kind == s::constant)},
          {"VIEW_GATHER", b(fused && v->kind == s::gather)},
          {"VIEW_FLOAT", b(fused && v->kind == s::counting && v->type == dtype::f32)},
          {"VIEW_FUSED", b(fused || (v && v->tr))}};
}

void check_view_desc(const context& ctx, const view_desc& v, const char* what) {
  check_view_type(v.type, what);
  check_view_type(v.value_type(), what);
  const std::string w(what);
  if (v.kind == view_desc::source::buffer || v.kind == view_desc::source::gather) {
    if (v.base.elem_bytes != 4) throw error(errc::invalid_argument, w + ": a view's base holds 32-bit elements");
    if (v.base.count || v.kind == view_desc::source::buffer) check_view(ctx, v.base, (w + " view base").c_str());
  }
  if (v.kind == view_desc::source::gather) {
    check_view(ctx, v.index, (w + " view indices").c_str());
    if (v.count && !v.base.count)
      throw error(errc::invalid_argument, w + ": view::gather over an empty base with " + std::to_string(v.count) +
                                              " indices");
    // The base is bound whole: its indices are u32 and one binding holds it.
    if (v.base.count > elements_per_binding(ctx, 4))
      throw error(errc::limit, w + ": view::gather's base (" + std::to_string(v.base.count) +
                                   " elements) is larger than one storage binding holds");
  }
  if (v.count > 0xffffffffull)
    throw error(errc::limit, w + ": a view of " + std::to_string(v.count) + " elements (at most 2^32 - 1)");
}

view_desc bindable_view(recorder& rec, const view_desc& v, std::vector<buffer>& temps) {
  view_desc out = v;
  if (v.kind == view_desc::source::buffer || v.kind == view_desc::source::gather)
    out.base = bindable_input(rec, v.base, temps);
  if (v.kind == view_desc::source::gather) out.index = bindable_input(rec, v.index, temps);
  return out;
}

bound_view::bound_view(context& ctx, const view_desc& v, const std::vector<chunk>& parts) : v_(v), parts_(parts) {
  using s = view_desc::source;
  if (v_.kind == s::counting || v_.kind == s::constant) {
    // One 256-byte slot per chunk (the storage offset alignment): start, step, the chunk's first index. A buffer
    // of this call (not a scratch shared between calls): calls recorded into one encoder each keep their own.
    std::vector<std::uint32_t> words(std::max<std::size_t>(1, parts_.size()) * 64, 0);
    for (std::size_t p = 0; p < parts_.size(); ++p) {
      words[p * 64] = v_.start;
      words[p * 64 + 1] = v_.step;
      words[p * 64 + 2] = static_cast<std::uint32_t>(parts_[p].first);
    }
    params_ = ctx.create_buffer(words.size() * 4);
    wgpu_write(ctx, params_.native(), 0, words.data(), words.size() * 4);
  }
}

binding bound_view::src(std::size_t part) const {
  if (v_.kind == view_desc::source::gather) return bind(v_.base);
  if (v_.kind == view_desc::source::buffer) return bind(v_.base, parts_[part].first, parts_[part].count);
  return binding{params_.native(), part * 256, 16};
}

binding bound_view::slot1(std::size_t part, const binding& dummy) const {
  if (v_.kind == view_desc::source::gather) return bind(v_.index, parts_[part].first, parts_[part].count);
  return dummy;
}

std::vector<std::uint32_t> view_values_on_host(const context& ctx, const view_desc& v) {
  using s = view_desc::source;
  std::vector<std::uint32_t> out(v.count);
  switch (v.kind) {
    case s::buffer: {
      range_ref r;
      r.on_device = true;
      r.view = v.base;
      r.count = v.count;
      r.type = v.type;
      const std::uint32_t* x = cpu_backend::host_in(ctx, r, "view base");
      std::copy(x, x + v.count, out.begin());
      break;
    }
    case s::counting:
      for (std::uint64_t i = 0; i < v.count; ++i) {
        const std::uint32_t k = static_cast<std::uint32_t>(i);
        if (v.type == dtype::f32) {
          // fma(f32(i), step, start): one rounding, as tile/load.wgsl.
          out[i] = to_bits(std::fma(static_cast<float>(k), from_bits<float>(v.step), from_bits<float>(v.start)));
        } else {
          out[i] = v.start + v.step * k;  // modulo 2^32 for i32 as for u32
        }
      }
      break;
    case s::constant:
      std::fill(out.begin(), out.end(), v.start);
      break;
    case s::gather: {
      if (!v.count) break;
      range_ref b, ix;
      b.on_device = ix.on_device = true;
      b.view = v.base;
      b.count = v.base.count;
      b.type = v.type;
      ix.view = v.index;
      ix.count = v.count;
      const std::uint32_t* base = cpu_backend::host_in(ctx, b, "view::gather base");
      const std::uint32_t* idx = cpu_backend::host_in(ctx, ix, "view::gather indices");
      const std::uint64_t last = v.base.count - 1;
      for (std::uint64_t i = 0; i < v.count; ++i) out[i] = base[std::min<std::uint64_t>(idx[i], last)];
      break;
    }
  }
  return out;
}

}  // namespace wgprim::detail
