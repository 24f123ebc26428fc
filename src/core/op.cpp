#include "wgprim/op.hpp"

#include <mutex>
#include <set>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <limits>
#include <random>
#include <vector>

#include "core/expr.hpp"
#include "core/wgsl_compose.hpp"
#include "wgprim/error.hpp"
#include "wgprim/transform_reduce.hpp"

namespace wgprim {

const char* dtype_name(dtype t) {
  switch (t) {
    case dtype::f32: return "f32";
    case dtype::i32: return "i32";
    case dtype::u32: return "u32";
    case dtype::f64: return "f64";
    case dtype::i64: return "i64";
    case dtype::u64: return "u64";
    case dtype::f16: return "f16";
    case dtype::u8: return "u8";
    case dtype::i8: return "i8";
  }
  return "?";
}

dtype parse_dtype(const std::string& s) {
  struct name { const char* text; dtype t; };
  static const name names[] = {
      {"f32", dtype::f32}, {"float32", dtype::f32}, {"float", dtype::f32},   {"i32", dtype::i32},
      {"int32", dtype::i32}, {"int", dtype::i32},   {"u32", dtype::u32},     {"uint32", dtype::u32},
      {"uint", dtype::u32},  {"f64", dtype::f64},   {"float64", dtype::f64}, {"double", dtype::f64},
      {"i64", dtype::i64},   {"int64", dtype::i64}, {"u64", dtype::u64},     {"uint64", dtype::u64},
      {"f16", dtype::f16},   {"float16", dtype::f16}, {"half", dtype::f16},  {"u8", dtype::u8},
      {"uint8", dtype::u8},  {"i8", dtype::i8},     {"int8", dtype::i8}};
  for (const name& n : names)
    if (s == n.text) return n.t;
  throw error(errc::invalid_argument,
              "unknown type '" + detail::excerpt(s) + "' (expected f32, i32, u32, f64, i64, u64, f16, u8 or i8)");
}

// binary16 <-> binary32, round to nearest even (subnormals, infinities and NaN kept; a NaN stays quiet).
float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  if (exp == 0x1f) return from_bits<float>(sign | 0x7f800000u | (man << 13));
  if (exp != 0) return from_bits<float>(sign | ((exp + 112) << 23) | (man << 13));
  const float v = std::ldexp(static_cast<float>(man), -24);  // subnormal (or zero): exact in f32
  return sign ? -v : v;
}

std::uint16_t float_to_half(float f) {
  const std::uint32_t x = to_bits(f), sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));  // NaN
  if (ax >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds to infinity (or is one)
  if (ax < 0x38800000u) {
    // Below the smallest normal half (2^-14): a multiple of 2^-24, rounded to nearest even by the FPU.
    const float v = from_bits<float>(ax) * 16777216.0f;  // exact scaling by 2^24
    return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(std::nearbyint(v)));
  }
  // Normal: drop 13 mantissa bits with round to nearest even; a carry into the exponent is right.
  const std::uint32_t rebased = ax - (112u << 23);
  const std::uint32_t r = rebased + 0xfffu + ((rebased >> 13) & 1u);
  return static_cast<std::uint16_t>(sign | (r >> 13));
}

half::half(float f) : bits(float_to_half(f)) {}
half::operator float() const { return half_to_float(bits); }

namespace {
// The shortest decimal that reads back as the same double, fixed notation where readable.
std::string format_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  int prec = 1;
  for (; prec < 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::snprintf(buf, sizeof buf, "%.*g", prec, v);
  if (v != 0) {
    char fixed[400];
    std::snprintf(fixed, sizeof fixed, "%.*e", prec - 1, v);
    const int e = std::atoi(std::strchr(fixed, 'e') + 1);
    if (e >= -5 && e < 17) {
      std::snprintf(fixed, sizeof fixed, "%.*f", std::max(0, prec - 1 - e), v);
      if (std::strtod(fixed, nullptr) == v) return fixed;
    }
  }
  return buf;
}
}  // namespace

std::string format_raw(dtype t, std::uint64_t raw) {
  switch (t) {
    case dtype::f64: return format_double(from_raw<double>(raw));
    case dtype::i64: return std::to_string(static_cast<std::int64_t>(raw));
    case dtype::u64: return std::to_string(raw);
    case dtype::f16: {
      // The shortest decimal that reads back (through f32, then rounding to f16) as the same half.
      const float v = half_to_float(static_cast<std::uint16_t>(raw));
      if (std::isnan(v)) return "nan";
      if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
      char buf[64];
      for (int prec = 1; prec < 9; ++prec) {
        std::snprintf(buf, sizeof buf, "%.*g", prec, static_cast<double>(v));
        if (float_to_half(std::strtof(buf, nullptr)) == static_cast<std::uint16_t>(raw)) break;
      }
      return buf;
    }
    case dtype::u8: return std::to_string(static_cast<std::uint8_t>(raw));
    case dtype::i8: return std::to_string(static_cast<std::int8_t>(raw));
    default: return format_bits(t, static_cast<std::uint32_t>(raw));
  }
}

std::string format_bits(dtype t, std::uint32_t bits) {
  char buf[64];
  switch (t) {
    case dtype::f32: {
      float v = from_bits<float>(bits);
      if (std::isnan(v)) return "nan";
      if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
      // The shortest representation that reads back to the same float, in fixed notation where that is
      // readable (100, not 1e+02; 0.00001), else with an exponent.
      int prec = 1;
      for (; prec < 9; ++prec) {
        std::snprintf(buf, sizeof buf, "%.*g", prec, static_cast<double>(v));
        if (std::strtof(buf, nullptr) == v) break;
      }
      std::snprintf(buf, sizeof buf, "%.*g", prec, static_cast<double>(v));
      if (v != 0) {
        char fixed[64];
        std::snprintf(fixed, sizeof fixed, "%.*e", prec - 1, static_cast<double>(v));  // the decimal exponent
        const int e = std::atoi(std::strchr(fixed, 'e') + 1);
        if (e >= -5 && e < 9) {
          std::snprintf(fixed, sizeof fixed, "%.*f", std::max(0, prec - 1 - e), static_cast<double>(v));
          if (std::strtof(fixed, nullptr) == v) return fixed;
        }
      }
      return buf;
    }
    case dtype::i32: return std::to_string(static_cast<std::int32_t>(bits));
    case dtype::u32: return std::to_string(bits);
    default: return format_raw(t, bits);  // the narrow types (a 64-bit type's low word only)
  }
}

std::uint32_t parse_value(dtype t, const std::string& text) {
  auto bad = [&]() -> error {
    return error(errc::invalid_argument,
                 "'" + detail::excerpt(text) + "' is not a valid " + std::string(dtype_name(t)) + " value");
  };
  if (t != dtype::f32 && t != dtype::i32 && t != dtype::u32) {
    if (is_wide(t)) throw error(errc::invalid_argument, "internal: parse_value of a 64-bit type (use parse_raw)");
    return static_cast<std::uint32_t>(parse_raw(t, text));
  }
  if (text.empty()) throw bad();
  if (text == "max") return t == dtype::f32 ? to_bits(std::numeric_limits<float>::max())
                            : t == dtype::i32 ? 0x7fffffffu : 0xffffffffu;
  if (text == "min" || text == "lowest")
    return t == dtype::f32 ? to_bits(std::numeric_limits<float>::lowest()) : t == dtype::i32 ? 0x80000000u : 0u;
  const char* s = text.c_str();
  char* end = nullptr;
  errno = 0;
  if (t == dtype::f32) {
    std::string low;
    for (char c : text) low += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (low == "inf" || low == "+inf" || low == "infinity") return to_bits(std::numeric_limits<float>::infinity());
    if (low == "-inf" || low == "-infinity") return to_bits(-std::numeric_limits<float>::infinity());
    if (low == "nan") return to_bits(std::numeric_limits<float>::quiet_NaN());
    if (low.find_first_not_of("0123456789+-.e") != std::string::npos) throw bad();
    // strtof rounds once, to the nearest float: 3.4028235e+38 (the shortest text of the largest float, which
    // is above it as a decimal) reads as that float; only what rounds to infinity is out of range. (strtod
    // and a cast would round twice and refuse it.)
    float v = std::strtof(s, &end);
    if (end == s || *end != '\0' || !std::isfinite(v)) throw bad();
    return to_bits(v);
  }
  if (text.find_first_of(".eE") != std::string::npos && text.rfind("0x", 0) != 0 && text.rfind("-0x", 0) != 0)
    throw bad();
  bool neg = text[0] == '-';
  if (neg || text[0] == '+') ++s;
  if (!std::isdigit(static_cast<unsigned char>(*s))) throw bad();
  // Decimal, or hexadecimal with 0x: a leading zero is not octal (CSV's 010 is ten, and 08 is valid).
  const bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  if (hex && !std::isxdigit(static_cast<unsigned char>(s[2]))) throw bad();
  unsigned long long v = std::strtoull(s, &end, hex ? 16 : 10);
  if (end == s || *end != '\0' || errno == ERANGE) throw bad();
  if (t == dtype::u32) {
    if (neg || v > 0xffffffffull) throw bad();
    return static_cast<std::uint32_t>(v);
  }
  long long sv = neg ? -static_cast<long long>(v) : static_cast<long long>(v);
  if (v > 0x80000000ull || sv < INT32_MIN || sv > INT32_MAX) throw bad();
  return static_cast<std::uint32_t>(static_cast<std::int32_t>(sv));
}

std::uint64_t parse_raw(dtype t, const std::string& text) {
  auto bad = [&]() -> error {
    return error(errc::invalid_argument,
                 "'" + detail::excerpt(text) + "' is not a valid " + std::string(dtype_name(t)) + " value");
  };
  switch (t) {
    case dtype::f32: case dtype::i32: case dtype::u32: return parse_value(t, text);
    case dtype::f16: {
      std::string low;
      for (char c : text) low += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (low == "max") return 0x7bffu;
      if (low == "min" || low == "lowest") return 0xfbffu;
      if (low.empty() || low.find_first_not_of("0123456789+-.eEinfatyINFATY") != std::string::npos) throw bad();
      // Through double (exact for every decimal a half can distinguish), then to half: a double rounding only
      // for decimals within 2^-40 relative of a tie, which no short decimal is.
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (end == text.c_str() || *end != '\0') throw bad();
      const std::uint16_t h = float_to_half(static_cast<float>(v));
      if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) == 0 && std::isfinite(v)) throw bad();  // out of range
      return h;
    }
    case dtype::f64: {
      std::string low;
      for (char c : text) low += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (low == "max") return to_raw(std::numeric_limits<double>::max());
      if (low == "min" || low == "lowest") return to_raw(std::numeric_limits<double>::lowest());
      if (low == "inf" || low == "+inf" || low == "infinity") return to_raw(std::numeric_limits<double>::infinity());
      if (low == "-inf" || low == "-infinity") return to_raw(-std::numeric_limits<double>::infinity());
      if (low == "nan") return to_raw(std::numeric_limits<double>::quiet_NaN());
      if (low.empty() || low.find_first_not_of("0123456789+-.e") != std::string::npos) throw bad();
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(text.c_str(), &end);
      if (end == text.c_str() || *end != '\0' || !std::isfinite(v)) throw bad();
      return to_raw(v);
    }
    default: break;
  }
  // Integers (i64, u64, u8, i8): decimal or 0x hex, never through a double.
  const bool sg = is_signed(t);
  const std::uint64_t umax = t == dtype::u64 ? ~0ull : t == dtype::i64 ? 0x7fffffffffffffffull
                                                   : t == dtype::u8 ? 0xffull : 0x7full;
  if (text == "max") return umax;
  if (text == "min" || text == "lowest") return sg ? (t == dtype::i64 ? 0x8000000000000000ull : 0x80ull) : 0;
  if (text.empty()) throw bad();
  const char* s = text.c_str();
  const bool neg = text[0] == '-';
  if (neg || text[0] == '+') ++s;
  if (!std::isdigit(static_cast<unsigned char>(*s))) throw bad();
  const bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  if (hex && !std::isxdigit(static_cast<unsigned char>(s[2]))) throw bad();
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s, &end, hex ? 16 : 10);
  if (end == s || *end != '\0' || errno == ERANGE) throw bad();
  if (!sg) {
    if (neg && v != 0) throw bad();
    if (v > umax) throw bad();
    return v;
  }
  // Signed: magnitude up to max, or max + 1 when negative; stored as the two's complement of the width.
  if (v > umax + (neg ? 1 : 0)) throw bad();
  const std::uint64_t twos = neg ? 0 - static_cast<std::uint64_t>(v) : v;
  return t == dtype::i8 ? (twos & 0xffu) : twos;
}

op op::parse(const std::string& s, const std::string& identity) {
  static const char* names[] = {"sum", "min", "max", "and", "or", "xor"};
  for (const char* n : names)
    if (s == n) {
      if (!identity.empty())
        throw error(errc::invalid_argument, "--identity is only for custom expressions; '" + s + "' has its own");
      return op(n);
    }
  bool looks_like_expression = s.find_first_of("()+-*/%&|^<>!~, ") != std::string::npos || s == "a" || s == "b";
  if (!looks_like_expression)
    throw error(errc::invalid_argument,
                "unknown operator '" + s + "' (expected sum, min, max, and, or, xor, or an expression in a and b)");
  if (identity.empty())
    throw error(errc::invalid_argument, "custom operator '" + s + "' needs --identity");
  return custom(s, identity);
}

namespace {
// min/max are a comparison and a select rather than WGSL min/max, whose SPIR-V (FMin/FMax) leaves the sign of a
// zero result to the driver: this way min(-0, +0) is the same bits on every GPU and in the twin.
std::string nan_guard(bool is_min) {
  return std::string("select(") + (is_min ? "select(a, b, b < a)" : "select(a, b, a < b)") +
         ", bitcast<f32>(0x7fc00000u), max(bitcast<u32>(a) & 0x7fffffffu, bitcast<u32>(b) & 0x7fffffffu) > "
         "0x7f800000u)";
}
}  // namespace

namespace {
// A 64-bit constant in WGSL from two u32 literals (naga's 64-bit literal syntax is an extension, and an
// AbstractInt cannot hold every u64).
std::string wgsl_u64(std::uint64_t v) {
  char buf[80];
  std::snprintf(buf, sizeof buf, "((u64(0x%08xu) << 32u) | u64(0x%08xu))", static_cast<unsigned>(v >> 32),
                static_cast<unsigned>(v & 0xffffffffu));
  return buf;
}
// f64 min/max: as f32's nan_guard, on the 64-bit pattern.
std::string nan_guard64(bool is_min) {
  return std::string("select(") + (is_min ? "select(a, b, b < a)" : "select(a, b, a < b)") + ", bitcast<f64>(" +
         wgsl_u64(0x7ff8000000000000ull) + "), max(bitcast<u64>(a) & " + wgsl_u64(0x7fffffffffffffffull) +
         ", bitcast<u64>(b) & " + wgsl_u64(0x7fffffffffffffffull) + ") > " + wgsl_u64(0x7ff0000000000000ull) + ")";
}
}  // namespace

namespace detail {
std::string wgsl_constant(dtype t, std::uint64_t raw) {
  char buf[64];
  if (is_wide(t)) return "bitcast<" + std::string(dtype_name(t)) + ">(" + wgsl_u64(raw) + ")";
  std::snprintf(buf, sizeof buf, "bitcast<%s>(0x%08xu)", dtype_name(t), static_cast<unsigned>(raw));
  return buf;
}
}  // namespace detail

monoid::monoid(const op& o, dtype input) : type_(accumulation_type(input)), name_(o.name()) {
  const dtype t = type_;
  const bool fl = t == dtype::f32, fl64 = t == dtype::f64;
  const std::string& n = o.name();
  if (n == "sum") { builtin_ = builtin::sum; wgsl_ = "a + b"; identity_ = 0; }
  // f32 min/max propagate NaN (IEEE 754-2019 minimum/maximum, numpy's min/max): WGSL's min/max leave a NaN
  // operand's result to the GPU, so the NaN case is made explicit. The test is on the bits, because shader
  // compilers may assume a != a is false; the result is the canonical quiet NaN.
  else if (n == "min") {
    builtin_ = builtin::min;
    wgsl_ = fl ? nan_guard(true) : fl64 ? nan_guard64(true) : "min(a, b)";
    identity_ = parse_raw(t, fl || fl64 ? "inf" : "max");
  } else if (n == "max") {
    builtin_ = builtin::max;
    wgsl_ = fl ? nan_guard(false) : fl64 ? nan_guard64(false) : "max(a, b)";
    identity_ = parse_raw(t, fl || fl64 ? "-inf" : "min");
  }
  else if (n == "and" || n == "or" || n == "xor") {
    if (fl || fl64)
      throw error(errc::invalid_argument, "operator '" + n + "' is not defined for " + dtype_name(t));
    builtin_ = n == "and" ? builtin::bit_and : n == "or" ? builtin::bit_or : builtin::bit_xor;
    wgsl_ = n == "and" ? "a & b" : n == "or" ? "a | b" : "a ^ b";
    identity_ = n == "and" ? (is_wide(t) ? ~0ull : 0xffffffffull) : 0u;
  } else if (n == "custom") {
    if (is_wide(t))
      throw error(errc::unsupported, std::string("custom operators over ") + dtype_name(t) +
                                         " are not supported yet (the built-in sum, min, max, and, or, xor are)");
    auto prog = std::make_shared<detail::expr_program>(o.expression(), t);
    source_ = o.expression();
    wgsl_ = prog->wgsl();
    program_ = std::move(prog);
    try {
      identity_ = parse_value(t, o.identity());
    } catch (const error&) {
      throw error(errc::invalid_argument, "identity '" + o.identity() + "' is not a valid " + dtype_name(t) + " value");
    }
  } else {
    throw error(errc::invalid_argument, "unknown operator '" + n + "'");
  }
}

std::uint32_t monoid::combine(std::uint32_t a, std::uint32_t b) const {
  if (is_wide(type_))
    throw error(errc::unsupported, std::string("internal: 32-bit combine of a ") + dtype_name(type_) + " monoid");
  const bool fl = type_ == dtype::f32, sg = type_ == dtype::i32;
  auto lt = [&](std::uint32_t x, std::uint32_t y) {
    return fl ? from_bits<float>(x) < from_bits<float>(y)
              : sg ? static_cast<std::int32_t>(x) < static_cast<std::int32_t>(y) : x < y;
  };
  switch (builtin_) {
    case builtin::sum: return fl ? to_bits(from_bits<float>(a) + from_bits<float>(b)) : a + b;
    case builtin::min:
    case builtin::max:
      if (fl && (std::isnan(from_bits<float>(a)) || std::isnan(from_bits<float>(b)))) return 0x7fc00000u;
      return builtin_ == builtin::min ? (lt(b, a) ? b : a) : (lt(a, b) ? b : a);
    case builtin::bit_and: return a & b;
    case builtin::bit_or: return a | b;
    case builtin::bit_xor: return a ^ b;
    case builtin::none: return program_->eval(a, b);
  }
  return 0;
}

std::uint64_t monoid::combine_raw(std::uint64_t a, std::uint64_t b) const {
  if (!is_wide(type_)) return combine(static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b));
  const bool fl = type_ == dtype::f64, sg = type_ == dtype::i64;
  auto d = [](std::uint64_t x) { return from_raw<double>(x); };
  auto lt = [&](std::uint64_t x, std::uint64_t y) {
    return fl ? d(x) < d(y) : sg ? static_cast<std::int64_t>(x) < static_cast<std::int64_t>(y) : x < y;
  };
  switch (builtin_) {
    case builtin::sum: return fl ? to_raw(d(a) + d(b)) : a + b;  // integers wrap modulo 2^64, as in WGSL
    case builtin::min:
    case builtin::max:
      if (fl && (std::isnan(d(a)) || std::isnan(d(b)))) return 0x7ff8000000000000ull;
      return builtin_ == builtin::min ? (lt(b, a) ? b : a) : (lt(a, b) ? b : a);
    case builtin::bit_and: return a & b;
    case builtin::bit_or: return a | b;
    case builtin::bit_xor: return a ^ b;
    case builtin::none: break;
  }
  throw error(errc::unsupported, "internal: custom operator over a 64-bit type");
}

bool monoid::admits(std::uint32_t a, std::uint32_t b, std::uint32_t result) const {
  if (program_) return program_->admits(a, b, result);
  if (is_wide(type_)) return combine_raw(a, b) == result;
  const std::uint32_t want = combine(a, b);
  if (type_ != dtype::f32) return want == result;
  const float w = from_bits<float>(want), r = from_bits<float>(result);
  return w == r || (std::isnan(w) && std::isnan(r));
}

namespace {
// The values the monoid check tries: the type's edges, then random values of every magnitude (f32: signs,
// exponents 2^-20..2^20 and small integers; integers: the full range and small values). No NaN: what an
// expression does with NaN is its own business (WGSL leaves min/max of NaN to the GPU).
std::vector<std::uint32_t> check_values(dtype t, std::uint32_t identity) {
  std::vector<std::uint32_t> v = {identity};
  std::mt19937 rng(20261129);  // fixed: the same operator always passes or fails the same way
  if (t == dtype::f32) {
    const float edges[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 2.0f, 3.0f, -2.5f, 7.0f, 100.0f, -100.0f, 1e-3f,
                           1e30f, -1e30f, std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest(),
                           std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min(),
                           std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()};
    for (float e : edges) v.push_back(to_bits(e));
    std::uniform_real_distribution<float> mant(1.0f, 2.0f);
    std::uniform_int_distribution<int> expo(-20, 20), small(-50, 50);
    for (int k = 0; k < 280; ++k) {
      float x = k % 4 == 0 ? static_cast<float>(small(rng)) : std::ldexp(mant(rng), expo(rng));
      v.push_back(to_bits((rng() & 1) ? -x : x));
    }
  } else {
    const std::uint32_t edges[] = {0u, 1u, 2u, 3u, 7u, 31u, 32u, 33u, 0xffu, 0x100u, 0xffffu, 0x10000u,
                                   0xffffffffu, 0xfffffffeu, 0x80000000u, 0x80000001u, 0x7fffffffu, 0x7ffffffeu};
    for (std::uint32_t e : edges) v.push_back(e);
    for (int k = 0; k < 280; ++k)
      v.push_back(k % 2 ? static_cast<std::uint32_t>(rng())
                        : t == dtype::i32 ? static_cast<std::uint32_t>(static_cast<int>(rng() % 201) - 100)
                                          : rng() % 201);
  }
  return v;
}
}  // namespace

void monoid::check(bool need_commutative) const {
  if (is_builtin()) return;
  // Each operator is checked once per process (the check evaluates ~18,000 triples; a call should not pay that).
  static std::mutex mu;
  static std::set<std::string> passed;
  const std::string cache_key = key() + (need_commutative ? "|c" : "|a");
  {
    std::lock_guard<std::mutex> g(mu);
    if (passed.count(cache_key)) return;
  }
  check_uncached(need_commutative);
  std::lock_guard<std::mutex> g(mu);
  passed.insert(cache_key);
}

void monoid::check_uncached(bool need_commutative) const {
  const bool fl = type_ == dtype::f32;
  const std::vector<std::uint32_t> v = check_values(type_, identity_);
  auto show = [&](std::uint32_t x) { return format_bits(type_, x); };
  auto refuse = [&](const std::string& what) -> error {
    return error(errc::invalid_argument, "custom operator '" + detail::excerpt(source_, 60) + "' over " +
                                             dtype_name(type_) + " is not a monoid: " + what +
                                             " (checked on the CPU twin; skip with --no-check if you know better)");
  };
  auto finite = [](std::uint32_t x) { return std::isfinite(from_bits<float>(x)); };
  auto magnitude = [](std::uint32_t x) { return std::fabs(static_cast<double>(from_bits<float>(x))); };
  // Equal: integers exactly; f32 both NaN, or within 2^-18 of the largest magnitude among the values involved
  // (rounding makes f32 a + b and a * b only approximately associative, and cancellation or underflow can
  // make the two groupings differ by a lot relative to the result, but not relative to the operands).
  auto same = [&](std::uint32_t x, std::uint32_t y, std::initializer_list<std::uint32_t> involved) {
    if (x == y || !fl) return x == y;
    float fx = from_bits<float>(x), fy = from_bits<float>(y);
    if (std::isnan(fx) || std::isnan(fy)) return std::isnan(fx) && std::isnan(fy);
    if (fx == fy) return true;
    if (!std::isfinite(fx) || !std::isfinite(fy)) return false;
    double scale = std::max(magnitude(x), magnitude(y));
    for (std::uint32_t z : involved) scale = std::max(scale, magnitude(z));
    return std::fabs(static_cast<double>(fx) - static_cast<double>(fy)) <= std::ldexp(scale, -18);
  };
  for (std::size_t k = 1; k <= v.size(); ++k) {  // the identity itself (v[0]) last: it shows the least
    const std::uint32_t x = v[k % v.size()];
    const std::uint32_t l = combine(identity_, x), r = combine(x, identity_);
    // The identity must give x back exactly (as a value: f32 -0 and +0 are equal).
    auto exact = [&](std::uint32_t y) { return fl ? from_bits<float>(y) == from_bits<float>(x) : y == x; };
    if (!exact(l) || !exact(r))
      throw refuse("the identity " + show(identity_) + " is not neutral: combine(" + show(identity_) + ", " +
                   show(x) + ") = " + show(l) + ", combine(" + show(x) + ", " + show(identity_) + ") = " + show(r));
  }
  // Associativity on every triple of the first 24 values (edges first), then on random triples.
  std::mt19937 rng(7);
  // A step that leaves the f32 range (finite operands, non-finite result; non-zero operands, a result below the
  // smallest normal) says nothing about the algebra: x * 2^-149 * inf is NaN or inf depending on the grouping.
  auto out_of_range = [&](std::uint32_t x, std::uint32_t y, std::uint32_t r) {
    if (!fl) return false;
    if (finite(x) && finite(y) && !finite(r)) return true;
    const double m = magnitude(r);
    return magnitude(x) != 0 && magnitude(y) != 0 && m < std::numeric_limits<float>::min();
  };
  auto assoc = [&](std::uint32_t x, std::uint32_t y, std::uint32_t z) {
    const std::uint32_t xy = combine(x, y), yz = combine(y, z);
    const std::uint32_t l = combine(xy, z), r = combine(x, yz);
    if (out_of_range(x, y, xy) || out_of_range(y, z, yz) || out_of_range(xy, z, l) || out_of_range(x, yz, r))
      return;
    if (!same(l, r, {x, y, z, xy, yz}))
      throw refuse("combine is not associative: combine(combine(" + show(x) + ", " + show(y) + "), " + show(z) +
                   ") = " + show(l) + " but combine(" + show(x) + ", combine(" + show(y) + ", " + show(z) +
                   ")) = " + show(r));
  };
  const std::size_t head = std::min<std::size_t>(v.size(), 24);
  for (std::size_t i = 0; i < head; ++i)
    for (std::size_t j = 0; j < head; ++j)
      for (std::size_t k = 0; k < head; ++k) assoc(v[i], v[j], v[k]);
  for (int k = 0; k < 4000; ++k) assoc(v[rng() % v.size()], v[rng() % v.size()], v[rng() % v.size()]);
  if (!need_commutative) return;
  for (std::size_t i = 0; i < v.size(); ++i)
    for (std::size_t j = i + 1; j < v.size(); j += 1 + i % 7) {
      const std::uint32_t l = combine(v[i], v[j]), r = combine(v[j], v[i]);
      if (out_of_range(v[i], v[j], l) || out_of_range(v[j], v[i], r)) continue;
      if (!same(l, r, {v[i], v[j]}))
        throw refuse("combine is not commutative (reduce needs that; a scan does not): combine(" + show(v[i]) +
                     ", " + show(v[j]) + ") = " + show(l) + " but combine(" + show(v[j]) + ", " + show(v[i]) +
                     ") = " + show(r));
    }
}

std::string monoid::key() const {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(identity_));
  return std::string(dtype_name(type_)) + "|" + wgsl_ + "|" + buf;
}

// ---- transforms (a unary expression in `a`, applied before a reduction) ----

dtype transform::result_type(dtype input) const { return bound_transform(*this, input).result_type(); }

bound_transform::bound_transform(const transform& t, dtype input)
    : input_(input),
      expression_(t.expression()),
      program_(std::make_shared<detail::expr_program>(detail::expr_program::unary(t.expression(), input))) {}

dtype bound_transform::result_type() const { return program_->result_type(); }
const std::string& bound_transform::wgsl() const { return program_->wgsl(); }
std::uint32_t bound_transform::apply(std::uint32_t a) const { return program_->eval(a, 0); }
void bound_transform::apply_many(const std::uint32_t* a, std::size_t n, std::uint32_t* out) const {
  program_->eval_many(a, nullptr, n, out);
}

namespace detail {
void check_transform_type(const bound_transform& tr, dtype out) {
  if (tr.result_type() != out)
    throw error(errc::invalid_argument, "transform '" + tr.expression() + "' yields " +
                                            dtype_name(tr.result_type()) + " values over " +
                                            dtype_name(tr.input_type()) + " elements, not " + dtype_name(out) +
                                            " (ask for that type, or convert in the expression: f32(), i32(), u32())");
}
}  // namespace detail

}  // namespace wgprim
