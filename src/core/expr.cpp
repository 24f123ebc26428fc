// Grammar (C precedence, lowest first; parenthesise when in doubt):
//   expr   := or ; or := and ('||' and)* ; and := bor ('&&' bor)* ; bor := bxor ('|' bxor)*
//   bxor   := band ('^' band)* ; band := rel ('&' rel)* ; rel := shift (relop shift)?
//   shift  := add (('<<'|'>>') add)* ; add := mul (('+'|'-') mul)* ; mul := unary (('*'|'/'|'%') unary)*
//   unary  := ('-'|'!'|'~') unary | primary
//   primary:= number | 'a' | 'b' | 'true' | 'false' | fn '(' expr (',' expr)* ')' | '(' expr ')'
//   fn     := min | max | abs | clamp | select
// Every value is either of the element type T or bool; the whole expression must be of type T (an operator) or a
// bool (a predicate, which may use `a` only).
// Integer semantics follow WGSL at run time: wrapping arithmetic, x/0 == x, x%0 == 0, shifts modulo 32.
#include "core/expr.hpp"

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
constexpr int max_depth = 64;

enum class kind { value, boolean };

struct parsed {
  kind k;
  std::string wgsl;
};

class parser {
 public:
  parser(const std::string& text, dtype t, expr_program::mode md, std::vector<expr_program::instr>& out)
      : s_(text), t_(t), md_(md), out_(out) {}

  std::string run() {
    parsed p = parse_or();
    skip_space();
    if (pos_ != s_.size()) fail("unexpected '" + std::string(1, s_[pos_]) + "'");
    if (md_ == expr_program::mode::predicate) {
      if (p.k != kind::boolean) fail("the expression is of the element type; a predicate must be a bool (e.g. a > 0)");
    } else if (p.k != kind::value) {
      fail("the expression is a bool; it must be of the element type");
    }
    return p.wgsl;
  }

 private:
  using code = expr_program::code;
  const std::string& s_;
  dtype t_;
  expr_program::mode md_;
  std::vector<expr_program::instr>& out_;
  std::size_t pos_ = 0;
  int depth_ = 0;

  [[noreturn]] void fail(const std::string& why) const {
    throw error(errc::invalid_argument,
                std::string(md_ == expr_program::mode::predicate ? "predicate: " : "custom operator: ") + why + " at column " + std::to_string(pos_ + 1) + " of '" + s_ + "'");
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
  void emit(code c, std::uint32_t imm = 0) { out_.push_back({c, imm}); }
  void need(const parsed& p, kind k, const char* what) const {
    if (p.k != k) fail(std::string(what) + (k == kind::value ? " needs values of the element type" : " needs bools"));
  }
  void need_int(const char* what) const {
    if (t_ == dtype::f32) fail(std::string(what) + " is not defined for f32");
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

  parsed combine(const char* tok, code c, const parsed& l, const parsed& r) {
    std::string sym = tok;
    switch (c) {
      case code::land: case code::lor:
        need(l, kind::boolean, tok); need(r, kind::boolean, tok);
        emit(c);
        return {kind::boolean, "(" + l.wgsl + " " + sym + " " + r.wgsl + ")"};
      case code::lt: case code::gt: case code::le: case code::ge: case code::eq: case code::ne: {
        need(l, kind::value, tok); need(r, kind::value, tok);
        emit(c);
        if (md_ == expr_program::mode::predicate && t_ == dtype::f32) {
          // NaN-exact comparisons (shaders/shared/predicate.wgsl), so that the GPU agrees with the CPU twin.
          static const char* names[] = {"lt", "gt", "le", "ge", "eq", "ne"};
          const int k = c == code::lt ? 0 : c == code::gt ? 1 : c == code::le ? 2 : c == code::ge ? 3 : c == code::eq ? 4 : 5;
          return {kind::boolean, std::string("wgprim_f32_") + names[k] + "(" + l.wgsl + ", " + r.wgsl + ")"};
        }
        return {kind::boolean, "(" + l.wgsl + " " + sym + " " + r.wgsl + ")"};
      }
      case code::band: case code::bor: case code::bxor:
        need_int(tok); need(l, kind::value, tok); need(r, kind::value, tok);
        emit(c);
        return {kind::value, "(" + l.wgsl + " " + sym + " " + r.wgsl + ")"};
      case code::shl: case code::shr:
        need_int(tok); need(l, kind::value, tok); need(r, kind::value, tok);
        emit(c);
        return {kind::value, "(" + l.wgsl + " " + sym + " (u32(" + r.wgsl + ") & 31u))"};
      default:
        need(l, kind::value, tok); need(r, kind::value, tok);
        emit(c);
        return {kind::value, "(" + l.wgsl + " " + sym + " " + r.wgsl + ")"};
    }
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
  parsed parse_shift() { return binary_chain(&parser::parse_add, {{"<<", code::shl}, {">>", code::shr}}); }
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
      if (t_ == dtype::u32) fail("unary '-' is not defined for u32");
      parsed p = parse_unary();
      need(p, kind::value, "'-'");
      emit(code::neg);
      return {kind::value, "(-" + p.wgsl + ")"};
    }
    if (accept("~")) {
      need_int("'~'");
      parsed p = parse_unary();
      need(p, kind::value, "'~'");
      emit(code::bnot);
      return {kind::value, "(~" + p.wgsl + ")"};
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
    // ("inf" ends in 'f' but is not a suffixed literal.)
    if (!text.empty() && text != "inf" &&
        (text.back() == 'u' || text.back() == 'i' || (text.back() == 'f' && !hex))) {
      char suf = text.back();
      if ((suf == 'u' && t_ != dtype::u32) || (suf == 'i' && t_ != dtype::i32) || (suf == 'f' && t_ != dtype::f32))
        fail("literal '" + text + "' does not have the element type " + dtype_name(t_));
      text.pop_back();
    }
    std::uint32_t bits;
    try {
      bits = parse_value(t_, negative ? "-" + text : text);
    } catch (const error& e) {
      fail("bad literal '" + std::string(negative ? "-" : "") + text + "' for " + dtype_name(t_));
    }
    emit(code::push, bits);
    char buf[64];
    std::snprintf(buf, sizeof buf, "bitcast<%s>(0x%08xu)", dtype_name(t_), bits);
    return {kind::value, buf};
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
      return {p.k, p.wgsl};
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t start = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
      std::string id = s_.substr(start, pos_ - start);
      if (id == "a") { emit(code::load_a); return {kind::value, "a"}; }
      if (id == "b") {
        if (md_ == expr_program::mode::predicate) fail("a predicate has one operand, 'a'; 'b' is not defined");
        emit(code::load_b);
        return {kind::value, "b"};
      }
      if (id == "true" || id == "false") {
        emit(code::push, id == "true");
        return {kind::boolean, id};
      }
      if (id == "inf" || id == "nan") { pos_ = start; return literal(false); }
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
        emit(f.c);
        std::string w = id + "(";
        for (std::size_t i = 0; i < args.size(); ++i) w += (i ? ", " : "") + args[i].wgsl;
        return {kind::value, w + ")"};
      }
      fail("unknown name '" + id + "' (only " +
           std::string(md_ == expr_program::mode::predicate ? "a" : "a, b") + ", min, max, abs, clamp, select)");
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }
};

float f(std::uint32_t x) { return from_bits<float>(x); }
std::uint32_t fb(float x) { return to_bits(x); }
std::int32_t i(std::uint32_t x) { return static_cast<std::int32_t>(x); }

}  // namespace

expr_program::expr_program(const std::string& text, dtype t, mode md) : type_(t) {
  const std::string what = md == mode::predicate ? "predicate: " : "custom operator: ";
  if (text.size() > max_length) throw error(errc::invalid_argument, what + "expression too long");
  for (char c : text)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e)
      if (c != '\t') throw error(errc::invalid_argument, what + "non-printable character in expression");
  wgsl_ = parser(text, t, md, prog_).run();
}

std::uint32_t expr_program::eval(std::uint32_t a, std::uint32_t b) const {
  std::uint32_t st[max_depth * 4 + 8];
  int sp = 0;
  const bool fl = type_ == dtype::f32, sg = type_ == dtype::i32;
  auto lt = [&](std::uint32_t x, std::uint32_t y) { return fl ? f(x) < f(y) : sg ? i(x) < i(y) : x < y; };
  for (const instr& in : prog_) {
    std::uint32_t y = sp > 0 ? st[sp - 1] : 0, x = sp > 1 ? st[sp - 2] : 0, r = 0;
    switch (in.c) {
      case code::push: st[sp++] = in.imm; continue;
      case code::load_a: st[sp++] = a; continue;
      case code::load_b: st[sp++] = b; continue;
      case code::neg: st[sp - 1] = fl ? fb(-f(y)) : 0u - y; continue;
      case code::bnot: st[sp - 1] = ~y; continue;
      case code::lnot: st[sp - 1] = !y; continue;
      case code::abs:
        st[sp - 1] = fl ? fb(std::fabs(f(y))) : sg ? (i(y) < 0 ? 0u - y : y) : y;
        continue;
      case code::add: r = fl ? fb(f(x) + f(y)) : x + y; break;
      case code::sub: r = fl ? fb(f(x) - f(y)) : x - y; break;
      case code::mul: r = fl ? fb(f(x) * f(y)) : x * y; break;
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
        sp -= 2;
        continue;
      }
      case code::select: {  // select(f, t, cond)
        std::uint32_t fv = st[sp - 3], tv = x, cond = y;
        st[sp - 3] = cond ? tv : fv;
        sp -= 2;
        continue;
      }
    }
    st[sp - 2] = r;
    --sp;
  }
  return st[0];
}

}  // namespace wgprim::detail
