#include "primitives/view.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/expr.hpp"
#include "native/backend.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail {

void check_view_type(dtype t, const char* what) {
  if (t != dtype::u32 && t != dtype::i32 && t != dtype::f32)
    throw error(errc::invalid_argument,
                std::string(what) + ": views yield u32, i32 or f32 elements, not " + dtype_name(t));
}

void check_zip_expr(dtype t, const std::string& expression) {
  try {
    expr_program p(expression, t);
  } catch (const error& e) {
    throw error(e.code(), "view::zip: " + std::string(e.what()));
  }
}

wgsl_constants view_constants(const view_desc* v) {
  using s = view_desc::source;
  const bool fused = view_fused(v);
  const bool zip = fused && v->kind == s::zip;
  auto b = [](bool x) { return std::string(x ? "true" : "false"); };
  // VIEW_GATHER also declares the kernels' view_index binding (array<u32>), where a zip's second range is bound.
  wgsl_constants c{{"VIEW_COUNTING", b(fused && v->kind == s::counting)},
                   {"VIEW_CONSTANT", b(fused && v->kind == s::constant)},
                   {"VIEW_GATHER", b(fused && (v->kind == s::gather || zip))},
                   {"VIEW_ZIP", b(zip)},
                   {"VIEW_FLOAT", b(fused && v->kind == s::counting && v->type == dtype::f32)},
                   {"VIEW_FUSED", b(fused || (v && v->tr))}};
  if (zip) {
    // The zip's expression (checked by the expression front end: it reads a and b, nothing else) on the two
    // elements' bits, for tile/load.wgsl; a declaration without a name (wgsl_compose emits it as it is).
    const std::string t = dtype_name(v->type);
    c.push_back({"", "fn view_zip(a_bits: u32, b_bits: u32) -> u32 {\n  let a = bitcast<" + t + ">(a_bits);\n" +
                         "  let b = bitcast<" + t + ">(b_bits);\n  return bitcast<u32>(" +
                         expr_program(v->zip_expr, v->type).wgsl() + ");\n}"});
  }
  return c;
}

std::string view_lift_wgsl(const view_desc* v) {
  if (!v || !v->tr) return "fn view_lift(x: u32) -> u32 {\n  return x;\n}\n";
  const bound_transform t(*v->tr, v->type);
  return std::string("fn view_lift(x: u32) -> u32 {\n  let a = bitcast<") + dtype_name(v->type) +
         ">(x);\n  return bitcast<u32>(" + t.wgsl() + ");\n}\n";
}

bool view_reads(const view_desc& v, const device_view& out) {
  for (const device_view* in : {&v.base, &v.index})
    if (in->count && in->buf == out.buf && in->host == out.host) return true;
  return false;
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
  if (v.kind == view_desc::source::zip) {
    if (v.base.elem_bytes != 4 || v.index.elem_bytes != 4)
      throw error(errc::invalid_argument, w + ": view::zip's ranges hold 32-bit elements");
    if (v.base.count != v.count || v.index.count != v.count)
      throw error(errc::invalid_argument, w + ": view::zip: the ranges differ in length (" +
                                              std::to_string(v.base.count) + " and " + std::to_string(v.index.count) +
                                              " elements)");
    check_view(ctx, v.base, (w + " view::zip a").c_str());
    check_view(ctx, v.index, (w + " view::zip b").c_str());
    check_zip_expr(v.type, v.zip_expr);
  }
  if (v.count > 0xffffffffull)
    throw error(errc::limit, w + ": a view of " + std::to_string(v.count) + " elements (at most 2^32 - 1)");
}

view_desc bindable_view(recorder& rec, const view_desc& v, std::vector<buffer>& temps) {
  using s = view_desc::source;
  view_desc out = v;
  if (v.kind == s::buffer || v.kind == s::gather || v.kind == s::zip) out.base = bindable_input(rec, v.base, temps);
  if (v.kind == s::gather || v.kind == s::zip) out.index = bindable_input(rec, v.index, temps);
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
  if (v_.kind == view_desc::source::buffer || v_.kind == view_desc::source::zip)
    return bind(v_.base, parts_[part].first, parts_[part].count);
  return binding{params_.native(), part * 256, 16};
}

binding bound_view::slot1(std::size_t part, const binding& dummy) const {
  if (v_.kind == view_desc::source::gather || v_.kind == view_desc::source::zip)
    return bind(v_.index, parts_[part].first, parts_[part].count);
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
    case s::zip: {
      if (!v.count) break;
      range_ref a, b;
      a.on_device = b.on_device = true;
      a.view = v.base;
      b.view = v.index;
      a.count = b.count = v.count;
      a.type = b.type = v.type;
      const std::uint32_t* xa = cpu_backend::host_in(ctx, a, "view::zip a");
      const std::uint32_t* xb = cpu_backend::host_in(ctx, b, "view::zip b");
      expr_program(v.zip_expr, v.type).eval_many(xa, xb, v.count, out.data());
      break;
    }
  }
  return out;
}

}  // namespace wgprim::detail
