// Grammar (C precedence, lowest first; parenthesise when in doubt):
//   expr   := or ; or := and ('||' and)* ; and := bor ('&&' bor)* ; bor := bxor ('|' bxor)*
//   bxor   := band ('^' band)* ; band := rel ('&' rel)* ; rel := shift (relop shift)?
//   shift  := add (('<<'|'>>') add)* ; add := mul (('+'|'-') mul)* ; mul := unary (('*'|'/'|'%') unary)*
//   unary  := ('-'|'!'|'~') unary | primary
//   primary:= number | 'a' | 'b' | 'true' | 'false' | fn '(' expr (',' expr)* ')' | '(' expr ')'
//   fn     := min | max | abs | clamp | select
// Every value is either of the element type T or bool; the whole expression must be of type T.
// Unary mode (transforms, expr_program::unary): `a` only, of the input type; values are typed (f32, i32, u32 or
// bool): literals with a suffix (0u, 1i, 2.5f) and the conversions f32(x), i32(x), u32(x) give other types, an
// unsuffixed integer literal takes the type of the operand it meets (alone, or between two such literals: the
// input type), a literal written as a float (2.5, 1e3, inf, nan) is f32. Operands of one operator must have one
// type, as in WGSL. Conversions follow WGSL with the out-of-range cases defined: f32 -> integer truncates toward
// zero and saturates, NaN gives 0; integer -> f32 rounds to nearest; i32 <-> u32 keeps the bits.
// Integer semantics follow WGSL at run time: wrapping arithmetic, x/0 == x, x%0 == 0, shifts modulo 32.
// Shifts (WGSL's typing): the shifted operand is i32 or u32 and gives the result type; the count is a u32 (an i32
// count is taken as its bits), an unsuffixed literal count is u32 whatever the shifted type; a constant count
// (no a or b in it) that is negative or not below 32 is refused, a run-time count is taken modulo 32.
#include "core/expr.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "wgprim/error.hpp"
#include "wgprim/op.hpp"

namespace wgprim::detail {
namespace {

constexpr std::size_t max_length = 4096;
// The lowering of / % min max clamp abs repeats operands, so nested uses grow the WGSL geometrically.
constexpr std::size_t max_wgsl_length = 65536;
constexpr int max_depth = 64;

enum class kind { value, boolean };

struct parsed {
  parsed(kind kd, std::string w, dtype ty = dtype::f32) : k(kd), wgsl(std::move(w)), t(ty) {}
  kind k;
  std::string wgsl;
  dtype t = dtype::f32;   // for values
  int literal = -1;       // unary mode: index of the push of an unsuffixed integer literal whose type is still open
  std::string text;       // that literal's text
};

class parser {
 public:
  parser(const std::string& text, dtype t, std::vector<expr_program::instr>& out)
      : s_(text), t_(t), out_(out) {}

  std::string run() {
    parsed p = parse_or();
    skip_space();
    if (pos_ != s_.size()) fail("unexpected '" + std::string(1, s_[pos_]) + "'");
    if (predicate_) {
      if (p.k != kind::boolean)
        fail(unary_ ? "the expression is of the element type; a predicate must be a bool (e.g. a > 0)"
                    : "the expression is of the element type; a comparator must be a bool (e.g. a < b)");
      return bounded(p.wgsl);
    }
    if (p.k != kind::value) fail("the expression is a bool; it must be of the element type");
    settle(p);
    result_ = p.t;
    // Each lowering is bounded, and so is what joins them (several lowered operands of one operator).
    return bounded(p.wgsl);
  }
  /// Transforms: `a` alone, typed values (see the grammar above).
  void unary_mode() { unary_ = true; }
  /// Predicates: `a` alone, typed values, a bool result; f32 comparisons NaN-exact (shared/predicate.wgsl).
  void predicate_mode() { unary_ = predicate_ = true; }
  /// Comparators: `a` and `b` of the element type, a bool result, f32 comparisons as predicates'.
  void less_mode() { predicate_ = true; }
  dtype result_type() const { return result_; }

 private:
  using code = expr_program::code;
  const std::string& s_;
  dtype t_;
  std::vector<expr_program::instr>& out_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  bool unary_ = false, predicate_ = false;
  bool count_ = false;  // parsing the count of a shift: unsuffixed literals are open and settle to u32 (WGSL)
  dtype result_ = dtype::f32;

  [[noreturn]] void fail(const std::string& why) const {
    throw error(errc::invalid_argument,
                "custom operator: " + why + " at column " + std::to_string(pos_ + 1) + " of '" + excerpt(s_, 60) + "'");
  }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  bool accept(const char* tok) {
    skip_space();
    std::size_t n = std::strlen(tok);
    if (s_.compare(pos_, n, tok) != 0) return false;
    // "<" must not match "<<" or "<=", "&" must not match "&&", etc.
    if (n == 1 && pos_ + 1 < s_.size()) {
      char c = tok[0], d = s_[pos_ + 1];
      if ((c == '<' && (d == '<' || d == '=')) || (c == '>' && (d == '>' || d == '=')) ||
          (c == '&' && d == '&') || (c == '|' && d == '|') || (c == '!' && d == '=') || (c == '=' && d == '='))
        return false;
    }
    pos_ += n;
    return true;
  }
  void emit(code c, std::uint32_t imm = 0) { out_.push_back({c, imm, t_}); }
  void emit_typed(code c, dtype t) { out_.push_back({c, 0, t}); }
  void need(const parsed& p, kind k, const char* what) const {
    if (p.k != k) fail(std::string(what) + (k == kind::value ? " needs values of the element type" : " needs bools"));
  }
  void need_int(const char* what, dtype t) const {
    if (t == dtype::f32) fail(std::string(what) + " is not defined for f32");
  }
  void need_int(const char* what) const { need_int(what, t_); }

  // ---- typing (unary mode; in operator mode every value has the type t_ and these change nothing) ----
  /// Gives an open literal the type t: its push gets the bits, its WGSL the typed constant.
  void resolve(parsed& p, dtype t) {
    if (p.literal < 0) return;
    std::uint32_t bits;
    try {
      bits = parse_value(t, p.text);
    } catch (const error&) {
      fail("literal '" + p.text + "' is not a valid " + dtype_name(t));
    }
    out_[static_cast<std::size_t>(p.literal)].imm = bits;
    p.wgsl = typed_constant(t, bits);
    p.t = t;
    p.literal = -1;
  }
  /// An open literal with nothing to meet takes the input's type (in a shift count: u32, as WGSL's abstract
  /// integers become there).
  void settle(parsed& p) { resolve(p, count_ ? dtype::u32 : t_); }
  /// Operands of one operator: one type (an open literal takes the other's).
  dtype unify(parsed& l, parsed& r, const char* what) {
    if (l.literal >= 0 && r.literal >= 0) settle(l);
    if (l.literal >= 0) resolve(l, r.t);
    if (r.literal >= 0) resolve(r, l.t);
    if (l.t != r.t)
      fail(std::string("the operands of ") + what + " have different types (" + dtype_name(l.t) + " and " +
           dtype_name(r.t) + "); convert one with f32(), i32() or u32()");
    return l.t;
  }
  static std::string typed_constant(dtype t, std::uint32_t bits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "bitcast<%s>(0x%08xu)", dtype_name(t), bits);
    return buf;
  }
  struct depth_guard {
    parser& p;
    explicit depth_guard(parser& q) : p(q) { if (++p.depth_ > max_depth) p.fail("expression nested too deeply"); }
    ~depth_guard() { --p.depth_; }
  };

  parsed binary_chain(parsed (parser::*next)(), std::initializer_list<std::pair<const char*, code>> ops) {
    parsed lhs = (this->*next)();
    for (;;) {
      const std::pair<const char*, code>* hit = nullptr;
      for (auto& o : ops)
        if (accept(o.first)) { hit = &o; break; }
      if (!hit) return lhs;
      parsed rhs = (this->*next)();
      lhs = combine(hit->first, hit->second, lhs, rhs);
    }
  }

  parsed combine(const char* tok, code c, parsed l, parsed r) {
    std::string sym = tok;
    switch (c) {
      case code::land: case code::lor:
        need(l, kind::boolean, tok); need(r, kind::boolean, tok);
        emit(c);
        return {kind::boolean, "(" + l.wgsl + " " + sym + " " + r.wgsl + ")"};
      case code::lt: case code::gt: case code::le: case code::ge: case code::eq: case code::ne: {
        need(l, kind::value, tok); need(r, kind::value, tok);
        const dtype t = unify(l, r, tok);
        emit_typed(c, t);
        if (predicate_ && t == dtype::f32) {
          // NaN-exact comparisons (shaders/shared/predicate.wgsl): some drivers answer false for NaN != x.
          static const char* names[] = {"lt", "gt", "le", "ge", "eq", "ne"};
          const int k = c == code::lt ? 0 : c == code::gt ? 1 : c == code::le ? 2 : c == code::ge ? 3 : c == code::eq ? 4 : 5;
          return {kind::boolean, std::string("wgprim_f32_") + names[k] + "(" + l.wgsl + ", " + r.wgsl + ")"};
        }
        return {kind::boolean, "(" + l.wgsl + " " + sym + " " + r.wgsl + ")"};
      }
      case code::band: case code::bor: case code::bxor: {
        need(l, kind::value, tok); need(r, kind::value, tok);
        const dtype t = unify(l, r, tok);
        need_int(tok, t);
        emit_typed(c, t);
        return {kind::value, "(" + l.wgsl + " " + sym + " " + r.wgsl + ")", t};
      }
      case code::shl: case code::shr:
        fail("internal: shifts are combined by shift()");
      default: {
        need(l, kind::value, tok); need(r, kind::value, tok);
        const dtype t = unify(l, r, tok);
        emit_typed(c, t);
        if ((c == code::div || c == code::rem) && t != dtype::f32)
          return {kind::value, lower_int_division(c, l.wgsl, r.wgsl, t), t};
        if (c == code::div) return {kind::value, lower_f32_division(l.wgsl, r.wgsl), t};
        if (c == code::rem) return {kind::value, lower_f32_remainder(l.wgsl, r.wgsl), t};
        return {kind::value, "(" + l.wgsl + " " + sym + " " + r.wgsl + ")", t};
      }
    }
  }

  // WGSL defines x / 0 = x, x % 0 = 0, and for i32 MIN / -1 = MIN, MIN % -1 = 0. SPIR-V leaves division by 0
  // and MIN / -1 undefined, and Vulkan leaves OpSRem undefined for negative operands (NVIDIA returns the
  // divisor's sign, Mesa the dividend's: wgpu #8191, #9578; naga 29 emits OpSRem for i32 %). So the guards are
  // ours rather than naga's, and i32 % is computed through the division, which is well defined once guarded:
  // a % d = a - d * (a / d) with d = 1 where b is 0 or -1 (both give remainder 0, as a - a does).
  std::string lower_int_division(code c, const std::string& l, const std::string& r, dtype t) const {
    if (t == dtype::u32) {
      const std::string d = "select(" + r + ", 1u, " + r + " == 0u)";
      return bounded("(" + l + (c == code::div ? " / " : " % ") + d + ")");
    }
    if (c == code::div) {
      const std::string d = "select(" + r + ", 1i, (" + r + " == 0i) || ((" + r + " == -1i) && (" + l +
                            " == bitcast<i32>(0x80000000u))))";
      return bounded("(" + l + " / " + d + ")");
    }
    // b + 1 (wrapping) is 0 or 1 exactly when b is -1 or 0.
    const std::string d = "select(" + r + ", 1i, bitcast<u32>(" + r + " + 1i) < 2u)";
    return bounded("(" + l + " - (" + d + " * (" + l + " / " + d + ")))");
  }
  // f32 division by zero: Vulkan bounds OpFDiv's error only for divisors of magnitude 2^-126..2^126, and
  // lavapipe returned NaN for 1.5 / 0.0 where the twin (IEEE, as WGSL describes) gives inf (hostile pass,
  // 2026-11-29). So a zero divisor is answered here: +-inf with the sign of a xor b, NaN for 0 / 0 and NaN / 0;
  // the tests are on the bits (comparisons involving NaN are not reliable on every driver).
  std::string lower_f32_division(const std::string& l, const std::string& r) const {
    const std::string lb = "bitcast<u32>(" + l + ")", rb = "bitcast<u32>(" + r + ")";
    const std::string special = "bitcast<f32>(select(((" + lb + " ^ " + rb + ") & 0x80000000u) | 0x7f800000u, 0x7fc00000u, ((" +
                                lb + " & 0x7fffffffu) == 0u) || ((" + lb + " & 0x7fffffffu) > 0x7f800000u)))";
    return bounded("select((" + l + " / " + r + "), " + special + ", (" + rb + " & 0x7fffffffu) == 0u)");
  }
  // f32 remainder: WGSL defines a % b as a - b * trunc(a / b), which is NaN for a divisor of 0 or +-inf (0 * inf),
  // as in the CPU twin; lavapipe's OpFRem returned a for a % 0.0 (hostile pass, 2026-12-07), as C's fmod does
  // for an infinite divisor. So those two divisors are answered here, on the bits.
  std::string lower_f32_remainder(const std::string& l, const std::string& r) const {
    const std::string rb = "(bitcast<u32>(" + r + ") & 0x7fffffffu)";
    return bounded("select((" + l + " % " + r + "), bitcast<f32>(0x7fc00000u), (" + rb + " == 0u) || (" + rb +
                   " == 0x7f800000u))");
  }
  std::string bounded(std::string w) const {
    if (w.size() > max_wgsl_length)
      fail("expression too complex (nested / % min max clamp abs expand to over " +
           std::to_string(max_wgsl_length) + " characters of WGSL)");
    return w;
  }

  parsed parse_or() { depth_guard g(*this); return binary_chain(&parser::parse_and, {{"||", code::lor}}); }
  parsed parse_and() { return binary_chain(&parser::parse_bor, {{"&&", code::land}}); }
  parsed parse_bor() { return binary_chain(&parser::parse_bxor, {{"|", code::bor}}); }
  parsed parse_bxor() { return binary_chain(&parser::parse_band, {{"^", code::bxor}}); }
  parsed parse_band() { return binary_chain(&parser::parse_rel, {{"&", code::band}}); }
  parsed parse_rel() {
    parsed lhs = parse_shift();
    static const std::pair<const char*, code> ops[] = {{"<=", code::le}, {">=", code::ge}, {"==", code::eq},
                                                       {"!=", code::ne}, {"<", code::lt},  {">", code::gt}};
    for (auto& o : ops)
      if (accept(o.first)) return combine(o.first, o.second, lhs, parse_shift());
    return lhs;
  }
  // Shifts follow WGSL's typing: the shifted value is i32 or u32 and keeps its type; the count is a u32 (an i32
  // count, e.g. `b` of an i32 operator, is taken as its bits). An unsuffixed literal in the count is typed by what
  // it meets there, alone u32, whatever the shifted type (`a << 1` and `a << 1u` over i32). A count without `a`
  // or `b` in it is a constant: negative, or not below 32 (the bit width), is refused as WGSL refuses a constant
  // count that large; a count computed at run time is taken modulo 32 (WGSL), on the GPU and in the CPU twin.
  parsed parse_shift() {
    parsed lhs = parse_add();
    for (;;) {
      code c;
      const char* tok;
      if (accept("<<")) c = code::shl, tok = "<<";
      else if (accept(">>")) c = code::shr, tok = ">>";
      else return lhs;
      const std::size_t from = out_.size();  // the count's instructions: out_[from, end)
      const bool outer = count_;
      count_ = true;
      parsed rhs = parse_add();
      count_ = outer;
      lhs = shift(tok, c, lhs, rhs, from);
    }
  }
  parsed shift(const char* tok, code c, parsed l, parsed r, std::size_t count_from) {
    need(l, kind::value, tok); need(r, kind::value, tok);
    settle(l);
    need_int(tok, l.t);
    if (r.literal >= 0) {
      if (!r.text.empty() && r.text[0] == '-')
        fail("shift count " + r.text + " is negative (a shift count is a u32 below 32, the bit width)");
      resolve(r, dtype::u32);
    }
    if (r.t == dtype::f32)
      fail(std::string("the count of ") + tok + " is f32; a shift count is a u32 (e.g. 3u)");
    bool constant = true;
    for (std::size_t k = count_from; k < out_.size(); ++k)
      if (out_[k].c == code::load_a || out_[k].c == code::load_b) constant = false;
    if (constant) {
      const std::uint32_t v = expr_program::eval_constant(out_, count_from, out_.size());
      if (r.t == dtype::i32 && static_cast<std::int32_t>(v) < 0)
        fail("shift count " + std::to_string(static_cast<std::int32_t>(v)) +
             " is negative (a shift count is a u32 below 32, the bit width)");
      if (v >= 32)
        fail("shift count " + std::to_string(v) + " is not below 32, the bit width of " + dtype_name(l.t) +
             " (WGSL refuses a constant count that large)");
    }
    emit_typed(c, l.t);
    return {kind::value, "(" + l.wgsl + " " + tok + " (u32(" + r.wgsl + ") & 31u))", l.t};
  }
  parsed parse_add() { return binary_chain(&parser::parse_mul, {{"+", code::add}, {"-", code::sub}}); }
  parsed parse_mul() {
    return binary_chain(&parser::parse_unary, {{"*", code::mul}, {"/", code::div}, {"%", code::rem}});
  }
  parsed parse_unary() {
    depth_guard g(*this);
    if (accept("-")) {
      skip_space();
      // A negative literal is folded so that "-2147483648" is a valid i32.
      if (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.'))
        return literal(true);
      parsed p = parse_unary();
      need(p, kind::value, "'-'");
      settle(p);
      if (p.t == dtype::u32) fail("unary '-' is not defined for u32");
      emit_typed(code::neg, p.t);
      return {kind::value, "(-" + p.wgsl + ")", p.t};
    }
    if (accept("~")) {
      parsed p = parse_unary();
      need(p, kind::value, "'~'");
      settle(p);
      need_int("'~'", p.t);
      emit_typed(code::bnot, p.t);
      return {kind::value, "(~" + p.wgsl + ")", p.t};
    }
    if (accept("!")) {
      parsed p = parse_unary();
      need(p, kind::boolean, "'!'");
      emit(code::lnot);
      return {kind::boolean, "(!" + p.wgsl + ")"};
    }
    return parse_primary();
  }

  parsed literal(bool negative) {
    std::size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.' ||
                                ((s_[pos_] == '+' || s_[pos_] == '-') && pos_ > start &&
                                 (s_[pos_ - 1] == 'e' || s_[pos_ - 1] == 'E'))))
      ++pos_;
    std::string text = s_.substr(start, pos_ - start);
    // WGSL suffixes: the value is converted to T anyway, but a suffix for another type is an error.
    const bool hex = text.rfind("0x", 0) == 0 || text.rfind("0X", 0) == 0;
    dtype lt = t_;
    // unary mode and shift counts: an integer literal without a suffix is typed by what it meets
    bool open = unary_ || count_;
    // ("inf" ends in 'f' but is not a suffixed literal.)
    if (!text.empty() && text != "inf" && (text.back() == 'u' || text.back() == 'i' || (text.back() == 'f' && !hex))) {
      char suf = text.back();
      const dtype st = suf == 'u' ? dtype::u32 : suf == 'i' ? dtype::i32 : dtype::f32;
      if (!unary_ && !count_ && st != t_)
        fail("literal '" + text + "' does not have the element type " + dtype_name(t_));
      lt = st;
      open = false;
      text.pop_back();
    } else if ((unary_ || count_) && !hex && text.find_first_of(".eEna") != std::string::npos) {
      lt = dtype::f32;  // written as a float: 2.5, 1e3, inf, nan
      open = false;
    }
    if (negative) text = "-" + text;
    std::uint32_t bits = 0;
    try {
      bits = parse_value(lt, text);
    } catch (const error& e) {
      // An open literal is parsed again for the type it meets (resolve), which reports a bad value then.
      if (!open) fail("bad literal '" + text + "' for " + dtype_name(lt));
    }
    emit(code::push, bits);
    parsed p{kind::value, typed_constant(lt, bits), lt};
    if (open) {
      p.literal = static_cast<int>(out_.size() - 1);
      p.text = text;
    }
    return p;
  }

  // Builtins whose SPIR-V form is undefined for some inputs that WGSL defines, written so that every driver
  // computes what the CPU twin does:
  // - f32 min/max: GLSL.std.450 FMin/FMax leave NaN operands and the sign of a zero result to the driver; the
  //   twin (and WGSL's "e2 if e2 < e1, else e1") is a comparison and a select.
  // - clamp: SClamp/UClamp/FClamp are undefined when low > high; WGSL defines min(max(e, low), high).
  // - i32 abs: SAbs of the most negative value is not defined everywhere; WGSL wraps (abs(MIN) = MIN), which
  //   max(e, -e) gives with wrapping negation.
  std::string lower_function(code c, const std::vector<parsed>& args, dtype t) const {
    const bool fl = t == dtype::f32;
    auto fmin = [&](const std::string& x, const std::string& y) {
      return fl ? "select(" + x + ", " + y + ", " + y + " < " + x + ")" : "min(" + x + ", " + y + ")";
    };
    auto fmax = [&](const std::string& x, const std::string& y) {
      return fl ? "select(" + x + ", " + y + ", " + x + " < " + y + ")" : "max(" + x + ", " + y + ")";
    };
    switch (c) {
      case code::min: return fmin(args[0].wgsl, args[1].wgsl);
      case code::max: return fmax(args[0].wgsl, args[1].wgsl);
      case code::clamp: return fmin(fmax(args[0].wgsl, args[1].wgsl), args[2].wgsl);
      case code::abs:
        // WGSL's abs(i32) gives MIN for MIN; written as a select (NVIDIA's compiler returned a itself for
        // max(a, -a) in a fused transform on the H200, 2026-11-29).
        return t == dtype::i32 ? "select(" + args[0].wgsl + ", (-" + args[0].wgsl + "), " + args[0].wgsl + " < 0i)"
                               : "abs(" + args[0].wgsl + ")";
      default: {
        std::string w = c == code::select ? "select(" : "?(";
        for (std::size_t i = 0; i < args.size(); ++i) w += (i ? ", " : "") + args[i].wgsl;
        return w + ")";
      }
    }
  }

  parsed parse_primary() {
    skip_space();
    if (pos_ >= s_.size()) fail("expression ends too early");
    char c = s_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return literal(false);
    if (c == '(') {
      ++pos_;
      parsed p = parse_or();
      if (!accept(")")) fail("missing ')'");
      return p;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t start = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
      std::string id = s_.substr(start, pos_ - start);
      if (id == "a") { emit(code::load_a); return {kind::value, "a", t_}; }
      if (id == "b") {
        if (unary_) fail(predicate_ ? "a predicate has one operand, 'a'" : "a transform has one operand, 'a'");
        emit(code::load_b);
        return {kind::value, "b", t_};
      }
      if (id == "true" || id == "false") {
        emit(code::push, id == "true");
        return {kind::boolean, id};
      }
      if (id == "inf" || id == "nan") { pos_ = start; return literal(false); }
      if (unary_ && (id == "f32" || id == "i32" || id == "u32")) return conversion(id);
      struct fn { const char* name; int arity; code c; };
      static const fn fns[] = {{"min", 2, code::min}, {"max", 2, code::max}, {"abs", 1, code::abs},
                               {"clamp", 3, code::clamp}, {"select", 3, code::select}};
      for (const fn& f : fns) {
        if (id != f.name) continue;
        if (!accept("(")) fail("'" + id + "' needs '('");
        std::vector<parsed> args;
        do { args.push_back(parse_or()); } while (accept(","));
        if (!accept(")")) fail("missing ')' after the arguments of '" + id + "'");
        if (static_cast<int>(args.size()) != f.arity)
          fail("'" + id + "' takes " + std::to_string(f.arity) + " arguments");
        for (std::size_t i = 0; i < args.size(); ++i)
          need(args[i], (f.c == code::select && i == 2) ? kind::boolean : kind::value, f.name);
        // The value arguments have one type (select's condition is a bool).
        const std::size_t values = f.c == code::select ? 2 : args.size();
        if (values == 1) settle(args[0]);
        for (std::size_t i = 1; i < values; ++i) unify(args[0], args[i], f.name);
        emit_typed(f.c, args[0].t);
        return {kind::value, bounded(lower_function(f.c, args, args[0].t)), args[0].t};
      }
      fail("unknown name '" + id + "' (only a, b, min, max, abs, clamp, select)");
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }

  // f32(x), i32(x), u32(x) (unary mode). An open literal argument takes the target type, as in WGSL.
  parsed conversion(const std::string& id) {
    const dtype to = parse_dtype(id);
    if (!accept("(")) fail("'" + id + "' needs '('");
    parsed x = parse_or();
    if (!accept(")")) fail("missing ')' after the argument of '" + id + "'");
    need(x, kind::value, id.c_str());
    resolve(x, to);
    if (x.t == to) return x;
    emit_typed(to == dtype::f32 ? code::to_f32 : to == dtype::i32 ? code::to_i32 : code::to_u32, x.t);
    if (x.t != dtype::f32) return {kind::value, id + "(" + x.wgsl + ")", to};
    // f32 -> integer: clamped into range first (WGSL leaves out-of-range values to the implementation), NaN -> 0.
    // The bounds are the largest f32 values the integer type holds.
    const std::string lo = to == dtype::i32 ? "-2147483648.0" : "0.0", hi = to == dtype::i32 ? "2147483520.0" : "4294967040.0";
    return {kind::value,
            "select(" + id + "(clamp(" + x.wgsl + ", " + lo + ", " + hi + ")), " + id + "(0), (bitcast<u32>(" + x.wgsl +
                ") & 0x7fffffffu) > 0x7f800000u)",
            to};
  }
};

// Expressions are evaluated on 32-bit values (the twin) and emitted as 32-bit WGSL: the other types are refused
// before parsing, naming the type.
void refuse_type(dtype t, const char* what) {
  if (is_wide(t) || is_narrow(t))
    throw error(errc::unsupported, std::string(what) + " over " + dtype_name(t) +
                                       " elements are not supported yet (expressions take f32, i32 and u32)");
}

float f(std::uint32_t x) { return from_bits<float>(x); }
std::uint32_t fb(float x) { return to_bits(x); }
std::int32_t i(std::uint32_t x) { return static_cast<std::int32_t>(x); }

}  // namespace

expr_program::expr_program(const std::string& text, dtype t) : type_(t), result_(t) {
  refuse_type(t, "custom operators");
  if (text.size() > max_length) throw error(errc::invalid_argument, "custom operator: expression too long");
  for (char c : text)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e)
      if (c != '\t') throw error(errc::invalid_argument, "custom operator: a character that is not printable ASCII in the expression");
  wgsl_ = parser(text, t, prog_).run();
  if (t != dtype::f32) return;
  // Which add/sub instructions have a product operand: a mul result, possibly negated, not yet combined with
  // anything else. This depends on the program's shape only.
  std::vector<bool> is_product;
  for (std::size_t at = 0; at < prog_.size(); ++at) {
    switch (prog_[at].c) {
      case code::push: case code::load_a: case code::load_b: is_product.push_back(false); break;
      case code::neg: break;
      case code::bnot: case code::lnot: case code::abs: is_product.back() = false; break;
      case code::clamp: case code::select:
        is_product.resize(is_product.size() - 2);
        is_product.back() = false;
        break;
      default: {
        const bool l = is_product[is_product.size() - 2], r = is_product.back();
        is_product.pop_back();
        is_product.back() = prog_[at].c == code::mul;
        if ((prog_[at].c == code::add || prog_[at].c == code::sub) && (l || r))
          sites_.push_back({at, static_cast<std::uint8_t>((l ? 1 : 0) | (r ? 2 : 0))});
      }
    }
  }
}

expr_program::expr_program(const std::string& text, dtype t, bool) : type_(t), result_(t) {
  refuse_type(t, "transforms");
  try {
    if (text.size() > max_length) throw error(errc::invalid_argument, "custom operator: expression too long");
    for (char c : text)
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e)
        if (c != '\t') throw error(errc::invalid_argument, "custom operator: a character that is not printable ASCII in the expression");
    parser p(text, t, prog_);
    p.unary_mode();
    wgsl_ = p.run();
    result_ = p.result_type();
  } catch (const error& e) {
    // The parser's messages name custom operators; this is a transform.
    std::string m = e.what();
    const std::string prefix = "custom operator: ";
    if (m.rfind(prefix, 0) == 0) m = "transform: " + m.substr(prefix.size());
    throw error(e.code(), m);
  }
}

expr_program expr_program::unary(const std::string& text, dtype input) { return expr_program(text, input, true); }

expr_program::expr_program(const std::string& text, dtype t, mode md) : type_(t), result_(t) {
  if (md == mode::op) {
    *this = expr_program(text, t);
    return;
  }
  refuse_type(t, md == mode::less ? "comparators" : "predicates");
  try {
    if (text.size() > max_length) throw error(errc::invalid_argument, "custom operator: expression too long");
    for (char c : text)
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e)
        if (c != '\t') throw error(errc::invalid_argument, "custom operator: a character that is not printable ASCII in the expression");
    parser p(text, t, prog_);
    if (md == mode::less) p.less_mode();
    else p.predicate_mode();
    wgsl_ = p.run();
    result_ = dtype::u32;  // eval gives 0 or 1
  } catch (const error& e) {
    std::string m = e.what();
    const std::string prefix = "custom operator: ";
    if (m.rfind(prefix, 0) == 0) m = (md == mode::less ? "comparator: " : "predicate: ") + m.substr(prefix.size());
    throw error(e.code(), m);
  }
}


std::uint32_t expr_program::eval(std::uint32_t a, std::uint32_t b) const { return eval_with(a, b, nullptr); }

// choice[k] says how fusion site k is evaluated: 0 rounded product then add, 1 fuse the left product, 2 the
// right one. A product operand is tracked on a side stack (its factors, and whether it was negated since).
std::uint32_t expr_program::eval_with(std::uint32_t a, std::uint32_t b, const std::uint8_t* choice) const {
  return run(prog_.data(), prog_.size(), sites_.data(), sites_.size(), a, b, choice);
}

std::uint32_t expr_program::eval_constant(const std::vector<instr>& prog, std::size_t from, std::size_t to) {
  return run(prog.data() + from, to - from, nullptr, 0, 0, 0, nullptr);
}

std::uint32_t expr_program::run(const instr* prog, std::size_t count, const site* sites, std::size_t nsites,
                                std::uint32_t a, std::uint32_t b, const std::uint8_t* choice) {
  std::uint32_t st[max_depth * 4 + 8];
  struct product { bool is; bool negated; float p, q; };
  product pr[max_depth * 4 + 8];
  int sp = 0;
  std::size_t site = 0;
  for (std::size_t at = 0; at < count; ++at) {
    const instr& in = prog[at];
    const bool fl = in.t == dtype::f32, sg = in.t == dtype::i32;  // the operands' type
    auto lt = [&](std::uint32_t x, std::uint32_t y) { return fl ? f(x) < f(y) : sg ? i(x) < i(y) : x < y; };
    std::uint32_t y = sp > 0 ? st[sp - 1] : 0, x = sp > 1 ? st[sp - 2] : 0, r = 0;
    product keep{false, false, 0, 0};
    switch (in.c) {
      case code::push: pr[sp] = keep; st[sp++] = in.imm; continue;
      case code::load_a: pr[sp] = keep; st[sp++] = a; continue;
      case code::load_b: pr[sp] = keep; st[sp++] = b; continue;
      case code::neg:
        st[sp - 1] = fl ? fb(-f(y)) : 0u - y;
        pr[sp - 1].negated = !pr[sp - 1].negated;
        continue;
      case code::bnot: st[sp - 1] = ~y; pr[sp - 1] = keep; continue;
      case code::lnot: st[sp - 1] = !y; pr[sp - 1] = keep; continue;
      case code::to_f32: st[sp - 1] = fb(sg ? static_cast<float>(i(y)) : static_cast<float>(y)); pr[sp - 1] = keep; continue;
      case code::to_i32:
      case code::to_u32: {
        pr[sp - 1] = keep;
        if (!fl) continue;  // i32 <-> u32: the same bits
        const float v = f(y);
        const bool to_i = in.c == code::to_i32;
        if (std::isnan(v)) st[sp - 1] = 0;
        else if (to_i) st[sp - 1] = static_cast<std::uint32_t>(static_cast<std::int32_t>(
                           std::fmax(-2147483648.0f, std::fmin(v, 2147483520.0f))));
        else st[sp - 1] = static_cast<std::uint32_t>(std::fmax(0.0f, std::fmin(v, 4294967040.0f)));
        continue;
      }
      case code::abs:
        st[sp - 1] = fl ? fb(std::fabs(f(y))) : sg ? (i(y) < 0 ? 0u - y : y) : y;
        pr[sp - 1] = keep;
        continue;
      case code::add:
      case code::sub: {
        if (!fl) { r = in.c == code::add ? x + y : x - y; break; }
        std::uint8_t how = 0;
        if (site < nsites && sites[site].at == at) {
          if (choice) how = choice[site];
          ++site;
        }
        const product& pl = pr[sp - 2];
        const product& pq = pr[sp - 1];
        const float sy = in.c == code::add ? 1.0f : -1.0f;  // x + sy * y
        if (how == 1 && pl.is)  // fma(±p, q, sy * y)
          r = fb(std::fma(pl.negated ? -pl.p : pl.p, pl.q, sy * f(y)));
        else if (how == 2 && pq.is)  // fma(±sy p, q, x)
          r = fb(std::fma((pq.negated ? -sy : sy) * pq.p, pq.q, f(x)));
        else
          r = fb(in.c == code::add ? f(x) + f(y) : f(x) - f(y));
        break;
      }
      case code::mul:
        r = fl ? fb(f(x) * f(y)) : x * y;
        if (fl) keep = {true, false, f(x), f(y)};
        break;
      case code::div:
        if (fl) r = fb(f(x) / f(y));
        else if (y == 0 || (sg && x == 0x80000000u && y == 0xffffffffu)) r = x;
        else r = sg ? static_cast<std::uint32_t>(i(x) / i(y)) : x / y;
        break;
      case code::rem:
        if (fl) r = fb(f(x) - f(y) * std::trunc(f(x) / f(y)));
        else if (y == 0 || (sg && x == 0x80000000u && y == 0xffffffffu)) r = 0;
        else r = sg ? static_cast<std::uint32_t>(i(x) % i(y)) : x % y;
        break;
      case code::band: r = x & y; break;
      case code::bor: r = x | y; break;
      case code::bxor: r = x ^ y; break;
      case code::shl: r = x << (y & 31u); break;
      case code::shr: r = sg ? static_cast<std::uint32_t>(i(x) >> (y & 31u)) : x >> (y & 31u); break;
      case code::lt: r = lt(x, y); break;
      case code::gt: r = lt(y, x); break;
      case code::le: r = fl ? f(x) <= f(y) : !lt(y, x); break;
      case code::ge: r = fl ? f(x) >= f(y) : !lt(x, y); break;
      case code::eq: r = fl ? f(x) == f(y) : x == y; break;
      case code::ne: r = fl ? f(x) != f(y) : x != y; break;
      case code::land: r = x && y; break;
      case code::lor: r = x || y; break;
      case code::min: r = lt(y, x) ? y : x; break;
      case code::max: r = lt(x, y) ? y : x; break;
      case code::clamp: {  // clamp(v, lo, hi) = min(max(v, lo), hi)
        std::uint32_t v = st[sp - 3], lo = x, hi = y;
        std::uint32_t m = lt(v, lo) ? lo : v;
        st[sp - 3] = lt(hi, m) ? hi : m;
        pr[sp - 3] = keep;
        sp -= 2;
        continue;
      }
      case code::select: {  // select(f, t, cond)
        std::uint32_t fv = st[sp - 3], tv = x, cond = y;
        st[sp - 3] = cond ? tv : fv;
        pr[sp - 3] = keep;
        sp -= 2;
        continue;
      }
    }
    st[sp - 2] = r;
    pr[sp - 2] = keep;
    --sp;
  }
  return st[0];
}

void expr_program::eval_many(const std::uint32_t* a, const std::uint32_t* b, std::size_t n,
                             std::uint32_t* out) const {
  constexpr std::size_t width = 512;  // a column: elements evaluated together
  int depth = 0, most = 1;            // the deepest the stack gets
  for (const instr& in : prog_) {
    switch (in.c) {
      case code::push: case code::load_a: case code::load_b: ++depth; break;
      case code::neg: case code::bnot: case code::lnot: case code::to_f32: case code::to_i32: case code::to_u32:
      case code::abs: break;
      case code::clamp: case code::select: depth -= 2; break;
      default: --depth; break;
    }
    most = std::max(most, depth);
  }
  std::vector<std::uint32_t> cols(static_cast<std::size_t>(most) * width);
  for (std::size_t first = 0; first < n; first += width) {
    const std::size_t m = std::min(width, n - first);
    int sp = 0;
    auto col = [&](int k) { return cols.data() + static_cast<std::size_t>(k) * width; };
    for (const instr& in : prog_) {
      const bool fl = in.t == dtype::f32, sg = in.t == dtype::i32;
      auto lt = [fl, sg](std::uint32_t x, std::uint32_t y) { return fl ? f(x) < f(y) : sg ? i(x) < i(y) : x < y; };
      auto unary = [&](auto fn) {
        std::uint32_t* y = col(sp - 1);
        for (std::size_t j = 0; j < m; ++j) y[j] = fn(y[j]);
      };
      auto binary = [&](auto fn) {
        std::uint32_t* x = col(sp - 2);
        const std::uint32_t* y = col(sp - 1);
        for (std::size_t j = 0; j < m; ++j) x[j] = fn(x[j], y[j]);
        --sp;
      };
      switch (in.c) {
        case code::push: std::fill(col(sp), col(sp) + m, in.imm); ++sp; break;
        case code::load_a: std::copy(a + first, a + first + m, col(sp)); ++sp; break;
        case code::load_b:
          if (b) std::copy(b + first, b + first + m, col(sp));
          else std::fill(col(sp), col(sp) + m, 0u);
          ++sp;
          break;
        case code::neg: unary([&](std::uint32_t y) { return fl ? fb(-f(y)) : 0u - y; }); break;
        case code::bnot: unary([](std::uint32_t y) { return ~y; }); break;
        case code::lnot: unary([](std::uint32_t y) { return static_cast<std::uint32_t>(!y); }); break;
        case code::to_f32:
          unary([&](std::uint32_t y) { return fb(sg ? static_cast<float>(i(y)) : static_cast<float>(y)); });
          break;
        case code::to_i32:
        case code::to_u32: {
          if (!fl) break;  // i32 <-> u32: the same bits
          const bool to_i = in.c == code::to_i32;
          unary([&](std::uint32_t y) -> std::uint32_t {
            const float v = f(y);
            if (std::isnan(v)) return 0;
            if (to_i)
              return static_cast<std::uint32_t>(
                  static_cast<std::int32_t>(std::fmax(-2147483648.0f, std::fmin(v, 2147483520.0f))));
            return static_cast<std::uint32_t>(std::fmax(0.0f, std::fmin(v, 4294967040.0f)));
          });
          break;
        }
        case code::abs: unary([&](std::uint32_t y) { return fl ? fb(std::fabs(f(y))) : sg ? (i(y) < 0 ? 0u - y : y) : y; }); break;
        case code::add: binary([&](std::uint32_t x, std::uint32_t y) { return fl ? fb(f(x) + f(y)) : x + y; }); break;
        case code::sub: binary([&](std::uint32_t x, std::uint32_t y) { return fl ? fb(f(x) - f(y)) : x - y; }); break;
        case code::mul: binary([&](std::uint32_t x, std::uint32_t y) { return fl ? fb(f(x) * f(y)) : x * y; }); break;
        case code::div:
          binary([&](std::uint32_t x, std::uint32_t y) -> std::uint32_t {
            if (fl) return fb(f(x) / f(y));
            if (y == 0 || (sg && x == 0x80000000u && y == 0xffffffffu)) return x;
            return sg ? static_cast<std::uint32_t>(i(x) / i(y)) : x / y;
          });
          break;
        case code::rem:
          binary([&](std::uint32_t x, std::uint32_t y) -> std::uint32_t {
            if (fl) return fb(f(x) - f(y) * std::trunc(f(x) / f(y)));
            if (y == 0 || (sg && x == 0x80000000u && y == 0xffffffffu)) return 0;
            return sg ? static_cast<std::uint32_t>(i(x) % i(y)) : x % y;
          });
          break;
        case code::band: binary([](std::uint32_t x, std::uint32_t y) { return x & y; }); break;
        case code::bor: binary([](std::uint32_t x, std::uint32_t y) { return x | y; }); break;
        case code::bxor: binary([](std::uint32_t x, std::uint32_t y) { return x ^ y; }); break;
        case code::shl: binary([](std::uint32_t x, std::uint32_t y) { return x << (y & 31u); }); break;
        case code::shr:
          binary([&](std::uint32_t x, std::uint32_t y) {
            return sg ? static_cast<std::uint32_t>(i(x) >> (y & 31u)) : x >> (y & 31u);
          });
          break;
        case code::lt: binary([&](std::uint32_t x, std::uint32_t y) { return static_cast<std::uint32_t>(lt(x, y)); }); break;
        case code::gt: binary([&](std::uint32_t x, std::uint32_t y) { return static_cast<std::uint32_t>(lt(y, x)); }); break;
        case code::le:
          binary([&](std::uint32_t x, std::uint32_t y) { return static_cast<std::uint32_t>(fl ? f(x) <= f(y) : !lt(y, x)); });
          break;
        case code::ge:
          binary([&](std::uint32_t x, std::uint32_t y) { return static_cast<std::uint32_t>(fl ? f(x) >= f(y) : !lt(x, y)); });
          break;
        case code::eq:
          binary([&](std::uint32_t x, std::uint32_t y) { return static_cast<std::uint32_t>(fl ? f(x) == f(y) : x == y); });
          break;
        case code::ne:
          binary([&](std::uint32_t x, std::uint32_t y) { return static_cast<std::uint32_t>(fl ? f(x) != f(y) : x != y); });
          break;
        case code::land: binary([](std::uint32_t x, std::uint32_t y) { return static_cast<std::uint32_t>(x && y); }); break;
        case code::lor: binary([](std::uint32_t x, std::uint32_t y) { return static_cast<std::uint32_t>(x || y); }); break;
        case code::min: binary([&](std::uint32_t x, std::uint32_t y) { return lt(y, x) ? y : x; }); break;
        case code::max: binary([&](std::uint32_t x, std::uint32_t y) { return lt(x, y) ? y : x; }); break;
        case code::clamp: {  // clamp(v, lo, hi) = min(max(v, lo), hi)
          std::uint32_t* v = col(sp - 3);
          const std::uint32_t* lo = col(sp - 2);
          const std::uint32_t* hi = col(sp - 1);
          for (std::size_t j = 0; j < m; ++j) {
            const std::uint32_t t = lt(v[j], lo[j]) ? lo[j] : v[j];
            v[j] = lt(hi[j], t) ? hi[j] : t;
          }
          sp -= 2;
          break;
        }
        case code::select: {  // select(f, t, cond)
          std::uint32_t* fv = col(sp - 3);
          const std::uint32_t* tv = col(sp - 2);
          const std::uint32_t* cond = col(sp - 1);
          for (std::size_t j = 0; j < m; ++j) fv[j] = cond[j] ? tv[j] : fv[j];
          sp -= 2;
          break;
        }
      }
    }
    std::copy(col(0), col(0) + m, out + first);
  }
}

bool expr_program::admits(std::uint32_t a, std::uint32_t b, std::uint32_t result) const {
  // f32 results compare as values: +0 == -0 (Vulkan drivers need not preserve the sign of zero unless the
  // shader asks for SignedZeroInfNanPreserve, which naga does not; lavapipe folds b * 0.0 to +0), NaN == NaN.
  auto same = [&](std::uint32_t want) {
    if (type_ != dtype::f32) return want == result;
    return f(want) == f(result) || (std::isnan(f(want)) && std::isnan(f(result)));
  };
  if (same(eval(a, b)) || sites_.empty()) return same(eval(a, b));
  // Every combination of choices while there are at most 4,096; past that, each site fused alone (an expression
  // with that many fusable operations is beyond what a monoid needs).
  std::vector<std::uint8_t> choice(sites_.size(), 0);
  std::size_t combinations = 1;
  for (const site& s : sites_) {
    combinations *= 1 + ((s.products & 1) ? 1 : 0) + ((s.products & 2) ? 1 : 0);
    if (combinations > 4096) break;
  }
  if (combinations <= 4096) {
    for (;;) {
      std::size_t k = 0;  // next combination, mixed radix, skipping options whose operand is not a product
      for (; k < sites_.size(); ++k) {
        std::uint8_t& c = choice[k];
        do { ++c; } while (c < 3 && !(sites_[k].products & (1u << (c - 1))));
        if (c < 3) break;
        c = 0;
      }
      if (k == sites_.size()) return false;
      if (same(eval_with(a, b, choice.data()))) return true;
    }
  }
  for (std::size_t k = 0; k < sites_.size(); ++k)
    for (std::uint8_t c = 1; c <= 2; ++c) {
      if (!(sites_[k].products & (1u << (c - 1)))) continue;
      choice.assign(sites_.size(), 0);
      choice[k] = c;
      if (same(eval_with(a, b, choice.data()))) return true;
    }
  return false;
}

}  // namespace wgprim::detail
