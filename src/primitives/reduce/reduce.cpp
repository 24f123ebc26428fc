// Dispatch layer of reduce: checks the arguments, picks the algorithm from the registry, makes the views
// bindable, records the passes (record_reduce), submits and reads the result back.
#include "primitives/reduce/reduce.hpp"
#include "primitives/copy/widen.hpp"
#include "primitives/view.hpp"

#include "primitives/backend.hpp"

#include <chrono>
#include <memory>

#include "wgprim/error.hpp"
#include "wgprim/exact.hpp"
#include "wgprim/reduce.hpp"

namespace wgprim {

const char* accuracy_name(accuracy a) {
  switch (a) {
    case accuracy::fast: return "fast";
    case accuracy::compensated: return "compensated";
    case accuracy::reproducible: return "reproducible";  // == accuracy::exact
  }
  return "?";
}

accuracy parse_accuracy(const std::string& s) {
  if (s == "fast") return accuracy::fast;
  if (s == "compensated") return accuracy::compensated;
  if (s == "reproducible" || s == "exact") return accuracy::reproducible;
  throw error(errc::invalid_argument,
              "unknown accuracy '" + s + "' (expected fast, compensated, reproducible or exact)");
}

namespace detail {

bool reduce_args::pairs() const {
  return m->is_sum() && m->type() == dtype::f32 && opt->accuracy == accuracy::compensated;
}
bool reduce_args::exact() const {
  return m->is_sum() && m->type() == dtype::f32 && opt->accuracy == accuracy::reproducible;
}

namespace {
// The accuracy mode that chooses its own path (f32 sums only; fast: none).
accuracy accuracy_path(const reduce_args& a) {
  return a.exact() ? accuracy::reproducible : a.pairs() ? accuracy::compensated : accuracy::fast;
}
}  // namespace

const algorithm_entry& resolve_reduce(const context& ctx, const reduce_args& a) {
  return resolve_algorithm(ctx, "reduce", a.opt->algorithm, a.in.count, accuracy_path(a));
}

void record_reduce(recorder& rec, const reduce_args& a) {
  const algorithm_entry& alg = a.alg ? *a.alg : resolve_reduce(rec.ctx(), a);
  // A view is computed in the tile walk's load: the fast, single and exact reductions take it (and the
  // compensated path, the fast reduce's shape).
  if (view_fused(a.view) && (alg.id == algorithm_id::reduce_seed || alg.id == algorithm_id::reduce_render))
    throw error(errc::unsupported,
                "a view input runs on the 'single' or 'fast' reduce algorithm, not '" + std::string(alg.name) + "'");
  if (a.transform) {
    // The transform is fused into the fast reduce's load (its prelude's lift); the others read elements as they are.
    if (alg.serves != accuracy::fast) throw error(errc::unsupported, "transform_reduce supports accuracy::fast only");
    if (alg.id != algorithm_id::reduce_single && alg.id != algorithm_id::reduce_fast)
      throw error(errc::unsupported, "transform_reduce runs on the 'single' or 'fast' reduce algorithm, not '" +
                                         std::string(alg.name) + "'");
  }
  alg.record(rec, &a);
}

namespace {
// Packed storage types are widened into a temporary of their accumulation type first (one extra pass).
device_view widened(recorder& rec, const device_view& in, dtype t, std::vector<buffer>& temps) {
  if (!is_narrow(t) || in.count == 0) return in;
  temps.push_back(rec.ctx().create_buffer(in.count * 4));
  const device_view out = view_of(temps.back(), in.count, 4);
  record_widen(rec, in, t, out);
  return out;
}

// The checks every entry point makes on the element types: the input's type (a packed storage type, or the
// monoid's own), the features it needs, and what the accuracy modes and transforms take.
void check_types(context& ctx, const range_ref& in, const monoid& m, const run_options& opt,
                 const bound_transform* tr) {
  const dtype t = is_narrow(in.type) ? in.type : m.type();
  require_type(ctx, t, tr ? "transform_reduce" : "reduce", /*narrow_ok=*/!tr, /*wide_ok=*/!tr);
  if (!is_narrow(in.type) && !tr && dtype_bytes(in.type) != dtype_bytes(m.type()))
    throw error(errc::invalid_argument, std::string("reduce: ") + dtype_name(m.type()) + " operator over " +
                                            dtype_name(in.type) + " elements (the widths differ)");
  if (is_narrow(in.type) && accumulation_type(in.type) != m.type())
    throw error(errc::invalid_argument, std::string("reduce: ") + dtype_name(in.type) + " elements accumulate in " +
                                            dtype_name(accumulation_type(in.type)) + ", not " + dtype_name(m.type()));
  if (m.type() == dtype::f64 && opt.accuracy != accuracy::fast)
    throw error(errc::unsupported, std::string("accuracy::") + accuracy_name(opt.accuracy) +
                                       " is for f32 sums; f64 sums are accumulated in f64 (accuracy::fast)");
}

// Runs the reduction and reads back its result in the same submission: one word, a pair (compensated) or a
// superaccumulator (exact). in.count > 0.
std::vector<std::uint32_t> reduce_words(context& ctx, const range_ref& in, const monoid& m, const run_options& opt,
                                        const algorithm_entry& alg, const bound_transform* tr,
                                        const view_desc* view = nullptr) {
  reduce_args a{in.view, &m, nullptr, 0, 0, &opt, tr, nullptr, &alg};
  double upload_ms = 0;
  buffer uploaded;
  if (!in.on_device && !view) {
    a.in = upload_host(ctx, in, uploaded, &upload_ms);
  }
  std::vector<std::uint32_t> words(a.exact() ? sizeof(superaccumulator::words) / 4 : a.pairs() ? 2 : 1);
  // The result lands where the host maps it when the device allows (no copy into staging); else in scratch.
  WGPUBuffer mapped = mapped_result(ctx, sizeof(superaccumulator::words), a.result_bytes);
  if (mapped) {
    a.result = mapped;
  } else {
    const buffer& result = scratch(ctx, "reduce.result", sizeof(superaccumulator::words));
    a.result = result.native();
    a.result_bytes = result.size_bytes();
  }
  if (is_wide(m.type())) words.resize(2);
  recorder rec(ctx, opt.timestamps || opt.stats);
  std::vector<buffer> temps;
  view_desc bound;
  if (view) {
    bound = bindable_view(rec, *view, temps);
    a.view = &bound;
    a.in.count = view->count;
  } else {
    a.in = bindable_input(rec, a.in, temps);
    a.in = widened(rec, a.in, in.type, temps);
  }
  record_reduce(rec, a);
  const recorder::readback rb{a.result, 0, words.size() * 4, words.data(), mapped != nullptr};
  gpu_time t = rec.submit(&rb);
  fill_stats(opt, t, alg.name);
  if (opt.stats) opt.stats->upload_ms = upload_ms;
  return words;
}

superaccumulator from_words(const std::vector<std::uint32_t>& w) {
  superaccumulator::words sw;
  std::copy(w.begin(), w.end(), sw.w.begin());
  return superaccumulator::deserialize(sw);
}
}  // namespace

std::uint32_t reduce_bits(context& ctx, const range_ref& in, const monoid& m, const std::uint32_t* init,
                          const run_options& opt) {
  if (dtype_bytes(m.type()) != 4)  // the 32-bit entry point; every width goes through reduce_raw
    throw error(errc::invalid_argument, std::string("reduce_bits returns 32-bit results, not ") + dtype_name(m.type()) +
                                            " (use reduce_raw)");
  const std::uint64_t init_raw = init ? *init : 0;
  return static_cast<std::uint32_t>(reduce_run(ctx, in, m, init ? &init_raw : nullptr, opt, nullptr));
}

std::uint64_t reduce_raw(context& ctx, const range_ref& in, const monoid& m, const std::uint64_t* init,
                         const run_options& opt) {
  return reduce_run(ctx, in, m, init, opt, nullptr);
}

std::uint32_t transform_reduce_bits(context& ctx, const range_ref& in, const bound_transform& tr, const monoid& m,
                                    const std::uint32_t* init, const run_options& opt) {
  check_transform_type(tr, m.type());
  const std::uint64_t init_raw = init ? *init : 0;
  return static_cast<std::uint32_t>(reduce_run(ctx, in, m, init ? &init_raw : nullptr, opt, &tr));
}

std::uint64_t reduce_view_raw(context& ctx, const view_desc& v, const monoid& m, const std::uint64_t* init,
                              const run_options& opt) {
  check_view_desc(ctx, v, "reduce");
  std::unique_ptr<bound_transform> tr;
  if (v.tr) {
    tr = std::make_unique<bound_transform>(*v.tr, v.type);
    check_transform_type(*tr, m.type());
  } else if (v.type != m.type()) {
    throw error(errc::invalid_argument, std::string("reduce: ") + dtype_name(m.type()) + " operator over a view of " +
                                            dtype_name(v.type));
  }
  range_ref in;
  in.on_device = true;
  in.count = v.count;
  in.type = v.type;
  if (v.kind == view_desc::source::buffer) {  // a transform over a buffer: transform_reduce's path
    in.view = v.base;
    return reduce_run(ctx, in, m, init, opt, tr.get());
  }
  return reduce_run(ctx, in, m, init, opt, tr.get(), &v);
}

std::uint64_t reduce_run(context& ctx, const range_ref& in, const monoid& m, const std::uint64_t* init,
                         const run_options& opt, const bound_transform* tr, const view_desc* view) {
  check_types(ctx, in, m, opt, tr);
  return backend_of(ctx).reduce(ctx, in, m, init, opt, tr, view);
}

std::uint64_t reduce_webgpu(context& ctx, const range_ref& in, const monoid& m, const std::uint64_t* init,
                            const run_options& opt, const bound_transform* tr, const view_desc* view) {
  const reduce_args a{in.view, &m, nullptr, 0, 0, &opt, tr};
  const algorithm_entry& alg = resolve_reduce(ctx, a);  // once: what runs and what the statistics name
  if (tr && alg.serves != accuracy::fast) throw error(errc::unsupported, "transform_reduce supports accuracy::fast only");
  const std::string name = alg.name;
  if (in.on_device && !view) check_view(ctx, in.view, "reduce input");
  if (opt.check_operator) m.check(/*need_commutative=*/true);
  if (a.exact()) {
    // The init value joins the exact sum before the one rounding.
    superaccumulator s = in.count ? from_words(reduce_words(ctx, in, m, opt, alg, tr, view)) : superaccumulator();
    if (init) s.add(from_bits<float>(static_cast<std::uint32_t>(*init)));
    if (!in.count && opt.stats) *opt.stats = run_stats{0, false, 0, 0, name, 0};
    return to_bits(s.round_to_float());
  }
  auto finish = [&](std::uint64_t raw) { return init ? m.combine_raw(*init, raw) : raw; };
  if (in.count == 0) {
    if (opt.stats) *opt.stats = run_stats{0, false, 0, 0, name, 0};
    return finish(m.identity_raw());
  }
  // A pair's leading part is the correctly rounded value of hi + lo (combine ends with FastTwoSum).
  const std::vector<std::uint32_t> w = reduce_words(ctx, in, m, opt, alg, tr, view);
  return finish(is_wide(m.type()) ? w[0] | (std::uint64_t(w[1]) << 32) : w[0]);
}

superaccumulator exact_sum_run(context& ctx, const range_ref& in, const run_options& opt) {
  require_type(ctx, in.type, "exact_sum");
  return backend_of(ctx).exact_sum(ctx, in, opt);
}

superaccumulator exact_sum_webgpu(context& ctx, const range_ref& in, const run_options& opt) {
  run_options o = opt;
  o.accuracy = accuracy::reproducible;
  if (in.on_device) check_view(ctx, in.view, "exact_sum input");
  if (in.count == 0) {
    if (o.stats) *o.stats = run_stats{0, false, 0, 0, "exact", 0};
    return superaccumulator();
  }
  const monoid sum(op::sum(), dtype::f32);
  const algorithm_entry& alg = resolve_algorithm(ctx, "reduce", o.algorithm, in.count, accuracy::reproducible);
  return from_words(reduce_words(ctx, in, sum, o, alg, nullptr));
}

void reduce_record(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& result,
                   const monoid& m, const run_options& opt) {
  reduce_record_run(ctx, encoder, in, result, m, opt, nullptr);
}

void transform_reduce_record(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& result,
                             const bound_transform& tr, const monoid& m, const run_options& opt) {
  check_transform_type(tr, m.type());
  reduce_record_run(ctx, encoder, in, result, m, opt, &tr);
}

void reduce_record_run(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& result,
                       const monoid& m, const run_options& opt, const bound_transform* tr) {
  check_types(ctx, in, m, opt, tr);
  backend_of(ctx).reduce_into(ctx, encoder, in, result, m, opt, tr);
}

void reduce_into_webgpu(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& result,
                        const monoid& m, const run_options& opt, const bound_transform* tr) {
  reduce_args a{in.view, &m, result.view.buf, result.view.capacity, 0, &opt, tr};
  a.alg = &resolve_reduce(ctx, a);
  check_view(ctx, in.view, "reduce input");
  if (opt.check_operator) m.check(/*need_commutative=*/true);
  if (result.count == 0) throw error(errc::invalid_argument, "reduce: the result span is empty");
  check_view(ctx, result.view, "reduce result");
  if (a.pairs() || a.exact())
    throw error(errc::unsupported, "reduce into a device result supports accuracy::fast only");
  const std::uint32_t rb = dtype_bytes(m.type());
  if (result.view.offset % rb)
    throw error(errc::invalid_argument, "reduce: the result's offset is not a multiple of its element size");
  a.result_index = static_cast<std::uint32_t>(result.view.offset / rb);
  if (result.view.offset / rb > 0xffffffffull)
    throw error(errc::limit, "reduce: the result lies past the 4 GiB a kernel can index");
  if (in.count == 0) {
    const std::uint64_t id = m.identity_raw();
    wgpu_write(ctx, result.view.buf, result.view.offset, &id, rb);
    return;
  }
  // The caller's encoder (it submits), or our own submitted without a wait (queued: a later read waits).
  std::unique_ptr<recorder> rec =
      encoder ? std::make_unique<recorder>(ctx, encoder) : std::make_unique<recorder>(ctx);
  std::vector<buffer> temps;
  a.in = bindable_input(*rec, a.in, temps);
  a.in = widened(*rec, a.in, in.type, temps);
  record_reduce(*rec, a);
  if (encoder) rec->end();
  else rec->submit();
}

}  // namespace detail
}  // namespace wgprim
