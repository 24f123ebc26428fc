// Shared test fixtures: one context per test process, data generators, the f32 error bound.
#pragma once
#include <cstdlib>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "wgprim/testing.hpp"
#include "wgprim/wgprim.hpp"

namespace wgprim::test {

/// The WebGPU context: the WGSL runs, on lavapipe where there is no GPU (asked for explicitly: the library's
/// default would pick the native CPU backend there).
inline context_options webgpu_options() {
  context_options o;
  o.backend = backend_choice::webgpu;
  return o;
}
inline context& ctx() {
  static context c(webgpu_options());
  return c;
}

/// The native CPU backend (oneTBB): no WebGPU device, buffers in host memory.
inline context& native_ctx() {
  static context c = [] {
    context_options o;
    o.backend = backend_choice::native;
    return context(o);
  }();
  return c;
}

/// Sets an environment variable for a scope (set() changes it again) and puts back what the process had when the
/// scope ends, also when a failed assertion leaves the test early.
class env_override {
 public:
  env_override(const char* name, const char* value) : name_(name) {
    if (const char* was = std::getenv(name)) {
      had_ = true;
      before_ = was;
    }
    set(value);
  }
  env_override(const env_override&) = delete;
  env_override& operator=(const env_override&) = delete;
  ~env_override() {
    if (had_) ::setenv(name_, before_.c_str(), 1);
    else ::unsetenv(name_);
  }
  void set(const char* value) { ::setenv(name_, value, 1); }

 private:
  const char* name_;
  bool had_ = false;
  std::string before_;
};

/// A context whose storage bindings are capped at 1 MiB, so that arrays of a few hundred thousand elements
/// already take the chunked paths (carry between bindings).
inline context& small_binding_ctx() {
  static context c = [] {
    context x(webgpu_options());
    testing::set_binding_limit(x, std::uint64_t(1) << 20);
    return x;
  }();
  return c;
}

/// Sizes every algorithm must handle: 0, 1, 2, tile-1/tile/tile+1 for 256 and 65,536, 2^k±1 up to 2^max_log2,
/// and some random sizes.
/// Sizes 0, 1, 2, 3, 255..257, 511, 1000, 65535..65537, 2^k +- 1 for k = 2..max_log2, and four random ones.
/// WGPRIM_TEST_EDGE_MAX_LOG2 lowers max_log2 (make sanitize sets 16: under ASan the largest sizes cost minutes each
/// and add no coverage of the host code; the plain stage runs them all).
inline std::vector<std::size_t> edge_sizes(int max_log2) {
  if (const char* cap = std::getenv("WGPRIM_TEST_EDGE_MAX_LOG2"))
    if (std::atoi(cap) >= 2) max_log2 = std::min(max_log2, std::atoi(cap));
  std::vector<std::size_t> s = {0, 1, 2, 3, 255, 256, 257, 511, 1000, 65535, 65536, 65537};
  for (int k = 2; k <= max_log2; ++k) {
    s.push_back((std::size_t(1) << k) - 1);
    s.push_back((std::size_t(1) << k) + 1);
  }
  std::mt19937 rng(7);
  for (int i = 0; i < 4; ++i) s.push_back(rng() % (std::size_t(1) << std::min(max_log2, 20)));
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

/// Whether a sweep over many combinations (algorithm x type x op x kind) runs size `n`, the `index`-th of its
/// edge_sizes, for its `combo`-th combination. Sizes up to 2^17 + 1 (0, 1, tile-1/tile/tile+1, 65535..65537, 2^k+-1)
/// run for every combination; the larger ones (2^18-1 .. 2^22+1, most of a sweep's time on lavapipe, and the same
/// code as 2^17 past the last hierarchy level) for one combination in `stride`, rotating, so that every combination
/// still meets several large sizes and every large size is met by several combinations of each type.
inline bool sweep_runs(std::size_t index, std::size_t n, std::size_t combo, std::size_t stride = 4) {
  return n <= (std::size_t(1) << 17) + 1 || (index + combo) % stride == 0;
}

enum class data_kind { random, small_ints };

/// Random data for a monoid: full-range bits for integers; for f32, uniform in [-1, 1) (random) or small
/// integers (every partial sum exactly representable, so sums must match exactly).
inline std::vector<std::uint32_t> make_data(dtype t, std::size_t n, std::uint32_t seed,
                                            data_kind kind = data_kind::random) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) {
    if (t != dtype::f32) x = rng();
    else if (kind == data_kind::small_ints) x = to_bits(static_cast<float>(static_cast<int>(rng() % 7) - 3));
    else x = to_bits(std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng));
  }
  return v;
}

/// Higham's bound for a sum evaluated by any bracketing whose longest chain of dependent additions is h:
/// |computed - exact| <= gamma_h * sum |x_i|, gamma_h = h u / (1 - h u), u = 2^-24.
inline double f32_sum_bound(double h, double abs_sum) {
  const double u = std::ldexp(1.0, -24);
  return h * u / (1 - h * u) * abs_sum;
}

inline std::vector<op> ops_for(dtype t) {
  std::vector<op> o = {op::sum(), op::min(), op::max()};
  if (t != dtype::f32) {
    o.push_back(op::bit_and());
    o.push_back(op::bit_or());
    o.push_back(op::bit_xor());
    o.push_back(op::custom("(a | b) ^ (a & b) ^ (a & b)", "0"));  // == or, through the expression path
    o.push_back(op::custom("select(b, a, a < b)", "max"));         // == min
  } else {
    o.push_back(op::custom("max(a, b)", "-inf"));
    o.push_back(op::custom("select(a, b, b < a)", "inf"));  // == min
  }
  return o;
}

/// Calls f with a value of the C++ type of t (to reach the typed API from runtime-typed test data).
template <class F>
auto with_type(dtype t, F f) {
  switch (t) {
    case dtype::f32: return f(float{});
    case dtype::i32: return f(std::int32_t{});
    default: return f(std::uint32_t{});
  }
}

inline std::string describe(const monoid& m, std::size_t n) {
  return std::string(dtype_name(m.type())) + " " + m.name() + " [" + m.wgsl_expression() + "] n=" + std::to_string(n);
}

/// The message of the wgprim::error that f() throws ("" when it throws none).
template <class F>
std::string thrown_message(F f) {
  try {
    f();
  } catch (const error& e) {
    return e.what();
  }
  return "";
}

/// A line the crash report (tests/crash_report.cpp) prints with the test's name if the process dies of a signal
/// before the test ends: what the test is doing now (e.g. the differential test's batch of cases).
void crash_note(const std::string& note);

}  // namespace wgprim::test
