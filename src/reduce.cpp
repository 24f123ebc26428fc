// Dispatch layer of reduce: picks the algorithm, sizes the grid, binds chunks of arrays larger than one storage
// binding, orders the passes, reads the result back.
#include "wgprim/reduce.hpp"

#include "gpu.hpp"
#include "wgprim/error.hpp"
#include "wgsl_compose.hpp"

namespace wgprim {

std::vector<std::string> reduce_algorithms() { return {"seed"}; }

namespace {

struct reduce_params {
  std::uint32_t n, out_offset, pad0, pad1;
};

// The seed's two-pass reduction. Pass 1 runs `groups` workgroups per chunk of the input, each chunk writing its
// own `groups` partials; pass 2 is the same entry point over all partials with one workgroup.
std::uint32_t reduce_seed(context& ctx, const buffer& in, std::size_t n, const monoid& m, const run_options& opt) {
  constexpr std::uint32_t wg_size = 256, groups = 256;
  const std::string src = detail::compose_wgsl("reduce_seed.wgsl", m, {{"WG_SIZE", "256u"}});
  const auto& k = detail::get_kernel(ctx, src, "reduce",
                                     {detail::slot::uniform, detail::slot::storage_read, detail::slot::storage_rw},
                                     /*trusted=*/m.is_builtin());
  (void)wg_size;
  const std::uint64_t chunk = ctx.binding_limit() / 4;
  const std::uint64_t chunks = (n + chunk - 1) / chunk;
  buffer partials = ctx.create_buffer(chunks * groups * 4);
  buffer result = ctx.create_buffer(4);

  detail::recorder rec(ctx, opt.timestamps || opt.stats);
  for (std::uint64_t c = 0; c < chunks; ++c) {
    std::uint64_t first = c * chunk, count = std::min<std::uint64_t>(chunk, n - first);
    reduce_params p{static_cast<std::uint32_t>(count), static_cast<std::uint32_t>(c * groups), 0, 0};
    rec.dispatch(k, {rec.params(p), detail::bind(in, first * 4, count * 4), detail::bind(partials)}, groups);
  }
  reduce_params p{static_cast<std::uint32_t>(chunks * groups), 0, 0, 0};
  rec.dispatch(k, {rec.params(p), detail::bind(partials), detail::bind(result)}, 1);
  detail::gpu_time t = rec.submit();
  std::uint32_t bits;
  ctx.read(result, 0, &bits, 4);
  if (opt.stats) {
    opt.stats->gpu_ms = t.ms;
    opt.stats->gpu_timestamps = t.from_timestamps;
    opt.stats->algorithm = "seed";
  }
  return bits;
}

}  // namespace

std::uint32_t reduce_bits(context& ctx, const buffer& in, std::size_t n, const monoid& m, const run_options& opt) {
  std::string alg = opt.algorithm.empty() ? "seed" : opt.algorithm;
  if (alg != "seed")
    throw error(errc::invalid_argument, "unknown reduce algorithm '" + alg + "' (available: seed)");
  if (n * 4ull > in.size_bytes())
    throw error(errc::invalid_argument, "n = " + std::to_string(n) + " elements exceeds the buffer's " +
                                            std::to_string(in.size_bytes()) + " bytes");
  if (n == 0) {
    if (opt.stats) *opt.stats = run_stats{0, false, 0, 0, alg};
    return m.identity_bits();
  }
  return reduce_seed(ctx, in, n, m, opt);
}

}  // namespace wgprim
