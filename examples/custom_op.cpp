// A custom operator (one WGSL expression in a and b, with its identity) and a transform fused into a reduce.
#include <wgprim/wgprim.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  try {
    wgprim::context ctx;
    std::vector<float> x(100'003);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<float>(i)) * static_cast<float>(i % 1000);

    // The largest |x|: the transform abs(a) is applied as each element is loaded, then max combines.
    float gpu = wgprim::transform_reduce(ctx, x, wgprim::transform::expr("abs(a)"), wgprim::op::max());
    float cpu = 0;
    for (float v : x) cpu = std::fmax(cpu, std::fabs(v));
    // A running maximum through a custom operator (checked on the CPU before it runs: the identity must be
    // neutral and the operator associative). Scans keep the input order.
    const auto running_max = wgprim::op::custom("select(a, b, a < b)", "-inf");
    std::vector<float> running = wgprim::inclusive_scan(ctx, x, running_max);
    float want_last = -INFINITY;
    for (float v : x) want_last = std::fmax(want_last, v);

    std::printf("max |x| over %zu values: GPU %g, CPU %g; running max ends at %g (CPU %g)\n", x.size(), gpu, cpu,
                running.back(), want_last);
    return gpu == cpu && running.back() == want_last ? 0 : 1;
  } catch (const wgprim::error& e) {
    std::fprintf(stderr, "custom_op: %s\n", e.what());
    return 2;
  }
}
