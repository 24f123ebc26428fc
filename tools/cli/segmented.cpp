// Segmented reduce/scan (--segments), reduce-by-key (--keys), and the bench rows of histogram, segmented
// reduce/scan, reduce-by-key and run-length encoding. Every GPU result is compared with the CPU twin (f32 sums
// within gamma_h * sum|x|, the rest exactly).
//   wgprim reduce --input v.npy --segments o.npy --output per_segment.npy
//   wgprim scan --input v.npy --segments o.npy --output o2.npy [--exclusive]
//   wgprim reduce --keys k.npy --input v.npy --output sums.npy --keys-output uk.npy
// JSON: op, type, n, segments | runs, algorithm, adapter, mismatches, gpu_ms, upload_ms, cpu_ms.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>

#include "bench.hpp"
#include "reduce_scan.hpp"
#include "util.hpp"
#include "wgprim/io.hpp"
#include "word_elements.hpp"

using json = nlohmann::json;
using namespace wgprim;

namespace {

using clock_type = std::chrono::steady_clock;

struct segmented_cli {
  const reduce_scan_cli* shared = nullptr;  // the options of the reduce or scan command
  CLI::App* app = nullptr;                  // that command
  std::string segments, keys, keys_output, reduce_output;
};

io::array load_input(const segmented_cli& c) {
  std::optional<dtype> t;
  if (!c.shared->type.empty()) t = parse_dtype(c.shared->type);
  if (c.shared->input.empty() == c.shared->generate.empty())
    throw error(errc::invalid_argument, "give one of --input FILE or --generate KIND:N[:SEED]");
  io::array a = c.shared->input.empty() ? io::generate(c.shared->generate, t) : io::read_array(c.shared->input, t);
  require_word_elements(a, "the input");
  return a;
}

// Offsets and counts files hold non-negative integers of any integer type (NumPy's default int64 included, issue 29
// row 11); they are used as u32, so each value must be below 2^32.
std::vector<std::uint32_t> load_u32(const std::string& path, const char* what) {
  io::array a = io::read_array(path);
  if (a.type == dtype::i64 || a.type == dtype::u64) {
    std::vector<std::uint32_t> v(a.bits.size() / 2);
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::uint64_t x = std::uint64_t(a.bits[2 * i]) | (std::uint64_t(a.bits[2 * i + 1]) << 32);
      if (a.type == dtype::i64 && static_cast<std::int64_t>(x) < 0)
        throw error(errc::invalid_argument, std::string(what) + "[" + std::to_string(i) + "] is negative");
      if (x > 0xffffffffull)
        throw error(errc::limit, std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(x) +
                                     " does not fit in 32 bits");
      v[i] = static_cast<std::uint32_t>(x);
    }
    return v;
  }
  if (a.type != dtype::i32 && a.type != dtype::u32)
    throw error(errc::invalid_argument, std::string(what) + " holds " + dtype_name(a.type) +
                                            " elements; it takes integers (i32, u32, i64 or u64)");
  if (a.type == dtype::i32)
    for (std::size_t i = 0; i < a.bits.size(); ++i)
      if (static_cast<std::int32_t>(a.bits[i]) < 0)
        throw error(errc::invalid_argument, std::string(what) + "[" + std::to_string(i) + "] is negative");
  return a.bits;
}

// f32 sums: within gamma_h * sum|x| of the exact value. h bounds the longest chain of dependent additions of the
// tile algorithm: 16 serial + 8 Hillis-Steele steps in a tile, the same again in the spine over tile totals,
// plus one per spine step; 96 + n / 1,024 is generous.
bool f32_close(double got, long double exact, long double abs_sum, std::size_t n) {
  // NaN/Inf among the values: IEEE decides, and the exact value (in long double) is the same NaN or infinity.
  if (!std::isfinite(static_cast<double>(exact)))
    return std::isnan(static_cast<double>(exact)) ? std::isnan(got) : got == static_cast<double>(exact);
  // A partial sum can overflow in one bracketing and not in another only when sum |x| passes the f32 range.
  if (!std::isfinite(got)) return abs_sum > std::numeric_limits<float>::max();
  const double u = std::ldexp(1.0, -24), h = 96.0 + std::ceil(static_cast<double>(n) / 1024.0);
  return std::fabs(got - static_cast<double>(exact)) <= h * u / (1 - h * u) * static_cast<double>(abs_sum);
}

bool no_check(const segmented_cli& c) {
  const CLI::Option* o = c.app->get_option_no_throw("--no-check");
  return o && o->count();
}

int run_segments(const segmented_cli& c, bool is_scan) {
  io::array a = load_input(c);
  const op o = op::parse(c.shared->op, c.shared->identity);
  const monoid m(o, a.type);
  std::vector<std::uint32_t> off = load_u32(c.segments, "the offsets");
  const std::string& out_path = is_scan ? c.shared->output : c.reduce_output;
  if (!out_path.empty()) io::check_writable(out_path);
  if (off.empty()) throw error(errc::invalid_argument, "the offsets file is empty (give n_segments + 1 offsets)");
  const std::size_t n = a.bits.size(), segs = off.size() - 1;
  const bool exclusive = is_scan && c.shared->exclusive;
  context ctx(context_options{c.shared->adapter});
  auto t0 = clock_type::now();
  buffer in = upload_words(ctx, a.bits), d_off = upload_words(ctx, off);
  const std::size_t out_n = is_scan ? n : segs;
  buffer out = ctx.create_buffer(std::max<std::size_t>(out_n, 1) * 4);
  ctx.finish();
  const double upload_ms = ms_since(t0);
  run_stats st;
  run_options ro;
  ro.stats = &st;
  ro.check_operator = !no_check(c);
  ro.algorithm = c.shared->algorithm;  // the segmented primitive's algorithms (`wgprim info`)
  const double gpu_ms = timed_median(c.shared->repeat, st, [&] {
    if (is_scan) segmented_scan(ctx, in, n, d_off, segs, out, m, exclusive ? scan_kind::exclusive : scan_kind::inclusive, ro);
    else segmented_reduce(ctx, in, n, d_off, segs, out, m, ro);
  });
  std::vector<std::uint32_t> got = download_words(ctx, out, out_n), want(out_n);
  auto t1 = clock_type::now();
  if (is_scan) reference::segmented_scan(a.bits.data(), n, off.data(), segs, want.data(), m, exclusive);
  else reference::segmented_reduce(a.bits.data(), off.data(), segs, want.data(), m);
  const double cpu_ms = ms_since(t1);
  std::size_t mismatches = 0;
  if (m.is_sum() && a.type == dtype::f32) {
    // Exact sums per group (segments, or the scan's groups) in long double, with their sums of |x|.
    std::vector<bool> start(n + 1, false);
    if (n) start[0] = true;
    for (std::uint32_t s : off) if (s < n) start[s] = true;
    if (is_scan) {
      long double e = 0, ab = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (start[i]) e = ab = 0;
        const long double x = from_bits<float>(a.bits[i]);
        const long double before = e, abefore = ab;
        e += x;
        ab += std::fabs(x);
        mismatches += !f32_close(from_bits<float>(got[i]), exclusive ? before : e, exclusive ? abefore : ab, n);
      }
    } else {
      for (std::size_t s = 0; s < segs; ++s) {
        long double e = 0, ab = 0;
        for (std::uint32_t i = off[s]; i < off[s + 1]; ++i) {
          e += from_bits<float>(a.bits[i]);
          ab += std::fabs(from_bits<float>(a.bits[i]));
        }
        mismatches += off[s] < off[s + 1] ? !f32_close(from_bits<float>(got[s]), e, ab, n) : got[s] != want[s];
      }
    }
  } else {
    for (std::size_t i = 0; i < out_n; ++i) mismatches += got[i] != want[i];
  }
  if (!out_path.empty()) io::write_array(out_path, io::array{a.type, got});
  json j = {{"op", o.is_custom() ? o.expression() : o.name()}, {"type", dtype_name(a.type)}, {"n", n},
            {"segments", segs}, {"algorithm", st.algorithm}, {"adapter", ctx.adapter().name},
            {"mismatches", mismatches}, {"gpu_ms", gpu_ms}, {"upload_ms", upload_ms}, {"cpu_ms", cpu_ms}};
  if (is_scan) j["kind"] = exclusive ? "exclusive" : "inclusive";
  return finish_report(j, c.shared->json, is_scan ? "segmented scan" : "segmented reduce", out_path);
}

int run_by_key(const segmented_cli& c) {
  io::array v = load_input(c);
  const op o = op::parse(c.shared->op, c.shared->identity);
  const monoid m(o, v.type);
  io::array k = io::read_array(c.keys);
  require_word_elements(k, "--keys");
  if (k.bits.size() != v.bits.size())
    throw error(errc::invalid_argument, fmt::format("{} keys but {} values", k.bits.size(), v.bits.size()));
  if (!c.reduce_output.empty()) io::check_writable(c.reduce_output);
  if (!c.keys_output.empty()) io::check_writable(c.keys_output);
  const std::size_t n = v.bits.size();
  context ctx(context_options{c.shared->adapter});
  auto t0 = clock_type::now();
  buffer d_k = upload_words(ctx, k.bits), d_v = upload_words(ctx, v.bits);
  buffer d_uk = ctx.create_buffer(std::max<std::size_t>(n, 1) * 4), d_s = ctx.create_buffer(std::max<std::size_t>(n, 1) * 4);
  ctx.finish();
  const double upload_ms = ms_since(t0);
  run_stats st;
  run_options ro;
  ro.stats = &st;
  ro.check_operator = !no_check(c);
  ro.algorithm = c.shared->algorithm;  // reduce_by_key's algorithms (`wgprim info`)
  std::size_t runs = 0;
  const double gpu_ms = timed_median(c.shared->repeat, st, [&] { runs = reduce_by_key(ctx, d_k, k.type, d_v, n, d_uk, d_s, m, ro); });
  auto gk = download_words(ctx, d_uk, runs), gs = download_words(ctx, d_s, runs);
  std::vector<std::uint32_t> wk(n), ws(n);
  auto t1 = clock_type::now();
  const std::size_t want_runs = reference::reduce_by_key(k.bits.data(), k.type, v.bits.data(), n, wk.data(), ws.data(), m);
  const double cpu_ms = ms_since(t1);
  std::size_t mismatches = runs != want_runs;
  for (std::size_t r = 0; r < std::min(runs, want_runs); ++r) {
    mismatches += gk[r] != wk[r];
    if (!(m.is_sum() && v.type == dtype::f32)) mismatches += gs[r] != ws[r];
  }
  if (m.is_sum() && v.type == dtype::f32 && runs == want_runs) {
    std::size_t i = 0;
    for (std::size_t r = 0; r < runs; ++r) {
      long double e = 0, ab = 0;
      do {
        e += from_bits<float>(v.bits[i]);
        ab += std::fabs(from_bits<float>(v.bits[i]));
        ++i;
      } while (i < n && reference::keys_equal(k.type, k.bits[i - 1], k.bits[i]));
      mismatches += !f32_close(from_bits<float>(gs[r]), e, ab, n);
    }
  }
  if (!c.reduce_output.empty()) io::write_array(c.reduce_output, io::array{v.type, gs});
  if (!c.keys_output.empty()) io::write_array(c.keys_output, io::array{k.type, gk});
  json j = {{"op", o.is_custom() ? o.expression() : o.name()}, {"type", dtype_name(v.type)},
            {"key_type", dtype_name(k.type)}, {"n", n}, {"runs", runs}, {"algorithm", st.algorithm},
            {"adapter", ctx.adapter().name}, {"mismatches", mismatches}, {"gpu_ms", gpu_ms},
            {"upload_ms", upload_ms}, {"cpu_ms", cpu_ms}};
  return finish_report(j, c.shared->json, "reduce by key", c.keys_output == "-" ? c.keys_output : c.reduce_output);
}

}  // namespace

// Options of the plain reduce/scan that the segmented and by-key runs do not honour: refused, not ignored (an
// ignored --accuracy exact or --transform would print an answer to another question with exit 0).
static void refuse_plain_options(const CLI::App* app, const char* with) {
  for (const char* name : {"--transform", "--accuracy", "--plot", "--workgroups", "--items", "--subgroups",
                           "--vec-loads", "--staged", "--spin-limit", "--exact-window"}) {
    const CLI::Option* o = app->get_option_no_throw(name);
    if (o && o->count() && !(std::string(name) == "--accuracy" && o->as<std::string>() == "fast"))
      throw error(errc::invalid_argument, std::string(name) + " does not apply with " + with);
  }
}

std::function<int()> add_segmented_options(CLI::App* s, const reduce_scan_cli& shared, bool is_scan) {
  auto c = std::make_shared<segmented_cli>();
  c->shared = &shared;
  c->app = s;
  if (is_scan) {
    s->add_option("--segments", c->segments, "CSR offsets file: the scan restarts at every segment");
    return [c]() -> int {
      if (c->segments.empty()) return -1;
      refuse_plain_options(c->app, "--segments");
      return run_segments(*c, true);
    };
  }
  s->add_option("--segments", c->segments, "CSR offsets file (n_segments + 1): reduce every segment");
  s->add_option("--keys", c->keys, "keys file: reduce runs of equal consecutive keys (values: --input)");
  s->add_option("--keys-output", c->keys_output, "with --keys: write the runs' keys");
  s->add_option("--output", c->reduce_output, "with --segments or --keys: write the per-segment / per-run results");
  return [c]() -> int {
    if (!c->segments.empty() && !c->keys.empty())
      throw error(errc::invalid_argument, "give --segments or --keys, not both");
    if (!c->segments.empty()) refuse_plain_options(c->app, "--segments");
    if (!c->keys.empty()) refuse_plain_options(c->app, "--keys");
    if (!c->segments.empty()) return run_segments(*c, false);
    if (!c->keys.empty()) return run_by_key(*c);
    if (!c->reduce_output.empty() || !c->keys_output.empty())
      throw error(errc::invalid_argument, "reduce writes --output/--keys-output only with --segments or --keys");
    return -1;
  };
}

void add_hist_bench_cases(context& ctx, std::size_t n_max, std::vector<bench_case>& cases,
                          const std::function<bool(const std::string&, const std::string&)>& wants) {
  // The data of the CUB comparison (bench/cub): floats in [-500, 500), segments of 1,000, keys in runs of 20.
  // Buffers are made on first use, once, for n_max.
  struct data {
    buffer floats, offsets, keys, values, out_a, out_b;
  };
  auto d = std::make_shared<data>();
  auto floats = [&ctx, n_max, d]() -> const buffer& {
    if (!d->floats) {
      std::vector<std::uint32_t> h(n_max);
      std::mt19937 rng(3);
      std::uniform_real_distribution<float> u(-500.0f, 500.0f);
      for (auto& x : h) x = to_bits(u(rng));
      d->floats = upload_words(ctx, h);
    }
    return d->floats;
  };
  auto keys = [&ctx, n_max, d]() -> const buffer& {
    if (!d->keys) {
      std::vector<std::uint32_t> h(n_max);
      for (std::size_t i = 0; i < n_max; ++i) h[i] = static_cast<std::uint32_t>(i / 20);
      d->keys = upload_words(ctx, h);
      for (auto& x : h) x = 1;
      d->values = upload_words(ctx, h);
      d->out_a = ctx.create_buffer((n_max / 20 + 2) * 4);
      d->out_b = ctx.create_buffer((n_max / 20 + 2) * 4);
    }
    return d->keys;
  };
  auto offsets = [&ctx, n_max, d]() -> const buffer& {
    if (!d->offsets) {
      std::vector<std::uint32_t> h(n_max / 1000 + 1);
      for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<std::uint32_t>(i * 1000);
      d->offsets = upload_words(ctx, h);
      if (!d->out_a) d->out_a = ctx.create_buffer((n_max / 20 + 2) * 4);
    }
    return d->offsets;
  };
  // The count or first output word read back is what a caller waits for in call_ms (the result on the host).
  auto first_word = [&ctx](const buffer& b) {
    std::uint32_t w;
    ctx.read(b, 0, &w, 4);
  };
  auto runs = std::make_shared<buffer>(ctx.create_buffer(16));  // reduce_by_key's run count (recorded calls)
  // histogram_even over [-500, 500) with 256 bins (the privatised shape) and 4096 bins (the CUB rows' two ops)
  for (const std::uint32_t bins : {256u, 4096u}) {
    if (!wants("histogram_even", "atomic")) break;
    auto counts = std::make_shared<buffer>(ctx.create_buffer(bins * 4));
    cases.push_back({"histogram_even", "atomic", "f32", std::to_string(bins) + " bins", 4,
                     [&ctx, floats, counts, bins](std::size_t n) {
                       run_stats st;
                       run_options ro;
                       ro.stats = &st;
                       histogram_even(ctx, floats(), n, dtype::f32, *counts, bins, -500.0, 500.0, ro);
                       return st.gpu_ms;
                     }});
    cases.back().call = [&ctx, floats, counts, first_word, bins](std::size_t n) {
      histogram_even(ctx, floats(), n, dtype::f32, *counts, bins, -500.0, 500.0);
      first_word(*counts);
    };
    cases.back().record = [&ctx, floats, counts, bins](WGPUCommandEncoder enc, std::size_t n) {
      histogram_even(ctx, enc, device_span<const float>(floats(), 0, n), device_span<std::uint32_t>(*counts, 0, bins),
                     bins, -500.0, 500.0);
    };
  }
  // Segmented reduce and scan with segments of 1,000 (the CUB row: op "sum"), of 4 ("sum, segments of 4") and one
  // segment over all n ("sum, one segment"); the reduce also through its earlier scan-gather path.
  struct seg_shape {
    std::size_t len;  // 0: one segment
    const char* label;
  };
  auto seg_offsets = std::make_shared<std::map<std::size_t, buffer>>();  // by len (0: by n, key n + 1 << 40)
  auto offsets_for = [&ctx, n_max, seg_offsets](std::size_t len, std::size_t n) -> const buffer& {
    const std::size_t key = len ? len : (std::size_t(1) << 40) + n;
    auto it = seg_offsets->find(key);
    if (it != seg_offsets->end()) return it->second;
    std::vector<std::uint32_t> h;
    if (len)
      for (std::size_t i = 0; i <= n_max / len; ++i) h.push_back(static_cast<std::uint32_t>(i * len));
    else
      h = {0, static_cast<std::uint32_t>(n)};
    return seg_offsets->emplace(key, upload_words(ctx, h)).first->second;
  };
  auto out_n = std::make_shared<buffer>();  // n_max outputs: the scans and segments of 4
  auto big_out = [&ctx, n_max, out_n]() -> buffer& {
    if (!*out_n) *out_n = ctx.create_buffer(std::max<std::size_t>(n_max, 1) * 4);
    return *out_n;
  };
  for (const seg_shape sh : {seg_shape{1000, "sum"}, seg_shape{4, "sum, segments of 4"}, seg_shape{0, "sum, one segment"}})
    for (const char* alg : {"decoupled", "tiles", "subgroups", "scan-gather"}) {
      if (!wants("segmented_reduce", alg)) continue;
      if (std::string(alg) == "subgroups" && !ctx.features().subgroups) continue;  // it needs them
      auto m = std::make_shared<monoid>(op::sum(), dtype::f32);
      const std::string algorithm = alg;
      auto segs_of = [sh](std::size_t n) -> std::size_t { return sh.len ? n / sh.len : 1; };
      auto out_of = [sh, d, big_out]() -> buffer& { return sh.len == 4 ? big_out() : d->out_a; };
      auto prepare = [offsets, floats, out_of]() {
        offsets();  // also makes out_a
        floats();
        out_of();
      };
      cases.push_back({"segmented_reduce", alg, "f32", sh.label, 4,
                       [&ctx, floats, offsets_for, out_of, segs_of, prepare, m, sh, algorithm](std::size_t n) {
                         prepare();
                         run_stats st;
                         run_options ro;
                         ro.stats = &st;
                         ro.algorithm = algorithm;
                         segmented_reduce(ctx, floats(), n, offsets_for(sh.len, n), segs_of(n), out_of(), *m, ro);
                         return st.gpu_ms;
                       }});
      cases.back().call = [&ctx, floats, offsets_for, out_of, segs_of, prepare, m, sh, algorithm,
                           first_word](std::size_t n) {
        prepare();
        run_options ro;
        ro.algorithm = algorithm;
        segmented_reduce(ctx, floats(), n, offsets_for(sh.len, n), segs_of(n), out_of(), *m, ro);
        first_word(out_of());
      };
      cases.back().record = [&ctx, floats, offsets_for, out_of, segs_of, prepare, sh, algorithm](WGPUCommandEncoder enc,
                                                                                                 std::size_t n) {
        prepare();
        const std::size_t segs = segs_of(n);
        run_options ro;
        ro.algorithm = algorithm;
        segmented_reduce(ctx, enc, device_span<const float>(floats(), 0, n),
                         device_span<const std::uint32_t>(offsets_for(sh.len, n), 0, segs + 1),
                         device_span<float>(out_of(), 0, segs), op::sum(), ro);
      };
    }
  for (const seg_shape sh : {seg_shape{1000, "sum"}, seg_shape{4, "sum, segments of 4"}, seg_shape{0, "sum, one segment"}})
    for (const char* alg : {"decoupled", "tiles", "subgroups", "bitmap"}) {
      if (std::string(alg) == "subgroups" && !ctx.features().subgroups) continue;  // it needs them
      if (!wants("segmented_scan", alg)) continue;
      const std::string algorithm = alg;
      auto m = std::make_shared<monoid>(op::sum(), dtype::f32);
      auto segs_of = [sh](std::size_t n) -> std::size_t { return sh.len ? n / sh.len : 1; };
      cases.push_back({"segmented_scan", alg, "f32", sh.label, 8,
                       [&ctx, floats, offsets_for, big_out, segs_of, m, sh, algorithm](std::size_t n) {
                         run_stats st;
                         run_options ro;
                         ro.stats = &st;
                         ro.algorithm = algorithm;
                         segmented_scan(ctx, floats(), n, offsets_for(sh.len, n), segs_of(n), big_out(), *m,
                                        scan_kind::inclusive, ro);
                         return st.gpu_ms;
                       }});
      cases.back().call = [&ctx, floats, offsets_for, big_out, segs_of, m, sh, first_word, algorithm](std::size_t n) {
        run_options ro;
        ro.algorithm = algorithm;
        segmented_scan(ctx, floats(), n, offsets_for(sh.len, n), segs_of(n), big_out(), *m, scan_kind::inclusive, ro);
        first_word(big_out());
      };
      cases.back().record = [&ctx, floats, offsets_for, big_out, segs_of, sh, algorithm](WGPUCommandEncoder enc,
                                                                                        std::size_t n) {
        const std::size_t segs = segs_of(n);
        run_options ro;
        ro.algorithm = algorithm;
        segmented_scan(ctx, enc, device_span<const float>(floats(), 0, n),
                       device_span<const std::uint32_t>(offsets_for(sh.len, n), 0, segs + 1),
                       device_span<float>(big_out(), 0, n), scan_kind::inclusive, op::sum(), ro);
      };
    }
  // One row per algorithm: "decoupled" (one pass, reduce_by_key's default), "tiles" (the segmented scan) and, for
  // run_length_encode, "heads" (unique's pass, then one invocation per run: its default).
  for (const std::string alg : {"heads", "decoupled", "tiles"}) {
    if (alg != "heads" && wants("reduce_by_key", alg)) {
      cases.push_back({"reduce_by_key", alg, "u32", "sum", 8, [&ctx, keys, d, alg](std::size_t n) {
                         run_stats st;
                         run_options ro;
                         ro.stats = &st;
                         ro.algorithm = alg;
                         const buffer& k = keys();
                         device_span<std::uint32_t> uk(d->out_a, 0, n / 20 + 1), sums(d->out_b, 0, n / 20 + 1);
                         reduce_by_key(ctx, device_span<const std::uint32_t>(k, 0, n),
                                       device_span<const std::uint32_t>(d->values, 0, n), uk, sums, op::sum(), ro);
                         return st.gpu_ms;
                       }});
      // The host-returning overload returns the number of runs (read back inside the call).
      cases.back().call = [&ctx, keys, d, alg](std::size_t n) {
        run_options ro;
        ro.algorithm = alg;
        const buffer& k = keys();
        device_span<std::uint32_t> uk(d->out_a, 0, n / 20 + 1), sums(d->out_b, 0, n / 20 + 1);
        reduce_by_key(ctx, device_span<const std::uint32_t>(k, 0, n), device_span<const std::uint32_t>(d->values, 0, n),
                      uk, sums, op::sum(), ro);
      };
      cases.back().record = [&ctx, keys, d, runs, alg](WGPUCommandEncoder enc, std::size_t n) {
        run_options ro;
        ro.algorithm = alg;
        const buffer& k = keys();
        device_span<std::uint32_t> uk(d->out_a, 0, n / 20 + 1), sums(d->out_b, 0, n / 20 + 1);
        reduce_by_key(ctx, enc, device_span<const std::uint32_t>(k, 0, n),
                      device_span<const std::uint32_t>(d->values, 0, n), uk, sums,
                      device_span<std::uint32_t>(*runs, 0, 1), op::sum(), ro);
      };
    }
    if (wants("run_length_encode", alg)) {
      cases.push_back({"run_length_encode", alg, "u32", "-", 4, [&ctx, keys, d, alg](std::size_t n) {
                         run_stats st;
                         run_options ro;
                         ro.stats = &st;
                         ro.algorithm = alg;
                         const buffer& k = keys();
                         device_span<std::uint32_t> vo(d->out_a, 0, n / 20 + 1), co(d->out_b, 0, n / 20 + 1);
                         run_length_encode(ctx, device_span<const std::uint32_t>(k, 0, n), vo, co, ro);
                         return st.gpu_ms;
                       }});
      cases.back().call = [&ctx, keys, d, alg](std::size_t n) {
        run_options ro;
        ro.algorithm = alg;
        const buffer& k = keys();
        device_span<std::uint32_t> vo(d->out_a, 0, n / 20 + 1), co(d->out_b, 0, n / 20 + 1);
        run_length_encode(ctx, device_span<const std::uint32_t>(k, 0, n), vo, co, ro);
      };
      cases.back().record = [&ctx, keys, d, runs, alg](WGPUCommandEncoder enc, std::size_t n) {
        run_options ro;
        ro.algorithm = alg;
        const buffer& k = keys();
        device_span<std::uint32_t> vo(d->out_a, 0, n / 20 + 1), co(d->out_b, 0, n / 20 + 1);
        run_length_encode(ctx, enc, device_span<const std::uint32_t>(k, 0, n), vo, co,
                          device_span<std::uint32_t>(*runs, 0, 1), ro);
      };
    }
  }
}
