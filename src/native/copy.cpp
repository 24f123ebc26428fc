// Native copy: memcpy in 1 MiB pieces over the oneTBB threads (one thread rarely saturates memory).
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <chrono>
#include <cstring>

#include "native/backend.hpp"
#include "wgprim/error.hpp"

namespace wgprim::detail::cpu_backend {

void copy(context& ctx, const range_ref& in, const range_ref& out, const run_options& opt) {
  const std::uint32_t* x = host_in(ctx, in, "copy input");
  std::uint32_t* y = host_out(ctx, out, "copy output");
  if (in.count != out.count) throw error(errc::invalid_argument, "copy: input and output lengths differ");
  if (in.count && in.view.host == out.view.host)
    throw error(errc::invalid_argument, "copy: source and destination are one buffer");
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t bytes = in.count * 4, piece = std::size_t(1) << 20;
  if (bytes <= piece) {
    std::memcpy(y, x, bytes);
  } else {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, (bytes + piece - 1) / piece),
                      [&](const tbb::blocked_range<std::size_t>& r) {
                        for (std::size_t p = r.begin(); p != r.end(); ++p)
                          std::memcpy(reinterpret_cast<char*>(y) + p * piece, reinterpret_cast<const char*>(x) + p * piece,
                                      std::min(piece, bytes - p * piece));
                      });
  }
  fill(opt, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), "native");
}

}  // namespace wgprim::detail::cpu_backend
