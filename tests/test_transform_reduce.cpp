// transform_reduce / count-if: the unary expression front end (types inferred, conversions, errors) and the fused
// reduction against the CPU twin over input types x transforms x ops x edge sizes (exact: integer results, f32
// min/max, and f32 sums of small integers whose partial sums are all exact), chunked arrays, the typed API and
// the encoder overload.

#include "core/expr.hpp"
#include "common.hpp"

namespace wgprim::test {
namespace {

TEST(TransformExpr, InfersTheResultType) {
  struct c { const char* text; dtype in, out; };
  for (const c& k : {c{"a * a", dtype::f32, dtype::f32}, c{"a * a", dtype::i32, dtype::i32},
                     c{"select(0u, 1u, a > 10)", dtype::f32, dtype::u32},
                     c{"select(0u, 1u, a > 10)", dtype::i32, dtype::u32}, c{"f32(a) * 0.5", dtype::i32, dtype::f32},
                     c{"u32(a)", dtype::f32, dtype::u32}, c{"i32(a) + 1", dtype::u32, dtype::i32},
                     c{"a + 1", dtype::u32, dtype::u32}, c{"7", dtype::i32, dtype::i32}, c{"2.5", dtype::u32, dtype::f32},
                     c{"(3)", dtype::f32, dtype::f32}, c{"min(1, a)", dtype::u32, dtype::u32},
                     c{"select(2, 1, a > 0.5)", dtype::f32, dtype::f32}, c{"abs(a - 3)", dtype::i32, dtype::i32},
                     c{"f32(5)", dtype::u32, dtype::f32}, c{"a << 3", dtype::u32, dtype::u32}}) {
    auto p = detail::expr_program::unary(k.text, k.in);
    EXPECT_EQ(p.result_type(), k.out) << k.text << " over " << dtype_name(k.in);
    EXPECT_EQ(transform::expr(k.text).result_type(k.in), k.out) << k.text;
  }
  // Values: the twin evaluates with WGSL semantics.
  auto sq = detail::expr_program::unary("a * a", dtype::f32);
  EXPECT_EQ(from_bits<float>(sq.eval(to_bits(-3.0f), 0)), 9.0f);
  auto cnt = detail::expr_program::unary("select(0u, 1u, a > 10)", dtype::i32);
  EXPECT_EQ(cnt.eval(11u, 0), 1u);
  EXPECT_EQ(cnt.eval(10u, 0), 0u);
  auto conv = detail::expr_program::unary("i32(a)", dtype::f32);
  EXPECT_EQ(static_cast<std::int32_t>(conv.eval(to_bits(-2.75f), 0)), -2);  // toward zero
  EXPECT_EQ(conv.eval(to_bits(3e9f), 0), 0x7fffff80u);                    // saturates at the largest f32 below 2^31
  EXPECT_EQ(conv.eval(0x7fc00000u, 0), 0u);                               // NaN -> 0
  auto conv_u = detail::expr_program::unary("u32(a)", dtype::f32);
  EXPECT_EQ(conv_u.eval(to_bits(-5.0f), 0), 0u);
  auto bits = detail::expr_program::unary("u32(a)", dtype::i32);
  EXPECT_EQ(bits.eval(0xfffffffeu, 0), 0xfffffffeu);  // i32 -> u32 keeps the bits
  auto tof = detail::expr_program::unary("f32(a)", dtype::u32);
  EXPECT_EQ(from_bits<float>(tof.eval(4000000000u, 0)), 4e9f);
  // Operators are unchanged: still one type, no conversions.
  EXPECT_THROW(detail::expr_program("u32(a)", dtype::u32), error);
}

TEST(TransformExpr, RejectsWithAClearMessage) {
  struct c { const char* text; dtype in; const char* says; };
  for (const c& k : {c{"a + 1u", dtype::f32, "different types"}, c{"a + b", dtype::f32, "one operand"},
                     c{"a > 1", dtype::f32, "bool"}, c{"-1", dtype::u32, "not a valid u32"},
                     c{"a & 1", dtype::f32, "not defined for f32"}, c{"select(0u, 1, a)", dtype::f32, "needs bools"},
                     c{"u32(a", dtype::f32, "missing ')'"}, c{"sqrt(a)", dtype::f32, "unknown name"},
                     c{"u32(-1)", dtype::f32, "not a valid u32"}, c{"", dtype::f32, "ends too early"}}) {
    try {
      detail::expr_program::unary(k.text, k.in);
      ADD_FAILURE() << "accepted '" << k.text << "'";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::invalid_argument);
      const std::string m = e.what();
      EXPECT_NE(m.find(k.says), std::string::npos) << k.text << ": " << m;
      EXPECT_EQ(m.rfind("transform: ", 0), 0u) << m;
    }
  }
}

struct tcase { const char* text; op o; };

// Transforms per input type whose results the twin must equal bit for bit (integer results; f32 results only
// under min/max, or sums of small integers).
std::vector<tcase> cases_for(dtype t) {
  if (t == dtype::f32)
    return {{"a * a", op::max()}, {"select(0u, 1u, a > 0.25)", op::sum()}, {"i32(a * 3e9)", op::sum()},
            {"u32(a * 1000.0)", op::max()}, {"abs(a)", op::min()}, {"f32(i32(a * 8.0))", op::max()},
            {"-a", op::max()}};
  if (t == dtype::i32)
    return {{"a * a", op::sum()}, {"select(0u, 1u, a > 10)", op::sum()}, {"f32(a & 15)", op::sum()},
            {"f32(a)", op::max()}, {"u32(a) >> 28", op::sum()}, {"abs(a) & 1023", op::bit_xor()}};
  return {{"a % 10", op::sum()}, {"select(0, 1, a > 0x80000000u)", op::sum()}, {"i32(a)", op::min()},
          {"f32(a >> 8)", op::max()}, {"a ^ 0x5555u", op::bit_or()}};
}

std::vector<std::uint32_t> data_for(dtype t, std::size_t n, std::uint32_t seed) {
  auto x = make_data(t, n, seed);
  if (t == dtype::f32) {
    // A few NaN and infinities (the conversions define them), the rest in [-1, 1).
    for (std::size_t i = 5; i < n; i += 1009) x[i] = (i % 3 == 0) ? 0x7fc00000u : (i % 3 == 1) ? 0x7f800000u : 0xff800000u;
  }
  return x;
}

std::uint32_t run_gpu(context& c, const std::vector<std::uint32_t>& x, std::size_t n, dtype t, const tcase& k,
                      const tuning& tune = {}) {
  buffer in = c.create_buffer(std::max<std::size_t>(n, 1) * 4);
  if (n) c.write(in, 0, x.data(), n * 4);
  run_options opt;
  opt.tune = tune;
  return transform_reduce_bits(c, in, n, t, transform::expr(k.text), k.o, opt);
}

void check(context& c, const std::vector<std::uint32_t>& x, std::size_t n, dtype t, const tcase& k,
           const tuning& tune = {}) {
  const bound_transform b(transform::expr(k.text), t);
  const monoid m(k.o, b.result_type());
  const std::uint32_t got = run_gpu(c, x, n, t, k, tune);
  const std::uint32_t want = reference::transform_reduce(x.data(), n, b, m);
  EXPECT_EQ(got, want) << dtype_name(t) << " " << k.text << " " << m.name() << " n=" << n << " got "
                       << format_bits(m.type(), got) << " want " << format_bits(m.type(), want);
}

TEST(TransformReduce, EveryTypeTransformAndEdgeSize) {
  auto sizes = edge_sizes(18);
  for (dtype t : {dtype::f32, dtype::i32, dtype::u32}) {
    auto x = data_for(t, sizes.back(), 81 + static_cast<int>(t));
    for (const tcase& k : cases_for(t))
      for (std::size_t n : sizes) check(ctx(), x, n, t, k);
  }
}

TEST(TransformReduce, PolicyVariantsAndChunks) {
  std::vector<tuning> variants;
  for (int sg : {0, 1})
    for (int vec : {0, 1}) {
      tuning v;
      v.subgroups = sg;
      v.vec_loads = vec;
      v.workgroups = 3;
      variants.push_back(v);
    }
  for (dtype t : {dtype::f32, dtype::i32, dtype::u32}) {
    auto x = data_for(t, 300007, 91 + static_cast<int>(t));
    const auto cases = cases_for(t);
    for (std::size_t c = 0; c < cases.size(); ++c) {
      if (c < 2)  // the load paths do not depend on the expression: two per type
        for (const tuning& v : variants)
          for (std::size_t n : {5u, 4097u, 65537u, 300007u}) check(ctx(), x, n, t, cases[c], v);
      check(small_binding_ctx(), x, 300007, t, cases[c]);  // over several 1 MiB bindings
    }
  }
}

TEST(TransformReduce, SumOfSquaresWithinTheBound) {
  // f32 sums in a tree: within gamma_h * sum |x_i^2| of the exact sum of the squares (h as in the reduce tests).
  for (std::size_t n : {1u, 1000u, 65537u, 1000003u}) {
    auto x = make_data(dtype::f32, n, 97);
    std::vector<float> y(n);
    for (std::size_t i = 0; i < n; ++i) y[i] = from_bits<float>(x[i]) * from_bits<float>(x[i]);
    std::vector<float> f(n);
    for (std::size_t i = 0; i < n; ++i) f[i] = from_bits<float>(x[i]);
    const float got = transform_reduce(ctx(), f, transform::expr("a * a"), op::sum());
    const double exact = reference::exact_sum_f32(y.data(), n);
    const double h = std::ceil(static_cast<double>(n) / 65536.0) + 64 + 2;
    EXPECT_LE(std::fabs(got - exact), f32_sum_bound(h, reference::abs_sum_f32(y.data(), n))) << "n=" << n;
  }
}

TEST(TransformReduce, TypedApi) {
  std::vector<float> f = {1.0f, 12.0f, -3.0f, 11.5f, 10.0f};
  EXPECT_EQ(transform_reduce(ctx(), f, transform::expr("a * a")), 1.0f + 144.0f + 9.0f + 132.25f + 100.0f);
  EXPECT_EQ(transform_reduce<std::uint32_t>(ctx(), f, transform::expr("select(0u, 1u, a > 10)")), 2u);
  EXPECT_EQ(transform_reduce(ctx(), f, transform::expr("select(0u, 1u, a > 10)"), 100u), 102u);  // init: u32
  std::vector<std::int32_t> iv = {-7, 3, -9, 4};
  device_vector<std::int32_t> d(ctx(), iv);
  EXPECT_EQ(transform_reduce(ctx(), d, transform::expr("abs(a)"), op::max()), 9);
  EXPECT_EQ(transform_reduce<float>(ctx(), d, transform::expr("f32(a) * 0.5")), -4.5f);
  EXPECT_EQ(transform_reduce(ctx(), std::vector<std::int32_t>{}, transform::expr("a * a")), 0);  // n = 0: identity
  // The wrong result type is a clear error naming the transform's type.
  try {
    transform_reduce(ctx(), f, transform::expr("select(0u, 1u, a > 10)"));
    ADD_FAILURE() << "no error";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("yields u32"), std::string::npos) << e.what();
  }
  run_options comp;
  comp.accuracy = accuracy::compensated;
  EXPECT_THROW(transform_reduce(ctx(), f, transform::expr("a * a"), op::sum(), comp), error);
  run_options seed;
  seed.algorithm = "seed";
  EXPECT_THROW(transform_reduce(ctx(), f, transform::expr("a * a"), op::sum(), seed), error);
}

TEST(TransformReduce, RecordedIntoTheCallersEncoder) {
  auto x = data_for(dtype::i32, 70001, 99);
  device_vector<std::int32_t> d(ctx(), host_span<const std::int32_t>(reinterpret_cast<const std::int32_t*>(x.data()), x.size()));
  buffer out = ctx().create_buffer(16);
  WGPUCommandEncoder enc = ctx().begin_commands();
  const transform cnt = transform::expr("select(0u, 1u, a > 10)");
  transform_reduce(ctx(), enc, d, cnt, device_span<std::uint32_t>(out, 1, 1));
  ctx().submit(enc);
  std::uint32_t words[4];
  ctx().read(out, 0, words, sizeof words);
  const bound_transform b(cnt, dtype::i32);
  EXPECT_EQ(words[1], reference::transform_reduce(x.data(), x.size(), b, monoid(op::sum(), dtype::u32)));
}

}  // namespace
}  // namespace wgprim::test
