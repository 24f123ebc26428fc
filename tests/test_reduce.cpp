// reduce: every op x type x algorithm over edge sizes, against the CPU twin (exact for integers and for
// min/max; within the derived bound for f32 sums).
#include "common.hpp"

namespace wgprim::test {
namespace {

void check_reduce(context& c, const std::string& alg, const monoid& m, const std::vector<std::uint32_t>& x,
                  std::size_t n, const tuning& tune = {}) {
  run_options o;
  o.algorithm = alg;
  o.tune = tune;
  std::uint32_t got;
  if (n == 0) {
    got = reduce_bits(c, c.create_buffer(4), 0, m, o);
  } else {
    buffer in = c.create_buffer(n * 4);
    c.write(in, 0, x.data(), n * 4);
    got = reduce_bits(c, in, n, m, o);
  }
  if (m.is_sum() && m.type() == dtype::f32) {
    const float* f = reinterpret_cast<const float*>(x.data());
    double exact = reference::exact_sum_f32(f, n);
    // Longest dependent chain: the grid-stride loop (seed: n / 65,536 per invocation, per chunk; fast:
    // n / (groups * 256 * 4 * 2) per accumulator, at most that with >= 32 groups), the fold of a vec4, subgroup
    // and workgroup trees (<= 16 levels each), the final pass, one addition per chunk: 64 + chunks covers the rest.
    double chunks = std::ceil(static_cast<double>(n) * 4 / static_cast<double>(c.binding_limit())) + 1;
    double h = std::ceil(static_cast<double>(n) / 65536.0) + 64 + chunks;
    double bound = f32_sum_bound(h, reference::abs_sum_f32(f, n));
    EXPECT_LE(std::fabs(from_bits<float>(got) - exact), bound) << describe(m, n) << " alg=" << alg;
  } else {
    std::uint32_t want = reference::reduce(x.data(), n, m);
    EXPECT_EQ(got, want) << describe(m, n) << " alg=" << alg << " got " << format_bits(m.type(), got)
                         << " want " << format_bits(m.type(), want);
  }
}

TEST(Reduce, EveryOpTypeAlgorithmAndEdgeSize) {
  auto sizes = edge_sizes(22);
  std::size_t combo = 0;
  for (const auto& alg : reduce_algorithms())
    for (dtype t : {dtype::f32, dtype::i32, dtype::u32}) {
      auto data = make_data(t, sizes.back(), 11 + static_cast<int>(t));
      for (const op& o : ops_for(t)) {
        monoid m(o, t);
        for (std::size_t i = 0; i < sizes.size(); ++i)
          if (sweep_runs(i, sizes[i], combo)) check_reduce(ctx(), alg, m, data, sizes[i]);
        ++combo;
      }
    }
}

TEST(Reduce, FastPolicyVariants) {
  // Every code path of the fast reduce, whatever the adapter's default policy picks: subgroups or workgroup
  // memory, vec4 or scalar loads, one workgroup or a few, short and long tiles, the small-n single dispatch.
  std::vector<tuning> variants;
  for (int sg : {0, 1})
    for (int vec : {0, 1}) {
      tuning t;
      t.subgroups = sg;
      t.vec_loads = vec;
      variants.push_back(t);
      t.workgroups = 3;
      t.items = 3;  // odd on purpose
      variants.push_back(t);
      t.workgroups = 1;
      t.items = 8;
      t.small_n = 1;
      variants.push_back(t);
    }
  for (dtype t : {dtype::f32, dtype::i32, dtype::u32}) {
    auto data = make_data(t, 300007, 17 + static_cast<int>(t));
    for (const op& o : ops_for(t))
      for (const tuning& v : variants)
        for (std::size_t n : {1u, 3u, 4u, 5u, 4095u, 4097u, 16384u, 16385u, 65537u, 300007u})
          check_reduce(ctx(), "fast", monoid(o, t), data, n, v);
  }
}

TEST(Reduce, SmallIntegerFloatSumsAreExact) {
  for (std::size_t n : {1u, 257u, 65537u, 1000003u}) {
    auto x = make_data(dtype::f32, n, 3, data_kind::small_ints);
    double want = reference::exact_sum_f32(reinterpret_cast<const float*>(x.data()), n);
    for (const auto& alg : reduce_algorithms()) {
      run_options o;
      o.algorithm = alg;
      std::vector<float> f(n);
      std::memcpy(f.data(), x.data(), n * 4);
      EXPECT_EQ(reduce(ctx(), f, op::sum(), o), static_cast<float>(want)) << "n=" << n << " alg=" << alg;
    }
  }
}

TEST(Reduce, HostOverloadsAndEmpty) {
  std::vector<std::int32_t> v = {5, -7, 3};
  EXPECT_EQ(reduce(ctx(), v), 1);
  EXPECT_EQ(reduce(ctx(), v, op::max()), 5);
  EXPECT_EQ(reduce(ctx(), std::vector<std::uint32_t>{}, op::min()), 0xffffffffu);
  EXPECT_EQ(reduce(ctx(), std::vector<float>{}, op::max()), -INFINITY);
  EXPECT_EQ(reduce(ctx(), std::vector<std::uint32_t>{0xffffffffu, 2u}), 1u);  // wraps mod 2^32
}

TEST(Reduce, ChunkedPastTheBindingLimit) {
  // 1 MiB bindings: 262,144 elements per chunk, so these sizes span 2..5 chunks.
  context& c = small_binding_ctx();
  ASSERT_EQ(c.binding_limit(), 1u << 20);
  for (dtype t : {dtype::f32, dtype::u32, dtype::i32}) {
    auto data = make_data(t, (1u << 20) + 77, 5);
    for (const op& o : ops_for(t))
      for (std::size_t n : {262143u, 262144u, 262145u, 524288u + 3u, (1u << 20) + 77u})
        check_reduce(c, "seed", monoid(o, t), data, n);
  }
}

TEST(Reduce, PastTheRealBindingLimit) {
  // One element more than the adapter's storage binding holds (lavapipe: 128 MiB; H200: 2 GiB).
  context& c = ctx();
  std::size_t n = c.binding_limit() / 4 + 1025;
  if (n * 4 > c.limits().max_buffer_size) GTEST_SKIP() << "the adapter's max buffer equals its binding limit";
  std::vector<std::uint32_t> x(n);
  std::mt19937 rng(1);
  for (auto& v : x) v = rng() & 0xffff;
  buffer in = c.create_buffer(n * 4);
  c.write(in, 0, x.data(), n * 4);
  monoid sum(op::sum(), dtype::u32), mx(op::max(), dtype::u32);
  EXPECT_EQ(reduce_bits(c, in, n, sum), reference::reduce(x.data(), n, sum));
  x[n - 1] = 0x12345678u;  // the maximum sits in the last chunk
  c.write(in, (n - 1) * 4, &x[n - 1], 4);
  EXPECT_EQ(reduce_bits(c, in, n, mx), 0x12345678u);
}

TEST(Reduce, SingleDispatchVariantsAndStress) {
  // The single-dispatch reduce's paths: subgroups or workgroup memory, vec4 or scalar loads, many or 3 groups,
  // partials published and seen, and (stress) every other partial recomputed by the last workgroup instead.
  struct stress_on {
    stress_on() { testing::set_lookback_stress(ctx(), true); }
    ~stress_on() { testing::set_lookback_stress(ctx(), false); }
  };
  std::vector<tuning> variants;
  for (int sg : {0, 1})
    for (int vec : {0, 1}) {
      tuning t;
      t.subgroups = sg;
      t.vec_loads = vec;
      t.small_n = 1;  // no small-n shortcut: the single dispatch from 2 elements on
      t.items = 1;    // tiles of 1,024: many groups at modest n
      variants.push_back(t);
      t.workgroups = 3;
      t.items = 3;
      variants.push_back(t);
    }
  for (bool stress : {false, true}) {
    std::unique_ptr<stress_on> on;
    if (stress) on = std::make_unique<stress_on>();
    for (dtype t : {dtype::f32, dtype::u32}) {
      auto data = make_data(t, 300007, 23 + static_cast<int>(t));
      for (const op& o : {op::sum(), op::max()})
        for (const tuning& v : variants)
          for (std::size_t n : {2u, 5u, 1025u, 4097u, 65537u, 300007u})
            check_reduce(ctx(), "single", monoid(o, t), data, n, v);
    }
  }
}

TEST(Reduce, ManyRecordedCallsInOneEncoder) {
  // 300 single-dispatch reduces recorded into one encoder: each call has its own epoch and parameter slot (more
  // slots than one parameter ring holds, so the ring is replaced while the encoder still holds slots), and
  // each writes its own result word.
  context& c = ctx();
  const std::size_t calls = 300;
  auto x = make_data(dtype::u32, 20000, 29);
  device_vector<std::uint32_t> d(c, host_span<const std::uint32_t>(x.data(), x.size()));
  buffer out = c.create_buffer(calls * 4);
  run_options o;
  o.algorithm = "single";
  o.tune.small_n = 1;
  o.tune.items = 1;
  WGPUCommandEncoder enc = c.begin_commands();
  for (std::size_t i = 0; i < calls; ++i)
    reduce(c, enc, device_span<const std::uint32_t>(d.raw(), 0, 3000 + 53 * i), device_span<std::uint32_t>(out, i, 1),
           op::sum(), o);
  c.submit(enc);
  std::vector<std::uint32_t> got(calls);
  c.read(out, 0, got.data(), calls * 4);
  const monoid sum(op::sum(), dtype::u32);
  for (std::size_t i = 0; i < calls; ++i)
    ASSERT_EQ(got[i], reference::reduce(x.data(), 3000 + 53 * i, sum)) << "call " << i;
  // And again, after the submit, into a second encoder.
  enc = c.begin_commands();
  for (std::size_t i = 0; i < calls; ++i)
    reduce(c, enc, device_span<const std::uint32_t>(d.raw(), 0, 20000 - 41 * i), device_span<std::uint32_t>(out, i, 1),
           op::sum(), o);
  c.submit(enc);
  c.read(out, 0, got.data(), calls * 4);
  for (std::size_t i = 0; i < calls; ++i)
    ASSERT_EQ(got[i], reference::reduce(x.data(), 20000 - 41 * i, sum)) << "second round, call " << i;
  // Calls that submit and wait themselves: the ring wraps over slots whose work is done.
  for (std::size_t i = 0; i < calls; ++i)
    ASSERT_EQ(reduce_bits(c, d.raw(), 2 + 61 * i, sum, o), reference::reduce(x.data(), 2 + 61 * i, sum)) << "call " << i;
}

TEST(Reduce, QueuedCallsWithDeviceResults) {
  // reduce(ctx, device in, device result) returns without waiting: many such calls in a row (more than the queue's
  // bound of submissions without a wait), each into its own result word, then one read; on WebGPU and on the native
  // backend (which runs them at once). Sizes around the tiles, 0 (the identity) and 1; sum, max and min, u32 and
  // i32 (exact), against the CPU twin.
  for (context* c : {&ctx(), &native_ctx()}) {
    SCOPED_TRACE(c->adapter().name);
    const std::size_t sizes[] = {0, 1, 2, 255, 256, 257, 1023, 1024, 1025, 4095, 4096, 4097, 65535, 65537, 300007};
    const op ops[] = {op::sum(), op::max(), op::min()};
    const std::size_t calls = std::size(sizes) * std::size(ops);
    for (dtype t : {dtype::u32, dtype::i32}) {
      auto x = make_data(t, 300007, 31 + static_cast<int>(t));
      device_vector<std::uint32_t> d(*c, host_span<const std::uint32_t>(x.data(), x.size()));
      buffer out = c->create_buffer(calls * 4);
      for (std::size_t i = 0; i < calls; ++i) {
        const std::size_t n = sizes[i % std::size(sizes)];
        const op& o = ops[i / std::size(sizes)];
        if (t == dtype::u32)
          reduce(*c, device_span<const std::uint32_t>(d.raw(), 0, n), device_span<std::uint32_t>(out, i, 1), o);
        else
          reduce(*c, device_span<const std::int32_t>(d.raw(), 0, n), device_span<std::int32_t>(out, i, 1), o);
      }
      std::vector<std::uint32_t> got(calls);
      c->read(out, 0, got.data(), calls * 4);
      for (std::size_t i = 0; i < calls; ++i) {
        const std::size_t n = sizes[i % std::size(sizes)];
        const monoid m(ops[i / std::size(sizes)], t);
        ASSERT_EQ(got[i], reference::reduce(x.data(), n, m)) << dtype_name(t) << " call " << i << " n " << n;
      }
    }
  }
}

// Queued calls share the context's open encoder (up to WGPRIM_QUEUED_CALLS of them per submission), yet every
// step below must see them in call order: a queue write of the input between calls, a host-returning call that
// reads a queued result, a caller's encoder submitted after them, flush() and the context going away with calls
// still queued. With the default batch (32), with batches of 3 (a flush in the middle of each run below), and with
// 1 (each call submitted alone); exact u32 sums against the CPU twin.
TEST(Reduce, QueuedCallsKeepQueueOrder) {
  const op sum = op::sum(), mx = op::max();
  const monoid msum(sum, dtype::u32), mmax(mx, dtype::u32);
  for (const char* batch : {"", "3", "1"}) {
    SCOPED_TRACE(std::string("WGPRIM_QUEUED_CALLS=") + batch);
    env_override e("WGPRIM_QUEUED_CALLS", batch);
    context c(webgpu_options());
    const std::size_t cap = 5000, calls = 70;
    buffer in = c.create_buffer(cap * 4), out = c.create_buffer(calls * 4);
    std::vector<std::vector<std::uint32_t>> xs;
    std::vector<std::size_t> ns;
    for (std::size_t i = 0; i < calls; ++i) {
      // The same input buffer rewritten before each call: a write that overtook queued calls changes their sums.
      xs.push_back(make_data(dtype::u32, cap, 1000 + static_cast<std::uint32_t>(i)));
      ns.push_back((i * 977) % cap + (i % 7 == 0 ? 0 : 1));
      c.write(in, 0, xs.back().data(), cap * 4);
      reduce(c, device_span<const std::uint32_t>(in, 0, ns.back()), device_span<std::uint32_t>(out, i, 1), sum);
    }
    // A host-returning call whose input is the queued results: it submits the open encoder with its own work.
    const std::uint32_t m = reduce(c, device_span<const std::uint32_t>(out, 0, calls), mx);
    std::vector<std::uint32_t> want(calls), got(calls);
    for (std::size_t i = 0; i < calls; ++i) want[i] = reference::reduce(xs[i].data(), ns[i], msum);
    EXPECT_EQ(m, reference::reduce(want.data(), calls, mmax));
    c.read(out, 0, got.data(), calls * 4);
    for (std::size_t i = 0; i < calls; ++i) ASSERT_EQ(got[i], want[i]) << "call " << i << " n " << ns[i];

    // Queued calls, then a caller's encoder that reads their results: submitted after them.
    buffer r2 = c.create_buffer(4);
    for (std::size_t i = 0; i < 5; ++i)
      reduce(c, device_span<const std::uint32_t>(in, 0, cap - i), device_span<std::uint32_t>(out, i, 1), sum);
    WGPUCommandEncoder enc = c.begin_commands();
    reduce(c, enc, device_span<const std::uint32_t>(out, 0, 5), device_span<std::uint32_t>(r2, 0, 1), sum);
    c.submit(enc);
    std::uint32_t total = 0, expect = 0;
    for (std::size_t i = 0; i < 5; ++i) expect += reference::reduce(xs.back().data(), cap - i, msum);
    c.read(r2, 0, &total, 4);
    EXPECT_EQ(total, expect);

    // flush() sends a partial batch without waiting; finish() then waits; the results are there.
    reduce(c, device_span<const std::uint32_t>(in, 0, 17), device_span<std::uint32_t>(out, 0, 1), mx);
    c.flush();
    c.finish();
    std::uint32_t top = 0;
    c.read(out, 0, &top, 4);
    EXPECT_EQ(top, reference::reduce(xs.back().data(), 17, mmax));
    // The context goes away with calls still queued: they are submitted and finished first (no crash, no hang).
    for (std::size_t i = 0; i < 40; ++i)
      reduce(c, device_span<const std::uint32_t>(in, 0, cap), device_span<std::uint32_t>(out, i, 1), sum);
  }
}

}  // namespace
}  // namespace wgprim::test
