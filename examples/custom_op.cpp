// A custom operator: the largest absolute value, written as one WGSL expression in a and b with its identity.
#include <wgprim/wgprim.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  try {
    wgprim::context ctx;
    std::vector<float> x(100'003);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<float>(i)) * static_cast<float>(i % 1000);
    const auto max_abs = wgprim::op::custom("max(abs(a), abs(b))", "0");

    float gpu = wgprim::reduce(ctx, x, max_abs);
    float cpu = 0;
    for (float v : x) cpu = std::fmax(cpu, std::fabs(v));
    // A running maximum of |x| as well: scans keep the input order.
    std::vector<float> running = wgprim::inclusive_scan(ctx, x, max_abs);

    std::printf("max |x| over %zu values: GPU %g, CPU %g; running max ends at %g\n", x.size(), gpu, cpu,
                running.back());
    return gpu == cpu && running.back() == cpu ? 0 : 1;
  } catch (const wgprim::error& e) {
    std::fprintf(stderr, "custom_op: %s\n", e.what());
    return 2;
  }
}
