// Element types beyond f32/i32/u32: f64, i64, u64 (64-bit, behind the adapter's features) and the packed storage
// types f16, u8, i8 (widened, accumulated in f32/u32/i32). Every GPU result is compared with reference::reduce_raw /
// reference::scan_raw, loops in the type's own width.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common.hpp"
#include "wgprim/reference.hpp"
#include "wgprim/io.hpp"

namespace wgprim::test {
namespace {

const dtype wide_types[] = {dtype::f64, dtype::i64, dtype::u64};
const dtype narrow_types[] = {dtype::f16, dtype::u8, dtype::i8};

std::vector<op> builtin_ops(dtype t) {
  std::vector<op> o = {op::sum(), op::min(), op::max()};
  if (!is_float(t)) {
    o.push_back(op::bit_and());
    o.push_back(op::bit_or());
    o.push_back(op::bit_xor());
  }
  return o;
}

// n elements of type t, packed, with their bytes rounded up to whole words. Floats: small integers and halves
// (every partial sum exact, so any order gives the same sum) or, with `spread`, values of mixed sign and
// magnitude; integers: the full range (sums wrap).
std::vector<std::uint32_t> make_typed(dtype t, std::size_t n, std::uint32_t seed, bool spread = false) {
  std::mt19937_64 rng(seed);
  const unsigned eb = dtype_bytes(t);
  std::vector<std::uint32_t> w((n * eb + 3) / 4, 0);
  auto* p = reinterpret_cast<unsigned char*>(w.data());
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t raw = rng();
    const double small = static_cast<double>(static_cast<int>(rng() % 33) - 16) / 2;
    if (t == dtype::f64)
      raw = to_raw(spread ? std::ldexp(static_cast<double>(rng() >> 11) * 0x1.0p-53 - 0.5, static_cast<int>(rng() % 40) - 20)
                          : small);
    if (t == dtype::f16) raw = float_to_half(static_cast<float>(small));
    std::memcpy(p + i * eb, &raw, eb);
  }
  return w;
}

std::string what(dtype t, const op& o, std::size_t n, const std::string& alg) {
  return std::string(dtype_name(t)) + " " + o.name() + " n=" + std::to_string(n) + " " + alg;
}

const std::vector<std::size_t> sizes = {0, 1, 2, 3, 5, 255, 256, 257, 4095, 4096, 4097, 65535, 65537, 262143};

}  // namespace

TEST(Types, NamesAndParsing) {
  for (int k = 0; k < dtype_count; ++k) {
    const dtype t = static_cast<dtype>(k);
    EXPECT_EQ(parse_dtype(dtype_name(t)), t);
  }
  EXPECT_EQ(parse_dtype("float64"), dtype::f64);
  EXPECT_EQ(parse_dtype("int64"), dtype::i64);
  EXPECT_EQ(parse_dtype("uint64"), dtype::u64);
  EXPECT_EQ(parse_dtype("float16"), dtype::f16);
  EXPECT_EQ(parse_dtype("uint8"), dtype::u8);
  EXPECT_EQ(parse_dtype("int8"), dtype::i8);
  EXPECT_THROW(parse_dtype("f128"), error);
  // 64-bit integers exactly (no double round trip), both ways.
  EXPECT_EQ(parse_raw(dtype::i64, "-9223372036854775808"), 0x8000000000000000ull);
  EXPECT_EQ(parse_raw(dtype::i64, "9007199254740993"), 9007199254740993ull);
  EXPECT_EQ(parse_raw(dtype::u64, "18446744073709551615"), ~0ull);
  EXPECT_EQ(parse_raw(dtype::u64, "0xffffffffffffffff"), ~0ull);
  EXPECT_THROW(parse_raw(dtype::i64, "9223372036854775808"), error);
  EXPECT_THROW(parse_raw(dtype::u64, "-1"), error);
  EXPECT_THROW(parse_raw(dtype::u8, "256"), error);
  EXPECT_EQ(parse_raw(dtype::i8, "-128"), 0x80u);
  EXPECT_THROW(parse_raw(dtype::i8, "128"), error);
  EXPECT_EQ(format_raw(dtype::i64, 0x8000000000000000ull), "-9223372036854775808");
  EXPECT_EQ(format_raw(dtype::u64, ~0ull), "18446744073709551615");
  EXPECT_EQ(format_raw(dtype::f64, to_raw(0.1)), "0.1");
  EXPECT_EQ(from_raw<double>(parse_raw(dtype::f64, format_raw(dtype::f64, to_raw(1.0 / 3)))), 1.0 / 3);
  EXPECT_EQ(format_raw(dtype::i8, 0xffu), "-1");
  EXPECT_EQ(format_raw(dtype::f16, 0x3c00u), "1");
}

TEST(Types, HalfConversions) {
  // Every half reads back through float as itself (NaNs as a NaN).
  for (std::uint32_t h = 0; h < 0x10000u; ++h) {
    const float f = half_to_float(static_cast<std::uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_EQ(float_to_half(f) & 0x7c00u, 0x7c00u);
      EXPECT_NE(float_to_half(f) & 0x3ffu, 0u);
    } else {
      EXPECT_EQ(float_to_half(f), h) << h;
    }
  }
  // Rounding to nearest, ties to even, into subnormals and to infinity.
  EXPECT_EQ(float_to_half(65504.0f), 0x7bffu);
  EXPECT_EQ(float_to_half(65519.0f), 0x7bffu);
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00u);
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001u);
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000u);      // tie to even (0)
  EXPECT_EQ(float_to_half(std::ldexp(3.0f, -25)), 0x0002u);      // tie to even (2)
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00u);  // tie between 1 and 1 + 2^-10: even
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(3.0f, -11)), 0x3c02u);
  EXPECT_EQ(float_to_half(-2.0f), 0xc000u);
}

TEST(Types, FeaturesAndRefusals) {
  context& c = ctx();
  EXPECT_TRUE(c.supports(dtype::f32));
  EXPECT_TRUE(c.supports(dtype::u8));
  EXPECT_EQ(c.supports(dtype::f64), c.features().shader_f64);
  EXPECT_EQ(c.supports(dtype::i64), c.features().shader_int64);
  // Primitives that do not take a type say so, naming it.
  if (c.supports(dtype::f64)) {
    std::vector<double> v = {1, 2, 3};
    std::vector<double> out(3);
    try {
      select_if(c, v, out, predicate::expr("a > 1"));
      FAIL() << "select over f64 ran";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::unsupported);
      EXPECT_NE(std::string(e.what()).find("f64"), std::string::npos) << e.what();
    }
    try {
      reduce(c, v, op::custom("a + b", "0"));
      FAIL() << "a custom operator over f64 ran";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::unsupported);
    }
    run_options ro;
    ro.accuracy = accuracy::compensated;
    EXPECT_THROW(reduce(c, v, op::sum(), ro), error);
  }
  std::vector<std::uint8_t> b = {1, 2, 3};
  std::vector<std::uint8_t> bo(3);
  try {
    select_if(c, b, bo, predicate::expr("a > 1"));
    FAIL() << "select over u8 ran";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::unsupported);
    EXPECT_NE(std::string(e.what()).find("u8"), std::string::npos) << e.what();
  }
}

TEST(Types, ReduceWideMatchesTwin) {
  context& c = ctx();
  for (dtype t : wide_types) {
    if (!c.supports(t)) continue;
    for (const std::string alg : {"fast", "seed", "single"})  // single: the default, falls back to fast
      for (const op& o : builtin_ops(t)) {
        const monoid m(o, t);
        for (std::size_t n : sizes) {
          const auto data = make_typed(t, n, static_cast<std::uint32_t>(n * 7 + 1));
          buffer in = c.create_buffer(std::max<std::size_t>(8, n * 8));
          if (n) c.write(in, 0, data.data(), n * 8);
          run_options ro;
          ro.algorithm = alg;
          const std::uint64_t got = reduce_raw(c, in, n, m, t, ro);
          // Integers exact (wrapping); f64 data of small halves: every order gives the exact sum.
          EXPECT_EQ(got, reference::reduce_raw(data.data(), t, n, m)) << what(t, o, n, alg);
        }
      }
  }
}

TEST(Types, ReduceF64ErrorBound) {
  context& c = ctx();
  if (!c.supports(dtype::f64)) GTEST_SKIP() << "no shader-f64";
  // Values of mixed sign over 2^-20..2^20: |GPU - exact| <= h * 2^-53 * sum|x|, h = n / 1024 + 64 (the longest
  // chain of additions any partial sum sees: an invocation's share of the grid plus the workgroup and partials
  // trees).
  for (std::size_t n : {1000ul, 65537ul, 1000003ul}) {
    const auto data = make_typed(dtype::f64, n, 99, /*spread=*/true);
    const double* x = reinterpret_cast<const double*>(data.data());
    double abs_sum = 0;
    const double exact = reference::compensated_sum_f64(x, n, &abs_sum);
    for (const std::string alg : {"fast", "seed", "single"}) {  // single: the default; 64-bit falls back to fast
      run_options ro;
      ro.algorithm = alg;
      const double got = reduce(c, host_span<const double>(x, n), op::sum(), ro);
      const double h = static_cast<double>(n) / 1024 + 64;
      EXPECT_LE(std::fabs(got - exact), h * std::ldexp(abs_sum, -53)) << "n=" << n << " " << alg;
    }
  }
}

TEST(Types, ReduceWideNaNAndEdges) {
  context& c = ctx();
  if (c.supports(dtype::f64)) {
    std::vector<double> v(5000, 1.0);
    v[4321] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_TRUE(std::isnan(reduce(c, v, op::max())));
    EXPECT_TRUE(std::isnan(reduce(c, v, op::min())));
    EXPECT_EQ(reduce(c, std::vector<double>{}, op::min()), std::numeric_limits<double>::infinity());
    EXPECT_EQ(reduce(c, std::vector<double>{1e300, 1e300, -1e300}, 5.0, op::sum()), 1e300 + 5.0);
  }
  if (c.supports(dtype::i64)) {
    // Wrap-around modulo 2^64, as WGSL (and the twin) define it.
    std::vector<std::int64_t> v = {std::numeric_limits<std::int64_t>::max(), 1, 5};
    EXPECT_EQ(reduce(c, v), std::numeric_limits<std::int64_t>::min() + 5);
    EXPECT_EQ(reduce(c, v, op::min()), 1);
    std::vector<std::uint64_t> u(3000, 0x8000000000000001ull);
    EXPECT_EQ(reduce(c, u), 3000ull * 0x8000000000000001ull);
    EXPECT_EQ(reduce(c, u, op::bit_xor()), 0u);
    // Into the caller's encoder: the result lands in a device span.
    device_vector<std::uint64_t> d(c, u), r(c, 2);
    auto enc = c.begin_commands();
    reduce(c, enc, d, r.span().subspan(1, 1), op::max());
    c.submit(enc);
    EXPECT_EQ(r.to_host()[1], 0x8000000000000001ull);
  }
}

TEST(Types, ReduceNarrowMatchesTwin) {
  context& c = ctx();
  for (dtype t : narrow_types)
    for (const std::string alg : {"fast", "seed"})
      for (const op& o : builtin_ops(t)) {
        const monoid m(o, t);
        for (std::size_t n : sizes) {
          const auto data = make_typed(t, n, static_cast<std::uint32_t>(n + 3));
          buffer in = c.create_buffer(std::max<std::size_t>(4, data.size() * 4));
          if (!data.empty()) c.write(in, 0, data.data(), data.size() * 4);
          run_options ro;
          ro.algorithm = alg;
          // f16 data are small halves: f32 sums of them are exact in any order.
          EXPECT_EQ(reduce_raw(c, in, n, m, t, ro), reference::reduce_raw(data.data(), t, n, m)) << what(t, o, n, alg);
        }
      }
  // The typed API returns the accumulation type (NumPy: the sum of uint8 is a wider integer).
  std::vector<std::uint8_t> b(1001, 255);
  static_assert(std::is_same_v<decltype(reduce(c, b)), std::uint32_t>);
  EXPECT_EQ(reduce(c, b), 1001u * 255u);
  std::vector<std::int8_t> s(777, -128);
  EXPECT_EQ(reduce(c, s), 777 * -128);
  EXPECT_EQ(reduce(c, s, op::max()), -128);
  std::vector<half> h(99, half(0.5f));
  EXPECT_EQ(reduce(c, h), 49.5f);
  // An odd-sized device_vector (its last word padded) and the exact mode through the widened copy.
  device_vector<half> dh(c, h);
  run_options ro;
  ro.accuracy = accuracy::reproducible;
  EXPECT_EQ(reduce(c, dh, op::sum(), ro), 49.5f);
}

TEST(Types, ScanMatchesTwin) {
  // Every type through both algorithms, inclusive and exclusive, with the look-back fallback forced too (its
  // multi-word tile states for 64-bit values) and a small binding limit (the carry between chunks). 64-bit values
  // also through the raked tile (their subgroup shuffles move two u32 words), the staged one (direct where its
  // 32 bytes per vec4 do not fit) and with subgroups off (workgroup memory), whatever the adapter's policy.
  context& c = ctx();
  const std::vector<std::size_t> scan_sizes = {0, 1, 3, 5, 4095, 4096, 4097, 65537};
  for (bool stress : {false, true}) {
    testing::set_lookback_stress(c, stress);
    for (dtype t : {dtype::f64, dtype::i64, dtype::u64, dtype::f16, dtype::u8, dtype::i8}) {
      if (!c.supports(t)) continue;
      struct variant { const char* alg; int staged, subgroups; };
      for (const variant& v : {variant{"decoupled", -1, -1}, variant{"decoupled", 2, -1}, variant{"decoupled", 1, -1},
                               variant{"decoupled", -1, 0},
                               variant{"seed", -1, -1}}) {
        const std::string alg = v.alg;
        if (stress && alg == "seed") continue;
        if ((v.staged >= 0 || v.subgroups >= 0) && dtype_bytes(t) != 8) continue;
        for (const op& o : {op::sum(), op::max()}) {
          const monoid m(o, t);
          const unsigned ob = dtype_bytes(m.type());
          for (std::size_t n : scan_sizes)
            for (scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
              const auto data = make_typed(t, n, static_cast<std::uint32_t>(n + 11));
              buffer in = c.create_buffer(std::max<std::size_t>(4, data.size() * 4));
              if (!data.empty()) c.write(in, 0, data.data(), data.size() * 4);
              buffer out = c.create_buffer(std::max<std::size_t>(8, n * ob));
              run_options ro;
              ro.algorithm = alg;
              ro.tune.staged = v.staged;
              ro.tune.subgroups = v.subgroups;
              scan_raw(c, in, out, n, m, t, kind, ro);
              std::vector<unsigned char> got(n * ob), want(n * ob);
              if (n) c.read(out, 0, got.data(), (n * ob + 3) / 4 * 4);
              reference::scan_raw(data.data(), t, n, want.data(), m, kind == scan_kind::exclusive);
              // Small halves and integers: exact in any grouping.
              EXPECT_TRUE(got == want) << what(t, o, n, alg) << (kind == scan_kind::exclusive ? " exclusive" : "")
                                       << (stress ? " stress" : "") << " staged " << v.staged << " subgroups "
                                       << v.subgroups;
            }
        }
      }
    }
  }
  testing::set_lookback_stress(c, false);
  // Past one binding (1 MiB here: 131,072 f64), chunks carry into each other.
  if (small_binding_ctx().supports(dtype::i64)) {
    std::vector<std::int64_t> v(300001);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int64_t>(i * 2654435761u) - (1ll << 40);
    const std::vector<std::int64_t> got = inclusive_scan(small_binding_ctx(), v);
    std::uint64_t acc = 0;  // the sum wraps modulo 2^64 (in unsigned arithmetic: signed overflow is undefined)
    std::size_t bad = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
      bad += static_cast<std::uint64_t>(got[i]) != (acc += static_cast<std::uint64_t>(v[i]));
    EXPECT_EQ(bad, 0u);
  }
  // The typed API: half in, float out; uint8_t in, uint32_t out with init.
  std::vector<half> h(1000, half(1.5f));
  const std::vector<float> hs = inclusive_scan(c, h);
  EXPECT_EQ(hs.back(), 1500.0f);
  std::vector<std::uint8_t> b(70000, 200);
  std::vector<std::uint32_t> bs(b.size());
  exclusive_scan(c, b, bs, 7u);
  EXPECT_EQ(bs.back(), 7u + 69999u * 200u);
}

TEST(Io, EveryDtypeRoundTrips) {
  for (int k = 0; k < dtype_count; ++k) {
    const dtype t = static_cast<dtype>(k);
    for (std::size_t n : {0ul, 1ul, 3ul, 5ul, 17ul}) {
      io::array a = io::array::zeros(t, n);
      std::mt19937_64 rng(n);
      for (std::size_t i = 0; i < n; ++i) {
        std::uint64_t r = rng();
        if (t == dtype::f64) r = to_raw(static_cast<double>(static_cast<std::int64_t>(r)) * 1e-9);
        if (t == dtype::f32) r = to_bits(static_cast<float>(r % 1000) / 8);
        if (t == dtype::f16) r = float_to_half(static_cast<float>(r % 1000) / 8);
        a.set(i, r & (dtype_bytes(t) == 8 ? ~0ull : (1ull << (8 * dtype_bytes(t))) - 1));
      }
      const io::array b = io::parse_npy(io::format_npy(a));
      EXPECT_EQ(b.type, t);
      ASSERT_EQ(b.size(), n) << dtype_name(t);
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(b.get(i), a.get(i)) << dtype_name(t) << " " << i;
      // Text: exact for integers, shortest round trip for floats.
      std::string text;
      for (std::size_t i = 0; i < n; ++i) text += format_raw(t, a.get(i)) + "\n";
      const io::array c = io::parse_text(text, t);
      ASSERT_EQ(c.size(), n);
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(c.get(i), a.get(i)) << dtype_name(t) << " " << text;
    }
  }
}

TEST(Io, NpyShapesAndByteOrder) {
  auto npy = [](const std::string& descr, const std::string& shape, const std::string& data,
                const char* fortran = "False") {
    std::string h = "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
    h.append((64 - (10 + h.size() + 1) % 64) % 64, ' ');
    h += '\n';
    std::string out = "\x93NUMPY\x01";
    out += '\0';
    out += static_cast<char>(h.size() & 0xff);
    out += static_cast<char>(h.size() >> 8);
    return out + h + data;
  };
  // A 2x3 i8 array: flattened in C order, its shape kept and written back.
  const std::string six = {1, 2, 3, 4, 5, static_cast<char>(-6)};
  io::array a = io::parse_npy(npy("|i1", "(2, 3)", six));
  EXPECT_EQ(a.type, dtype::i8);
  ASSERT_EQ(a.size(), 6u);
  EXPECT_EQ(a.shape, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(static_cast<std::int8_t>(a.get(5)), -6);
  EXPECT_NE(io::format_npy(a).find("'shape': (2, 3)"), std::string::npos);
  // 0-d: one element.
  EXPECT_EQ(io::parse_npy(npy("<u4", "()", std::string("\x07\0\0\0", 4))).size(), 1u);
  // A zero dimension: no elements.
  EXPECT_EQ(io::parse_npy(npy("<f8", "(4, 0, 2)", "")).size(), 0u);
  // Big-endian: swapped.
  io::array be = io::parse_npy(npy(">i8", "(1,)", std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8)));
  EXPECT_EQ(be.get(0), 0x0102030405060708ull);
  io::array bf = io::parse_npy(npy(">f2", "(1,)", std::string("\x3c\x00", 2)));
  EXPECT_EQ(bf.get(0), 0x3c00u);
  // Refused clearly.
  EXPECT_THROW(io::parse_npy(npy("<c8", "(1,)", std::string(8, '\0'))), error);
  EXPECT_THROW(io::parse_npy(npy("|f8", "(1,)", std::string(8, '\0'))), error);
  EXPECT_THROW(io::parse_npy(npy("<f8", "(2, 2)", std::string(24, '\0'))), error);  // truncated
  EXPECT_THROW(io::parse_npy(npy("<f4", "(2, 2)", std::string(16, '\0'), "True")), error);
  EXPECT_NO_THROW(io::parse_npy(npy("<f4", "(2, 2)", std::string(16, '\0'), "False")));
}

TEST(Io, TextInfersWideIntegers) {
  EXPECT_EQ(io::parse_text("1\n-2\n", std::nullopt).type, dtype::i32);
  EXPECT_EQ(io::parse_text("1\n4000000000\n", std::nullopt).type, dtype::u32);
  const io::array a = io::parse_text("-1\n9007199254740993\n", std::nullopt);
  EXPECT_EQ(a.type, dtype::i64);
  EXPECT_EQ(a.get(1), 9007199254740993ull);
  const io::array b = io::parse_text("18446744073709551615\n1\n", std::nullopt);
  EXPECT_EQ(b.type, dtype::u64);
  EXPECT_EQ(b.get(0), ~0ull);
  EXPECT_EQ(io::parse_text("1.5\n9007199254740993\n", std::nullopt).type, dtype::f32);
}

TEST(Io, GeneratesEveryType) {
  for (int k = 0; k < dtype_count; ++k) {
    const dtype t = static_cast<dtype>(k);
    const io::array a = io::generate("uniform:1001:5", t);
    EXPECT_EQ(a.type, t);
    EXPECT_EQ(a.size(), 1001u);
    const io::array o = io::generate("orders:100", t);
    EXPECT_EQ(o.size(), 100u);
    for (std::size_t i = 0; i < o.size(); ++i) {
      const std::uint64_t w = reference::widen_raw(t, o.get(i));
      const double v = t == dtype::f64 ? from_raw<double>(w) : is_float(t) ? from_bits<float>(static_cast<std::uint32_t>(w))
                                                                            : static_cast<double>(w);
      EXPECT_GE(v, 0);
      EXPECT_LE(v, 9);
    }
  }
  EXPECT_THROW(io::generate("prices:10", dtype::u8), error);
}

// The public sort over 64-bit keys (two 32-bit words per key on the GPU, no shader-int64 needed), against
// std::stable_sort with the same order (floats: -inf < ... < -0.0 < +0.0 < ... < inf < NaN, descending reversed).
template <class T>
void check_sort_wide(context& c, std::vector<T> x, order o, bool pairs) {
  auto key = [](T v) -> std::uint64_t {  // an unsigned key with the sort's order
    std::uint64_t b;
    std::memcpy(&b, &v, 8);
    if (std::is_floating_point<T>::value) return (b >> 63) ? ~b : (b | (1ull << 63));
    if (std::is_signed<T>::value) return b ^ (1ull << 63);
    return b;
  };
  std::vector<std::uint32_t> idx(x.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<std::uint32_t>(i * 7 + 1);
  std::vector<std::size_t> perm(x.size());
  for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  std::stable_sort(perm.begin(), perm.end(), [&](std::size_t a, std::size_t b) {
    return o == order::ascending ? key(x[a]) < key(x[b]) : key(x[a]) > key(x[b]);
  });
  std::vector<T> keys = x;
  std::vector<std::uint32_t> vals = idx;
  if (pairs) sort_pairs(c, keys, vals, o);
  else sort(c, keys, o);
  ASSERT_EQ(keys.size(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(key(keys[i]), key(x[perm[i]])) << "n=" << x.size() << " at " << i;
    if (pairs) ASSERT_EQ(vals[i], idx[perm[i]]) << "n=" << x.size() << " at " << i;
  }
}

TEST(Types, SortSixtyFourBitPublicOverloads) {
  std::mt19937_64 g(5);
  for (std::size_t n : {0, 1, 255, 256, 257, 3841, 6145}) {
    std::vector<std::uint64_t> u(n);
    std::vector<std::int64_t> s(n);
    std::vector<double> d(n);
    for (std::size_t i = 0; i < n; ++i) {
      u[i] = (i % 5 == 0) ? g() % 16 : g();  // duplicates for stability
      s[i] = static_cast<std::int64_t>(u[i]);
      d[i] = (i % 7 == 0) ? std::nan("") : (i % 11 == 0) ? -0.0 : static_cast<double>(s[i] % 100000) / 3.0;
    }
    const order o = n % 2 ? order::ascending : order::descending;
    check_sort_wide(ctx(), u, o, n % 3 == 0);
    check_sort_wide(ctx(), s, order::ascending, n % 3 == 1);
    check_sort_wide(ctx(), d, o, n % 3 == 2);
  }
}

TEST(Types, NativeBackendRefusesOtherWidthsClearly) {
  // The native CPU backend's loops are 32-bit: other widths get errc::unsupported naming the way out.
  context& n = native_ctx();
  EXPECT_FALSE(n.supports(dtype::f64));
  EXPECT_FALSE(n.supports(dtype::u8));
  EXPECT_TRUE(n.supports(dtype::u32));
  try {
    reduce(n, std::vector<double>{1, 2});
    FAIL() << "an f64 reduce ran on the native backend";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::unsupported);
    EXPECT_NE(std::string(e.what()).find("WebGPU"), std::string::npos) << e.what();
  }
  std::vector<double> k = {2, 1};
  EXPECT_THROW(sort(n, k), error);
  std::vector<std::int64_t> v = {1, 2};
  std::vector<std::int64_t> out(2);
  EXPECT_THROW(inclusive_scan(n, v, out), error);
}

TEST(Types, PackedSubspansAndWidthChecks) {
  context& c = ctx();
  std::vector<std::uint8_t> h(1000);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<std::uint8_t>(i * 7 + 3);
  device_vector<std::uint8_t> d(c, h);
  // A subspan at byte 4 (not at the 256-byte binding alignment) is copied with the rest of its last word.
  for (std::size_t count : {1, 3, 301}) {
    std::uint32_t want = 0;
    for (std::size_t i = 4; i < 4 + count; ++i) want += h[i];
    EXPECT_EQ(reduce(c, d.span().subspan(4, count)), want) << count;
  }
  // One that starts inside a word cannot be bound or copied by WebGPU: a clear refusal, not a validation error.
  try {
    reduce(c, d.span().subspan(1, 8));
    FAIL() << "an unaligned packed subspan ran";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument) << e.what();
    EXPECT_NE(std::string(e.what()).find("32-bit word"), std::string::npos) << e.what();
  }
  // The 32-bit runtime-typed entry points refuse a 64-bit operator instead of reading half the data.
  buffer b = c.create_buffer(64), o = c.create_buffer(64);
  EXPECT_THROW(reduce_bits(c, b, 4, monoid(op::sum(), dtype::f64)), error);
  EXPECT_THROW(scan(c, b, o, 4, monoid(op::sum(), dtype::i64), scan_kind::inclusive), error);
}

}  // namespace wgprim::test
