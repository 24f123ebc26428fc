// The per-call costs issue 27 sets targets for, measured through the public API as a caller waits (wall clock,
// steady_clock, medians of --reps after --warmup discarded runs), every result checked against the CPU twin:
//
//   reduce_queued    --calls device-range reduces (device result, no wait) in a host loop, then one finish():
//                    per-call ms
//   reduce_encoder   the same calls recorded into one encoder (the encoder overload), one submit, one finish():
//                    per-call ms; the target is reduce_queued <= 1.5 x reduce_encoder
//   reduce_wait      the host-returning reduce (one wait per call), for scale
//   pipeline_replay  a recorded five-step pipeline (select -> sort bits 0:16 -> unique -> select -> sort) run
//                    again on the same device input: wall of run() (one submit, one wait for the count)
//   pipeline_queued  --batch runs queued with enqueue() and one read of the count: per-run ms, which stands for the
//                    replay's GPU time plus its encoding; the target is replay - queued <= 1.2 x the floor of a
//                    call (bench/floor's dispatch_read, measured in the same session)
//   pipeline_encode  the wall of enqueue() alone (the read after it is not timed): the host's share of a replay,
//                    since session 25 submitting the run recorded ahead and recording the next one (src/pipeline)
//
// usage: wgprim_calls [--sizes 10,16,20] [--calls 1000] [--batch 20] [--reps 7] [--warmup 2] [--adapter S] [--json]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "wgprim/pipeline.hpp"
#include "wgprim/wgprim.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

struct options {
  std::vector<int> sizes{10, 16, 20};
  int calls = 1000, batch = 20, reps = 7, warmup = 2;
  std::string adapter;
  bool json = false;
};

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median over reps of f() (ms, after warmup discarded runs), divided by `per`.
double timed(const options& o, double per, const std::function<void()>& f) {
  for (int i = 0; i < o.warmup; ++i) f();
  std::vector<double> ms;
  for (int i = 0; i < o.reps; ++i) {
    const auto t0 = clock_type::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
  }
  return median_of(ms) / per;
}

int fail(const std::string& what) {
  std::fprintf(stderr, "wgprim_calls: %s\n", what.c_str());
  return 1;
}

void row(const options& o, const char* name, int log2n, double ms, const char* per) {
  if (o.json)
    std::printf("{\"row\": \"%s\", \"n\": %llu, \"ms\": %.6f, \"per\": \"%s\"}\n", name, 1ull << log2n, ms, per);
  else
    std::printf("%-16s 2^%-3d %10.4f ms per %s\n", name, log2n, ms, per);
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "wgprim_calls: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    auto number = [&](int lo, int hi) {
      const std::string v = next();
      char* end = nullptr;
      const long x = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || x < lo || x > hi) {
        std::fprintf(stderr, "wgprim_calls: %s takes %d..%d\n", a.c_str(), lo, hi);
        std::exit(2);
      }
      return static_cast<int>(x);
    };
    if (a == "--sizes") {
      o.sizes.clear();
      std::string v = next();
      for (std::size_t p = 0; p <= v.size();) {
        const std::size_t q = std::min(v.find(',', p), v.size());
        const int s = std::atoi(v.substr(p, q - p).c_str());
        if (s < 1 || s > 26) return std::fprintf(stderr, "wgprim_calls: --sizes takes log2 sizes 1..26\n"), 2;
        o.sizes.push_back(s);
        p = q + 1;
      }
    } else if (a == "--calls") o.calls = number(1, 100000);
    else if (a == "--batch") o.batch = number(1, 1000);
    else if (a == "--reps") o.reps = number(1, 1000);
    else if (a == "--warmup") o.warmup = number(0, 100);
    else if (a == "--adapter") o.adapter = next();
    else if (a == "--json") o.json = true;
    else if (a == "--help" || a == "-h") {
      std::printf("usage: wgprim_calls [--sizes 10,16,20] [--calls 1000] [--batch 20] [--reps 7] [--warmup 2] "
                  "[--adapter S] [--json]\n");
      return 0;
    } else {
      std::fprintf(stderr, "wgprim_calls: unknown option %s (try --help)\n", a.c_str());
      return 2;
    }
  }
  try {
    wgprim::context_options co;
    co.adapter = o.adapter;
    wgprim::context ctx(co);
    if (o.json) std::printf("{\"adapter\": \"%s\", \"calls\": %d, \"batch\": %d, \"reps\": %d, \"warmup\": %d}\n",
                            ctx.adapter().name.c_str(), o.calls, o.batch, o.reps, o.warmup);
    else std::printf("adapter: %s\n", ctx.adapter().name.c_str());
    std::mt19937 rng(7);
    for (int lg : o.sizes) {
      const std::size_t n = std::size_t(1) << lg;
      std::vector<std::uint32_t> x(n);
      for (auto& v : x) v = rng() % 100000u;
      wgprim::device_vector<std::uint32_t> d(ctx, wgprim::host_span<const std::uint32_t>(x.data(), n));
      wgprim::device_vector<std::uint32_t> out(ctx, 1);
      const wgprim::monoid sum(wgprim::op::sum(), wgprim::dtype::u32);
      const std::uint32_t want = wgprim::reference::reduce(x.data(), n, sum);
      auto check_out = [&](const char* what) {
        std::uint32_t got = 0;
        ctx.read(out.raw(), 0, &got, 4);
        if (got != want) throw std::runtime_error(std::string(what) + ": wrong sum");
      };
      const double queued = timed(o, o.calls, [&] {
        for (int i = 0; i < o.calls; ++i) wgprim::reduce(ctx, d.span(), out.span());
        ctx.finish();
      });
      check_out("reduce_queued");
      // (the native backend records into no encoder: its row is left out)
      const bool webgpu = ctx.backend() == wgprim::backend_choice::webgpu;
      const double encoder = !webgpu ? 0 : timed(o, o.calls, [&] {
        WGPUCommandEncoder enc = ctx.begin_commands();
        for (int i = 0; i < o.calls; ++i) wgprim::reduce(ctx, enc, d.span(), out.span());
        ctx.submit(enc);
        ctx.finish();
      });
      if (webgpu) check_out("reduce_encoder");
      std::uint32_t last = 0;
      const double wait = timed(o, 1, [&] { last = wgprim::reduce(ctx, d.span()); });
      if (last != want) return fail("reduce_wait: wrong sum");
      row(o, "reduce_queued", lg, queued, "call");
      if (webgpu) row(o, "reduce_encoder", lg, encoder, "call");
      row(o, "reduce_wait", lg, wait, "call");

      wgprim::pipeline p(ctx, wgprim::dtype::u32);
      p.select_if(wgprim::predicate::expr("a % 2u == 0u"))
          .sort(wgprim::key_bits(0, 16))
          .unique()
          .select_if(wgprim::predicate::expr("a % 3u != 0u"))
          .sort();
      const std::size_t expect = p.reference(x.data(), n).size();
      // The first run records and creates the kernels; every timed run (whatever --warmup) is a replay.
      std::uint64_t k = p.run(d.span());
      const double replay = timed(o, 1, [&] { k = p.run(d.span()); });
      if (k != expect) return fail("pipeline_replay: wrong count");
      if (p.kernels_created_last_run() != 0) return fail("pipeline_replay: a replay created kernels");
      const double batched = timed(o, o.batch, [&] {
        for (int i = 0; i < o.batch; ++i) p.enqueue(d.span());
        k = p.count().read();
      });
      if (k != expect) return fail("pipeline_queued: wrong count");
      // The host's share of a replay: enqueue() records the chain again and submits it (the wait left out).
      std::vector<double> enc_ms;
      for (int i = 0; i < o.warmup + o.reps; ++i) {
        const auto t0 = clock_type::now();
        p.enqueue(d.span());
        const double ms = std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
        if (i >= o.warmup) enc_ms.push_back(ms);
        if (p.count().read() != expect) return fail("pipeline_encode: wrong count");
      }
      row(o, "pipeline_replay", lg, replay, "run");
      row(o, "pipeline_queued", lg, batched, "run");
      row(o, "pipeline_encode", lg, median_of(enc_ms), "run");
    }
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  return 0;
}
