#include "wgprim/op.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "core/expr.hpp"
#include "wgprim/error.hpp"
#include "wgprim/transform_reduce.hpp"

namespace wgprim {

const char* dtype_name(dtype t) {
  switch (t) {
    case dtype::f32: return "f32";
    case dtype::i32: return "i32";
    case dtype::u32: return "u32";
  }
  return "?";
}

dtype parse_dtype(const std::string& s) {
  if (s == "f32" || s == "float32" || s == "float") return dtype::f32;
  if (s == "i32" || s == "int32" || s == "int") return dtype::i32;
  if (s == "u32" || s == "uint32" || s == "uint") return dtype::u32;
  throw error(errc::invalid_argument, "unknown type '" + s + "' (expected f32, i32 or u32)");
}

std::string format_bits(dtype t, std::uint32_t bits) {
  char buf[64];
  switch (t) {
    case dtype::f32: {
      float v = from_bits<float>(bits);
      if (std::isnan(v)) return "nan";
      if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
      // shortest representation that reads back to the same float
      for (int prec = 1; prec <= 9; ++prec) {
        std::snprintf(buf, sizeof buf, "%.*g", prec, static_cast<double>(v));
        if (std::strtof(buf, nullptr) == v) break;
      }
      return buf;
    }
    case dtype::i32: return std::to_string(static_cast<std::int32_t>(bits));
    case dtype::u32: return std::to_string(bits);
  }
  return "?";
}

std::uint32_t parse_value(dtype t, const std::string& text) {
  auto bad = [&]() -> error {
    return error(errc::invalid_argument, "'" + text + "' is not a valid " + std::string(dtype_name(t)) + " value");
  };
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
    double d = std::strtod(s, &end);
    if (end == s || *end != '\0' || !std::isfinite(d) || std::fabs(d) > std::numeric_limits<float>::max())
      throw bad();
    return to_bits(static_cast<float>(d));
  }
  if (text.find_first_of(".eE") != std::string::npos && text.rfind("0x", 0) != 0 && text.rfind("-0x", 0) != 0)
    throw bad();
  bool neg = text[0] == '-';
  if (neg || text[0] == '+') ++s;
  if (!std::isdigit(static_cast<unsigned char>(*s))) throw bad();
  unsigned long long v = std::strtoull(s, &end, 0);
  if (end == s || *end != '\0' || errno == ERANGE) throw bad();
  if (t == dtype::u32) {
    if (neg || v > 0xffffffffull) throw bad();
    return static_cast<std::uint32_t>(v);
  }
  long long sv = neg ? -static_cast<long long>(v) : static_cast<long long>(v);
  if (v > 0x80000000ull || sv < INT32_MIN || sv > INT32_MAX) throw bad();
  return static_cast<std::uint32_t>(static_cast<std::int32_t>(sv));
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
std::string nan_guard(const char* f) {
  return std::string("select(") + f +
         "(a, b), bitcast<f32>(0x7fc00000u), max(bitcast<u32>(a) & 0x7fffffffu, bitcast<u32>(b) & 0x7fffffffu) > "
         "0x7f800000u)";
}
}  // namespace

monoid::monoid(const op& o, dtype t) : type_(t), name_(o.name()) {
  const bool fl = t == dtype::f32;
  const std::string& n = o.name();
  if (n == "sum") { builtin_ = builtin::sum; wgsl_ = "a + b"; identity_ = 0; }
  // f32 min/max propagate NaN (IEEE 754-2019 minimum/maximum, numpy's min/max): WGSL's min/max leave a NaN
  // operand's result to the GPU, so the NaN case is made explicit. The test is on the bits, because shader
  // compilers may assume a != a is false; the result is the canonical quiet NaN.
  else if (n == "min") {
    builtin_ = builtin::min;
    wgsl_ = fl ? nan_guard("min") : "min(a, b)";
    identity_ = parse_value(t, fl ? "inf" : "max");
  } else if (n == "max") {
    builtin_ = builtin::max;
    wgsl_ = fl ? nan_guard("max") : "max(a, b)";
    identity_ = parse_value(t, fl ? "-inf" : "min");
  }
  else if (n == "and" || n == "or" || n == "xor") {
    if (fl) throw error(errc::invalid_argument, "operator '" + n + "' is not defined for f32");
    builtin_ = n == "and" ? builtin::bit_and : n == "or" ? builtin::bit_or : builtin::bit_xor;
    wgsl_ = n == "and" ? "a & b" : n == "or" ? "a | b" : "a ^ b";
    identity_ = n == "and" ? 0xffffffffu : 0u;
  } else if (n == "custom") {
    auto prog = std::make_shared<detail::expr_program>(o.expression(), t);
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

std::string monoid::key() const {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", identity_);
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
