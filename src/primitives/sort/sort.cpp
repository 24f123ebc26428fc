// Dispatch layer of sort: checks the arguments, uploads host data, makes the views bindable, and records the whole
// sort (record_sort: histogram, plan, one dispatch per slot, finish) into one recorder: its own (run and wait) or
// the caller's encoder. Passes whose digit is the same for every key are skipped on the GPU (the plan), so no
// host wait happens between the histogram and the passes. Temporaries and the state are the context's scratch
// buffers (no allocation per call once they are large enough).
#include "primitives/sort/sort.hpp"

#include <algorithm>
#include <chrono>

#include "primitives/backend.hpp"
#include "primitives/copy/widen.hpp"

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
constexpr std::uint64_t device_n_word = 4128;  // sort/count.wgsl: DEVICE_N
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

std::uint64_t sort_bit_mask(std::uint32_t begin_bit, std::uint32_t end_bit) {
  const std::uint64_t below_end = end_bit >= 64 ? ~0ull : (1ull << end_bit) - 1;
  return below_end & ~((1ull << begin_bit) - 1);
}

sort_params sort_params_of(const sort_args& a) {
  sort_params p{};
  p.n = static_cast<std::uint32_t>(a.n);
  p.key_kind = static_cast<std::uint32_t>(a.kind);
  p.descending = a.ord == order::descending ? 1u : 0u;
  p.pairs = a.pairs() ? 1u : 0u;
  p.in_place = a.in_place() ? 1u : 0u;
  const std::uint64_t mask = sort_bit_mask(a.begin_bit, a.end_bit);
  p.mask_lo = static_cast<std::uint32_t>(mask);
  p.mask_hi = static_cast<std::uint32_t>(mask >> 32);
  p.pass_lo = a.pass_lo();
  p.pass_hi = a.pass_hi();
  p.device_n = a.count ? 1u : 0u;
  return p;
}

const buffer& sort_state(context& ctx) { return scratch(ctx, "sort.state", tile_states_word * 4); }

void record_sort(recorder& rec0, const sort_args& a, sort_phase_split* split) {
  recorder* r = &rec0;
  context& ctx = rec0.ctx();
  const std::uint64_t n = a.n, kw = a.key_words;
  const bool pairs = a.pairs();
  std::unique_ptr<sort_algorithm> alg = pick_algorithm(ctx, "sort", a.opt->algorithm).id == algorithm_id::sort_onesweep
                                            ? make_sort_onesweep(rec0, a)
                                            : make_sort_rts(rec0, a);
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

  // Dispatches, not transfer commands: the state is cleared and the count copied inside the compute pass (a
  // transfer ends it, and every pass boundary costs host and GPU time: docs/performance.md, pipelines).
  // With a device count, one dispatch clears the state and copies the count into it.
  if (a.count)
    record_zero_take(*r, state, 0, (tile_states_word + alg->state_words_zeroed_first()) * 4, device_n_word,
                     a.count->buf, a.count->offset);
  else
    record_zero(*r, state, 0, (tile_states_word + alg->state_words_zeroed_first()) * 4);
  {  // the histogram of every digit
    const auto& k = get_kernel(ctx, sort_histogram_spec, memo_text({&sort_histogram_spec, {a.key_words}, {}}, [&]() -> const std::string& {
                                 return compose_wgsl(sort_histogram_spec.file, u32_sum(),
                                                     sort_constants(hist_wg, hist_items, a.key_words));
                               }),
                               /*trusted=*/true);
    sort_params p = sort_params_of(a);
    std::uint32_t gx, gy;
    fixed_grid(ctx, (n + hist_wg * hist_items - 1) / (hist_wg * hist_items), p, gx, gy);
    r->dispatch(k, {r->params(p), bind(a.keys_in), b.state}, gx, gy);
  }
  {  // the plan
    const auto& k = get_kernel(ctx, sort_plan_spec, memo_text({&sort_plan_spec, {a.key_words}, {}}, [&]() -> const std::string& {
                                 return compose_wgsl(sort_plan_spec.file, u32_sum(), sort_constants(256, 1, a.key_words),
                                                     {"shared/lanes_workgroup.wgsl"});
                               }),
                               true);
    r->dispatch(k, {r->params(sort_params_of(a)), b.state}, 1);
  }
  if (split) r = &split->next("histogram + plan");
  // Slot j runs the j-th active pass: at most the passes covering [begin_bit, end_bit).
  for (std::uint32_t j = 0; j < a.pass_hi() - a.pass_lo(); ++j) {
    alg->slot(*r, j, b);
    if (split) r = &split->next("slot " + std::to_string(j));
  }
  // The result into X where the passes left it elsewhere: an in-place sort with an odd number of active passes, or an
  // out-of-place one with none (which the onesweep's slot 0 copies itself).
  if (a.in_place() || a.pass_hi() == a.pass_lo() || !alg->copies_input_when_no_pass()) {
    const auto& k = get_kernel(ctx, sort_finish_spec, memo_text({&sort_finish_spec, {a.key_words}, {}}, [&]() -> const std::string& {
                                 return compose_wgsl(sort_finish_spec.file, u32_sum(),
                                                     sort_constants(256, finish_items, a.key_words));
                               }),
                               true);
    sort_params p = sort_params_of(a);
    std::uint32_t gx, gy;
    fixed_grid(ctx, (n * kw + 256 * finish_items - 1) / (256 * finish_items), p, gx, gy);
    r->dispatch(k, {r->params(p), b.keys_in, b.keys_x, b.keys_y, b.vals_in, b.vals_x, b.vals_y, b.state}, gx, gy);
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

/// Checks a sort's bit range against keys of `key_words` words (end_bit 0: the key's width).
void sort_bit_range(const sort_order& so, std::uint32_t key_words, std::uint32_t& begin_bit, std::uint32_t& end_bit) {
  const std::uint32_t width = 32 * key_words;
  begin_bit = so.begin_bit;
  end_bit = so.end_bit ? so.end_bit : width;
  if (begin_bit >= end_bit || end_bit > width)
    throw error(errc::invalid_argument, "sort: bits [" + std::to_string(so.begin_bit) + ", " +
                                            std::to_string(so.end_bit) + ") are not a bit range of a " +
                                            std::to_string(width) + "-bit key (0 <= begin_bit < end_bit <= " +
                                            std::to_string(width) + ")");
}

/// The whole call for keys of `key_words` u32 words: checks, host upload, bindable views, record, run or end.
void sort_words(context& ctx, WGPUCommandEncoder encoder, const range_ref& keys_in, const range_ref& keys_out,
                const range_ref* vals_in, const range_ref* vals_out, std::uint32_t key_words, sort_key_kind kind,
                const sort_order& so, const run_options& opt) {
  const order ord = so.direction;
  std::uint32_t begin_bit, end_bit;
  sort_bit_range(so, key_words, begin_bit, end_bit);
  const bool pairs = vals_in && vals_out;
  const bool dev = keys_in.on_device;
  if (keys_out.on_device != dev || (pairs && (vals_in->on_device != dev || vals_out->on_device != dev)))
    throw error(errc::invalid_argument, "sort: keys and values must all be on the device or all on the host");
  if (encoder && !dev) throw error(errc::invalid_argument, "sort: recording into an encoder needs device ranges");
  const std::uint64_t n = keys_in.count;
  if (keys_out.count != n || (pairs && (vals_in->count != n || vals_out->count != n)))
    throw error(errc::invalid_argument, "sort: the keys and values ranges differ in length");
  backend_of(ctx).sort(ctx, encoder, keys_in, keys_out, vals_in, vals_out, key_words, kind, ord, begin_bit, end_bit,
                       opt);
}
}  // namespace

namespace {
// sort_webgpu, and with `count` the counted sort (sort_counted_webgpu).
void sort_webgpu_impl(context& ctx, WGPUCommandEncoder encoder, const range_ref& keys_in, const range_ref& keys_out,
                      const range_ref* vals_in, const range_ref* vals_out, std::uint32_t key_words,
                      sort_key_kind kind, order ord, unsigned begin_bit, unsigned end_bit, const run_options& opt,
                      const device_view* count) {
  using clock = std::chrono::steady_clock;
  const bool pairs = vals_in && vals_out;
  const bool dev = keys_in.on_device;
  const std::uint64_t n = keys_in.count;
  const algorithm_entry& alg = pick_algorithm(ctx, "sort", opt.algorithm);
  const std::string name = alg.name;
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
  // Past one storage binding (or 2^30 keys) the chunks are sorted and merged (record_sort_merged).
  check_sort_size(ctx, n, key_words);
  const bool merged = n * key_bytes > ctx.binding_limit() || n >= (1ull << 30);
  if (n == 0) {
    if (opt.stats) *opt.stats = run_stats{0, false, 0, 0, name, 0};
    return;
  }
  if (count && merged) throw error(errc::gpu, "internal: sort: a device count past one binding");
  sort_args a;
  a.n = n;
  a.count = count;
  a.key_words = key_words;
  a.kind = kind;
  a.ord = ord;
  a.begin_bit = begin_bit;
  a.end_bit = end_bit;
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
    if (alg.counts_fallbacks) {
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

void sort_webgpu(context& ctx, WGPUCommandEncoder encoder, const range_ref& keys_in, const range_ref& keys_out,
                 const range_ref* vals_in, const range_ref* vals_out, std::uint32_t key_words, sort_key_kind kind,
                 order ord, unsigned begin_bit, unsigned end_bit, const run_options& opt) {
  sort_webgpu_impl(ctx, encoder, keys_in, keys_out, vals_in, vals_out, key_words, kind, ord, begin_bit, end_bit, opt,
                   nullptr);
}

bool sort_counted_webgpu(context& ctx, WGPUCommandEncoder encoder, const range_ref& keys, const device_view& count,
                         const sort_order& ord, const run_options& opt) {
  std::uint32_t words;
  sort_key_kind kind;
  key_format(keys.type, words, kind);
  if (words != 1 || keys.count * 4 > ctx.binding_limit() || keys.count >= (1ull << 30)) return false;
  std::uint32_t begin_bit, end_bit;
  sort_bit_range(ord, words, begin_bit, end_bit);
  sort_webgpu_impl(ctx, encoder, keys, keys, nullptr, nullptr, words, kind, ord.direction, begin_bit, end_bit, opt,
                   &count);
  return true;
}

void sort_run(context& ctx, WGPUCommandEncoder encoder, const range_ref& keys_in, const range_ref& keys_out,
              const range_ref* vals_in, const range_ref* vals_out, dtype key_type, const sort_order& ord,
              const run_options& opt) {
  std::uint32_t words;
  sort_key_kind kind;
  key_format(key_type, words, kind);
  if (vals_in && dtype_bytes(vals_in->type) != 4)
    throw error(errc::unsupported, std::string("sort: values of type ") + dtype_name(vals_in->type) +
                                       " are not supported (values are 32-bit)");
  sort_words(ctx, encoder, keys_in, keys_out, vals_in, vals_out, words, kind, ord, opt);
}

void check_sort_size(const context& ctx, std::uint64_t n, std::uint32_t key_words) {
  const std::uint64_t max_keys =
      std::min<std::uint64_t>(ctx.limits().max_buffer_size / (4ull * key_words), (1ull << 31) - 1);
  if (n > max_keys)
    throw error(errc::limit, "sort: " + std::to_string(n) + " keys exceed the device's largest buffer (" +
                                 std::to_string(max_keys) + " keys)");
}

void sort_words_run(context& ctx, const buffer& keys_in, buffer& keys_out, std::uint64_t n, std::uint32_t key_words,
                    sort_key_kind kind, const sort_order& o, const buffer* vals_in, buffer* vals_out,
                    const run_options& opt) {
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

namespace {
/// Reads the plan of the last sort recorded on this context (state words PLAN..): the active passes in order.
std::vector<unsigned> plan_passes(context& ctx) {
  std::uint32_t plan[9] = {};
  ctx.read(sort_state(ctx), 4112 * 4, plan, sizeof plan);  // shaders/sort/keys.wgsl: PLAN
  return std::vector<unsigned>(plan + 1, plan + 1 + std::min<std::uint32_t>(plan[0], 8));
}
}  // namespace

std::vector<unsigned> sort_passes_webgpu(context& ctx) { return plan_passes(ctx); }

}  // namespace wgprim::detail

namespace wgprim {
std::vector<sort_phase> sort_phases(context& ctx, const buffer& keys_in, buffer& keys_out, std::size_t n,
                                    dtype key_type, sort_order so, const buffer* values_in, buffer* values_out,
                                    const run_options& opt) {
  return detail::backend_of(ctx).sort_phases(ctx, keys_in, keys_out, n, key_type, so, values_in, values_out, opt);
}
}  // namespace wgprim

namespace wgprim::detail {
recorder& phase_timer::next(const std::string& finished) {
  const gpu_time t = cur->submit();
  out.push_back({finished, t.ms, t.from_timestamps, false});
  cur = std::make_unique<recorder>(ctx, true);
  return *cur;
}

std::vector<sort_phase> sort_phases_webgpu(context& ctx, const buffer& keys_in, buffer& keys_out, std::size_t n,
                                           dtype key_type, sort_order so, const buffer* values_in,
                                           buffer* values_out, const run_options& opt) {
  const bool pairs = values_in && values_out;
  std::vector<sort_phase> out;
  std::uint32_t words;
  sort_key_kind kind;
  key_format(key_type, words, kind);
  if (words != 1) throw error(errc::unsupported, "sort_phases: 32-bit keys only");
  std::uint32_t begin_bit, end_bit;
  sort_bit_range(so, words, begin_bit, end_bit);
  if (n == 0) return out;
  if (n * 4 > ctx.binding_limit() || n >= (1ull << 30))
    throw error(errc::limit, "sort_phases: keys past one storage binding (the merged sort has no digit phases)");
  if (keys_in.size_bytes() < n * 4 || keys_out.size_bytes() < n * 4 ||
      (pairs && (values_in->size_bytes() < n * 4 || values_out->size_bytes() < n * 4)))
    throw error(errc::invalid_argument, "sort_phases: a buffer holds fewer than n elements");
  if (pairs && (values_in->native() == keys_in.native() || values_in->native() == keys_out.native() ||
                values_out->native() == keys_in.native() || values_out->native() == keys_out.native()))
    throw error(errc::invalid_argument, "sort: keys and values must be in different buffers");
  sort_args a;
  a.n = n;
  a.kind = kind;
  a.ord = so.direction;
  a.begin_bit = begin_bit;
  a.end_bit = end_bit;
  a.opt = &opt;
  a.keys_in = view_of(keys_in, n);
  a.keys_out = view_of(keys_out, n);
  if (pairs) {
    a.vals_in = view_of(*values_in, n);
    a.vals_out = view_of(*values_out, n);
    if ((a.keys_in.buf == a.keys_out.buf) != (a.vals_in.buf == a.vals_out.buf))
      throw error(errc::invalid_argument, "sort_phases: keys and values must both be in place or both not");
  }
  phase_timer split(ctx, out);
  record_sort(*split.cur, a, &split);
  split.next("finish");
  // Name the slots by the pass they ran (the plan, read back from the state).
  const std::vector<unsigned> passes = plan_passes(ctx);
  for (auto& ph : out) {
    if (ph.name.rfind("slot ", 0) != 0) continue;
    const std::size_t j = std::stoul(ph.name.substr(5));
    if (j < passes.size())
      ph.name = "pass " + std::to_string(passes[j]) + " (bits " + std::to_string(8 * passes[j]) + ".." +
                std::to_string(8 * passes[j] + 7) + ")";
    else
      ph.name += " (skipped)", ph.skipped = true;
  }
  return out;
}
in_place_keys::in_place_keys(context& ctx, const range_ref& k, const range_ref* v) : keys(k), vals(v) {
  const std::uint64_t n = keys.count;
  if (keys.on_device) {
    kv = keys.view;
    if (vals) vv = vals->view;
    return;
  }
  up_k = ctx.create_buffer(std::max<std::uint64_t>(n, 1) * 4);
  ctx.write(up_k, 0, keys.host, n * 4);
  kv = view_of(up_k, n);
  if (vals) {
    up_v = ctx.create_buffer(std::max<std::uint64_t>(n, 1) * 4);
    ctx.write(up_v, 0, vals->host, n * 4);
    vv = view_of(up_v, n);
  }
  ctx.finish();
}

void in_place_keys::write_back(context& ctx) const {
  if (keys.on_device) return;
  ctx.read(up_k, 0, keys.host_out, keys.count * 4);
  if (vals) ctx.read(up_v, 0, vals->host_out, keys.count * 4);
}

}  // namespace wgprim::detail

namespace wgprim::testing {
void sort_words(context& ctx, const buffer& keys_in, buffer& keys_out, std::size_t n, unsigned key_words, unsigned kind,
                bool descending, const buffer* vals_in, buffer* vals_out, const run_options& opt, unsigned begin_bit,
                unsigned end_bit) {
  if (kind > 2) throw error(errc::invalid_argument, "sort: key kind must be 0 (unsigned), 1 (signed) or 2 (float)");
  detail::sort_words_run(ctx, keys_in, keys_out, n, key_words, static_cast<detail::sort_key_kind>(kind),
                         sort_order(descending ? order::descending : order::ascending, begin_bit, end_bit), vals_in,
                         vals_out, opt);
}
}  // namespace wgprim::testing

namespace wgprim::testing {
std::vector<unsigned> sort_passes_run(context& ctx) {
  return detail::backend_of(ctx).sort_passes_run(ctx);
}
}  // namespace wgprim::testing
