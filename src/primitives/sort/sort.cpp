// Dispatch layer of sort: checks the arguments, uploads host data, records the upfront histogram and reads it
// back (one small synchronisation) to skip passes whose digit is the same for every key, then records the active
// passes of the chosen algorithm with the buffers alternating so that the last pass writes the output.
#include "primitives/sort/sort.hpp"

#include <chrono>

#include "wgprim/error.hpp"

namespace wgprim::detail {

struct sort_histogram_params {
  std::uint32_t n, blocks, workgroups, grid_x, key_kind, descending, pad0, pad1;
};
static_assert(sizeof(sort_histogram_params) == 32);
const kernel_spec sort_histogram_spec{"sort/histogram.wgsl",
                                      "histogram",
                                      {slot::uniform, slot::storage_read, slot::storage_rw},
                                      sizeof(sort_histogram_params)};

namespace {
constexpr std::uint32_t hist_wg = 256, hist_items = 16;


const monoid& u32_sum() {
  static const monoid m(op::sum(), dtype::u32);
  return m;
}
}  // namespace

std::uint32_t sort_key_kind(dtype t) { return t == dtype::u32 ? 0 : t == dtype::i32 ? 1 : 2; }

wgsl_constants sort_constants(std::uint32_t wg_size, std::uint32_t items) {
  return {{"WG_SIZE", std::to_string(wg_size) + "u"}, {"ITEMS", std::to_string(items) + "u"}};
}

void record_sort_histogram(recorder& rec, const device_view& keys, dtype key_type, order ord, const buffer& hist) {
  context& ctx = rec.ctx();
  const auto& k = get_kernel(ctx, sort_histogram_spec,
                             compose_wgsl(sort_histogram_spec.file, u32_sum(), sort_constants(hist_wg, hist_items)),
                             /*trusted=*/true);
  rec.clear(hist, 0, 4 * 256 * 4);
  const std::uint64_t block = std::uint64_t(hist_wg) * hist_items;
  const std::uint32_t blocks = static_cast<std::uint32_t>((keys.count + block - 1) / block);
  // Enough workgroups to fill a large GPU; few enough that the global atomics (1,024 per workgroup) stay cheap.
  const std::uint32_t workgroups = std::min<std::uint32_t>(blocks, 1024);
  std::uint32_t gx, gy;
  grid_2d(workgroups, ctx.limits().max_compute_workgroups_per_dimension, gx, gy);
  const sort_histogram_params p{static_cast<std::uint32_t>(keys.count), blocks, workgroups, gx,
                                sort_key_kind(key_type), ord == order::descending ? 1u : 0u, 0, 0};
  rec.dispatch(k, {rec.params(p), bind(keys), bind(view_of(hist))}, gx, gy);
}

void record_sort(recorder& rec, const sort_args& a) {
  context& ctx = rec.ctx();
  const std::uint64_t n = a.keys_in.count;
  std::vector<std::uint32_t> passes;
  for (std::uint32_t p = 0; p < 4; ++p)
    if (a.pass_mask >> p & 1) passes.push_back(p);
  const bool pairs = a.pairs();
  const bool in_place = a.keys_in.buf == a.keys_out.buf;
  auto copy_view = [&](const device_view& from, const device_view& to) {
    if (from.buf != to.buf || from.offset != to.offset) rec.copy_raw(from.buf, from.offset, to.buf, to.offset, from.bytes());
  };
  if (passes.empty()) {  // every digit is the same for all keys: the input is sorted
    copy_view(a.keys_in, a.keys_out);
    if (pairs) copy_view(a.vals_in, a.vals_out);
    return;
  }
  const std::size_t count = passes.size();
  buffer tk = ctx.create_buffer(n * 4), tv;
  if (pairs) tv = ctx.create_buffer(n * 4);
  const device_view tkv = view_of(tk, n), tvv = pairs ? view_of(tv, n) : device_view{};
  // Pass j writes the output when (count - 1 - j) is even, so the last pass does; but an in-place sort with an
  // odd count would then read and write the output in pass 0: it starts in the temporaries and copies at the end.
  const bool shifted = in_place && count % 2 == 1;
  std::unique_ptr<sort_algorithm> alg = std::string(pick_algorithm(ctx, "sort", a.opt->algorithm).name) == "onesweep"
                                            ? make_sort_onesweep(rec, a)
                                            : make_sort_rts(rec, a);
  device_view src_k = a.keys_in, src_v = a.vals_in;
  for (std::size_t j = 0; j < count; ++j) {
    const bool to_out = shifted ? j % 2 == 1 : (count - 1 - j) % 2 == 0;
    sort_pass p;
    p.keys_in = src_k;
    p.vals_in = src_v;
    p.keys_out = to_out ? a.keys_out : tkv;
    p.vals_out = to_out ? a.vals_out : tvv;
    p.digit_pass = passes[j];
    p.shift = passes[j] * 8;
    alg->pass(rec, p);
    src_k = p.keys_out;
    src_v = p.vals_out;
  }
  if (shifted) {
    copy_view(src_k, a.keys_out);
    if (pairs) copy_view(src_v, a.vals_out);
  }
}

namespace {
void check_range(const context& ctx, const range_ref& r, const char* what) {
  if (r.on_device) check_view(ctx, r.view, what);
}
}  // namespace

void sort_run(context& ctx, const range_ref& keys_in, const range_ref& keys_out, const range_ref* vals_in,
              const range_ref* vals_out, dtype key_type, order ord, const run_options& opt) {
  require_type(ctx, keys_in.type, "sort");
  require_type(ctx, key_type, "sort");
  if (vals_in) require_type(ctx, vals_in->type, "sort");
  using clock = std::chrono::steady_clock;
  const bool pairs = vals_in && vals_out;
  const std::string name = pick_algorithm(ctx, "sort", opt.algorithm).name;
  const bool dev = keys_in.on_device;
  if (keys_out.on_device != dev || (pairs && (vals_in->on_device != dev || vals_out->on_device != dev)))
    throw error(errc::invalid_argument, "sort: keys and values must all be on the device or all on the host");
  const std::uint64_t n = keys_in.count;
  if (keys_out.count != n || (pairs && (vals_in->count != n || vals_out->count != n)))
    throw error(errc::invalid_argument, "sort: the keys and values ranges differ in length");
  check_range(ctx, keys_in, "sort keys input");
  check_range(ctx, keys_out, "sort keys output");
  if (pairs) {
    check_range(ctx, *vals_in, "sort values input");
    check_range(ctx, *vals_out, "sort values output");
    if (dev && n && (vals_in->view.buf == keys_in.view.buf || vals_in->view.buf == keys_out.view.buf ||
                     vals_out->view.buf == keys_in.view.buf || vals_out->view.buf == keys_out.view.buf))
      throw error(errc::invalid_argument, "sort: keys and values must be in different buffers");
  }
  if (n * 4 > ctx.binding_limit())
    throw error(errc::limit, "sort: " + std::to_string(n) + " keys exceed one storage binding (" +
                                 std::to_string(ctx.binding_limit() / 4) + " keys); larger sorts are not implemented");
  if (n == 0) {
    if (opt.stats) *opt.stats = run_stats{0, false, 0, 0, name, 0};
    return;
  }
  sort_args a{};
  a.key_type = key_type;
  a.ord = ord;
  a.opt = &opt;
  double upload_ms = 0;
  buffer up_k, up_v, down_k, down_v;
  if (dev) {
    a.keys_in = keys_in.view;
    a.keys_out = keys_out.view;
    if (pairs) {
      a.vals_in = vals_in->view;
      a.vals_out = vals_out->view;
    }
  } else {
    auto t0 = clock::now();
    up_k = ctx.create_buffer(n * 4);
    ctx.write(up_k, 0, keys_in.host, n * 4);
    if (pairs) {
      up_v = ctx.create_buffer(n * 4);
      ctx.write(up_v, 0, vals_in->host, n * 4);
    }
    ctx.finish();
    upload_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    // Sorted in place in the upload buffers (no output buffers to allocate).
    a.keys_in = a.keys_out = view_of(up_k, n);
    if (pairs) a.vals_in = a.vals_out = view_of(up_v, n);
  }
  const bool timed = opt.timestamps || opt.stats;
  buffer hist = ctx.create_buffer(4 * 256 * 4);
  std::vector<buffer> temps;
  // Views at unaligned offsets go through temporaries; two different ranges of one buffer are separated (an exact
  // in-place sort is handled by record_sort's alternation).
  recorder rec1(ctx, timed);
  bindable_output ok = bindable_output_of(rec1, a.keys_out), ov;
  const bool keys_in_place = a.keys_in.buf == a.keys_out.buf && a.keys_in.offset == a.keys_out.offset;
  a.keys_out = ok.view;
  a.keys_in = keys_in_place ? ok.view : bindable_input(rec1, a.keys_in, temps, &a.keys_out);
  if (keys_in_place && ok.temp) rec1.copy_raw(keys_in.view.buf, keys_in.view.offset, ok.view.buf, 0, n * 4);
  if (pairs) {
    ov = bindable_output_of(rec1, a.vals_out);
    const bool vals_in_place = a.vals_in.buf == a.vals_out.buf && a.vals_in.offset == a.vals_out.offset;
    a.vals_out = ov.view;
    a.vals_in = vals_in_place ? ov.view : bindable_input(rec1, a.vals_in, temps, &a.vals_out);
    if (vals_in_place && ov.temp) rec1.copy_raw(vals_in->view.buf, vals_in->view.offset, ov.view.buf, 0, n * 4);
  }
  record_sort_histogram(rec1, a.keys_in, key_type, ord, hist);
  gpu_time t1 = rec1.submit();
  std::uint32_t h[4 * 256];
  ctx.read(hist, 0, h, sizeof h);
  a.pass_mask = 0;
  for (std::uint32_t p = 0; p < 4; ++p) {
    bool one_digit = false;
    for (std::uint32_t d = 0; d < 256; ++d) one_digit |= h[p * 256 + d] == n;
    if (!one_digit) a.pass_mask |= 1u << p;
  }
  a.hist = &hist;
  buffer fallbacks;
  if (opt.stats && name == "onesweep") {
    fallbacks = ctx.create_buffer(16);
    a.fallbacks = &fallbacks;
  }
  recorder rec2(ctx, timed);
  record_sort(rec2, a);
  ok.finish(rec2);
  if (pairs) ov.finish(rec2);
  gpu_time t2 = rec2.submit();
  t2.ms += t1.ms;
  fill_stats(opt, t2, name);
  if (opt.stats) {
    opt.stats->upload_ms = upload_ms;
    opt.stats->lookback_fallbacks = 0;
    if (fallbacks) {
      std::uint32_t f[4];
      ctx.read(fallbacks, 0, f, sizeof f);
      for (std::uint32_t x : f) opt.stats->lookback_fallbacks += x;
    }
  }
  if (!dev) {
    auto t3 = clock::now();
    ctx.read(up_k, 0, keys_out.host_out, n * 4);
    if (pairs) ctx.read(up_v, 0, vals_out->host_out, n * 4);
    if (opt.stats) opt.stats->download_ms = std::chrono::duration<double, std::milli>(clock::now() - t3).count();
  }
}

}  // namespace wgprim::detail
