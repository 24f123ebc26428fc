// Device copy through a compute shader: the same bytes a scan reads and writes, so benchmarks can report the
// adapter's copy speed as the ceiling of a scan.
#include "gpu/gpu.hpp"
#include "wgprim/algorithm.hpp"
#include "wgprim/error.hpp"
#include "core/wgsl_compose.hpp"

namespace wgprim {

void copy(context& ctx, const buffer& in, buffer& out, std::size_t n, const run_options& opt) {
  if (n * 4ull > in.size_bytes() || n * 4ull > out.size_bytes())
    throw error(errc::invalid_argument, "copy: n exceeds a buffer's size");
  if (in.native() == out.native()) throw error(errc::invalid_argument, "copy: source and destination are one buffer");
  if (n == 0) return;
  static const monoid m(op::sum(), dtype::u32);
  const std::string src = detail::compose_wgsl("copy/copy.wgsl", m, {});
  using detail::slot;
  const auto& k = detail::get_kernel(ctx, src, "copy", {slot::uniform, slot::storage_read, slot::storage_rw}, true);
  const std::uint64_t chunk = ctx.binding_limit() / 4;
  const std::uint32_t groups = ctx.adapter().type == "cpu" ? 32 : 2048;
  detail::recorder rec(ctx, opt.timestamps || opt.stats);
  for (std::uint64_t first = 0; first < n; first += chunk) {
    std::uint64_t count = std::min<std::uint64_t>(chunk, n - first), nv = count / 4;
    if (nv) {
      std::uint32_t p[4] = {static_cast<std::uint32_t>(nv), 0, 0, 0};
      rec.dispatch(k, {rec.params(p, sizeof p), detail::bind(in, first * 4, nv * 16), detail::bind(out, first * 4, nv * 16)},
                   static_cast<std::uint32_t>(std::min<std::uint64_t>(groups, (nv + 255) / 256)));
    }
    if (count % 4) rec.copy(in, (first + nv * 4) * 4, out, (first + nv * 4) * 4, (count % 4) * 4);
  }
  detail::gpu_time t = rec.submit();
  if (opt.stats) {
    opt.stats->gpu_ms = t.ms;
    opt.stats->gpu_timestamps = t.from_timestamps;
    opt.stats->algorithm = "copy";
  }
}

}  // namespace wgprim
