// arg-min / arg-max: every type x both ops over edge sizes against the CPU twin (value bits and index exactly),
// NumPy's rules (first index of ties, the first NaN wins, -0.0 == +0.0), empty input, the policy's code paths,
// arrays over several storage bindings (64-bit indices carried across chunks) and the encoder overload.

#include <limits>

#include "common.hpp"

namespace wgprim::test {
namespace {

const dtype all_types[] = {dtype::f32, dtype::i32, dtype::u32};
const arg_op both_ops[] = {arg_op::min, arg_op::max};

std::string what(dtype t, arg_op o, std::size_t n) {
  return std::string(dtype_name(t)) + (o == arg_op::max ? " argmax" : " argmin") + " n=" + std::to_string(n);
}

// GPU (runtime-typed path over a device buffer) against the twin.
void check(context& c, dtype t, arg_op o, const std::uint32_t* x, std::size_t n, const tuning& tune = {}) {
  run_options opt;
  opt.tune = tune;
  buffer in = c.create_buffer(n * 4);
  c.write(in, 0, x, n * 4);
  const arg_result<std::uint32_t> got = arg_reduce_bits(c, in, n, t, o, opt);
  const arg_result<std::uint32_t> want = reference::arg_reduce(x, n, t, o);
  EXPECT_EQ(got.index, want.index) << what(t, o, n);
  EXPECT_EQ(got.value, want.value) << what(t, o, n) << " got " << format_bits(t, got.value) << " want "
                                   << format_bits(t, want.value);
  ASSERT_LT(got.index, n) << what(t, o, n);
  EXPECT_EQ(got.value, x[got.index]) << what(t, o, n) << ": the value is not the element at the index";
}

// Data with many ties: few distinct values, so the first-index rule decides most comparisons.
std::vector<std::uint32_t> few_values(dtype t, std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) {
    int k = static_cast<int>(rng() % 5) - 2;
    x = t == dtype::f32 ? to_bits(static_cast<float>(k)) : static_cast<std::uint32_t>(k);
  }
  return v;
}

TEST(ArgReduce, EveryTypeAndEdgeSize) {
  auto sizes = edge_sizes(20);
  for (dtype t : all_types) {
    auto random = make_data(t, sizes.back(), 31 + static_cast<int>(t));
    auto ties = few_values(t, sizes.back(), 37 + static_cast<int>(t));
    for (arg_op o : both_ops)
      for (std::size_t n : sizes) {
        if (n == 0) continue;
        check(ctx(), t, o, random.data(), n);
        check(ctx(), t, o, ties.data(), n);
      }
  }
}

TEST(ArgReduce, PolicyVariants) {
  // Subgroups or workgroup memory, vec4 or scalar loads, few workgroups with odd items, the single dispatch.
  std::vector<tuning> variants;
  for (int sg : {0, 1})
    for (int vec : {0, 1}) {
      tuning v;
      v.subgroups = sg;
      v.vec_loads = vec;
      v.workgroups = 3;
      v.items = 3;  // odd on purpose
      variants.push_back(v);
    }
  tuning single;
  single.workgroups = 1;
  single.small_n = 1;
  variants.push_back(single);
  for (dtype t : all_types) {
    auto x = few_values(t, 300007, 41 + static_cast<int>(t));
    for (arg_op o : both_ops) {
      if (t != dtype::f32 && o == arg_op::min) continue;  // the ops' code paths differ only in the compare
      for (const tuning& v : variants)
        for (std::size_t n : {1u, 5u, 4097u, 65537u, 300007u}) check(ctx(), t, o, x.data(), n, v);
    }
  }
}

TEST(ArgReduce, FirstIndexOfTies) {
  for (dtype t : all_types)
    for (std::size_t n : {1u, 2u, 4097u, 70001u}) {
      std::vector<std::uint32_t> x(n, t == dtype::f32 ? to_bits(1.5f) : 7u);
      for (arg_op o : both_ops) check(ctx(), t, o, x.data(), n);  // all equal: index 0
      if (n < 3) continue;
      // The extreme at three places, the earliest past the first tile for the larger sizes.
      std::vector<std::uint32_t> y(n, t == dtype::f32 ? to_bits(0.0f) : 3u);
      for (std::size_t at : {n / 2, n - 1, n / 3 + 1}) y[at] = t == dtype::f32 ? to_bits(9.0f) : 100u;
      check(ctx(), t, arg_op::max, y.data(), n);
      EXPECT_EQ(reference::arg_reduce(y.data(), n, t, arg_op::max).index, std::min({n / 2, n - 1, n / 3 + 1}));
    }
}

TEST(ArgReduce, WorstValueEverywhere) {
  // Every element equals the identity's value (-inf / INT_MIN / 0 for argmax, +inf / INT_MAX / UINT_MAX for
  // argmin): no element beats the identity, the answer is index 0.
  struct c { dtype t; arg_op o; std::uint32_t bits; };
  for (const c& k : {c{dtype::f32, arg_op::max, 0xff800000u}, c{dtype::f32, arg_op::min, 0x7f800000u},
                     c{dtype::i32, arg_op::max, 0x80000000u}, c{dtype::i32, arg_op::min, 0x7fffffffu},
                     c{dtype::u32, arg_op::max, 0u}, c{dtype::u32, arg_op::min, 0xffffffffu}})
    for (std::size_t n : {1u, 5u, 4096u, 100003u}) {
      std::vector<std::uint32_t> x(n, k.bits);
      check(ctx(), k.t, k.o, x.data(), n);
      if (n > 3) {
        x[n - 2] = k.o == arg_op::max ? k.bits + 1 : k.bits - 1;  // one better element near the end
        if (k.t == dtype::f32) x[n - 2] = to_bits(0.0f);
        check(ctx(), k.t, k.o, x.data(), n);
      }
    }
}

TEST(ArgReduce, NanFirstLastOnlyAndSignedZeros) {
  const std::uint32_t qnan = 0x7fc00000u, neg_nan = 0xffc00001u, payload_nan = 0x7f800123u;
  for (std::size_t n : {1u, 2u, 3u, 4095u, 4097u, 65537u, 200001u}) {
    auto base = make_data(dtype::f32, n, 53);
    for (arg_op o : both_ops) {
      auto x = base;
      x[0] = qnan;  // NaN first
      check(ctx(), dtype::f32, o, x.data(), n);
      x = base;
      x[n - 1] = payload_nan;  // NaN last (a signalling-pattern payload: its bits must come back)
      check(ctx(), dtype::f32, o, x.data(), n);
      x = base;
      for (std::size_t i = n / 3; i < n; i += 997) x[i] = (i % 2) ? neg_nan : qnan;  // several: the first wins
      check(ctx(), dtype::f32, o, x.data(), n);
      std::vector<std::uint32_t> only(n, qnan);  // only NaN
      only[n - 1] = neg_nan;
      check(ctx(), dtype::f32, o, only.data(), n);
      // -0.0 and +0.0 compare equal (NumPy): the first zero wins and its own bits come back.
      std::vector<std::uint32_t> zeros(n, 0x80000000u);
      for (std::size_t i = 1; i < n; i += 2) zeros[i] = 0u;
      check(ctx(), dtype::f32, o, zeros.data(), n);
      if (n > 1) {
        zeros[0] = 0u;
        zeros[1] = 0x80000000u;
        check(ctx(), dtype::f32, o, zeros.data(), n);
      }
    }
  }
  // The twin itself on hand-checked cases (NumPy: argmax([1, nan, 3, nan]) == 1, argmin([-0.0, 0.0]) == 0).
  std::vector<std::uint32_t> a = {to_bits(1.0f), qnan, to_bits(3.0f), neg_nan};
  EXPECT_EQ(reference::arg_reduce(a.data(), a.size(), dtype::f32, arg_op::max).index, 1u);
  EXPECT_EQ(reference::arg_reduce(a.data(), a.size(), dtype::f32, arg_op::min).index, 1u);
  std::vector<std::uint32_t> z = {0x80000000u, 0u};
  EXPECT_EQ(reference::arg_reduce(z.data(), 2, dtype::f32, arg_op::max).value, 0x80000000u);
}

TEST(ArgReduce, TypedApiHostAndDevice) {
  std::vector<float> f = {3.0f, -1.0f, 7.5f, 7.5f, -2.0f};
  auto r = argmax(ctx(), f);
  EXPECT_EQ(r.index, 2u);
  EXPECT_EQ(r.value, 7.5f);
  auto s = argmin(ctx(), f.data(), f.size());
  EXPECT_EQ(s.index, 4u);
  EXPECT_EQ(s.value, -2.0f);
  std::vector<std::int32_t> iv = {5, -9, 4, -9};
  device_vector<std::int32_t> d(ctx(), iv);
  EXPECT_EQ(argmin(ctx(), d).index, 1u);
  EXPECT_EQ(argmax(ctx(), d).value, 5);
  // A sub-range at an unaligned offset (copied to a bindable temporary): indices are relative to the span.
  device_span<const std::int32_t> sub = device_span<const std::int32_t>(d.span()).subspan(2);
  EXPECT_EQ(argmin(ctx(), sub).index, 1u);
  EXPECT_EQ(argmax(ctx(), sub).value, 4);
  std::vector<std::uint32_t> uv = {1u, 0xffffffffu, 2u};
  EXPECT_EQ(argmax(ctx(), host_span<const std::uint32_t>(uv)).index, 1u);
  run_stats st;
  run_options opt;
  opt.stats = &st;
  argmax(ctx(), uv, opt);
  EXPECT_EQ(st.algorithm, "fast");
}

TEST(ArgReduce, EmptyIsAnError) {
  std::vector<float> none;
  auto expect_invalid = [](auto f) {
    try {
      f();
      ADD_FAILURE() << "no error for an empty range";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos) << e.what();
    }
  };
  expect_invalid([&] { argmax(ctx(), none); });
  expect_invalid([&] { argmin(ctx(), none.data(), 0); });
  device_vector<std::uint32_t> d(ctx(), 0);
  expect_invalid([&] { argmin(ctx(), d); });
  expect_invalid([&] { reference::arg_reduce(nullptr, 0, dtype::u32, arg_op::max); });
}

TEST(ArgReduce, PastOneBinding) {
  // 16 KiB bindings: 4,096 elements per chunk, so these arrays span up to ~100 chunks; the extreme value sits in
  // a late chunk, and ties across chunks must resolve to the earlier chunk.
  context c(webgpu_options());
  testing::set_binding_limit(c, 16384);
  for (dtype t : all_types)
    for (std::size_t n : {4095u, 4096u, 4097u, 8193u, 65537u, 409601u}) {
      auto x = few_values(t, n, 61 + static_cast<int>(t));
      for (arg_op o : both_ops) check(c, t, o, x.data(), n);
      const std::uint32_t big = t == dtype::f32 ? to_bits(50.0f) : 50u;
      x[n - 1] = big;  // the last element, in the last chunk
      check(c, t, arg_op::max, x.data(), n);
      if (n > 8192) {
        x[4096 + 17] = big;  // the same value earlier, in the second chunk: that index wins
        check(c, t, arg_op::max, x.data(), n);
      }
    }
  auto f = make_data(dtype::f32, 300001, 67);
  f[250000] = 0x7fc00000u;
  f[290000] = 0x7fc00000u;
  check(c, dtype::f32, arg_op::min, f.data(), f.size());
  // The same sizes through the tuned single-dispatch threshold (small_n above the chunk size must still chunk).
  tuning big_single;
  big_single.small_n = 1u << 20;
  check(c, dtype::u32, arg_op::max, few_values(dtype::u32, 300001, 71).data(), 300001, big_single);
}

TEST(ArgReduce, RecordedIntoTheCallersEncoder) {
  auto x = few_values(dtype::f32, 100003, 73);
  x[77777] = to_bits(9.0f);
  device_vector<float> d(ctx(), host_span<const float>(reinterpret_cast<const float*>(x.data()), x.size()));
  buffer out = ctx().create_buffer(64);
  WGPUCommandEncoder enc = ctx().begin_commands();
  argmax(ctx(), enc, d, device_span<std::uint32_t>(out, 1, 3));  // at word 1: an unaligned result
  argmin(ctx(), enc, d.span().first(5), device_span<std::uint32_t>(out, 8, 3));
  EXPECT_THROW(argmin(ctx(), enc, d, device_span<std::uint32_t>(out, 0, 2)), error);  // too short
  ctx().submit(enc);
  std::uint32_t words[16];
  ctx().read(out, 0, words, sizeof words);
  auto want_max = reference::arg_reduce(x.data(), x.size(), dtype::f32, arg_op::max);
  auto want_min = reference::arg_reduce(x.data(), 5, dtype::f32, arg_op::min);
  EXPECT_EQ(words[1], want_max.value);
  EXPECT_EQ(words[2] | (std::uint64_t(words[3]) << 32), want_max.index);
  EXPECT_EQ(want_max.index, 77777u);
  EXPECT_EQ(words[8], want_min.value);
  EXPECT_EQ(words[9] | (std::uint64_t(words[10]) << 32), want_min.index);
}

}  // namespace
}  // namespace wgprim::test
