// Sum a vector of floats on the GPU and compare with the CPU.
#include <wgprim/wgprim.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  try {
    wgprim::context ctx;  // the best GPU if there is one, else the native CPU backend
    std::vector<float> prices(1 << 20);
    for (std::size_t i = 0; i < prices.size(); ++i) prices[i] = 5.0f + static_cast<float>(i % 4501) / 100.0f;

    float gpu = wgprim::reduce(ctx, prices);  // op::sum() by default
    double cpu = 0;
    for (float p : prices) cpu += p;

    std::printf("sum of %zu prices on %s: %.2f (CPU, double: %.2f)\n", prices.size(), ctx.adapter().name.c_str(),
                gpu, cpu);
    return std::fabs(gpu - cpu) <= 1e-5 * cpu ? 0 : 1;
  } catch (const wgprim::error& e) {
    std::fprintf(stderr, "sum_floats: %s\n", e.what());
    return 2;
  }
}
