// Monoids and the custom-expression front end (no GPU needed).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/expr.hpp"
#include "wgprim/error.hpp"
#include "wgprim/op.hpp"

namespace wgprim {
namespace {

std::uint32_t ev(const char* e, dtype t, std::uint32_t a, std::uint32_t b) {
  return detail::expr_program(e, t).eval(a, b);
}
std::uint32_t fb(float f) { return to_bits(f); }
std::uint32_t ib(std::int32_t i) { return static_cast<std::uint32_t>(i); }

TEST(Expr, ArithmeticFollowsWgsl) {
  EXPECT_EQ(ev("a + b", dtype::u32, 0xffffffffu, 2), 1u);  // wraps
  EXPECT_EQ(ev("a - b", dtype::u32, 1, 2), 0xffffffffu);
  EXPECT_EQ(ev("a * b", dtype::i32, ib(-3), 7), ib(-21));
  EXPECT_EQ(ev("a / b", dtype::i32, 7, 0), 7u);                   // x / 0 == x
  EXPECT_EQ(ev("a % b", dtype::i32, 7, 0), 0u);                   // x % 0 == 0
  EXPECT_EQ(ev("a / b", dtype::i32, 0x80000000u, ib(-1)), 0x80000000u);
  EXPECT_EQ(ev("a / b", dtype::i32, ib(-7), 2), ib(-3));          // truncates
  EXPECT_EQ(ev("a << b", dtype::u32, 1, 33), 2u);                 // shift modulo 32
  EXPECT_EQ(ev("a >> b", dtype::i32, ib(-8), 1), ib(-4));         // arithmetic shift
  EXPECT_EQ(ev("a >> b", dtype::u32, 0x80000000u, 31), 1u);
  EXPECT_EQ(ev("~a & b", dtype::u32, 0xf0, 0xff), 0x0fu);
  EXPECT_EQ(ev("-a", dtype::i32, 5, 0), ib(-5));
  EXPECT_EQ(ev("abs(a)", dtype::i32, ib(-5), 0), 5u);
  EXPECT_EQ(ev("max(a, b)", dtype::f32, fb(-1.5f), fb(2.0f)), fb(2.0f));
  EXPECT_EQ(ev("min(a, b)", dtype::i32, ib(-1), 1), ib(-1));
  EXPECT_EQ(ev("min(a, b)", dtype::u32, 0xffffffffu, 1), 1u);  // unsigned compare
  EXPECT_EQ(ev("clamp(a, 0, 10)", dtype::i32, 42, 0), 10u);
  EXPECT_EQ(ev("select(a, b, a < b && b != 3)", dtype::u32, 1, 2), 2u);
  EXPECT_EQ(ev("select(a, b, !(a < b) || false)", dtype::u32, 1, 2), 1u);
  EXPECT_EQ(ev("a * 2.5 + b", dtype::f32, fb(2.0f), fb(1.0f)), fb(6.0f));
  EXPECT_EQ(ev("a + -2147483648", dtype::i32, 0, 0), 0x80000000u);
  EXPECT_EQ(ev("a + 0xffu", dtype::u32, 1, 0), 0x100u);
  EXPECT_EQ(ev("(a + b) * (a - b)", dtype::i32, 5, 3), 16u);
  EXPECT_EQ(ev("a + b * 2", dtype::i32, 1, 3), 7u);  // precedence
  EXPECT_EQ(ev("a - b - 1", dtype::i32, 10, 3), 6u);  // left associative
}

TEST(Expr, EmitsParenthesisedWgsl) {
  EXPECT_EQ(detail::expr_program("a + b * 2", dtype::u32).wgsl(), "(a + (b * bitcast<u32>(0x00000002u)))");
  EXPECT_EQ(detail::expr_program("max(a,b)", dtype::f32).wgsl(), "max(a, b)");
}

TEST(Expr, RejectsAnythingButOneExpressionInAB) {
  const char* bad[] = {"",          "a +",       "a b",        "c + a",           "a; b",
                       "}",         "fn x() {}", "a + b)",     "(a + b",          "max(a)",
                       "max(a,b,a)", "a < b",    "a && b",     "select(a, b, a)", "a + 1.5",
                       "a & b",     "-a",        "a + 1i",     "a ? b : a",       "a[0]",
                       "a.x",       "a = b",     "a == b",     "foo(a, b)",       "a /* */ + b",
                       "a\n+ b",    "99999999999 + a", "a + 1e99"};
  const dtype types[] = {dtype::u32, dtype::u32, dtype::u32, dtype::u32, dtype::u32, dtype::u32, dtype::u32,
                         dtype::u32, dtype::u32, dtype::u32, dtype::u32, dtype::u32, dtype::u32, dtype::u32,
                         dtype::u32, dtype::f32, dtype::u32, dtype::u32, dtype::u32, dtype::u32, dtype::u32,
                         dtype::u32, dtype::u32, dtype::u32, dtype::u32, dtype::u32, dtype::u32, dtype::f32};
  for (std::size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    try {
      detail::expr_program p(bad[i], types[i]);
      ADD_FAILURE() << "accepted '" << bad[i] << "' for " << dtype_name(types[i]);
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::invalid_argument);
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
  std::string deep(200, '(');
  deep += "a";
  deep += std::string(200, ')');
  EXPECT_THROW(detail::expr_program(deep, dtype::u32), error);
}

TEST(Monoid, BuiltinsAgreeWithTheirExpressions) {
  std::mt19937 rng(1);
  struct pair_ { op builtin; const char* expr; const char* id; };
  for (dtype t : {dtype::f32, dtype::i32, dtype::u32}) {
    std::vector<pair_> ps = {{op::sum(), "a + b", "0"}, {op::min(), "min(a, b)", t == dtype::f32 ? "inf" : "max"},
                             {op::max(), "max(a, b)", t == dtype::f32 ? "-inf" : "min"}};
    if (t != dtype::f32) {
      ps.push_back({op::bit_and(), "a & b", t == dtype::i32 ? "-1" : "0xffffffff"});
      ps.push_back({op::bit_or(), "a | b", "0"});
      ps.push_back({op::bit_xor(), "a ^ b", "0"});
    }
    for (auto& p : ps) {
      monoid b(p.builtin, t), c(op::custom(p.expr, p.id), t);
      EXPECT_EQ(b.identity_bits(), c.identity_bits()) << p.expr;
      for (int i = 0; i < 1000; ++i) {
        std::uint32_t x = rng(), y = rng();
        if (t == dtype::f32) { x = to_bits(static_cast<float>(static_cast<std::int32_t>(x)) * 1e-3f); y = to_bits(static_cast<float>(static_cast<std::int32_t>(y)) * 1e-3f); }
        EXPECT_EQ(b.combine(x, y), c.combine(x, y)) << p.expr;
        EXPECT_EQ(b.combine(x, b.identity_bits()), x) << p.expr << " identity";
      }
    }
  }
}

TEST(Monoid, RejectsWrongOperatorsAndIdentities) {
  EXPECT_THROW(monoid(op::bit_xor(), dtype::f32), error);
  EXPECT_THROW(op::parse("product"), error);
  EXPECT_THROW(op::parse("max(a,b)"), error);         // needs an identity
  EXPECT_THROW(op::parse("sum", "0"), error);         // built-ins carry their own
  EXPECT_THROW(monoid(op::custom("a + b", "-1"), dtype::u32), error);
  EXPECT_THROW(monoid(op::custom("a + b", "1.5"), dtype::i32), error);
  EXPECT_THROW(monoid(op::custom("a + b", "banana"), dtype::f32), error);
  EXPECT_EQ(monoid(op::parse("max(a,b)", "-inf"), dtype::f32).identity_bits(), to_bits(-INFINITY));
}

TEST(Values, ParseAndFormat) {
  EXPECT_EQ(parse_value(dtype::u32, "0xff"), 255u);
  EXPECT_EQ(parse_value(dtype::i32, "-2147483648"), 0x80000000u);
  EXPECT_THROW(parse_value(dtype::i32, "2147483648"), error);
  EXPECT_THROW(parse_value(dtype::u32, "4294967296"), error);
  EXPECT_THROW(parse_value(dtype::u32, "12abc"), error);
  EXPECT_THROW(parse_value(dtype::f32, "1e39"), error);
  EXPECT_EQ(format_bits(dtype::f32, to_bits(0.1f)), "0.1");
  EXPECT_EQ(format_bits(dtype::i32, ib(-7)), "-7");
  EXPECT_EQ(parse_dtype("u32"), dtype::u32);
  EXPECT_THROW(parse_dtype("f64"), error);
}

}  // namespace
}  // namespace wgprim

// The custom-expression front end's CPU twin against the GPU, element by element, for expressions that are not
// associative too: WGSL's integer division and remainder by zero, the most negative value divided by -1, shifts
// past 31, comparisons, select, clamp, abs. f32 only where WGSL requires correct rounding (+, -, *, min, max).
#include <random>

#include "gpu/gpu.hpp"
#include "wgprim/wgprim.hpp"
#include "core/wgsl_compose.hpp"

namespace wgprim {
namespace {

TEST(Expr, GpuAgreesWithTheCpuTwinElementByElement) {
  static context ctx;
  struct expr_case { dtype t; const char* text; };
  const expr_case cases[] = {
      {dtype::i32, "a / b"}, {dtype::i32, "a % b"}, {dtype::u32, "a / b"}, {dtype::u32, "a % b"},
      {dtype::i32, "a << b"}, {dtype::i32, "a >> b"}, {dtype::u32, "a >> b"}, {dtype::u32, "(a << b) | (a >> (32u - b))"},
      {dtype::i32, "-a + abs(b) * 3"}, {dtype::i32, "select(a, b, a < b || b == -1)"}, {dtype::u32, "clamp(a, 7u, b)"},
      {dtype::i32, "min(a, b) - max(a, b)"}, {dtype::u32, "~a ^ (b & 0xff00ff00u)"}, {dtype::i32, "select(1, 0, !(a >= b))"},
      {dtype::f32, "a * b + a"}, {dtype::f32, "max(a, b) - min(a, b)"}, {dtype::f32, "select(a, -b, a <= b && b != 0.5)"},
      {dtype::f32, "abs(a) * 2.5 - b"}, {dtype::f32, "clamp(a, -1.0, 1.0) * b"}};
  std::mt19937 rng(5);
  const std::uint32_t specials[] = {0u, 1u, 2u, 31u, 32u, 33u, 0xffffffffu, 0x80000000u, 0x7fffffffu, 0xfffffffeu};
  const std::size_t n = 4096;
  for (const auto& c : cases) {
    monoid m(op::custom(c.text, "0"), c.t);
    std::vector<std::uint32_t> a(n), b(n), got(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (c.t == dtype::f32) {
        a[i] = to_bits(std::uniform_real_distribution<float>(-100.0f, 100.0f)(rng));
        b[i] = to_bits(i % 17 == 0 ? 0.5f : std::uniform_real_distribution<float>(-100.0f, 100.0f)(rng));
      } else {
        a[i] = i < 100 ? specials[i % 10] : rng();
        b[i] = i < 100 ? specials[i / 10] : (i % 3 ? rng() % 40 : rng());
      }
    }
    buffer da = ctx.create_buffer(n * 4), db = ctx.create_buffer(n * 4), dout = ctx.create_buffer(n * 4);
    ctx.write(da, 0, a.data(), n * 4);
    ctx.write(db, 0, b.data(), n * 4);
    using detail::slot;
    const auto& k = detail::get_kernel(ctx, detail::compose_wgsl("tests/map_combine.wgsl", m, {}), "map_combine",
                                       {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_rw},
                                       false);
    {
      detail::recorder rec(ctx);
      std::uint32_t p[4] = {static_cast<std::uint32_t>(n), 0, 0, 0};
      rec.dispatch(k, {rec.params(p, sizeof p), detail::bind(da), detail::bind(db), detail::bind(dout)},
                   static_cast<std::uint32_t>(n / 64));
      rec.submit();
    }
    ctx.read(dout, 0, got.data(), n * 4);
    std::size_t bad = 0;
    std::string first;
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t want = m.combine(a[i], b[i]);
      bool same = c.t == dtype::f32 ? from_bits<float>(got[i]) == from_bits<float>(want) : got[i] == want;
      if (!same && !bad++)
        first = "a=" + format_bits(c.t, a[i]) + " b=" + format_bits(c.t, b[i]) + " gpu=" + format_bits(c.t, got[i]) +
                " cpu=" + format_bits(c.t, want);
    }
    EXPECT_EQ(bad, 0u) << dtype_name(c.t) << " '" << c.text << "': " << first;
  }
}

}  // namespace
}  // namespace wgprim
