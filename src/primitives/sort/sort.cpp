// Dispatch layer of sort: checks the arguments, uploads host data, makes the views bindable, and records the whole
// sort (record_sort: histogram, plan, one dispatch per slot, finish) into one recorder: its own (run and wait) or
// the caller's encoder. Passes whose digit is the same for every key are skipped on the GPU (the plan), so no
// host wait happens between the histogram and the passes. Temporaries and the state are the context's scratch
// buffers (no allocation per call once they are large enough).
#include "primitives/sort/sort.hpp"

#include <chrono>

#include "native/backend.hpp"

#include "wgprim/error.hpp"
#include "wgprim/testing.hpp"

namespace wgprim::detail {

const kernel_spec sort_histogram_spec{"sort/histogram.wgsl",
                                      "histogram",
                                      {slot::uniform, slot::storage_read, slot::storage_rw},
                                      sizeof(sort_params)};
const kernel_spec sort_plan_spec{"sort/plan.wgsl", "plan", {slot::uniform, slot::storage_rw}, sizeof(sort_params)};
const kernel_spec sort_finish_spec{"sort/finish.wgsl",
                                   "finish",
                                   {slot::uniform, slot::storage_read, slot::storage_rw, slot::storage_rw,
                                    slot::storage_read, slot::storage_rw, slot::storage_rw, slot::storage_rw},
                                   sizeof(sort_params)};

namespace {
// Words of the state buffer before the tile states (shaders/sort/keys.wgsl: TILE_STATES).
constexpr std::uint64_t tile_states_word = 4160;
constexpr std::uint32_t hist_wg = 256, hist_items = 16, finish_items = 16;

const monoid& u32_sum() {
  static const monoid m(op::sum(), dtype::u32);
  return m;
}

/// Workgroups walking `blocks` blocks: enough to fill a large GPU, few enough that per-workgroup work (the
/// histogram's global atomics) stays small.
void fixed_grid(const context& ctx, std::uint64_t blocks, sort_params& p, std::uint32_t& gx, std::uint32_t& gy) {
  p.blocks = static_cast<std::uint32_t>(blocks);
  p.workgroups = static_cast<std::uint32_t>(std::min<std::uint64_t>(std::max<std::uint64_t>(blocks, 1), 1024));
  grid_2d(p.workgroups, ctx.limits().max_compute_workgroups_per_dimension, gx, gy);
  p.grid_x = gx;
}
}  // namespace

wgsl_constants sort_constants(std::uint32_t wg_size, std::uint32_t items, std::uint32_t key_words) {
  return {{"WG_SIZE", std::to_string(wg_size) + "u"},
          {"ITEMS", std::to_string(items) + "u"},
          {"KEY_WORDS", std::to_string(key_words) + "u"}};
}

sort_params sort_params_of(const sort_args& a) {
  sort_params p{};
  p.n = static_cast<std::uint32_t>(a.n);
  p.key_kind = static_cast<std::uint32_t>(a.kind);
  p.descending = a.ord == order::descending ? 1u : 0u;
  p.pairs = a.pairs() ? 1u : 0u;
  p.in_place = a.in_place() ? 1u : 0u;
  return p;
}

const buffer& sort_state(context& ctx) { return scratch(ctx, "sort.state", tile_states_word * 4); }

void record_sort(recorder& rec, const sort_args& a) {
  context& ctx = rec.ctx();
  const std::uint64_t n = a.n, kw = a.key_words;
  const bool pairs = a.pairs();
  std::unique_ptr<sort_algorithm> alg = std::string(pick_algorithm(ctx, "sort", a.opt->algorithm).name) == "onesweep"
                                            ? make_sort_onesweep(rec, a)
                                            : make_sort_rts(rec, a);
  const buffer& state = scratch(ctx, "sort.state", (tile_states_word + alg->state_words()) * 4);
  const buffer& keys_tmp = scratch(ctx, "sort.keys_tmp", n * kw * 4);
  // Placeholders for absent roles (WebGPU forbids one buffer in a read-only and a writable binding of a dispatch,
  // so each absent role has its own).
  const buffer& none_keys = scratch(ctx, "sort.none_keys_in", 16);
  const buffer& none_vals_in = scratch(ctx, "sort.none_vals_in", 16);
  sort_bindings b;
  b.keys_in = a.in_place() ? bind(none_keys) : bind(a.keys_in);
  b.keys_x = bind(a.keys_out);
  b.keys_y = bind(keys_tmp, 0, n * kw * 4);
  if (pairs) {
    const buffer& vals_tmp = scratch(ctx, "sort.vals_tmp", n * 4);
    b.vals_in = a.in_place() ? bind(none_vals_in) : bind(a.vals_in);
    b.vals_x = bind(a.vals_out);
    b.vals_y = bind(vals_tmp, 0, n * 4);
  } else {
    b.vals_in = bind(none_vals_in);
    b.vals_x = bind(scratch(ctx, "sort.none_vals_x", 16));
    b.vals_y = bind(scratch(ctx, "sort.none_vals_y", 16));
  }
  b.state = bind(state, 0, tile_states_word * 4);  // the slots bind the tile states too (alg->slot)

  rec.clear(state, 0, tile_states_word * 4);
  {  // the histogram of every digit
    const auto& k = get_kernel(ctx, sort_histogram_spec,
                               compose_wgsl(sort_histogram_spec.file, u32_sum(), sort_constants(hist_wg, hist_items, a.key_words)),
                               /*trusted=*/true);
    sort_params p = sort_params_of(a);
    std::uint32_t gx, gy;
    fixed_grid(ctx, (n + hist_wg * hist_items - 1) / (hist_wg * hist_items), p, gx, gy);
    rec.dispatch(k, {rec.params(p), bind(a.keys_in), b.state}, gx, gy);
  }
  {  // the plan
    const auto& k = get_kernel(ctx, sort_plan_spec,
                               compose_wgsl(sort_plan_spec.file, u32_sum(), sort_constants(256, 1, a.key_words),
                                            {"shared/lanes_workgroup.wgsl"}),
                               true);
    rec.dispatch(k, {rec.params(sort_params_of(a)), b.state}, 1);
  }
  for (std::uint32_t j = 0; j < 4 * a.key_words; ++j) alg->slot(rec, j, b);
  {  // the result into X where the passes left it elsewhere
    const auto& k = get_kernel(ctx, sort_finish_spec,
                               compose_wgsl(sort_finish_spec.file, u32_sum(), sort_constants(256, finish_items, a.key_words)),
                               true);
    sort_params p = sort_params_of(a);
    std::uint32_t gx, gy;
    fixed_grid(ctx, (n * kw + 256 * finish_items - 1) / (256 * finish_items), p, gx, gy);
    rec.dispatch(k, {rec.params(p), b.keys_in, b.keys_x, b.keys_y, b.vals_in, b.vals_x, b.vals_y, b.state}, gx, gy);
  }
}

namespace {
void check_range(const context& ctx, const range_ref& r, const char* what) {
  if (r.on_device) check_view(ctx, r.view, what);
}

void key_format(dtype t, std::uint32_t& words, sort_key_kind& kind) {
  // 64-bit keys sort as two 32-bit words (no shader-int64 needed); f16/u8/i8 keys are not supported yet.
  words = is_wide(t) ? 2 : 1;
  switch (t) {
    case dtype::u32: case dtype::u64: kind = sort_key_kind::unsigned_int; return;
    case dtype::i32: case dtype::i64: kind = sort_key_kind::signed_int; return;
    case dtype::f32: case dtype::f64: kind = sort_key_kind::floating; return;
    default:
      throw error(errc::unsupported, std::string("sort: keys of type ") + dtype_name(t) +
                                         " are not supported (f32, i32, u32, f64, i64, u64)");
  }
}

/// The whole call for keys of `key_words` u32 words: checks, host upload, bindable views, record, run or end.
void sort_words(context& ctx, WGPUCommandEncoder encoder, const range_ref& keys_in, const range_ref& keys_out,
                const range_ref* vals_in, const range_ref* vals_out, std::uint32_t key_words, sort_key_kind kind,
                order ord, const run_options& opt) {
  using clock = std::chrono::steady_clock;
  const bool pairs = vals_in && vals_out;
  const bool dev = keys_in.on_device;
  if (keys_out.on_device != dev || (pairs && (vals_in->on_device != dev || vals_out->on_device != dev)))
    throw error(errc::invalid_argument, "sort: keys and values must all be on the device or all on the host");
  if (encoder && !dev) throw error(errc::invalid_argument, "sort: recording into an encoder needs device ranges");
  const std::uint64_t n = keys_in.count;
  if (keys_out.count != n || (pairs && (vals_in->count != n || vals_out->count != n)))
    throw error(errc::invalid_argument, "sort: the keys and values ranges differ in length");
  if (cpu_backend::native(ctx)) {  // the native sort takes 32-bit keys, named by their dtype
    if (encoder) cpu_backend::no_encoder("sort");
    if (key_words != 1) throw error(errc::unsupported, "sort: the native CPU backend sorts 32-bit keys only");
    const dtype key_type = kind == sort_key_kind::floating ? dtype::f32
                           : kind == sort_key_kind::signed_int ? dtype::i32 : dtype::u32;
    return cpu_backend::sort(ctx, keys_in, keys_out, vals_in, vals_out, key_type, ord, opt);
  }
  const std::string name = pick_algorithm(ctx, "sort", opt.algorithm).name;
  check_range(ctx, keys_in, "sort keys input");
  check_range(ctx, keys_out, "sort keys output");
  if (pairs) {
    check_range(ctx, *vals_in, "sort values input");
    check_range(ctx, *vals_out, "sort values output");
    if (dev && n && (vals_in->view.buf == keys_in.view.buf || vals_in->view.buf == keys_out.view.buf ||
                     vals_out->view.buf == keys_in.view.buf || vals_out->view.buf == keys_out.view.buf))
      throw error(errc::invalid_argument, "sort: keys and values must be in different buffers");
  }
  const std::uint64_t key_bytes = 4ull * key_words;
  // Past one storage binding (or 2^30 keys) the chunks are sorted and merged (record_sort_merged); the keys, the
  // values and the temporaries must each fit the device's largest buffer.
  const std::uint64_t max_keys = std::min<std::uint64_t>(ctx.limits().max_buffer_size / key_bytes, (1ull << 31) - 1);
  if (n > max_keys)
    throw error(errc::limit, "sort: " + std::to_string(n) + " keys exceed the device's largest buffer (" +
                                 std::to_string(max_keys) + " keys)");
  const bool merged = n * key_bytes > ctx.binding_limit() || n >= (1ull << 30);
  if (n == 0) {
    if (opt.stats) *opt.stats = run_stats{0, false, 0, 0, name, 0};
    return;
  }
  sort_args a;
  a.n = n;
  a.key_words = key_words;
  a.kind = kind;
  a.ord = ord;
  a.opt = &opt;
  double upload_ms = 0;
  buffer up_k, up_v;
  device_view kin, kout, vin, vout;
  if (dev) {
    kin = keys_in.view;
    kout = keys_out.view;
    if (pairs) {
      vin = vals_in->view;
      vout = vals_out->view;
    }
  } else {
    auto t0 = clock::now();
    up_k = ctx.create_buffer(n * key_bytes);
    ctx.write(up_k, 0, keys_in.host, n * key_bytes);
    if (pairs) {
      up_v = ctx.create_buffer(n * 4);
      ctx.write(up_v, 0, vals_in->host, n * 4);
    }
    ctx.finish();
    upload_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    // Sorted in place in the upload buffers (no output buffers to allocate).
    kin = kout = view_of(up_k, n * key_words);
    if (pairs) vin = vout = view_of(up_v, n);
  }
  const bool own = encoder == nullptr;
  recorder rec = own ? recorder(ctx, opt.timestamps || opt.stats) : recorder(ctx, encoder);
  std::vector<buffer> temps;
  // Views at unaligned offsets go through temporaries; two different ranges of one buffer are separated (an exact
  // in-place sort is handled by the plan's alternation).
  auto make_bindable = [&](device_view& in, device_view& out, bindable_output& o) {
    const bool same = in.buf == out.buf && in.offset == out.offset;
    const device_view in0 = in;
    o = bindable_output_of(rec, out);
    out = o.view;
    if (same) {
      if (o.temp) rec.copy_raw(in0.buf, in0.offset, o.view.buf, 0, in0.bytes());
      in = out;
    } else {
      in = bindable_input(rec, in, temps, &out);
    }
  };
  bindable_output ok, ov;
  make_bindable(kin, kout, ok);
  if (pairs) {
    make_bindable(vin, vout, ov);
    // Keys and values must agree on in-place: the one that is not gets its input copied to its output first.
    const bool kip = kin.buf == kout.buf, vip = vin.buf == vout.buf;
    if (kip && !vip) {
      rec.copy_raw(vin.buf, vin.offset, vout.buf, vout.offset, vout.bytes());
      vin = vout;
    } else if (vip && !kip) {
      rec.copy_raw(kin.buf, kin.offset, kout.buf, kout.offset, kout.bytes());
      kin = kout;
    }
  }
  a.keys_in = kin;
  a.keys_out = kout;
  if (pairs) {
    a.vals_in = vin;
    a.vals_out = vout;
  }
  if (merged) record_sort_merged(rec, a);
  else record_sort(rec, a);
  ok.finish(rec);
  if (pairs) ov.finish(rec);
  if (!own) {
    rec.end();
    return;
  }
  const gpu_time t = rec.submit();
  fill_stats(opt, t, name);
  if (opt.stats) {
    opt.stats->upload_ms = upload_ms;
    opt.stats->lookback_fallbacks = 0;
    if (name == "onesweep") {
      std::uint32_t f[8];
      ctx.read(sort_state(ctx), 8 * 4, f, sizeof f);
      for (std::uint32_t x : f) opt.stats->lookback_fallbacks += x;
    }
  }
  if (!dev) {
    auto t3 = clock::now();
    ctx.read(up_k, 0, keys_out.host_out, n * key_bytes);
    if (pairs) ctx.read(up_v, 0, vals_out->host_out, n * 4);
    if (opt.stats) opt.stats->download_ms = std::chrono::duration<double, std::milli>(clock::now() - t3).count();
  }
}
}  // namespace

void sort_run(context& ctx, WGPUCommandEncoder encoder, const range_ref& keys_in, const range_ref& keys_out,
              const range_ref* vals_in, const range_ref* vals_out, dtype key_type, order ord, const run_options& opt) {
  std::uint32_t words;
  sort_key_kind kind;
  key_format(key_type, words, kind);
  if (vals_in && dtype_bytes(vals_in->type) != 4)
    throw error(errc::unsupported, std::string("sort: values of type ") + dtype_name(vals_in->type) +
                                       " are not supported (values are 32-bit)");
  sort_words(ctx, encoder, keys_in, keys_out, vals_in, vals_out, words, kind, ord, opt);
}

void sort_words_run(context& ctx, const buffer& keys_in, buffer& keys_out, std::uint64_t n, std::uint32_t key_words,
                    sort_key_kind kind, order o, const buffer* vals_in, buffer* vals_out, const run_options& opt) {
  if (key_words != 1 && key_words != 2) throw error(errc::invalid_argument, "sort: keys are 1 or 2 words");
  auto words_view = [&](const buffer& b) {
    device_view v = view_of(b, n, 4 * key_words);
    v.count = n;
    return v;
  };
  range_ref ki, ko;
  ki.on_device = ko.on_device = true;
  ki.view = words_view(keys_in);
  ko.view = words_view(keys_out);
  ki.count = ko.count = n;
  if (!vals_in || !vals_out) return sort_words(ctx, nullptr, ki, ko, nullptr, nullptr, key_words, kind, o, opt);
  range_ref vi, vo;
  vi.on_device = vo.on_device = true;
  vi.view = view_of(*vals_in, n);
  vo.view = view_of(*vals_out, n);
  vi.count = vo.count = n;
  sort_words(ctx, nullptr, ki, ko, &vi, &vo, key_words, kind, o, opt);
}

}  // namespace wgprim::detail

namespace wgprim::testing {
void sort_words(context& ctx, const buffer& keys_in, buffer& keys_out, std::size_t n, unsigned key_words, unsigned kind,
                bool descending, const buffer* vals_in, buffer* vals_out, const run_options& opt) {
  if (kind > 2) throw error(errc::invalid_argument, "sort: key kind must be 0 (unsigned), 1 (signed) or 2 (float)");
  detail::sort_words_run(ctx, keys_in, keys_out, n, key_words, static_cast<detail::sort_key_kind>(kind),
                         descending ? order::descending : order::ascending, vals_in, vals_out, opt);
}
}  // namespace wgprim::testing
