#include "wgprim/predicate.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/expr.hpp"

namespace wgprim {

namespace {
// Parsing an expression costs microseconds, and every call binds its predicate again (a pipeline's replay once per
// compaction step): the programs are immutable, so one is kept per (expression, type) and shared. Bounded: past
// 256 the memo starts again (programs still in use live on in their bound_predicates).
std::shared_ptr<const detail::expr_program> predicate_program(const std::string& e, dtype t) {
  static std::mutex mu;
  static std::map<dtype, std::unordered_map<std::string, std::shared_ptr<const detail::expr_program>>> memo;
  std::lock_guard<std::mutex> g(mu);
  auto& by_text = memo[t];
  auto it = by_text.find(e);
  if (it != by_text.end()) return it->second;
  auto prog = std::make_shared<const detail::expr_program>(e, t, detail::expr_program::mode::predicate);
  if (by_text.size() >= 256) by_text.clear();
  by_text.emplace(e, prog);
  return prog;
}
}  // namespace

bound_predicate::bound_predicate(const predicate& p, dtype t) : type_(t), program_(predicate_program(p.expression(), t)) {}

const std::string& bound_predicate::wgsl_expression() const { return program_->wgsl(); }

bool bound_predicate::operator()(std::uint32_t a_bits) const { return program_->eval(a_bits, 0) != 0; }
void bound_predicate::eval_many(const std::uint32_t* a_bits, std::size_t n, std::uint32_t* out) const {
  program_->eval_many(a_bits, nullptr, n, out);
  for (std::size_t i = 0; i < n; ++i) out[i] = out[i] != 0;
}

}  // namespace wgprim
