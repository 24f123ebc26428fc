#include "wgprim/predicate.hpp"

#include "core/expr.hpp"

namespace wgprim {

bound_predicate::bound_predicate(const predicate& p, dtype t)
    : type_(t), program_(std::make_shared<detail::expr_program>(p.expression(), t, detail::expr_program::mode::predicate)) {}

const std::string& bound_predicate::wgsl_expression() const { return program_->wgsl(); }

bool bound_predicate::operator()(std::uint32_t a_bits) const { return program_->eval(a_bits, 0) != 0; }
void bound_predicate::eval_many(const std::uint32_t* a_bits, std::size_t n, std::uint32_t* out) const {
  program_->eval_many(a_bits, nullptr, n, out);
  for (std::size_t i = 0; i < n; ++i) out[i] = out[i] != 0;
}

}  // namespace wgprim
