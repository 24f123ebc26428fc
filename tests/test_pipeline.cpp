// Device-side counts and recorded pipelines (wgprim/device_count.hpp, counted.hpp, pipeline.hpp), against the CPU
// twin: every compaction, the sort and the reduce with their length given two ways (host n: a span of n
// elements; device count: a counted span of a larger capacity whose tail holds other data), over counts 0, 1,
// tile - 1, tile, tile + 1 and past one tile (the select's tile is 4,096 elements), on the WGSL (lavapipe here)
// and on the native backend; then a pipeline replayed on three inputs of other lengths.
#include <algorithm>
#include <cstring>
#include <memory>
#include <random>

#include "common.hpp"
#include "wgprim/counted.hpp"
#include "wgprim/pipeline.hpp"

namespace wgprim::test {
namespace {

const std::vector<std::size_t> counts = {0, 1, 2, 4095, 4096, 4097, 8193, 3 * 4096 + 5};
constexpr std::size_t capacity = 3 * 4096 + 77;

std::vector<context*> contexts() { return {&ctx(), &native_ctx()}; }
const char* name_of(context& c) { return c.backend() == backend_choice::native ? "native" : "webgpu"; }

// Random bits with runs (so that unique keeps and drops), the type's full range otherwise.
std::vector<std::uint32_t> data_for(dtype t, std::size_t n, std::uint32_t seed) {
  std::vector<std::uint32_t> x = make_data(t, n, seed);
  std::mt19937 rng(seed + 1);
  for (std::size_t i = 1; i < n; ++i)
    if (rng() % 3 == 0) x[i] = x[i - 1];
  return x;
}

const char* predicate_for(dtype t) { return t == dtype::f32 ? "a > 0.25" : t == dtype::i32 ? "a % 3 == 0" : "(a & 4u) != 0u"; }

// partition_reversed: run_options::rejected = reversed (cub::DevicePartition::If's order).
enum class mode { select_if, select_flagged, partition, unique, partition_reversed };
const char* mode_name(mode m) {
  return m == mode::select_if        ? "select_if"
         : m == mode::select_flagged ? "select_flagged"
         : m == mode::partition      ? "partition"
         : m == mode::unique         ? "unique"
                                     : "partition (rejected reversed)";
}
bool is_partition(mode m) { return m == mode::partition || m == mode::partition_reversed; }
run_options options_for(mode m) {
  run_options o;
  if (m == mode::partition_reversed) o.rejected = rejected_order::reversed;
  return o;
}

// The twin: (count, the elements it promises: all n for a partition, else the kept ones).
std::pair<std::size_t, std::vector<std::uint32_t>> twin(mode m, dtype t, const std::vector<std::uint32_t>& x,
                                                        const std::vector<std::uint32_t>& f, std::size_t n) {
  std::vector<std::uint32_t> out(n);
  std::size_t k = 0;
  const bound_predicate p(predicate::expr(predicate_for(t)), t);
  switch (m) {
    case mode::select_if: k = reference::select_if(x.data(), n, p, out.data()); break;
    case mode::select_flagged: k = reference::select_flagged(x.data(), f.data(), n, out.data()); break;
    case mode::partition: k = reference::partition(x.data(), n, p, out.data()); break;
    case mode::unique: k = reference::unique(x.data(), n, t, out.data()); break;
    case mode::partition_reversed: k = reference::partition_reversed(x.data(), n, p, out.data()); break;
  }
  out.resize(is_partition(m) ? n : k);
  return {k, out};
}

template <class T>
void run_select(context& c, mode m, device_vector<T>& in, device_vector<std::uint32_t>& flags, device_vector<T>& out,
                device_count& kept, std::size_t n, bool on_device) {
  const predicate p = predicate::expr(predicate_for(dtype_of<T>::value));
  if (on_device) {
    device_count len(c, static_cast<std::uint32_t>(n));
    const auto ci = counted(in, len);
    switch (m) {
      case mode::select_if: select_if(c, ci, out, kept, p); break;
      case mode::select_flagged: select_flagged(c, ci, flags, out, kept); break;
      case mode::partition:
      case mode::partition_reversed: partition(c, ci, out, kept, p, options_for(m)); break;
      case mode::unique: unique(c, ci, out, kept); break;
    }
    return;
  }
  const device_span<const T> si = in.span().first(n);
  const device_span<T> so = out.span();
  switch (m) {
    case mode::select_if: select_if(c, si, so, kept, p); break;
    case mode::select_flagged: select_flagged(c, si, flags.span().first(n), so, kept); break;
    case mode::partition:
    case mode::partition_reversed: partition(c, si, so, kept, p, options_for(m)); break;
    case mode::unique: unique(c, si, so, kept); break;
  }
}

template <class T>
void check_compactions(context& c, dtype t) {
  const std::vector<std::uint32_t> x = data_for(t, capacity, 11);
  std::vector<std::uint32_t> f(capacity);
  std::mt19937 rng(5);
  for (auto& v : f) v = rng() % 4 == 0 ? 0u : rng();
  std::vector<T> xt(capacity);
  std::memcpy(xt.data(), x.data(), capacity * 4);
  device_vector<T> in(c, xt), out(c, capacity);
  device_vector<std::uint32_t> flags(c, f);
  device_count kept(c);
  for (mode m : {mode::select_if, mode::select_flagged, mode::partition, mode::unique, mode::partition_reversed})
    for (std::size_t n : counts)
      for (bool on_device : {false, true}) {
        SCOPED_TRACE(std::string(name_of(c)) + " " + dtype_name(t) + " " + mode_name(m) + " n=" + std::to_string(n) +
                     (on_device ? " device count" : " host n"));
        kept.write(0xdeadu);
        run_select(c, m, in, flags, out, kept, n, on_device);
        const auto want = twin(m, t, x, f, n);
        ASSERT_EQ(kept.read(), want.first);
        std::vector<T> got = out.to_host();
        std::vector<std::uint32_t> bits(want.second.size());
        if (!bits.empty()) std::memcpy(bits.data(), got.data(), bits.size() * 4);  // (no null pointer to memcpy)
        ASSERT_EQ(bits, want.second);
      }
}

TEST(CountedSelect, EveryModeTypeAndCountSource) {
  for (context* c : contexts()) {
    check_compactions<std::uint32_t>(*c, dtype::u32);
    check_compactions<std::int32_t>(*c, dtype::i32);
    check_compactions<float>(*c, dtype::f32);
  }
}

TEST(CountedSelect, CountUpdatedInPlaceAndClampedToCapacity) {
  for (context* c : contexts()) {
    SCOPED_TRACE(name_of(*c));
    const std::vector<std::uint32_t> x = data_for(dtype::u32, 5000, 3);
    device_vector<std::uint32_t> in(*c, x), out(*c, x.size());
    // The input's own count receives the result (read before it is written).
    device_count n(*c, 4097);
    unique(*c, counted(in, n), out, n);
    std::vector<std::uint32_t> want(4097);
    want.resize(reference::unique(x.data(), 4097, dtype::u32, want.data()));
    ASSERT_EQ(n.read(), want.size());
    std::vector<std::uint32_t> got = out.to_host();
    got.resize(want.size());
    EXPECT_EQ(got, want);
    // A count past the capacity is clamped to it.
    n.write(1u << 30);
    unique(*c, counted(in, n), out, n);
    want.assign(x.size(), 0);
    want.resize(reference::unique(x.data(), x.size(), dtype::u32, want.data()));
    ASSERT_EQ(n.read(), want.size());
    got = out.to_host();
    got.resize(want.size());
    EXPECT_EQ(got, want);
    // The same for a partition with the rejected part reversed, whose end (n_total) takes the clamped count.
    const predicate odd_p = predicate::expr("(a & 1u) == 1u");
    const bound_predicate odd(odd_p, dtype::u32);
    run_options reversed;
    reversed.rejected = rejected_order::reversed;
    for (std::uint32_t count : {4097u, 1u << 30}) {
      n.write(count);
      partition(*c, counted(in, n), out, n, odd_p, reversed);
      const std::size_t m = std::min<std::size_t>(count, x.size());
      want.assign(m, 0);
      const std::size_t kept = reference::partition_reversed(x.data(), m, odd, want.data());
      ASSERT_EQ(n.read(), kept) << "count " << count;
      got = out.to_host();
      got.resize(m);
      EXPECT_EQ(got, want) << "count " << count;
    }
  }
}

TEST(CountedSort, KeysBitRangesDirectionsAndCounts) {
  struct variant { dtype t; unsigned lo, hi; bool descending; };
  const std::vector<variant> vs = {{dtype::u32, 0, 0, false}, {dtype::u32, 0, 16, false}, {dtype::u32, 4, 20, true},
                                   {dtype::i32, 0, 0, false}, {dtype::i32, 0, 0, true},   {dtype::i32, 8, 24, false},
                                   {dtype::f32, 0, 0, false}, {dtype::f32, 0, 16, false}};
  for (context* c : contexts())
    for (const variant& v : vs)
      for (std::size_t n : counts) {
        SCOPED_TRACE(std::string(name_of(*c)) + " " + dtype_name(v.t) + " bits " + std::to_string(v.lo) + ":" +
                     std::to_string(v.hi) + (v.descending ? " descending" : "") + " n=" + std::to_string(n));
        std::vector<std::uint32_t> x = data_for(v.t, capacity, 17 + static_cast<std::uint32_t>(n));
        device_vector<std::uint32_t> keys(*c, x);
        device_count len(*c, static_cast<std::uint32_t>(n));
        const sort_order o(v.descending ? order::descending : order::ascending, v.lo, v.hi);
        switch (v.t) {
          case dtype::i32: {
            device_span<std::int32_t> s(keys.raw(), 0, capacity);
            sort(*c, counted(s, len), o);
            break;
          }
          case dtype::f32: {
            device_span<float> s(keys.raw(), 0, capacity);
            sort(*c, counted(s, len), o);
            break;
          }
          default: sort(*c, counted(keys, len), o);
        }
        std::vector<std::uint32_t> want(x.begin(), x.begin() + n);
        reference::stable_sort_bits(want.data(), n, v.t, v.descending, v.lo, v.hi);
        std::vector<std::uint32_t> got = keys.to_host();
        // Past the count the range is left as it was: the passes cover the counted keys only.
        ASSERT_TRUE(std::equal(got.begin() + n, got.end(), x.begin() + n)) << "the keys past the count changed";
        got.resize(n);
        ASSERT_EQ(got, want);
        ASSERT_EQ(len.read(), n);  // the count is read, never written
      }
}

TEST(CountedSort, EveryAlgorithmReadsTheCount) {
  // Both radix algorithms (onesweep where the adapter has subgroups, reduce-then-scan everywhere) stop at the
  // device count: the counted keys sorted, the keys past it untouched, tiles past it idle.
  for (context* c : contexts()) {
    if (c->backend() == backend_choice::native) continue;
    for (const char* alg : {"reduce-then-scan", "onesweep"}) {
      if (std::string(alg) == "onesweep" && !c->features().subgroups) continue;
      for (std::size_t n : counts) {
        SCOPED_TRACE(std::string(alg) + " n=" + std::to_string(n));
        std::vector<std::uint32_t> x = data_for(dtype::u32, capacity, 91 + static_cast<std::uint32_t>(n));
        device_vector<std::uint32_t> keys(*c, x);
        device_count len(*c, static_cast<std::uint32_t>(n));
        run_options opt;
        opt.algorithm = alg;
        sort(*c, counted(keys, len), sort_order(order::descending), opt);
        std::vector<std::uint32_t> want(x.begin(), x.begin() + n);
        reference::stable_sort_bits(want.data(), n, dtype::u32, true, 0, 0);
        std::vector<std::uint32_t> got = keys.to_host();
        ASSERT_TRUE(std::equal(got.begin() + n, got.end(), x.begin() + n)) << "the keys past the count changed";
        got.resize(n);
        ASSERT_EQ(got, want);
      }
    }
  }
}

TEST(CountedReduce, IntegerOperatorsAndCounts) {
  for (context* c : contexts())
    for (const char* o : {"sum", "min", "max", "xor"})
      for (std::size_t n : counts) {
        SCOPED_TRACE(std::string(name_of(*c)) + " " + o + " n=" + std::to_string(n));
        const std::vector<std::uint32_t> x = make_data(dtype::u32, capacity, 23 + static_cast<std::uint32_t>(n));
        device_vector<std::uint32_t> d(*c, x);
        device_count len(*c, static_cast<std::uint32_t>(n));
        const monoid m(op::parse(o), dtype::u32);
        const std::uint64_t want = reference::reduce_raw(x.data(), dtype::u32, n, m);
        EXPECT_EQ(static_cast<std::uint64_t>(reduce(*c, counted(d, len), op::parse(o))), want);
        device_span<std::int32_t> s(d.raw(), 0, capacity);  // i32 view: min/max signed
        if (std::string(o) == "min" || std::string(o) == "max") {
          d.assign(x);
          const monoid mi(op::parse(o), dtype::i32);
          EXPECT_EQ(to_raw(reduce(*c, counted(s, len), op::parse(o))), reference::reduce_raw(x.data(), dtype::i32, n, mi));
        }
      }
}

TEST(CountedReduce, RecordedIntoAnEncoder) {
  context& c = ctx();
  const std::vector<std::uint32_t> x = make_data(dtype::u32, capacity, 29);
  device_vector<std::uint32_t> d(c, x), r(c, 1);
  device_count len(c, 4097);
  WGPUCommandEncoder enc = c.begin_commands();
  reduce(c, enc, counted(d, len), r);
  c.submit(enc);
  EXPECT_EQ(r.to_host()[0], reference::reduce_raw(x.data(), dtype::u32, 4097, monoid(op::sum(), dtype::u32)));
}

// A counted range whose count lies in its own buffer (here the count is the range's only element): the neutral
// tail's pass cannot bind that buffer twice, so it reads the count from a copy.
TEST(CountedReduce, CountInsideTheRange) {
  for (context* c : contexts()) {
    SCOPED_TRACE(name_of(*c));
    for (std::uint32_t v : {0u, 1u, 5u}) {
      device_count n(*c, v);
      EXPECT_EQ(reduce(*c, counted(n.span(), n)), v == 0 ? 0u : v) << "count " << v;
    }
  }
}

TEST(DeviceCount, WriteReadAndBadInput) {
  for (context* c : contexts()) {
    device_count n(*c, 7);
    EXPECT_EQ(n.read(), 7u);
    n.write(0xffffffffull);
    EXPECT_EQ(n.read(), 0xffffffffull);
    EXPECT_THROW(n.write(1ull << 32), error);
    device_vector<std::uint32_t> v(*c, 10);
    counted_span<std::uint32_t> none{v.span(), nullptr};
    EXPECT_THROW(sort(*c, none), error);
    device_vector<double> wide;  // 64-bit elements are not counted-range types
    (void)wide;
  }
  // A counted input past one storage binding is refused (errc::limit), not run in chunks on a count it cannot see.
  {
    context& small = small_binding_ctx();
    const std::size_t big = (std::size_t(1) << 20) / 4 + 4096;
    device_vector<std::uint32_t> in(small, big), out(small, big);
    device_count n(small, 10);
    try {
      unique(small, counted(in, n), out, n);
      ADD_FAILURE() << "no error past one binding";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::limit) << e.what();
    }
  }
  // A misaligned counted range is refused with one line (the tail is written by a pass that binds it).
  device_vector<std::uint32_t> v(ctx(), 100);
  device_count n(ctx(), 5);
  EXPECT_THROW(sort(ctx(), counted(v.span().subspan(1), n)), error);
}

// ---- pipelines ----

void check_pipeline(context& c, bool device_input) {
  SCOPED_TRACE(std::string(name_of(c)) + (device_input ? " device input" : " host input"));
  auto p = pipeline(c, dtype::u32);
  p.select_if(predicate::expr("a % 2u == 0u")).sort(key_bits(0, 16)).unique();
  ASSERT_EQ(p.steps(), 3u);
  // The largest first: later runs replay into the same buffers. Keys in 0..2^17 so that unique drops some.
  for (std::size_t n : {20011u, 4097u, 0u, 1u, 5000u}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::vector<std::uint32_t> x = make_data(dtype::u32, n, static_cast<std::uint32_t>(n) + 3);
    for (auto& v : x) v &= 0x1ffffu;
    std::uint64_t k;
    if (device_input) {
      device_vector<std::uint32_t> d(c, x);
      k = p.run(d);
    } else {
      k = p.run(x);
    }
    const std::vector<std::uint32_t> want = p.reference(x.data(), n);
    ASSERT_EQ(k, want.size());
    EXPECT_EQ(p.output<std::uint32_t>(), want);
    if (n != 20011u) {
      EXPECT_EQ(p.kernels_created_last_run(), 0u) << "a replay created kernels";
    }
    // The native backend runs the steps eagerly: no dispatches.
    if (c.backend() == backend_choice::native) EXPECT_EQ(p.dispatches_last_run(), 0u);
    else EXPECT_GT(p.dispatches_last_run(), 0u);
  }
}

TEST(Pipeline, ReplayedOnInputsOfOtherLengths) {
  for (context* c : contexts()) {
    check_pipeline(*c, false);
    check_pipeline(*c, true);
  }
}

// A replay records its steps again and finds its bind groups in the context's cache, keyed by the buffers bound.
// Here each input (read in place by the first step) is freed after its run, some while the run is still queued,
// and the next input of the same size is made at once (a freed handle's address is often reused: a group cached
// for the freed buffer must not serve it); the sizes also jump past the pipeline's capacity (new buffers of its
// own). Every run must match the CPU twin.
TEST(Pipeline, ReplayedWhileInputsAreFreedAndReallocated) {
  for (context* c : contexts()) {
    SCOPED_TRACE(name_of(*c));
    auto make = [&] {
      auto p = pipeline(*c, dtype::u32);
      p.select_if(predicate::expr("a % 2u == 0u")).sort(key_bits(0, 16)).unique().select_if(predicate::expr("a % 3u != 0u"));
      return p;
    };
    auto p = make();
    std::uint32_t seed = 11;
    for (std::size_t n : {300u, 5000u, 1u, 0u, 12000u, 4096u, 4097u, 64u, 20000u, 777u}) {
      for (int i = 0; i < 4; ++i) {
        SCOPED_TRACE("n=" + std::to_string(n) + " run " + std::to_string(i));
        // A new pipeline now and then: its buffers are made just after the old one's are freed.
        if (i == 2) p = make();
        std::vector<std::uint32_t> x = make_data(dtype::u32, n, ++seed);
        for (auto& v : x) v &= 0x1ffffu;
        const std::vector<std::uint32_t> want = p.reference(x.data(), n);
        {
          const device_vector<std::uint32_t> d(*c, x);
          p.enqueue(d);
          if (i % 2) ASSERT_EQ(p.count().read(), want.size());
        }  // freed here: while its run is queued when i is even
        ASSERT_EQ(p.count().read(), want.size());
        EXPECT_EQ(p.output<std::uint32_t>(), want);
      }
    }
  }
}

// Two inputs of one size run in turn: the same kernels, ranges and sizes, only the input buffer differs. A bind
// group cached for one must not serve the other (a cache key without the buffer's identity fails here).
TEST(Pipeline, AlternatingInputsGetTheirOwnBindGroups) {
  for (context* c : contexts()) {
    SCOPED_TRACE(name_of(*c));
    auto p = pipeline(*c, dtype::u32);
    p.unique().sort().select_if(predicate::expr("a > 1000u"));
    const std::size_t n = 9000;
    std::vector<std::uint32_t> xa = data_for(dtype::u32, n, 21), xb = data_for(dtype::u32, n, 22);
    const device_vector<std::uint32_t> a(*c, xa), b(*c, xb);
    const std::vector<std::uint32_t> want_a = p.reference(xa.data(), n), want_b = p.reference(xb.data(), n);
    ASSERT_NE(want_a, want_b);
    for (int i = 0; i < 4; ++i) {
      SCOPED_TRACE("round " + std::to_string(i));
      ASSERT_EQ(p.run(a), want_a.size());
      EXPECT_EQ(p.output<std::uint32_t>(), want_a);
      ASSERT_EQ(p.run(b), want_b.size());
      EXPECT_EQ(p.output<std::uint32_t>(), want_b);
    }
  }
}

// From the second run on one input, a run records the next one while the GPU works (WebGPU: submitted by the next
// run with the same input and length). Such a recording must read what the input holds when it runs, not when it
// was recorded: here the input is rewritten between runs (a queued write), other calls that share the context's
// scratch buffers run between them, host inputs of one length change content, a subrange of the same buffer
// changes the length, and runs are queued several at a time. Every run must match the CPU twin.
TEST(Pipeline, RunsRecordedAheadReadTheirInputWhenTheyRun) {
  for (context* c : contexts()) {
    SCOPED_TRACE(name_of(*c));
    auto p = pipeline(*c, dtype::u32);
    p.select_if(predicate::expr("a % 2u == 0u")).sort(key_bits(0, 16)).unique().sort();
    auto q = pipeline(*c, dtype::u32);  // a sort first: the input is copied into the pipeline's buffer
    q.sort(key_bits(0, 12)).unique().select_if(predicate::expr("a > 100u"));
    auto r = pipeline(*c, dtype::u32);  // the same steps, host input only
    r.sort(key_bits(0, 12)).unique().select_if(predicate::expr("a > 100u"));
    const std::size_t n = 6007;
    device_vector<std::uint32_t> d(*c, n);
    std::uint32_t seed = 40;
    std::uint64_t p_dispatches = 0;
    for (int i = 0; i < 8; ++i) {
      SCOPED_TRACE("round " + std::to_string(i));
      std::vector<std::uint32_t> x = data_for(dtype::u32, n, ++seed);
      for (auto& v : x) v &= 0x1ffffu;
      d.assign(x);
      ASSERT_EQ(p.run(d.span()), p.reference(x.data(), n).size());
      EXPECT_EQ(p.output<std::uint32_t>(), p.reference(x.data(), n));
      if (i) EXPECT_EQ(p.kernels_created_last_run(), 0u) << "a replay created kernels";
      // A run recorded ahead reports its own recording's dispatches: the same as the run recorded when it came.
      if (i == 0) p_dispatches = p.dispatches_last_run();
      else EXPECT_EQ(p.dispatches_last_run(), p_dispatches);
      ASSERT_EQ(q.run(d.span()), q.reference(x.data(), n).size());
      EXPECT_EQ(q.output<std::uint32_t>(), q.reference(x.data(), n));
      if (i % 3 == 1) {
        // Other calls between runs: a sort and a select of their own data, through the same scratch buffers.
        std::vector<std::uint32_t> y = data_for(dtype::u32, 3 * n, seed + 100);
        device_vector<std::uint32_t> dy(*c, y);
        sort(*c, dy.span());
        std::vector<std::uint32_t> sy = y;
        std::stable_sort(sy.begin(), sy.end());
        EXPECT_EQ(dy.to_host(), sy);
      }
      if (i == 5) {
        // The same buffer, a shorter range: another length, so the recording made ahead is not the one to run.
        const std::size_t m = n - 1000;
        ASSERT_EQ(p.run(d.span().subspan(0, m)), p.reference(x.data(), m).size());
        EXPECT_EQ(p.output<std::uint32_t>(), p.reference(x.data(), m));
      }
      // Host input of one length, new content each time.
      std::vector<std::uint32_t> h = data_for(dtype::u32, n, seed + 200);
      for (auto& v : h) v &= 0xffffu;
      ASSERT_EQ(r.run(h), r.reference(h.data(), n).size());
      EXPECT_EQ(r.output<std::uint32_t>(), r.reference(h.data(), n));
    }
    // A step appended after runs were recorded ahead: the next run has it.
    {
      std::vector<std::uint32_t> x = data_for(dtype::u32, n, 500);
      d.assign(x);
      ASSERT_EQ(p.run(d.span()), p.reference(x.data(), n).size());
      ASSERT_EQ(p.run(d.span()), p.reference(x.data(), n).size());
      p.select_if(predicate::expr("a % 3u == 0u"));
      ASSERT_EQ(p.run(d.span()), p.reference(x.data(), n).size());
      EXPECT_EQ(p.output<std::uint32_t>(), p.reference(x.data(), n));
    }
    // Several runs queued, the input rewritten between them: the last one's result.
    std::vector<std::uint32_t> x;
    for (int i = 0; i < 4; ++i) {
      x = data_for(dtype::u32, n, 700 + static_cast<std::uint32_t>(i));
      d.assign(x);
      p.enqueue(d.span());
    }
    ASSERT_EQ(p.count().read(), p.reference(x.data(), n).size());
    EXPECT_EQ(p.output<std::uint32_t>(), p.reference(x.data(), n));
  }
}

// A pipeline holding a run recorded ahead may be replaced, destroyed, or outlive a move of its context: the
// recording is dropped unrun each time, and the context goes on (its other pipelines and calls match the twin).
TEST(Pipeline, RunsRecordedAheadAreDroppedWithTheirPipeline) {
  context c(webgpu_options());
  const std::size_t n = 5000;
  const std::vector<std::uint32_t> x = data_for(dtype::u32, n, 31);
  device_vector<std::uint32_t> d(c, x);
  auto make = [&](context& on) {
    auto p = pipeline(on, dtype::u32);
    p.unique().sort(key_bits(0, 20)).select_if(predicate::expr("a % 4u != 1u"));
    return p;
  };
  auto p = make(c);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(p.run(d.span()), p.reference(x.data(), n).size());
  p = make(c);  // the old one's recording dropped by the move-assignment
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(p.run(d.span()), p.reference(x.data(), n).size());
    EXPECT_EQ(p.output<std::uint32_t>(), p.reference(x.data(), n));
  }
  {
    auto q = make(c);
    for (int i = 0; i < 3; ++i) ASSERT_EQ(q.run(x), q.reference(x.data(), n).size());
  }  // destroyed holding one
  ASSERT_EQ(p.run(d.span()), p.reference(x.data(), n).size());  // holds one again
  context moved(std::move(c));
  p = pipeline(moved, dtype::u32);  // dropped after its context moved (a pipeline keeps the object it was made on)
  p.sort();
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(p.run(d.span()), n);
    std::vector<std::uint32_t> want = x;
    std::sort(want.begin(), want.end());
    EXPECT_EQ(p.output<std::uint32_t>(), want);
  }
}

TEST(Pipeline, EnqueueDoesNotWaitAndTypesAreChecked) {
  for (context* c : contexts()) {
    SCOPED_TRACE(name_of(*c));
    auto p = pipeline(*c, dtype::f32);
    p.select_if(predicate::expr("a > 0.0")).sort().unique();
    std::vector<float> x(9000);
    std::mt19937 rng(1);
    for (auto& v : x) v = static_cast<float>(static_cast<int>(rng() % 200) - 100) * 0.5f;
    p.enqueue(x);
    std::vector<std::uint32_t> bits(x.size());
    std::memcpy(bits.data(), x.data(), x.size() * 4);
    const std::vector<std::uint32_t> want = p.reference(bits.data(), bits.size());
    ASSERT_EQ(p.count().read(), want.size());
    std::vector<float> got = p.output<float>();
    std::vector<std::uint32_t> got_bits(got.size());
    std::memcpy(got_bits.data(), got.data(), got.size() * 4);
    EXPECT_EQ(got_bits, want);
    std::vector<std::uint32_t> wrong(10);
    EXPECT_THROW(p.run(wrong), error);
    EXPECT_THROW(p.sort(order::descending), error);
    EXPECT_THROW(pipeline(*c, dtype::u32).select_if(predicate::expr("a +")), error);
    EXPECT_THROW(pipeline(*c, dtype::f64), error);
  }
}

}  // namespace
}  // namespace wgprim::test

namespace wgprim::test {
namespace {

// Run-length encoding leaves its count of runs in a device_count (its encoder overload), and the next call takes
// its length from it: the sum of the run lengths, reduced over a counted range, is the input's length.
TEST(CountedReduce, OfRunLengthsCountedOnTheDevice) {
  context& c = ctx();
  for (std::size_t n : {0u, 1u, 4097u, 30001u}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const std::vector<std::uint32_t> x = data_for(dtype::u32, n, 41);
    device_vector<std::uint32_t> in(c, x), values(c, std::max<std::size_t>(n, 1)), lengths(c, std::max<std::size_t>(n, 1));
    device_vector<std::uint32_t> total(c, 1);
    device_count runs(c);
    WGPUCommandEncoder enc = c.begin_commands();
    run_length_encode(c, enc, in, values, lengths, runs);
    reduce(c, enc, counted(lengths, runs), total);
    c.submit(enc);
    std::vector<std::uint32_t> v(std::max<std::size_t>(n, 1)), l(std::max<std::size_t>(n, 1));
    const std::size_t want = reference::run_length_encode(x.data(), dtype::u32, n, v.data(), l.data());
    EXPECT_EQ(runs.read(), want);
    EXPECT_EQ(total.to_host()[0], n);
  }
}

}  // namespace
}  // namespace wgprim::test
