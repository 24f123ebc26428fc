// The native CPU backend (src/native/): selection, buffers in host memory, every primitive against the CPU
// twin (exact for integers and min/max, the derived bound for f32 sums, the GPU's bits for reproducible sums),
// and the errors of what it cannot do (recording into a WebGPU encoder).
#include <cstring>
#include <limits>

#include "common.hpp"
#include "gpu/gpu.hpp"

namespace wgprim::test {
namespace {

TEST(Native, SelectionAndDescription) {
  context& c = native_ctx();
  EXPECT_EQ(c.backend(), backend_choice::native);
  EXPECT_NE(c.adapter().name.find("native CPU (oneTBB, "), std::string::npos) << c.adapter().name;
  EXPECT_EQ(c.adapter().backend, "native");
  EXPECT_EQ(c.adapter().kind, adapter_kind::cpu);
  EXPECT_EQ(c.native_device(), nullptr);
  EXPECT_EQ(c.native_queue(), nullptr);
  EXPECT_EQ(ctx().backend(), backend_choice::webgpu);
  {
    context by_name(context_options{"cpu"});
    EXPECT_EQ(by_name.backend(), backend_choice::native);
  }
  // Without a GPU the best WebGPU adapter is a CPU adapter: the automatic choice is the native backend; a GPU
  // keeps the WGSL. Naming lavapipe's adapter runs the WGSL on it.
  const auto adapters = context::enumerate_adapters();
  const bool no_gpu = adapters.empty() || adapters.front().kind == adapter_kind::cpu;
  {
    context automatic;
    EXPECT_EQ(automatic.backend(), no_gpu ? backend_choice::native : backend_choice::webgpu);
  }
  for (const auto& a : adapters)
    if (a.kind == adapter_kind::cpu) {
      context named(context_options{a.name});
      EXPECT_EQ(named.backend(), backend_choice::webgpu) << a.name;
      break;
    }
  context_options bad{"cpu"};
  bad.backend = backend_choice::webgpu;
  try {
    context c2(bad);
    FAIL() << "adapter cpu with backend webgpu was accepted";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
  }
}

TEST(Native, BuffersAreHostMemory) {
  context& c = native_ctx();
  buffer b = c.create_buffer(40);
  ASSERT_TRUE(b);
  EXPECT_EQ(b.native(), nullptr);
  ASSERT_NE(b.host_data(), nullptr);
  std::vector<std::uint32_t> zero(10, 7);
  c.read(b, 0, zero.data(), 40);
  for (auto v : zero) EXPECT_EQ(v, 0u);  // zero-initialised, like a WebGPU buffer
  const std::vector<std::int32_t> host = {3, -4, 5};
  device_vector<std::int32_t> v(c, host);
  EXPECT_EQ(v.to_host(), (std::vector<std::int32_t>{3, -4, 5}));
  EXPECT_EQ(reduce(c, v), 4);
  buffer moved = std::move(b);
  EXPECT_FALSE(b);  // NOLINT: moved-from on purpose
  EXPECT_TRUE(moved);
  // A buffer of one context is refused by another, whichever backends they run.
  device_vector<std::uint32_t> gpu_side(ctx(), 4);
  try {
    reduce(c, gpu_side);
    FAIL() << "a buffer of a WebGPU context was accepted by a native one";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
  }
}

TEST(Native, WebGpuOnlyCallsAreUnsupported) {
  context& c = native_ctx();
  device_vector<std::uint32_t> in(c, 16), out(c, 16), res(c, 1);
  auto expect_unsupported = [](auto f, const char* what) {
    try {
      f();
      ADD_FAILURE() << what << " did not throw";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::unsupported) << what << ": " << e.what();
    }
  };
  // A non-null encoder is never dereferenced: the backend refuses before.
  auto fake = reinterpret_cast<WGPUCommandEncoder>(std::uintptr_t{1});
  expect_unsupported([&] { reduce(c, fake, in, res); }, "reduce into an encoder");
  expect_unsupported([&] { inclusive_scan(c, fake, in, out); }, "scan into an encoder");
  expect_unsupported([&] { testing::simulate_device_loss(c); }, "simulate_device_loss");
  // A type the backend does not take: its table's message (the WebGPU row names the adapter feature instead).
  try {
    reduce(c, std::vector<double>{1.0, 2.0});
    ADD_FAILURE() << "an f64 reduce ran on the native backend";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::unsupported);
    EXPECT_NE(std::string(e.what()).find("reduce over f64 needs a WebGPU context"), std::string::npos) << e.what();
  }
  // A primitive with no native implementation yet reaches the recorder or the kernel cache: one clear error.
  expect_unsupported([&] { detail::recorder rec(c); }, "a recorder");
  expect_unsupported([&] { detail::get_kernel(c, "@compute @workgroup_size(1) fn main() {}", "main", {}, false); },
                     "a kernel");
  run_options bad;
  bad.algorithm = "no-such-algorithm";
  try {
    reduce(c, in, op::sum(), bad);
    FAIL();
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
  }
}

void check_reduce_native(const monoid& m, const std::vector<std::uint32_t>& x, std::size_t n, bool on_device) {
  context& c = native_ctx();
  run_options o;
  run_stats st;
  o.stats = &st;
  std::uint32_t got;
  if (on_device) {
    buffer in = c.create_buffer(std::max<std::size_t>(n, 1) * 4);
    if (n) c.write(in, 0, x.data(), n * 4);
    got = reduce_bits(c, in, n, m, o);
  } else {
    detail::range_ref r;
    r.host = x.data();
    r.count = n;
    got = detail::reduce_bits(c, r, m, nullptr, o);
  }
  EXPECT_EQ(st.algorithm, "native");
  if (m.is_sum() && m.type() == dtype::f32) {
    const float* f = reinterpret_cast<const float*>(x.data());
    // The backend's longest chain: 32 per lane, the cascade and leaf tree (log2 n), the lane fold: below 64 + 16.
    double bound = f32_sum_bound(80, reference::abs_sum_f32(f, n));
    EXPECT_LE(std::fabs(from_bits<float>(got) - reference::exact_sum_f32(f, n)), bound) << describe(m, n);
  } else {
    std::uint32_t want = reference::reduce(x.data(), n, m);
    if (m.type() == dtype::f32 && std::isnan(from_bits<float>(want)))
      EXPECT_TRUE(std::isnan(from_bits<float>(got))) << describe(m, n);
    else
      EXPECT_EQ(got, want) << describe(m, n) << " got " << format_bits(m.type(), got) << " want "
                           << format_bits(m.type(), want);
  }
}

TEST(Native, ReduceEveryOpTypeAndEdgeSize) {
  auto sizes = edge_sizes(18);
  for (std::size_t extra : {std::size_t(1) << 15, (std::size_t(1) << 15) + 1, std::size_t(1) << 16,
                            (std::size_t(1) << 16) + 1, (std::size_t(5) << 16) + 3})
    sizes.push_back(extra);
  for (dtype t : {dtype::f32, dtype::i32, dtype::u32}) {
    auto data = make_data(t, *std::max_element(sizes.begin(), sizes.end()), 21 + static_cast<int>(t));
    for (const op& o : ops_for(t)) {
      monoid m(o, t);
      for (std::size_t n : sizes) check_reduce_native(m, data, n, n % 2 == 0);
    }
  }
}

TEST(Native, ReduceNanAndInitAndHost) {
  context& c = native_ctx();
  std::vector<float> v(100003, 1.0f);
  v[77777] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(reduce(c, v, op::min())));
  EXPECT_TRUE(std::isnan(reduce(c, v, op::max())));
  EXPECT_TRUE(std::isnan(reduce(c, v)));
  v[77777] = -std::numeric_limits<float>::infinity();
  EXPECT_EQ(reduce(c, v, op::min()), -INFINITY);
  EXPECT_EQ(reduce(c, std::vector<std::int32_t>{5, -7, 3}, 100, op::sum()), 101);
  EXPECT_EQ(reduce(c, std::vector<std::uint32_t>{}, op::min()), 0xffffffffu);
  EXPECT_EQ(reduce(c, std::vector<std::uint32_t>{0xffffffffu, 2u}), 1u);
}

std::vector<float> mixed_data(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> mag(-8.0f, 8.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = std::exp2(mag(rng)) * ((rng() & 1) ? 1.0f : -1.0f);
  return v;
}

TEST(Native, ReproducibleBitsEqualTheGpuTwin) {
  // The same bits as reference::correctly_rounded_sum_f32, the twin of the GPU's reproducible (exact) reduce
  // (test_numerics checks the GPU against the same twin), at sizes around the leaves (65,536) of the native sum.
  run_options o;
  o.accuracy = accuracy::reproducible;
  for (std::size_t n : {1u, 2u, 255u, 256u, 4095u, 4096u, 4097u, 65535u, 65536u, 65537u, 300001u, 1u << 22}) {
    auto x = mixed_data(n, static_cast<std::uint32_t>(n));
    if (n > 5) x[n / 3] = 3e38f;  // a partial sum near overflow
    const std::uint32_t want = to_bits(reference::correctly_rounded_sum_f32(x.data(), n));
    EXPECT_EQ(to_bits(reduce(native_ctx(), x, op::sum(), o)), want) << "n=" << n;
    if (n == 300001u) EXPECT_EQ(to_bits(reduce(ctx(), x, op::sum(), o)), want) << "GPU n=" << n;
  }
  std::vector<float> inf(9000, 1.0f);
  inf[5] = INFINITY;
  EXPECT_EQ(reduce(native_ctx(), inf, op::sum(), o), INFINITY);
  inf[8000] = -INFINITY;
  EXPECT_TRUE(std::isnan(reduce(native_ctx(), inf, op::sum(), o)));
}

TEST(Native, CompensatedIsWithinOneUlp) {
  run_options o;
  o.accuracy = accuracy::compensated;
  for (std::size_t n : {1000u, 65537u, 1u << 20}) {
    auto x = mixed_data(n, 3);
    EXPECT_LE(reference::ulp_error_f32(reduce(native_ctx(), x, op::sum(), o), reference::exact_sum_f32(x.data(), n)), 1.0)
        << "n=" << n;
  }
}

void check_scan_native(const monoid& m, const std::vector<std::uint32_t>& x, std::size_t n, scan_kind k,
                       const std::uint32_t* init, accuracy acc = accuracy::fast) {
  context& c = native_ctx();
  run_options o;
  o.accuracy = acc;
  std::vector<std::uint32_t> got(n);
  const std::uint64_t init64 = init ? *init : 0;
  const std::uint64_t* init_raw = init ? &init64 : nullptr;
  detail::range_ref in, out;
  if (n % 3 == 0) {  // device ranges; every third size in place
    buffer b_in = c.create_buffer(std::max<std::size_t>(n, 1) * 4), b_out = c.create_buffer(std::max<std::size_t>(n, 1) * 4);
    if (n) c.write(b_in, 0, x.data(), n * 4);
    const bool in_place = n % 2 == 0;
    in = detail::in_ref(device_span<const std::uint32_t>(b_in, 0, n));
    out = detail::out_ref(device_span<std::uint32_t>(in_place ? b_in : b_out, 0, n));
    detail::scan_run(c, nullptr, in, out, m, k, init_raw, o);
    if (n) c.read(in_place ? b_in : b_out, 0, got.data(), n * 4);
  } else {
    in.host = x.data();
    in.count = n;
    out.host_out = got.data();
    out.count = n;
    detail::scan_run(c, nullptr, in, out, m, k, init_raw, o);
  }
  std::vector<std::uint32_t> want(n);
  // The twin with init: init in front (an element before x[0] for inclusive; the start for exclusive).
  if (init && k == scan_kind::inclusive) {
    std::vector<std::uint32_t> y(n + 1), w(n + 1);
    y[0] = *init;
    std::copy(x.begin(), x.begin() + n, y.begin() + 1);
    reference::inclusive_scan(y.data(), n + 1, w.data(), m);
    std::copy(w.begin() + 1, w.end(), want.begin());
  } else if (init) {
    std::uint32_t a = *init;
    for (std::size_t i = 0; i < n; ++i) want[i] = a, a = m.combine(a, x[i]);
  } else if (k == scan_kind::inclusive) {
    reference::inclusive_scan(x.data(), n, want.data(), m);
  } else {
    reference::exclusive_scan(x.data(), n, want.data(), m);
  }
  const bool f32_sum = m.is_sum() && m.type() == dtype::f32;
  long double exact = init && f32_sum ? from_bits<float>(*init) : 0, abs_sum = init && f32_sum ? std::fabs(from_bits<float>(*init)) : 0;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (f32_sum) {
      long double e0 = exact, a0 = abs_sum;
      exact += from_bits<float>(x[i]);
      abs_sum += std::fabs(from_bits<float>(x[i]));
      double w = static_cast<double>(k == scan_kind::inclusive ? exact : e0);
      double a = static_cast<double>(k == scan_kind::inclusive ? abs_sum : a0);
      // fast: h = 66 + n / 1,024 (scan.cpp); double-word: one rounding of the prefix plus u^2 terms
      double bound = acc == accuracy::fast ? f32_sum_bound(66 + std::ceil(n / 1024.0), a)
                                           : std::fabs(w) * std::ldexp(1.0, -24) + a * std::ldexp(1.0, -40);
      bad += !(std::fabs(from_bits<float>(got[i]) - w) <= bound);
    } else if (m.type() == dtype::f32) {
      float g = from_bits<float>(got[i]), wv = from_bits<float>(want[i]);
      bad += !(std::isnan(wv) ? std::isnan(g) : g == wv);
    } else {
      bad += got[i] != want[i];
    }
  }
  EXPECT_EQ(bad, 0u) << describe(m, n) << (k == scan_kind::inclusive ? " inclusive" : " exclusive")
                     << (init ? " init" : "") << " " << accuracy_name(acc);
}

TEST(Native, ScanEveryOpTypeKindInitAndEdgeSize) {
  auto sizes = edge_sizes(17);
  for (std::size_t extra : {16383u, 16384u, 16385u, 3u * 16384u, 3u * 16384u + 1u, 7u * 16384u + 999u})
    sizes.push_back(extra);
  for (dtype t : {dtype::f32, dtype::i32, dtype::u32}) {
    auto data = make_data(t, *std::max_element(sizes.begin(), sizes.end()), 31 + static_cast<int>(t));
    for (const op& o : ops_for(t)) {
      monoid m(o, t);
      const std::uint32_t init = t == dtype::f32 ? to_bits(2.5f) : 12345u;
      for (std::size_t n : sizes)
        for (scan_kind k : {scan_kind::inclusive, scan_kind::exclusive}) {
          check_scan_native(m, data, n, k, nullptr);
          if (n % 5 == 0) check_scan_native(m, data, n, k, &init);
        }
    }
  }
}

TEST(Native, ScanLookBackFallbackGivesTheSameResults) {
  // Exact operators look back over earlier tiles and reduce a tile themselves when its thread is slow; the
  // stress hook makes that happen on every third tile.
  context& c = native_ctx();
  testing::set_lookback_stress(c, true);
  for (dtype t : {dtype::u32, dtype::i32, dtype::f32}) {
    auto data = make_data(t, 400003, 41 + static_cast<int>(t));
    for (const char* name : {"sum", "max", "min"}) {
      if (t == dtype::f32 && std::string(name) == "sum") continue;  // f32 sums keep the plain chain
      monoid m(op::parse(name), t);
      for (std::size_t n : {3u * 16384u + 1u, 100000u, 400003u})
        for (scan_kind k : {scan_kind::inclusive, scan_kind::exclusive}) check_scan_native(m, data, n, k, nullptr);
    }
  }
  testing::set_lookback_stress(c, false);
}

TEST(Native, ScanNonCommutativeCustomOperatorKeepsOrder) {
  // "The first non-zero": associative, not commutative, so any regrouping or reordering would show.
  monoid first(op::custom("select(a, b, a == 0u)", "0"), dtype::u32);
  std::vector<std::uint32_t> x(200001, 0);
  for (std::size_t i = 0; i < x.size(); i += 97) x[i] = static_cast<std::uint32_t>(i + 1);
  x[0] = 0;
  for (scan_kind k : {scan_kind::inclusive, scan_kind::exclusive}) check_scan_native(first, x, x.size(), k, nullptr);
}

TEST(Native, ScanAccuracyModes) {
  for (std::size_t n : {1000u, 16385u, 300001u})
    for (accuracy a : {accuracy::compensated, accuracy::reproducible}) {
      auto f = mixed_data(n, 9);
      std::vector<std::uint32_t> x(n);
      std::memcpy(x.data(), f.data(), n * 4);
      monoid m(op::sum(), dtype::f32);
      const std::uint32_t init = to_bits(1.25f);
      for (scan_kind k : {scan_kind::inclusive, scan_kind::exclusive}) {
        check_scan_native(m, x, n, k, nullptr, a);
        check_scan_native(m, x, n, k, &init, a);
      }
    }
}

TEST(Native, CopyAndShiftedInPlaceScan) {
  context& c = native_ctx();
  const std::size_t n = 3'000'001;
  std::vector<std::uint32_t> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<std::uint32_t>(i * 2654435761u);
  device_vector<std::uint32_t> a(c, x), b(c, n);
  copy(c, a, b);
  EXPECT_EQ(b.to_host(), x);
  try {
    copy(c, a.span().first(10), a.span().subspan(20, 10));
    FAIL();
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
  }
  // Input elements [0, n-1) scanned into [1, n) of the same buffer: overlapping views.
  inclusive_scan(c, a.span().first(n - 1), a.span().subspan(1));
  std::vector<std::uint32_t> want(n - 1);
  reference::inclusive_scan(x.data(), n - 1, want.data(), monoid(op::sum(), dtype::u32));
  auto got = a.to_host();
  EXPECT_EQ(got[0], x[0]);
  EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin() + 1));
}

}  // namespace
}  // namespace wgprim::test
