#include "core/wgsl_compose.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <set>
#include <sstream>

#include "wgprim/error.hpp"
#include "wgprim/transform_reduce.hpp"

namespace wgprim::detail {

struct embedded_file { const char* path; const char* text; };
extern const embedded_file embedded_shaders[];
extern const std::size_t embedded_shaders_count;

namespace {
std::map<std::string, std::string>& shader_files() {
  static std::map<std::string, std::string> files = [] {
    std::map<std::string, std::string> m;
    for (std::size_t i = 0; i < embedded_shaders_count; ++i) m[embedded_shaders[i].path] = embedded_shaders[i].text;
    return m;
  }();
  return files;
}
}  // namespace

void register_shaders(const embedded_file* files, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) shader_files()[files[i].path] = files[i].text;
}

const std::string& shader_text(const std::string& path) {
  auto& files = shader_files();
  auto it = files.find(path);
  if (it == files.end()) throw error(errc::gpu, "internal: no embedded shader '" + path + "'");
  return it->second;
}

namespace {
// `//! if NAME` / `//! else` / `//! endif` (nestable): the lines between are kept only when the constant NAME is
// `true` (else branch: `false`). Unlike a WGSL `if` on a constant, the dropped text never reaches naga, so a path
// may use what the device lacks (subgroup builtins) or what another path's imports do not define. NAME must be a
// constant of the composition with the value true or false: a typo is an error, not a silent else.
bool condition_value(const std::string& name, const wgsl_constants& constants, const std::string& path) {
  for (const auto& c : constants)
    if (c.first == name) {
      if (c.second == "true") return true;
      if (c.second == "false") return false;
      break;
    }
  throw error(errc::gpu, "internal: " + path + ": '//! if " + name + "' needs a constant " + name + " = true or false");
}

// `const NAME = value;` per constant; a constant without a name is WGSL declarations kept as they are (a view's
// generated function: view_constants in src/primitives/view.cpp).
void emit_constants(const wgsl_constants& constants, std::string& out) {
  for (const auto& c : constants) out += c.first.empty() ? c.second + "\n" : "const " + c.first + " = " + c.second + ";\n";
}

// The constants `//! if` reads, with T_WIDE (T is a 64-bit type: shared/lanes_subgroup.wgsl then shuffles it as two
// u32 words) added unless the caller set it; a prelude's own T is 32-bit wide or a vector of such words.
wgsl_constants with_t_wide(const wgsl_constants& constants, bool wide) {
  for (const auto& c : constants)
    if (c.first == "T_WIDE") return constants;
  wgsl_constants c = constants;
  c.emplace_back("T_WIDE", wide ? "true" : "false");
  return c;
}

// `//! unroll` on the line before `for (var K = 0u; K < NAME; K += 1u) {` (NAME a constant of the composition, a
// whole number such as `18u`): the loop is written out NAME times, each copy `{ const K = i; body }`. An array
// indexed by K then sees constant indices and can live in registers: a driver that does not unroll a loop on its own
// keeps such an array in local memory (on NVIDIA, through L1). The body may hold nested loops and plain code, not
// `break`, `continue` or directives. A composition whose constant UNROLL is false keeps the loops as they are (the
// onesweep's policy sort.unroll: lavapipe compiles the written-out kernels several times slower).
void unroll_loop(const std::string& for_line, std::istringstream& in, const wgsl_constants& constants,
                 const std::string& path, std::string& out) {
  const auto fail = [&](const std::string& why) {
    throw error(errc::gpu, "internal: " + path + ": '//! unroll' " + why);
  };
  std::size_t at = for_line.find_first_not_of(" \t");
  std::string t = at == std::string::npos ? "" : for_line.substr(at);
  t = t.substr(0, t.find("//"));  // a comment after the brace
  t.erase(t.find_last_not_of(" \t\r") + 1);
  const std::string head = "for (var ";
  if (t.rfind(head, 0) != 0) fail("must precede a `for (var K = 0u; K < NAME; K += 1u) {` line");
  const std::size_t name_end = t.find(' ', head.size());
  const std::string k = t.substr(head.size(), name_end - head.size());
  const std::string mid = " = 0u; " + k + " < ";
  if (name_end == std::string::npos || t.compare(name_end, mid.size(), mid) != 0) fail("needs a loop from 0u");
  const std::size_t limit_at = name_end + mid.size();
  const std::size_t limit_end = t.find(';', limit_at);
  const std::string tail = "; " + k + " += 1u) {";
  if (limit_end == std::string::npos || t.substr(limit_end) != tail) fail("needs a loop stepping by 1u");
  const std::string limit = t.substr(limit_at, limit_end - limit_at);
  long count = -1;
  for (const auto& c : constants)
    if (c.first == limit) {
      char* end = nullptr;
      count = std::strtol(c.second.c_str(), &end, 10);
      if (end == c.second.c_str() || (*end && std::string(end) != "u")) count = -1;
    }
  if (count < 0 || count > 64) fail("needs a constant " + limit + " that is a whole number up to 64");
  std::vector<std::string> body;
  int depth = 1;
  std::string line;
  const auto words = [](const std::string& code, const std::string& w) {  // w as a whole word
    const auto part = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (std::size_t at = code.find(w); at != std::string::npos; at = code.find(w, at + 1))
      if ((at == 0 || !part(code[at - 1])) && (at + w.size() == code.size() || !part(code[at + w.size()]))) return true;
    return false;
  };
  while (std::getline(in, line)) {
    std::string code = line.substr(0, line.find("//"));
    if (code.find("/*") != std::string::npos) fail("body holds a block comment");
    for (char ch : code) {
      depth += ch == '{' ? 1 : ch == '}' ? -1 : 0;
      if (depth < 0) fail("loop closes inside a line");
    }
    if (depth == 0) {
      code.erase(0, code.find_first_not_of(" \t"));
      code.erase(code.find_last_not_of(" \t\r") + 1);
      if (code != "}") fail("loop's closing line must hold only its brace");
      break;
    }
    const std::size_t text = line.find_first_not_of(" \t");
    if (text != std::string::npos && line.compare(text, 3, "//!") == 0) fail("body holds a directive");
    if (words(code, "break") || words(code, "continue")) fail("body holds break or continue");
    body.push_back(line);
  }
  if (depth != 0) fail("loop has no end");
  const std::string indent = for_line.substr(0, at);
  for (long i = 0; i < count; ++i) {
    out += indent + "{\n" + indent + "  const " + k + " = " + std::to_string(i) + "u;\n";
    for (const auto& b : body) out += b + '\n';
    out += indent + "}\n";
  }
}

void expand(const std::string& path, const wgsl_constants& constants, std::set<std::string>& seen, std::string& out) {
  if (!seen.insert(path).second) return;
  std::istringstream in(shader_text(path));
  std::string line;
  const std::string import_directive = "//! import ", if_directive = "//! if ";
  std::vector<std::pair<bool, bool>> conds;  // per open `if`: (this branch kept, the enclosing text kept)
  bool unrolling = true;  // `//! unroll` obeyed unless the composition's constant UNROLL is false
  for (const auto& c : constants)
    if (c.first == "UNROLL") unrolling = condition_value("UNROLL", constants, path);
  auto kept = [&] { return conds.empty() || (conds.back().first && conds.back().second); };
  auto trimmed = [](std::string x) {
    while (!x.empty() && (x.back() == ' ' || x.back() == '\r')) x.pop_back();
    return x;
  };
  while (std::getline(in, line)) {
    const std::string t = trimmed(line);
    const std::string lead = t.substr(std::min(t.size(), t.find_first_not_of(" \t")));  // t without its indent
    if (t.rfind(if_directive, 0) == 0) {
      const bool outer = kept();
      conds.emplace_back(condition_value(t.substr(if_directive.size()), constants, path), outer);
    } else if (t == "//! else" || t == "//! endif") {
      if (conds.empty()) throw error(errc::gpu, "internal: " + path + ": '" + t + "' without '//! if'");
      if (t == "//! else") conds.back().first = !conds.back().first;
      else conds.pop_back();
    } else if (!kept()) {
      continue;
    } else if (t.rfind(import_directive, 0) == 0) {
      expand(t.substr(import_directive.size()), constants, seen, out);
    } else if (lead == "//! unroll") {  // indented as the loop it marks
      if (!std::getline(in, line)) throw error(errc::gpu, "internal: " + path + ": '//! unroll' at the end");
      if (unrolling) {
        unroll_loop(trimmed(line), in, constants, path, out);
      } else {
        out += line;
        out += '\n';
      }
    } else if (lead.rfind("//!", 0) == 0) {
      throw error(errc::gpu, "internal: " + path + ": unknown directive '" + lead + "'");
    } else {
      out += line;
      out += '\n';
    }
  }
  if (!conds.empty()) throw error(errc::gpu, "internal: " + path + ": '//! if' without '//! endif'");
}
}  // namespace

const std::string& prefixed_wgsl(const std::string& prefix, const std::string& body);

namespace {
std::string compose_uncached(const std::string& file, const monoid& m, const wgsl_constants& constants,
                             const std::vector<std::string>& imports, accum a, bool elements_are_accumulators,
                             const bound_transform* transform);
}  // namespace

// Composition runs on every call of every primitive (the pipeline cache is keyed by the composed text), so the
// text is memoised under a short key of the arguments: expanding the imports line by line cost tens of
// microseconds per call, which a caller waiting for a small reduce pays.
namespace {
std::mutex memo_mu;
std::map<std::string, std::string> memo;           // key -> text; nodes never move
std::unordered_set<const std::string*> memo_texts;  // the texts' addresses
}  // namespace

bool is_memoised(const std::string& text) {
  std::lock_guard<std::mutex> g(memo_mu);
  return memo_texts.count(&text) != 0;
}

namespace {
struct text_key_hash {
  std::size_t operator()(const text_key& k) const {
    std::size_t h = std::hash<const void*>()(k.site) ^ std::hash<std::string>()(k.text);
    for (std::uint32_t x : k.numbers) h = (h ^ x) * 1099511628211ull;
    return h;
  }
};
std::mutex keyed_mu;
std::unordered_map<text_key, const std::string*, text_key_hash> keyed;  // to memoised texts, which never move
}  // namespace

const std::string* find_text(const text_key& key) {
  std::lock_guard<std::mutex> g(keyed_mu);
  auto it = keyed.find(key);
  return it == keyed.end() ? nullptr : it->second;
}

void keep_text(const text_key& key, const std::string& text) {
  std::lock_guard<std::mutex> g(keyed_mu);
  if (keyed.size() >= 4096) keyed.clear();  // bounded (a sweep of predicates); the texts themselves stay
  keyed.emplace(key, &text);
}

const std::string& compose_wgsl(const std::string& file, const monoid& m, const wgsl_constants& constants,
                                const std::vector<std::string>& imports, accum a, bool elements_are_accumulators,
                                const bound_transform* transform) {
  std::string key = file + '|' + m.key() + '|' + std::to_string(static_cast<int>(a)) + (elements_are_accumulators ? "e" : "") + '|';
  for (const auto& c : constants) key += c.first + '=' + c.second + ';';
  key += '|';
  for (const auto& i : imports) key += i + ';';
  if (transform) key += '|' + transform->wgsl() + '|' + dtype_name(transform->input_type()) + dtype_name(transform->result_type());
  {
    std::lock_guard<std::mutex> g(memo_mu);
    auto it = memo.find(key);
    if (it != memo.end()) return it->second;
  }
  std::string out = compose_uncached(file, m, constants, imports, a, elements_are_accumulators, transform);
  std::lock_guard<std::mutex> g(memo_mu);
  const std::string& text = memo.emplace(key, std::move(out)).first->second;
  memo_texts.insert(&text);
  return text;
}

namespace {
std::string compose_uncached(const std::string& file, const monoid& m, const wgsl_constants& constants,
                             const std::vector<std::string>& imports, accum a, bool elements_are_accumulators,
                             const bound_transform* transform) {
  const wgsl_constants conds = with_t_wide(constants, is_wide(m.type()));
  std::string out;
  std::set<std::string> seen;
  out += "// composed by wgprim: " + file + " for " + m.name() + " over " + dtype_name(m.type()) +
         (a == accum::double_word ? " (double-word accumulation)" : "") + "\n";
  if (a == accum::double_word) {
    if (!(m.is_sum() && m.type() == dtype::f32))
      throw error(errc::invalid_argument, "internal: double-word accumulation is for f32 sums");
    expand("shared/double_word.wgsl", conds, seen, out);
    if (elements_are_accumulators) {
      out += "alias E = T;\nalias EV = array<E, 4>;\n";
      out += "fn lift(x: E) -> T {\n  return x;\n}\nfn finalize(v: T) -> E {\n  return v;\n}\n";
      out += "fn accumulate(acc: T, x: E) -> T {\n  return combine(acc, x);\n}\n";
    } else {
      out += "alias E = f32;\nalias EV = vec4<f32>;\nfn lift(x: E) -> T {\n  return vec2<f32>(x, 0.0);\n}\n";
      out += "fn finalize(v: T) -> E {\n  return v.x;\n}\n";
      out += "fn accumulate(acc: T, x: E) -> T {\n  return add_one(acc, x);\n}\n";
    }
  } else {
    const std::string id = "fn identity() -> T {\n  return " + wgsl_constant(m.type(), m.identity_raw()) + ";\n}\n";
    // With a transform the elements in memory are the transform's input type.
    const bool transformed = transform && !elements_are_accumulators;
    out += std::string("alias T = ") + dtype_name(m.type()) + ";\nalias E = " +
           (transformed ? dtype_name(transform->input_type()) : "T") + ";\nalias EV = vec4<E>;\n";
    out += id;
    out += "fn combine(a: T, b: T) -> T {\n  return " + m.wgsl_expression() + ";\n}\n";
    if (transformed) {
      if (transform->result_type() != m.type())
        throw error(errc::invalid_argument, "internal: a transform must yield the monoid's type");
      // `a` names the element in the transform's WGSL.
      out += "fn lift(a: E) -> T {\n  return " + transform->wgsl() + ";\n}\nfn finalize(v: T) -> T {\n  return v;\n}\n";
      out += "fn accumulate(acc: T, x: E) -> T {\n  return combine(acc, lift(x));\n}\n";
    } else {
      out += "fn lift(x: E) -> T {\n  return x;\n}\nfn finalize(v: T) -> E {\n  return v;\n}\n";
      out += "fn accumulate(acc: T, x: E) -> T {\n  return combine(acc, x);\n}\n";
    }
    out += "fn accum_init(never_negative: u32) {\n}\n";
    // T as 32-bit words, for state kept in u32 atomics (tile/lookback.wgsl).
    if (is_wide(m.type()))
      out += "const T_WORDS = 2u;\nfn t_to_words(v: T) -> vec2<u32> {\n  let u = bitcast<u64>(v);\n"
             "  return vec2<u32>(u32(u & u64(0xffffffffu)), u32(u >> 32u));\n}\n"
             "fn t_from_words(w: vec2<u32>) -> T {\n  return bitcast<T>(u64(w.x) | (u64(w.y) << 32u));\n}\n";
    else
      out += "const T_WORDS = 1u;\nfn t_to_words(v: T) -> vec2<u32> {\n  return vec2<u32>(bitcast<u32>(v), 0u);\n}\n"
             "fn t_from_words(w: vec2<u32>) -> T {\n  return bitcast<T>(w.x);\n}\n";
  }
  emit_constants(constants, out);
  for (const auto& i : imports) expand(i, conds, seen, out);
  expand(file, conds, seen, out);
  return out;
}
}  // namespace

const std::string& compose_wgsl_with_prelude(const std::string& file, const std::string& prelude,
                                             const wgsl_constants& constants, const std::vector<std::string>& imports) {
  // Memoised as compose_wgsl is (its callers run on every call: arg-reduce, reduce-by-key, the decoupled segmented
  // ops, the comparator sorts): composing again cost ~0.1 ms of host time per call on the H200's host.
  std::string key = "prelude|" + file + '|' + prelude + '|';
  for (const auto& c : constants) key += c.first + '=' + c.second + ';';
  key += '|';
  for (const auto& i : imports) key += i + ';';
  {
    std::lock_guard<std::mutex> g(memo_mu);
    auto it = memo.find(key);
    if (it != memo.end()) return it->second;
  }
  std::string out = "// composed by wgprim: " + file + "\n" + prelude + "\n";
  std::set<std::string> seen;
  const wgsl_constants conds = with_t_wide(constants, false);
  emit_constants(constants, out);
  for (const auto& i : imports) expand(i, conds, seen, out);
  expand(file, conds, seen, out);
  std::lock_guard<std::mutex> g(memo_mu);
  const std::string& text = memo.emplace(key, std::move(out)).first->second;
  memo_texts.insert(&text);
  return text;
}

const std::string& prefixed_wgsl(const std::string& prefix, const std::string& body) {
  std::string key = "prefixed|" + prefix + '|';
  {
    std::lock_guard<std::mutex> g(memo_mu);
    // A memoised body is named by its address (its text never changes); any other body is the key itself.
    if (memo_texts.count(&body)) key += std::to_string(reinterpret_cast<std::uintptr_t>(&body));
    else key += body;
    auto it = memo.find(key);
    if (it != memo.end()) return it->second;
  }
  std::string out = prefix + body;
  std::lock_guard<std::mutex> g(memo_mu);
  const std::string& text = memo.emplace(key, std::move(out)).first->second;
  memo_texts.insert(&text);
  return text;
}

}  // namespace wgprim::detail
