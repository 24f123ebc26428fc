// Dispatch layer of segmented reduce/scan, reduce-by-key and run-length encoding: argument checks, host
// uploads/downloads, bindable views, the passes of tiles.cpp, the checks that need the GPU's answers (broken
// offsets, runs that do not fit the outputs).
#include "primitives/copy/widen.hpp"
#include "primitives/segmented/segmented.hpp"
#include "primitives/select/select.hpp"

#include <chrono>

#include "core/host_checks.hpp"
#include "primitives/backend.hpp"

#include "wgprim/error.hpp"
#include "wgprim/reduce_by_key.hpp"
#include "wgprim/segmented.hpp"

namespace wgprim::detail {

namespace {

using clock_type = std::chrono::steady_clock;

void same_side(std::initializer_list<const range_ref*> rs, const char* what) {
  const bool dev = (*rs.begin())->on_device;
  for (const range_ref* r : rs)
    if (r && r->on_device != dev)
      throw error(errc::invalid_argument, std::string(what) + ": the ranges must all be on the device or all on the host");
}

// A device view of a range: the caller's (device) or an upload (host).
device_view staged(context& ctx, const range_ref& r, std::vector<buffer>& keep) {
  if (r.on_device) return r.view;
  keep.push_back(ctx.create_buffer(std::max<std::uint64_t>(r.count, 1) * 4));
  if (r.count) ctx.write(keep.back(), 0, r.host, r.count * 4);
  return view_of(keep.back(), r.count);
}

// run_options::tune.items: tiles per invocation of the spine (a test makes it small to cover several spine steps
// with few tiles).
std::uint32_t spine_items(const run_options& opt) {
  if (opt.tune.items > 16) throw error(errc::invalid_argument, "tuning: items must be 1..16 for the segmented spine");
  return opt.tune.items ? opt.tune.items : 16;
}

std::vector<std::uint32_t> read_offsets(context& ctx, const device_view& v) {
  std::vector<std::uint32_t> h(v.count);
  if (v.count == 0) return h;
  buffer tmp = ctx.create_buffer(v.count * 4);
  {
    recorder r(ctx);
    r.copy_raw(v.buf, v.offset, tmp.native(), 0, v.count * 4);
    r.submit();
  }
  ctx.read(tmp, 0, h.data(), v.count * 4);
  return h;
}

// After a submitted run: broken offsets counted on the GPU (`broken`, read back with the run) become the same error
// as the host check gives (the offsets are read back to name the first bad one: only on this error path).
void check_offsets_gpu(context& ctx, std::uint32_t broken, const range_ref& offsets, std::uint64_t n,
                       const char* what) {
  if (!broken) return;
  if (offsets.on_device) check_offsets_host(read_offsets(ctx, offsets.view).data(), offsets.count, n, what);
  else check_offsets_host(static_cast<const std::uint32_t*>(offsets.host), offsets.count, n, what);
  throw error(errc::invalid_argument, std::string(what) + ": the offsets decrease or pass n (" +
                                          std::to_string(broken) + (broken == 1 ? " offset" : " offsets") +
                                          " out of order)");
}

// The end of every segmented call: close the output, then either leave the work in the caller's encoder, or submit,
// fill the stats, check the offsets the GPU validated (ws null: nothing was validated) and read a host output back
// (`words` 32-bit values from `down`).
// A look-back pass (alg.counts_fallbacks) left its fallback count in word 1 of ws->fallbacks, read into the stats.
void finish_call(context& ctx, recorder& rec, bindable_output& o, bool own, const run_options& opt,
                 const algorithm_entry& alg, const range_ref& in, const range_ref& offsets, double upload_ms,
                 const segmented_workspace* ws, const char* what, const buffer& down, const range_ref& out,
                 std::uint64_t words) {
  o.finish(rec);
  if (!own) {
    rec.end();
    return;
  }
  // The count of broken offsets comes back in the same submission (one submit, one wait).
  std::uint32_t broken = 0;
  const buffer* heads = ws ? ws->heads : nullptr;
  if (ws && !heads) throw error(errc::gpu, "internal: a segmented pass left no head counts");
  const recorder::readback rb{heads ? heads->native() : nullptr, ws ? ws->words * 4 : 0, ws ? 4u : 0u, &broken};
  fill_stats(opt, rec.submit(ws ? &rb : nullptr), alg.name);
  if (opt.stats) {
    opt.stats->upload_ms = in.on_device ? 0 : upload_ms;
    opt.stats->lookback_fallbacks = 0;
    if (ws && alg.counts_fallbacks && ws->fallbacks) ctx.read(*ws->fallbacks, 4, &opt.stats->lookback_fallbacks, 4);
  }
  check_offsets_gpu(ctx, broken, offsets, in.count, what);
  if (!out.on_device) ctx.read(down, 0, out.host_out, words * 4);
}

// Whether an unnamed call takes the one-subgroup-per-segment algorithm: segments of 32 to max_average values on
// average, sizes it serves.
bool per_subgroup_by_default(const context& ctx, const run_options& opt, std::uint64_t n, std::uint64_t segs,
                             std::uint64_t max_average) {
  return opt.algorithm.empty() && segs > 0 && n / segs >= 32 && n / segs <= max_average &&
         segmented_per_subgroup_serves(ctx, n, segs);
}

void check_common(context& ctx, const range_ref& in, const range_ref& offsets, const range_ref& out, const char* what) {
  same_side({&in, &offsets, &out}, what);
  if (offsets.count == 0)
    throw error(errc::invalid_argument, std::string(what) + ": give n_segments + 1 offsets (at least one)");
  if (in.count > 0xffffffffull) throw error(errc::limit, std::string(what) + ": more than 2^32 - 1 elements");
  if (in.on_device) {
    check_view(ctx, in.view, what);
    check_view(ctx, offsets.view, what);
    check_view(ctx, out.view, what);
  } else {
    check_offsets_host(static_cast<const std::uint32_t*>(offsets.host), offsets.count, in.count, what);
  }
}

}  // namespace

void segmented_scan_run(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& offsets,
                        const range_ref& out, const monoid& m, scan_kind kind, const run_options& opt) {
  require_type(ctx, in.type, "segmented scan");
  require_type(ctx, m.type(), "segmented scan");
  const char* what = "segmented scan";
  // A custom operator is checked as the plain scan checks it (tiles keep the order: associativity suffices).
  if (opt.check_operator) m.check(/*need_commutative=*/false);
  check_common(ctx, in, offsets, out, what);
  if (in.count != out.count)
    throw error(errc::invalid_argument, "segmented scan: the output holds " + std::to_string(out.count) +
                                            " elements, the input " + std::to_string(in.count));
  backend_of(ctx).segmented_scan(ctx, encoder, in, offsets, out, m, kind, opt);
}

void segmented_scan_webgpu(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& offsets,
                           const range_ref& out, const monoid& m, scan_kind kind, const run_options& opt) {
  const char* what = "segmented scan";
  // Unnamed, over segments of 32 to 2,048 values on average: one subgroup per segment (in order: any operator).
  // Longer segments take its chunk passes, whose workgroup scans cost a CPU adapter 11x the decoupled pass
  // (lavapipe, one segment of 2^16: 8.0 against 0.69 ms); segments of ~1,000 there: 0.39 against 0.90.
  const bool per_subgroup_auto = per_subgroup_by_default(ctx, opt, in.count, offsets.count - 1, 2048);
  const algorithm_entry& alg = pick_algorithm(ctx, "segmented_scan", per_subgroup_auto ? "subgroups" : opt.algorithm);
  if (in.count == 0) {
    if (in.on_device && !encoder) check_offsets_host(read_offsets(ctx, offsets.view).data(), offsets.count, 0, what);
    return;
  }
  std::vector<buffer> keep;
  auto t0 = clock_type::now();
  segmented_args a;
  a.n = in.count;
  a.values = staged(ctx, in, keep);
  a.offsets = staged(ctx, offsets, keep);
  a.n_segments = offsets.count - 1;
  a.m = &m;
  a.spine_items = spine_items(opt);
  a.exclusive = kind == scan_kind::exclusive;
  buffer down;
  if (!out.on_device) {
    down = ctx.create_buffer(in.count * 4);
    ctx.finish();
  }
  const double upload_ms = std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
  const bool own = encoder == nullptr;
  recorder rec = own ? recorder(ctx, opt.timestamps || opt.stats) : recorder(ctx, encoder);
  std::vector<buffer> temps;
  bindable_output o = bindable_output_of(rec, out.on_device ? out.view : view_of(down, in.count));
  a.out = o.view;
  a.values = bindable_input(rec, a.values, temps, &a.out);
  a.offsets = bindable_input(rec, a.offsets, temps, &a.out);
  // One binding each: the decoupled pass (or the streaming tiles, when asked for); past it, the bitmap passes.
  const bool streams = segmented_reduce_streams(ctx, in.count, a.n_segments);
  const bool per_subgroup = alg.id == algorithm_id::segmented_scan_per_subgroup &&
                            segmented_per_subgroup_serves(ctx, in.count, a.n_segments);
  segmented_workspace ws =
      per_subgroup ? record_segmented_scan_per_subgroup(rec, m, a.values, in.count, a.offsets, a.n_segments, a.out,
                                                        a.exclusive)
      : alg.id == algorithm_id::segmented_scan_decoupled && streams
          ? record_segmented_scan_decoupled(rec, m, a.values, in.count, a.offsets, a.n_segments, a.out, a.exclusive,
                                            opt.tune)
      : alg.id == algorithm_id::segmented_scan_tiles && streams
          ? record_segmented_scan_streaming(rec, m, a.values, in.count, a.offsets, a.n_segments, a.out, a.exclusive)
          : record_segmented(rec, a);
  finish_call(ctx, rec, o, own, opt, alg, in, offsets, upload_ms, &ws, what, down, out, in.count);
}

void segmented_reduce_run(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& offsets,
                          const range_ref& out, const monoid& m, const run_options& opt) {
  require_type(ctx, in.type, "segmented reduce");
  require_type(ctx, m.type(), "segmented reduce");
  const char* what = "segmented reduce";
  if (opt.check_operator) m.check(/*need_commutative=*/false);
  check_common(ctx, in, offsets, out, what);
  const std::uint64_t segs = offsets.count - 1;
  if (out.count != segs)
    throw error(errc::invalid_argument, "segmented reduce: the output holds " + std::to_string(out.count) +
                                            " elements for " + std::to_string(segs) + " segments");
  backend_of(ctx).segmented_reduce(ctx, encoder, in, offsets, out, m, opt);
}

void segmented_reduce_webgpu(context& ctx, WGPUCommandEncoder encoder, const range_ref& in, const range_ref& offsets,
                             const range_ref& out, const monoid& m, const run_options& opt) {
  const char* what = "segmented reduce";
  const std::uint64_t segs = offsets.count - 1;
  // Unnamed, for a built-in operator over segments of 32 or more values on average: one subgroup per segment
  // (bench/results/2026-12-02-h200-session13; lavapipe, 2^16 values in segments of 1,000: 0.31 ms batched against
  // 0.89 for tiles); else the registry's default.
  const bool per_subgroup_auto = m.is_builtin() && per_subgroup_by_default(ctx, opt, in.count, segs, ~0ull);
  const algorithm_entry& alg = pick_algorithm(ctx, "segmented_reduce", per_subgroup_auto ? "subgroups" : opt.algorithm);
  // Named: a custom operator must be commutative (the lanes take a segment's values out of order).
  if (alg.id == algorithm_id::segmented_reduce_per_subgroup && !m.is_builtin()) m.check(/*need_commutative=*/true);
  if (in.count == 0 && in.on_device && !encoder)
    check_offsets_host(read_offsets(ctx, offsets.view).data(), offsets.count, 0, what);
  if (segs == 0) return;
  std::vector<buffer> keep;
  auto t0 = clock_type::now();
  segmented_args a;
  a.n = in.count;
  a.values = staged(ctx, in, keep);
  a.offsets = staged(ctx, offsets, keep);
  a.n_segments = segs;
  a.m = &m;
  a.spine_items = spine_items(opt);
  buffer down;
  if (!out.on_device) down = ctx.create_buffer(segs * 4);
  if (!in.on_device) ctx.finish();
  const double upload_ms = std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
  const bool own = encoder == nullptr;
  recorder rec = own ? recorder(ctx, opt.timestamps || opt.stats) : recorder(ctx, encoder);
  std::vector<buffer> temps;
  bindable_output o = bindable_output_of(rec, out.on_device ? out.view : view_of(down, segs));
  a.values = bindable_input(rec, a.values, temps, &o.view);
  a.offsets = bindable_input(rec, a.offsets, temps, &o.view);
  const bool streams = segmented_reduce_streams(ctx, in.count, segs);
  if (alg.id == algorithm_id::segmented_reduce_per_subgroup && in.count &&
      segmented_per_subgroup_serves(ctx, in.count, segs)) {
    segmented_workspace ws = record_segmented_reduce_per_subgroup(rec, m, a.values, in.count, a.offsets, segs, o.view);
    finish_call(ctx, rec, o, own, opt, alg, in, offsets, upload_ms, &ws, what, down, out, segs);
    return;
  }
  if (streams && (alg.id == algorithm_id::segmented_reduce_decoupled || alg.id == algorithm_id::segmented_reduce_tiles)) {
    segmented_workspace ws = alg.id == algorithm_id::segmented_reduce_decoupled
                                 ? record_segmented_reduce_decoupled(rec, m, a.values, in.count, a.offsets, segs,
                                                                     o.view, opt.tune)
                                 : record_segmented_reduce(rec, m, a.values, in.count, a.offsets, segs, o.view);
    finish_call(ctx, rec, o, own, opt, alg, in, offsets, upload_ms, &ws, what, down, out, segs);
    return;
  }
  // Past one binding: the segmented inclusive scan into a temporary, then each segment's last element.
  buffer inclusive = ctx.create_buffer(std::max<std::uint64_t>(in.count, 1) * 4);
  segmented_workspace ws;
  if (in.count) {
    a.out = view_of(inclusive, in.count);
    ws = record_segmented(rec, a);
  }
  record_segment_gather(rec, m, view_of(inclusive, in.count), in.count, a.offsets, segs, o.view);
  finish_call(ctx, rec, o, own, opt, alg, in, offsets, upload_ms, in.count ? &ws : nullptr, what, down, out, segs);
}

std::uint64_t reduce_by_key_run(context& ctx, WGPUCommandEncoder encoder, const range_ref& keys, dtype key_type,
                                const range_ref* values, const range_ref& unique_keys, const range_ref& sums,
                                const monoid& m, const range_ref* runs_out, const run_options& opt) {
  require_type(ctx, keys.type, values ? "reduce_by_key" : "run_length_encode");
  require_type(ctx, key_type, values ? "reduce_by_key" : "run_length_encode");
  require_type(ctx, m.type(), values ? "reduce_by_key" : "run_length_encode");
  if (values) require_type(ctx, values->type, "reduce_by_key");
  const char* what = values ? "reduce_by_key" : "run_length_encode";
  if (values && opt.check_operator) m.check(/*need_commutative=*/false);
  same_side({&keys, values, &unique_keys, &sums}, what);
  const std::uint64_t n = keys.count;
  if (values && values->count != n)
    throw error(errc::invalid_argument, std::string(what) + ": " + std::to_string(n) + " keys but " +
                                            std::to_string(values->count) + " values");
  if (n > 0xffffffffull) throw error(errc::limit, std::string(what) + ": more than 2^32 - 1 elements");
  if (keys.on_device) {
    check_view(ctx, keys.view, what);
    if (values) check_view(ctx, values->view, what);
    check_view(ctx, unique_keys.view, what);
    check_view(ctx, sums.view, what);
  }
  if (runs_out) {
    if (!runs_out->on_device || runs_out->count < 1)
      throw error(errc::invalid_argument, std::string(what) + ": the run count goes to a device span of one element");
    check_view(ctx, runs_out->view, what);
  }
  return backend_of(ctx).reduce_by_key(ctx, encoder, keys, key_type, values, unique_keys, sums, m, runs_out, opt);
}

std::uint64_t reduce_by_key_webgpu(context& ctx, WGPUCommandEncoder encoder, const range_ref& keys, dtype key_type,
                                   const range_ref* values, const range_ref& unique_keys, const range_ref& sums,
                                   const monoid& m, const range_ref* runs_out, const run_options& opt) {
  const char* what = values ? "reduce_by_key" : "run_length_encode";
  const std::uint64_t n = keys.count;
  const algorithm_entry& alg = pick_algorithm(ctx, what, opt.algorithm, n);  // RLE's default goes by n
  const std::uint64_t capacity = std::min(unique_keys.count, sums.count);
  if (n == 0) {
    if (runs_out) {
      const std::uint32_t zero = 0;
      wgpu_write(ctx, runs_out->view.buf, runs_out->view.offset, &zero, 4);
    }
    return 0;
  }
  std::vector<buffer> keep;
  auto t0 = clock_type::now();
  segmented_args a;
  a.n = n;
  a.keys = staged(ctx, keys, keep);
  a.key_type = key_type;
  a.ones = values == nullptr;
  if (values) a.values = staged(ctx, *values, keep);
  a.m = &m;
  a.spine_items = spine_items(opt);
  a.mode = segmented_args::output::tails;
  a.capacity = capacity;
  buffer down_keys, down_sums;
  if (!keys.on_device) {
    down_keys = ctx.create_buffer(std::max<std::uint64_t>(capacity, 1) * 4);
    down_sums = ctx.create_buffer(std::max<std::uint64_t>(capacity, 1) * 4);
    ctx.finish();
  }
  const double upload_ms = std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
  const bool own = encoder == nullptr;
  recorder rec = own ? recorder(ctx, opt.timestamps || opt.stats) : recorder(ctx, encoder);
  std::vector<buffer> temps;
  bindable_output ok = bindable_output_of(rec, keys.on_device ? unique_keys.view : view_of(down_keys, capacity));
  bindable_output os = bindable_output_of(rec, keys.on_device ? sums.view : view_of(down_sums, capacity));
  a.unique_keys = ok.view;
  a.sums = os.view;
  a.keys = bindable_input(rec, a.keys, temps, &a.sums);
  a.keys = bindable_input(rec, a.keys, temps, &a.unique_keys);
  if (values) {
    a.values = bindable_input(rec, a.values, temps, &a.sums);
    a.values = bindable_input(rec, a.values, temps, &a.unique_keys);
  }
  // "decoupled": one pass of head-flag compaction (primitives/select/by_key.cpp); "tiles": the segmented scan.
  // "heads" (run-length encoding): unique's pass, then a loop over the runs (primitives/select/by_key.cpp);
  // keys past one storage binding take the one pass.
  const bool heads = alg.id == algorithm_id::run_length_encode_heads && rle_heads_serves(ctx, a);
  const bool one_pass = (alg.id == algorithm_id::reduce_by_key_decoupled ||
                         alg.id == algorithm_id::run_length_encode_decoupled ||
                         alg.id == algorithm_id::run_length_encode_heads) && by_key_decoupled_serves(a);
  segmented_workspace ws = heads      ? record_rle_heads(rec, a)
                           : one_pass ? record_by_key_decoupled(rec, a)
                                      : record_segmented(rec, a);
  ok.finish(rec);
  os.finish(rec);
  if (runs_out) record_copy_words(rec, ws.tiles->native(), ws.runs_index * 4, runs_out->view.buf, runs_out->view.offset, 4);
  if (!own) {
    rec.end();
    return 0;
  }
  // The number of runs comes back in the same submission (one submit, one wait).
  std::uint32_t runs = 0;
  const recorder::readback rb{ws.tiles->native(), ws.runs_index * 4, 4, &runs};
  // What ran: "heads" and "decoupled" give way where they do not serve.
  fill_stats(opt, rec.submit(&rb), heads ? "heads" : one_pass ? "decoupled" : "tiles");
  if (opt.stats) opt.stats->upload_ms = keys.on_device ? 0 : upload_ms;
  if (runs > capacity)
    throw error(errc::invalid_argument, std::string(what) + ": " + std::to_string(runs) +
                                            " runs do not fit the outputs' " + std::to_string(capacity) + " elements");
  if (!keys.on_device && runs) {
    ctx.read(down_keys, 0, unique_keys.host_out, std::uint64_t(runs) * 4);
    ctx.read(down_sums, 0, sums.host_out, std::uint64_t(runs) * 4);
  }
  return runs;
}

}  // namespace wgprim::detail
