// The context: adapter choice, limits, and every device-side failure turned into a wgprim::error.
#include <cstdlib>
#include <thread>

#include "common.hpp"
#include "gpu/gpu.hpp"
#include "core/wgsl_compose.hpp"

namespace wgprim::test {
namespace {

TEST(Context, OpensTheDefaultAdapter) {
  context& c = ctx();
  EXPECT_FALSE(c.adapter().name.empty());
  EXPECT_GE(c.limits().max_storage_buffer_binding_size, 128u << 20);
  EXPECT_EQ(c.binding_limit() % 256, 0u);
  auto all = context::enumerate_adapters();
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.front().name, c.adapter().name);  // best first, and the default is the best
}

TEST(Context, UnknownAdapterIsAClearError) {
  try {
    context c(context_options{"no-such-gpu-anywhere"});
    FAIL() << "opened a missing adapter";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::no_adapter);
    EXPECT_NE(std::string(e.what()).find("available"), std::string::npos);
  }
}

TEST(Context, BufferOverTheLimitIsAClearError) {
  try {
    ctx().create_buffer(ctx().limits().max_buffer_size + 4);
    FAIL();
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::limit);
  }
}

TEST(Context, BrokenShaderIsAShaderError) {
  monoid m(op::sum(), dtype::u32);
  try {
    detail::get_kernel(ctx(), "fn broken( {", "main", {detail::slot::uniform}, false);
    FAIL();
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::shader);
  }
  // The context still works afterwards.
  EXPECT_EQ(reduce(ctx(), std::vector<std::uint32_t>{1, 2, 3}), 6u);
}

// tile/load.wgsl's constants with no view (the input buffer itself): modules that import it need them.
detail::wgsl_constants view_off() {
  return {{"VIEW_COUNTING", "false"}, {"VIEW_CONSTANT", "false"}, {"VIEW_GATHER", "false"}, {"VIEW_FLOAT", "false"},
          {"VIEW_FUSED", "false"}, {"VIEW_ZIP", "false"}};
}

TEST(Context, ComposeKeepsOnlyTheChosenBranch) {
  // `//! if NAME` / `//! else` / `//! endif`: the branch not taken never reaches naga (the subgroup walk of
  // tile/lookback.wgsl, the raked layout of the scan), and a missing or non-boolean constant is an error.
  const monoid m(op::sum(), dtype::u32);
  const detail::wgsl_constants no_view = view_off();
  auto with = [&](bool sub, bool raked) {
    return detail::compose_wgsl("scan/decoupled.wgsl", m,
                                {{"WG_SIZE", "256u"}, {"ITEMS", "4u"}, {"STAGED", "false"},
                                 {"RAKED", raked ? "true" : "false"}, {"WINDOW", "32u"}, {"STAGE_SIZE", "1u"},
                                 {"SUBGROUP_LOOKBACK", sub ? "true" : "false"}, no_view[0], no_view[1], no_view[2],
                                 no_view[3], no_view[4], no_view[5]},
                                {"shared/lanes_subgroup.wgsl"});
  };
  const std::string& plain = with(false, false);
  EXPECT_EQ(plain.find("fn look_back_subgroup"), std::string::npos);
  EXPECT_EQ(plain.find("subgroupBallot"), std::string::npos);
  EXPECT_EQ(plain.find("raked_load_scan"), std::string::npos);
  EXPECT_NE(plain.find("fn look_back_window"), std::string::npos);
  EXPECT_EQ(plain.find("\n//! "), std::string::npos);  // no directive line left
  const std::string& sub = with(true, true);
  EXPECT_NE(sub.find("fn look_back_subgroup"), std::string::npos);
  EXPECT_EQ(sub.find("fn look_back_window"), std::string::npos);
  EXPECT_NE(sub.find("fn raked_load_scan"), std::string::npos);
  EXPECT_THROW(detail::compose_wgsl("scan/decoupled.wgsl", m, {{"WG_SIZE", "256u"}}, {"shared/lanes_subgroup.wgsl"}),
               error);
  EXPECT_THROW(detail::compose_wgsl("scan/decoupled.wgsl", m, {{"RAKED", "1u"}}, {"shared/lanes_subgroup.wgsl"}),
               error);
}

TEST(Context, ComposeUnrollsMarkedLoops) {
  // `//! unroll` writes a loop over a constant count out, one block per step with the index a constant; the result
  // is the loop's (checked on the device against the host). A composition with UNROLL = false keeps the loops. A
  // count that is not a whole-number constant, or a line that is not such a loop, is an internal error.
  const monoid m(op::sum(), dtype::u32);
  for (unsigned count : {1u, 5u, 18u}) {
    const std::string& text =
        detail::compose_wgsl("tests/unroll.wgsl", m, {{"COUNT", std::to_string(count) + "u"}});
    EXPECT_EQ(text.find("//! unroll"), std::string::npos);
    EXPECT_EQ(text.find("for (var k"), std::string::npos);
    std::size_t copies = 0;
    for (std::size_t at = text.find("const k = "); at != std::string::npos; at = text.find("const k = ", at + 1)) ++copies;
    EXPECT_EQ(copies, 2 * count);
    EXPECT_NE(text.find("const k = " + std::to_string(count - 1) + "u;"), std::string::npos);
    EXPECT_EQ(text.find("const k = " + std::to_string(count) + "u;"), std::string::npos);
    context& c = ctx();
    const std::size_t n = 1000;
    std::vector<std::uint32_t> in(n), got(n);
    for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<std::uint32_t>(i * 2654435761u);
    buffer din = c.create_buffer(n * 4), dout = c.create_buffer(n * 4);
    c.write(din, 0, in.data(), n * 4);
    using detail::slot;
    const auto& k = detail::get_kernel(c, text, "unrolled", {slot::uniform, slot::storage_read, slot::storage_rw}, false);
    {
      detail::recorder rec(c);
      std::uint32_t p[4] = {static_cast<std::uint32_t>(n), 0, 0, 0};
      rec.dispatch(k, {rec.params(p, sizeof p), detail::bind(din), detail::bind(dout)}, (n + 63) / 64);
      rec.submit();
    }
    c.read(dout, 0, got.data(), n * 4);
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t want = 0;
      for (std::uint32_t j = 0; j < count; ++j) want += (in[i] * (j + 1)) ^ j;
      ASSERT_EQ(got[i], want) << "count " << count << " at " << i;
    }
  }
  // UNROLL = false (a CPU adapter's onesweep): the loops stay loops.
  const std::string& kept = detail::compose_wgsl("tests/unroll.wgsl", m, {{"COUNT", "7u"}, {"UNROLL", "false"}});
  EXPECT_NE(kept.find("for (var k = 0u; k < COUNT; k += 1u) {"), std::string::npos);
  EXPECT_EQ(kept.find("const k = "), std::string::npos);
  EXPECT_THROW(detail::compose_wgsl("tests/unroll.wgsl", m, {{"COUNT", "7u"}, {"UNROLL", "1"}}), error);
  // tests/unroll_bad.wgsl: PLAIN is well formed with a whole-number LIMIT; each other case is refused.
  auto bad = [&](const char* which, const char* limit) {
    detail::wgsl_constants c{{"LIMIT", limit}};
    for (const char* name : {"PLAIN", "CLOSE", "BREAKS", "UNKNOWN"})
      c.emplace_back(name, std::string(name) == which ? "true" : "false");
    return detail::compose_wgsl("tests/unroll_bad.wgsl", m, c);
  };
  EXPECT_NE(bad("PLAIN", "3u").find("const k = 2u;"), std::string::npos);
  EXPECT_THROW(bad("PLAIN", "n"), error);         // not a whole number
  EXPECT_THROW(bad("PLAIN", "65u"), error);       // more than 64 copies
  EXPECT_THROW(bad("CLOSE", "3u"), error);        // code before the closing brace
  EXPECT_THROW(bad("BREAKS", "3u"), error);       // break in the body
  EXPECT_THROW(bad("UNKNOWN", "3u"), error);      // a directive misspelt
  EXPECT_THROW(detail::compose_wgsl("tests/unroll_bad.wgsl", m, {}), error);
}

TEST(Context, EveryComposedVariantCompiles) {
  // Each shader file x monoid x lanes variant through the real compiler (checked modules, so that a custom
  // operator's path is exercised too).
  using detail::slot;
  for (dtype t : {dtype::f32, dtype::i32, dtype::u32})
    for (const op& o : ops_for(t)) {
      monoid m(o, t);
      const std::vector<slot> three{slot::uniform, slot::storage_read, slot::storage_rw};
      const std::vector<slot> five{slot::uniform, slot::storage_read, slot::storage_rw, slot::storage_rw,
                                   slot::storage_rw};
      struct file { const char* name; const char* entry; const std::vector<slot>& layout; };
      for (const file& f : {file{"baselines/reduce_seed.wgsl", "reduce", three}, file{"baselines/scan_seed.wgsl", "scan_blocks", five},
                            file{"baselines/scan_seed.wgsl", "add_back", five}, file{"baselines/scan_seed.wgsl", "update_carry", five}}) {
        auto src = detail::compose_wgsl(f.name, m, {{"WG_SIZE", "256u"}});
        EXPECT_NO_THROW(detail::get_kernel(ctx(), src, f.entry, f.layout, false)) << f.name << " " << describe(m, 0);
      }
      if (m.is_sum() && t == dtype::f32) {  // the double-word modules (compensated / reproducible)
        for (bool pairs : {false, true}) {
          auto sc = detail::compose_wgsl("baselines/scan_seed.wgsl", m, {{"WG_SIZE", "256u"}}, {}, detail::accum::double_word,
                                         pairs);
          for (const char* e : {"scan_blocks", "add_back", "update_carry"})
            EXPECT_NO_THROW(detail::get_kernel(ctx(), sc, e, five, false)) << e;
        }
      }
      if (m.is_sum() && t == dtype::f32) {  // the exact sum's module (superaccumulator), checked runtime bounds
        for (const char* vec : {"true", "false"}) {
          detail::wgsl_constants c{{"WG_SIZE", "256u"}, {"ITEMS", "8u"}, {"VEC_LOADS", vec}, {"WINDOW", vec},
                                   {"LOAD_FIRST", vec}};
          for (const auto& v : view_off()) c.push_back(v);
          auto r = detail::compose_wgsl("reduce/exact.wgsl", m, c);
          for (const char* e : {"accumulate_elements", "combine_partials"})
            EXPECT_NO_THROW(detail::get_kernel(
                ctx(), r, e, {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_rw}, false))
                << e << " vec=" << vec;
        }
      }
      std::vector<std::string> lanes = {"shared/lanes_workgroup.wgsl"};
      if (ctx().features().subgroups) lanes.push_back("shared/lanes_subgroup.wgsl");
      for (const auto& lane : lanes) {
        detail::wgsl_constants fc{{"WG_SIZE", "256u"}, {"ITEMS", "4u"}, {"VEC_LOADS", "true"}, {"LOAD_FIRST", "false"}};
        for (const auto& v : view_off()) fc.push_back(v);
        auto r = detail::compose_wgsl("reduce/fast.wgsl", m, fc, {lane});
        EXPECT_NO_THROW(detail::get_kernel(
            ctx(), r, "reduce", {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_rw}, false))
            << lane << " " << describe(m, 0);
        // The decoupled scan's layouts: direct, staged, and raked (subgroups only, custom operators only:
        // Scan.DecoupledRakedLayout compiles it with built-in ones, and each costs ~2 s on a cold lavapipe); with
        // subgroups the look-back is walked by subgroup 0 (the default), else by the workgroup.
        const bool sub = lane == "shared/lanes_subgroup.wgsl";
        for (const char* layout : {"direct", "staged", "raked"}) {
          const std::string name = layout;
          if (name == "raked" && (!sub || m.is_builtin())) continue;
          auto sc = detail::compose_wgsl(
              "scan/decoupled.wgsl", m,
              {{"WG_SIZE", "256u"}, {"ITEMS", "4u"}, {"STAGED", name == "staged" ? "true" : "false"},
               {"RAKED", name == "raked" ? "true" : "false"}, {"WINDOW", "32u"}, {"STAGE_SIZE", "1024u"},
               {"SUBGROUP_LOOKBACK", sub ? "true" : "false"}, view_off()[0], view_off()[1], view_off()[2],
               view_off()[3], view_off()[4], view_off()[5]},
              {lane});
          EXPECT_NO_THROW(detail::get_kernel(ctx(), sc, "scan",
                                             {slot::uniform, slot::storage_read, slot::storage_read,
                                              slot::storage_rw, slot::storage_rw, slot::storage_rw, slot::storage_rw},
                                             false))
              << lane << " layout=" << layout << " " << describe(m, 0);
        }
      }
    }
}

TEST(Context, LostDeviceThrowsAndANewContextWorks) {
  {
    context c(webgpu_options());
    EXPECT_EQ(reduce(c, std::vector<std::uint32_t>{1, 2}), 3u);
    testing::simulate_device_loss(c);
    try {
      reduce(c, std::vector<std::uint32_t>{1, 2});
      FAIL() << "a lost device still reduced";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::device_lost);
    }
  }
  context fresh(webgpu_options());
  EXPECT_EQ(reduce(fresh, std::vector<std::uint32_t>{4, 5}), 9u);
}

}  // namespace
}  // namespace wgprim::test

namespace wgprim::test {
namespace {

TEST(Context, AWaitPastItsDeadlineIsATimeoutError) {
  {
    context_options o;
    o.timeout_s = 1e-7;  // 100 ns: no GPU round trip is that fast
    o.backend = backend_choice::webgpu;
    context c(o);
    std::vector<std::uint32_t> x(1u << 22, 1u);
    try {
      reduce(c, x);
      FAIL() << "no timeout";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::timeout) << e.what();
      // The limit as given (std::to_string printed 1e-07 as "0.000000").
      EXPECT_NE(std::string(e.what()).find("within 1e-07 s"), std::string::npos) << e.what();
    }
    // The timed-out context counts as lost: a clear error, not a hang.
    try {
      reduce(c, x);
      FAIL() << "a timed-out context kept working";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::device_lost) << e.what();
    }
  }
  context fresh(webgpu_options());
  EXPECT_EQ(reduce(fresh, std::vector<std::uint32_t>{1, 2, 3}), 6u);
}

// Device-range calls queue their work and return (docs/cpp.md, "When calls wait"); a read waits for everything
// before it. A chain of scans, each reading the previous one's output, longer than the queue's bound (every
// 16th submission waits), read once at the end: every step ran, in call order, and reused workspaces (scratch)
// did not leak between queued calls.
TEST(Context, QueuedCallsRunInOrderAndAReadWaitsForThem) {
  context& c = ctx();
  const std::size_t n = 3000, steps = 40;
  std::vector<std::uint32_t> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<std::uint32_t>(i * 2654435761u % 97);
  std::vector<device_vector<std::uint32_t>> v;
  v.emplace_back(c, host_span<const std::uint32_t>(x));
  std::vector<std::uint32_t> want = x;
  std::vector<std::uint32_t> kept(steps);
  std::vector<std::uint32_t> want_kept(steps);
  device_vector<std::uint32_t> sel(c, n), count(c, steps);
  for (std::size_t s = 0; s < steps; ++s) {
    v.emplace_back(c, n);
    inclusive_scan(c, v[s], v[s + 1], op::bit_xor());
    for (std::size_t i = 1; i < n; ++i) want[i] ^= want[i - 1];
    // a select between the scans: its count stays on the device, in its own word
    select_if(c, v[s + 1], sel, device_span<std::uint32_t>(count).subspan(s, 1), predicate::expr("a % 3u == 0u"));
    want_kept[s] = static_cast<std::uint32_t>(std::count_if(want.begin(), want.end(), [](std::uint32_t a) { return a % 3 == 0; }));
  }
  EXPECT_EQ(v.back().to_host(), want);
  EXPECT_EQ(count.to_host(), want_kept);
}

TEST(Context, SeveralContextsInSeveralThreads) {
  // The promise: a context per thread works concurrently. Each thread reduces and scans its own data.
  constexpr int threads = 3;
  std::vector<std::thread> pool;
  std::vector<int> ok(threads, 0);
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([t, &ok] {
      try {
        context c(webgpu_options());
        std::vector<std::uint32_t> x(100000 + 7 * t);
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::uint32_t>(i * (t + 1));
        std::uint32_t want = 0;
        for (auto v : x) want += v;
        bool good = true;
        for (int rep = 0; rep < 5; ++rep) {
          good &= reduce(c, x) == want;
          good &= inclusive_scan(c, x).back() == want;
        }
        ok[t] = good ? 1 : 0;
      } catch (...) {
        ok[t] = 0;
      }
    });
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t) EXPECT_EQ(ok[t], 1) << "thread " << t;
}

}  // namespace
}  // namespace wgprim::test

namespace wgprim::test {
namespace {

// Misuse gives a clear error, not a wrong answer or a crash (issue rows: buffers of another context, moved-from
// contexts, sizes that overflow, absurd allocations, a NaN timeout).
TEST(Context, MisuseIsAClearError) {
  context& a = ctx();
  context b(webgpu_options());
  buffer from_a = a.create_buffer(1024);
  std::vector<std::uint32_t> three(256, 3);
  a.write(from_a, 0, three.data(), 1024);
  auto code_of = [](auto&& f) {
    try {
      f();
    } catch (const error& e) {
      return e.code();
    }
    return errc::gpu;  // no error at all: a distinct value the expectations below reject
  };
  // A buffer of context A used with context B: refused, never B's unrelated buffer.
  EXPECT_EQ(code_of([&] { reduce(b, device_span<const std::uint32_t>(from_a, 0, 256)); }), errc::invalid_argument);
  EXPECT_EQ(code_of([&] {
              buffer out = b.create_buffer(1024);
              inclusive_scan(b, device_span<const std::uint32_t>(from_a, 0, 256), device_span<std::uint32_t>(out, 0, 256));
            }),
            errc::invalid_argument);
  EXPECT_EQ(code_of([&] { b.write(from_a, 0, three.data(), 16); }), errc::invalid_argument);
  EXPECT_EQ(code_of([&] { std::uint32_t x; b.read(from_a, 0, &x, 4); }), errc::invalid_argument);
  // The right context still gives the right answer.
  EXPECT_EQ(reduce(a, device_span<const std::uint32_t>(from_a, 0, 256)), 768u);
  // Spans larger than their buffer, counted without overflow.
  EXPECT_EQ(code_of([&] { device_span<const std::uint32_t>(from_a, 0, std::size_t(1) << 62); }), errc::invalid_argument);
  EXPECT_EQ(code_of([&] { device_span<const std::uint32_t>(from_a, 255, 2); }), errc::invalid_argument);
  EXPECT_EQ(code_of([&] { device_span<const std::uint32_t>(from_a, ~std::size_t(0), 2); }), errc::invalid_argument);
  // An absurd allocation is a limit error, not a 4-byte buffer.
  EXPECT_EQ(code_of([&] { a.create_buffer(~std::uint64_t(0)); }), errc::limit);
  // A moved-from context refuses every call.
  context moved = std::move(b);
  EXPECT_EQ(code_of([&] { b.create_buffer(16); }), errc::invalid_argument);
  EXPECT_EQ(code_of([&] { reduce(b, std::vector<float>{1.0f}); }), errc::invalid_argument);
  EXPECT_NO_THROW(moved.create_buffer(16));
  // A NaN or non-positive timeout is refused at construction.
  context_options o;
  o.timeout_s = std::nan("");
  EXPECT_EQ(code_of([&] { context c(o); }), errc::invalid_argument);
  o.timeout_s = -1;
  EXPECT_EQ(code_of([&] { context c(o); }), errc::invalid_argument);
  // Tuning knobs past what the kernels handle are refused (they gave wrong answers or hung compilers before).
  run_options big_items;
  big_items.tune.items = 16383;
  std::vector<std::uint32_t> v(100000, 1);
  EXPECT_EQ(code_of([&] { reduce(a, v, op::sum(), big_items); }), errc::invalid_argument);
  big_items.tune.items = 4096;
  std::vector<std::uint32_t> out(v.size());
  EXPECT_EQ(code_of([&] { inclusive_scan(a, v, out, op::sum(), big_items); }), errc::invalid_argument);
  EXPECT_EQ(code_of([&] { testing::set_binding_limit(a, 1024); }), errc::invalid_argument);
}

// Calls recorded into encoders of begin_commands share a kept compute pass; interleaving two such encoders, and
// mixing in scans with an initial value (a parameter block copied from the ring), must still give every result.
// Run once with the adapter's features and once with immediates and mapped results off (the uniform-ring and
// staging paths a device without them takes).
void check_interleaved_encoders(context& c) {
  ASSERT_EQ(c.backend(), backend_choice::webgpu);
  std::vector<std::uint32_t> x(70001);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::uint32_t>((i * 2654435761u) >> 7);
  device_vector<std::uint32_t> d(c, host_span<const std::uint32_t>(x.data(), x.size()));
  buffer sums = c.create_buffer(8 * 4);
  buffer scanned = c.create_buffer(x.size() * 4);
  const monoid sum(op::sum(), dtype::u32), mx(op::max(), dtype::u32);
  const std::size_t sizes[4] = {1, 4095, 4097, 70001};
  WGPUCommandEncoder a = c.begin_commands();
  WGPUCommandEncoder b = c.begin_commands();
  for (int i = 0; i < 4; ++i) {
    WGPUCommandEncoder e = i % 2 ? b : a;
    reduce(c, e, device_span<const std::uint32_t>(d.raw(), 0, sizes[i]), device_span<std::uint32_t>(sums, i, 1),
           op::sum());
    reduce(c, e, device_span<const std::uint32_t>(d.raw(), 0, sizes[i]), device_span<std::uint32_t>(sums, 4 + i, 1),
           op::max());
  }
  exclusive_scan(c, a, device_span<const std::uint32_t>(d.raw(), 0, x.size()),
                 device_span<std::uint32_t>(scanned, 0, x.size()));
  c.submit(b);
  c.submit(a);
  std::vector<std::uint32_t> got(8), got_scan(x.size()), want_scan(x.size());
  c.read(sums, 0, got.data(), 32);
  c.read(scanned, 0, got_scan.data(), x.size() * 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(got[i], reference::reduce(x.data(), sizes[i], sum)) << "sum, n = " << sizes[i];
    EXPECT_EQ(got[4 + i], reference::reduce(x.data(), sizes[i], mx)) << "max, n = " << sizes[i];
  }
  reference::exclusive_scan(x.data(), x.size(), want_scan.data(), sum);
  EXPECT_EQ(got_scan, want_scan);
  // Host-returning calls (the mapped result or staging), and a scan with an initial value.
  for (std::size_t n : sizes) EXPECT_EQ(reduce_bits(c, d.raw(), n, sum), reference::reduce(x.data(), n, sum)) << n;
  device_vector<std::uint32_t> out(c, x.size());
  inclusive_scan(c, d, out, op::sum(), 12345u);
  std::vector<std::uint32_t> host = out.to_host();
  std::uint32_t run = 12345u;
  for (std::size_t i = 0; i < x.size(); ++i) {
    run += x[i];
    ASSERT_EQ(host[i], run) << "inclusive scan with init, element " << i;
  }
}

TEST(Context, InterleavedEncodersShareKeptPassesCorrectly) { check_interleaved_encoders(ctx()); }

TEST(Context, WithoutImmediatesOrMappedResultsTheRingAndStagingServe) {
  ::setenv("WGPRIM_IMMEDIATES", "0", 1);
  ::setenv("WGPRIM_MAPPED_RESULT", "0", 1);
  context c(webgpu_options());
  ::unsetenv("WGPRIM_IMMEDIATES");
  ::unsetenv("WGPRIM_MAPPED_RESULT");
  EXPECT_FALSE(c.features().immediates);
  check_interleaved_encoders(c);
}

}  // namespace
}  // namespace wgprim::test
