// The context: adapter choice, limits, and every device-side failure turned into a wgprim::error.
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
      for (const file& f : {file{"reduce/seed.wgsl", "reduce", three}, file{"scan/seed.wgsl", "scan_blocks", five},
                            file{"scan/seed.wgsl", "add_back", five}, file{"scan/seed.wgsl", "update_carry", five}}) {
        auto src = detail::compose_wgsl(f.name, m, {{"WG_SIZE", "256u"}});
        EXPECT_NO_THROW(detail::get_kernel(ctx(), src, f.entry, f.layout, false)) << f.name << " " << describe(m, 0);
      }
      if (m.is_sum() && t == dtype::f32) {  // the double-word modules (compensated / reproducible)
        for (bool pairs : {false, true}) {
          auto r = detail::compose_wgsl("reduce/fixed.wgsl", m, {}, {}, detail::accum::double_word, pairs);
          EXPECT_NO_THROW(detail::get_kernel(ctx(), r, "reduce_block", three, false));
          auto sc = detail::compose_wgsl("scan/seed.wgsl", m, {{"WG_SIZE", "256u"}}, {}, detail::accum::double_word,
                                         pairs);
          for (const char* e : {"scan_blocks", "add_back", "update_carry"})
            EXPECT_NO_THROW(detail::get_kernel(ctx(), sc, e, five, false)) << e;
        }
      }
      std::vector<std::string> lanes = {"shared/lanes_workgroup.wgsl"};
      if (ctx().features().subgroups) lanes.push_back("shared/lanes_subgroup.wgsl");
      for (const auto& lane : lanes) {
        auto r = detail::compose_wgsl("reduce/fast.wgsl", m,
                                      {{"WG_SIZE", "256u"}, {"ITEMS", "4u"}, {"VEC_LOADS", "true"}}, {lane});
        EXPECT_NO_THROW(detail::get_kernel(
            ctx(), r, "reduce", {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_rw}, false))
            << lane << " " << describe(m, 0);
        for (const char* staged : {"true", "false"}) {
          auto sc = detail::compose_wgsl("scan/decoupled.wgsl", m,
                                         {{"WG_SIZE", "256u"}, {"ITEMS", "4u"}, {"STAGED", staged},
                                          {"WINDOW", "32u"}, {"STAGE_SIZE", "1024u"}},
                                         {lane});
          EXPECT_NO_THROW(detail::get_kernel(ctx(), sc, "scan",
                                             {slot::uniform, slot::storage_read, slot::storage_read,
                                              slot::storage_rw, slot::storage_rw, slot::storage_rw, slot::storage_rw},
                                             false))
              << lane << " staged=" << staged << " " << describe(m, 0);
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
