// The smallest useful consumer: a reduce and an inclusive scan of a device_vector<float>, checked on the CPU.
// Built by tests/consumer_fetchcontent (FetchContent, C++17) and tests/consumer_pkgconfig (pkg-config, C++20).
#include <wgprim/wgprim.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

#if defined(WGPRIM_CONSUMER_EXPECT_CXX20) && __cplusplus < 202002L
#error "the consumer asked for C++20 but compiles as an older standard: a flag from wgprim downgraded it"
#endif

int main() {
  try {
    wgprim::context ctx;
    const std::size_t n = 3000;  // several scan tiles on every adapter
    std::vector<float> host(n);
    for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<float>(i % 13) * 0.25f;  // sums exact in f32

    wgprim::device_vector<float> in(ctx, host), out(ctx, n);
    const float total = wgprim::reduce(ctx, in);
    wgprim::inclusive_scan(ctx, in, out);
    const std::vector<float> scanned = out.to_host();

    // Every partial sum is a multiple of 0.25 below 2^24 * 0.25, so f32 holds it exactly in any order.
    float running = 0;
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
      running += host[i];
      bad += scanned[i] != running;
    }
    std::printf("consumer: reduce %g (expected %g), inclusive_scan %zu mismatches of %zu\n", total, running, bad, n);
    return total == running && bad == 0 ? 0 : 1;
  } catch (const wgprim::error& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 2;
  }
}
