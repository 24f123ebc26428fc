// The distributed algorithms' non-template parts (wgprim/distributed.hpp): failure agreement, the combination of
// rank totals through the communicator, and the sample sort.
#include "wgprim/distributed.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>

#include "core/env.hpp"
#include "gpu/gpu.hpp"
#include "primitives/primitive.hpp"
#include "primitives/scan/scan.hpp"
#include "primitives/sort/sort.hpp"

namespace wgprim {

namespace {

using clock_type = std::chrono::steady_clock;

// The length of the failure message every rank receives (one line; longer messages are cut).
constexpr std::size_t message_bytes = 480;

struct agree_record {
  std::int32_t code = 0;    // 0: this rank did not fail; else the errc
  std::int32_t failed = 0;
  std::uint64_t fingerprint = 0;
};

// The sort's sample: an ordered key and its place (rank, position in that rank's sorted part), a total order that
// makes every element distinct, so that ties (even an array of equal keys) split evenly and stably.
struct sample {
  std::uint32_t key = 0;
  std::uint32_t rank = 0xffffffffu;  // 0xffffffff: padding (a rank with fewer elements than samples)
  std::uint64_t pos = 0;
  std::uint64_t weight = 0;  // elements this sample stands for, times `samples_per_rank` (integer weights)
};
static_assert(sizeof(sample) == 24);

bool sample_less(const sample& a, const sample& b) {
  if (a.key != b.key) return a.key < b.key;
  if (a.rank != b.rank) return a.rank < b.rank;
  return a.pos < b.pos;
}

// dist/splitter_bounds.wgsl: bounds_params (one invocation per splitter).
struct bounds_params {
  std::uint32_t n, rank, splitters, key_kind, descending, mask_lo, mask_hi, pad;
};
static_assert(sizeof(bounds_params) == 32);
constexpr std::uint32_t bounds_wg = 64;

// Key bits -> an unsigned integer with the same order as wgprim::sort's (f32: -inf < ... < -0 < +0 < ... < +inf <
// NaN, every NaN equal).
std::uint32_t ordered(dtype t, std::uint32_t b) {
  switch (t) {
    case dtype::u32: return b;
    case dtype::i32: return b ^ 0x80000000u;
    case dtype::f32:
      if ((b & 0x7fffffffu) > 0x7f800000u) return 0xffffffffu;
      return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
    default:  // (the distributed sort's keys are 32-bit words: u32, i32 or f32)
      return b;
  }
}

}  // namespace

void communicator::agree(std::exception_ptr failure, std::uint64_t fingerprint) {
  agree_record mine;
  mine.fingerprint = fingerprint;
  char message[message_bytes] = {};
  if (failure) {
    mine.failed = 1;
    try {
      std::rethrow_exception(failure);
    } catch (const error& e) {
      mine.code = static_cast<std::int32_t>(e.code());
      std::strncpy(message, e.what(), message_bytes - 1);
    } catch (const std::exception& e) {
      mine.code = static_cast<std::int32_t>(errc::gpu);
      std::strncpy(message, e.what(), message_bytes - 1);
    }
    for (char& ch : message)
      if (ch == '\n' || ch == '\r') ch = ' ';
  }
  const int p = size();
  if (p == 1) {
    if (failure) std::rethrow_exception(failure);
    return;
  }
  const std::vector<std::uint8_t> all = allgather(&mine, sizeof mine);
  int first_failed = -1, differs = -1;
  agree_record first{}, zero{};
  std::memcpy(&zero, all.data(), sizeof zero);
  for (int r = 0; r < p; ++r) {
    agree_record x;
    std::memcpy(&x, all.data() + r * sizeof x, sizeof x);
    if (x.failed && first_failed < 0) first_failed = r, first = x;
    if (x.fingerprint != zero.fingerprint && differs < 0) differs = r;
  }
  if (first_failed >= 0) {
    broadcast(message, message_bytes, first_failed);
    message[message_bytes - 1] = 0;
    throw error(static_cast<errc>(first.code), "rank " + std::to_string(first_failed) + ": " + message);
  }
  if (differs >= 0)
    throw error(errc::invalid_argument, "ranks 0 and " + std::to_string(differs) +
                                            " called with different operators, element types or sort orders "
                                            "(every rank must build the same operator)");
}

namespace detail {

std::uint64_t dist_fingerprint(const monoid& m, int kind) {
  // FNV-1a of what every rank must agree on: the operator (its key names the expression and identity), the type
  // and the call.
  std::uint64_t h = 1469598103934665603ull;
  const std::string text = m.key() + "|" + dtype_name(m.type()) + "|" + std::to_string(kind);
  for (unsigned char ch : text) h = (h ^ ch) * 1099511628211ull;
  return h;
}

std::exception_ptr dist_failure(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const error&) {
    return e;
  } catch (const std::bad_alloc&) {
    return std::make_exception_ptr(error(errc::out_of_memory, "out of host memory"));
  } catch (const std::exception& x) {
    return std::make_exception_ptr(error(errc::gpu, x.what()));
  } catch (...) {
    return std::make_exception_ptr(error(errc::gpu, "unknown failure"));
  }
}

bool dist_commutes(const monoid& m) {
  if (m.is_builtin()) return true;
  try {
    m.check(/*need_commutative=*/true);
    return true;
  } catch (const error&) {
    return false;  // not commutative (or not a monoid at all: the scan's own check then says so)
  }
}

std::uint32_t dist_combine(communicator& c, const monoid& m, std::uint32_t local_bits, bool scan, bool commutative) {
  const communicator::combine_fn f = [&m](const void* lower, void* inout) {
    std::uint32_t a, b;
    std::memcpy(&a, lower, 4);
    std::memcpy(&b, inout, 4);
    const std::uint32_t r = m.combine(a, b);
    std::memcpy(inout, &r, 4);
  };
  if (scan) {
    std::uint32_t carry = m.identity_bits();  // rank 0's
    c.exscan(&local_bits, &carry, 4, f, commutative);
    return carry;
  }
  c.allreduce(&local_bits, 4, f, commutative);
  return local_bits;
}

namespace {
// inout = lower + inout, on the 56-byte serial forms of two superaccumulators (exact: any grouping gives the same).
void combine_superaccumulators(const void* lower, void* inout) {
  superaccumulator::words a, b;
  std::memcpy(&a, lower, sizeof a);
  std::memcpy(&b, inout, sizeof b);
  superaccumulator x = superaccumulator::deserialize(a);
  x.combine(superaccumulator::deserialize(b));
  const superaccumulator::words r = x.serialize();
  std::memcpy(inout, &r, sizeof r);
}
}  // namespace

superaccumulator dist_combine_exact(communicator& c, const superaccumulator& local) {
  superaccumulator::words w = local.serialize();
  static_assert(sizeof w == 56, "the superaccumulator's serial form is 56 bytes");
  const communicator::combine_fn f = combine_superaccumulators;
  c.allreduce(&w, sizeof w, f, /*commutative=*/true);
  return superaccumulator::deserialize(w);
}

superaccumulator dist_exscan_exact(communicator& c, const superaccumulator& local) {
  const superaccumulator::words w = local.serialize();
  superaccumulator::words carry = superaccumulator().serialize();  // rank 0's: an exact zero
  const communicator::combine_fn f = combine_superaccumulators;
  // Integer addition: associative and commutative, so MPI may group the ranks as it likes.
  c.exscan(&w, &carry, sizeof w, f, /*commutative=*/true);
  return superaccumulator::deserialize(carry);
}

void dist_exact_scan(context& ctx, const range_ref& in, const range_ref& out, scan_kind kind,
                     const superaccumulator& carry, const run_options& opt) {
  scan_run_exact_carry(ctx, in, out, kind, carry, opt);
}

std::uint32_t dist_last_bits(context& ctx, const range_ref& r) {
  if (r.count == 0) throw error(errc::invalid_argument, "internal: last element of an empty range");
  if (!r.on_device) {
    std::uint32_t v;
    std::memcpy(&v, static_cast<const std::uint8_t*>(r.host_out) + (r.count - 1) * 4, 4);
    return v;
  }
  std::uint32_t v = 0;
  if (r.view.host) {  // the native backend: host memory, no recorder (that said "needs a WebGPU device", row 8)
    std::memcpy(&v, static_cast<const std::uint8_t*>(r.view.host) + r.view.offset + (r.count - 1) * 4, 4);
    return v;
  }
  recorder rec(ctx);
  const recorder::readback rb{r.view.buf, r.view.offset + (r.count - 1) * 4, 4, &v};
  rec.submit(&rb);
  return v;
}

extern const kernel_spec dist_splitter_bounds_spec;  // listed in primitives/registry.cpp
const kernel_spec dist_splitter_bounds_spec{"dist/splitter_bounds.wgsl",
                                            "splitter_bounds",
                                            {slot::uniform, slot::storage_read, slot::storage_read, slot::storage_rw},
                                            sizeof(bounds_params)};

void dist_sort_run(context& ctx, communicator& c, dtype key_type, const std::uint32_t* keys,
                   const std::uint32_t* vals, std::size_t n, dist_sink& keys_out, dist_sink* vals_out, order o,
                   const run_options& opt, dist_stats* st) {
  const auto t0 = clock_type::now();
  double local_ms = 0;
  const int p = c.size(), me = c.rank();
  const bool pairs = vals_out != nullptr;  // (vals may be null for an empty part of pairs)
  const bool descending = o == order::descending;
  std::exception_ptr failure;

  // Stable sort of m host elements (on the GPU: uploaded and read back), from ki / vi into ko / vo.
  auto gpu_sort = [&](const std::uint32_t* ki, const std::uint32_t* vi, std::uint32_t* ko, std::uint32_t* vo,
                      std::size_t m) {
    const auto a = clock_type::now();
    if (m) {
      range_ref kin, kout;
      kin.host = ki;
      kout.host_out = ko;
      kin.count = kout.count = m;
      if (pairs) {
        range_ref vin, vout;
        vin.host = vi;
        vout.host_out = vo;
        vin.count = vout.count = m;
        sort_run(ctx, nullptr, kin, kout, &vin, &vout, key_type, o, opt);
      } else {
        sort_run(ctx, nullptr, kin, kout, nullptr, nullptr, key_type, o, opt);
      }
    }
    local_ms += ms_between(a, clock_type::now());
  };
  auto finish_stats = [&](std::uint64_t count, std::vector<std::uint64_t> counts) {
    if (!st) return;
    st->local_ms = local_ms;
    st->total_ms = ms_between(t0, clock_type::now());
    st->comm_ms = st->total_ms - local_ms;  // the collectives and the waits in them (the host's share is tiny)
    st->count = count;
    st->counts = std::move(counts);
  };

  // Whether two ranges of n words share memory: the local sort needs keys and values in different places, so
  // values that are the keys' own vector (or outputs that are another input's vector) are sorted from a copy.
  auto overlaps = [n](const void* a, const void* b) {
    const char* x = static_cast<const char*>(a);
    const char* y = static_cast<const char*>(b);
    return n && x && y && x < y + n * 4 && y < x + n * 4;
  };
  std::vector<std::uint32_t> copied_vals;
  auto copy_vals = [&] {
    copied_vals.assign(vals, vals + n);
    vals = copied_vals.data();
  };

  // A bad WGPRIM_DIST_SORT is this rank's failure, agreed on after the local step like any other (a throw here would
  // leave the other ranks waiting in a collective), with one rank as with several.
  bool host_steps = false;
  try {
    host_steps = env::dist_sort_host();
  } catch (...) {
    failure = dist_failure(std::current_exception());
  }

  if (p == 1) {
    // One rank: its part is the whole array, sorted once, straight into the caller's vectors (the sample, the
    // exchange and the merge would move every element for nothing). Sorting in place is fine.
    if (!failure) try {
      std::uint32_t* ko = keys_out.words(n);
      std::uint32_t* vo = pairs ? vals_out->words(n) : nullptr;
      std::vector<std::uint32_t> copied_keys;
      if (pairs && (overlaps(vals, keys) || overlaps(ko, vals) || overlaps(vo, keys))) {
        copied_keys.assign(keys, keys + n);
        keys = copied_keys.data();
        copy_vals();
      }
      gpu_sort(keys, vals, ko, vo, n);
    } catch (...) {
      failure = dist_failure(std::current_exception());
    }
    c.agree(failure, 0);  // one rank: rethrows its failure
    finish_stats(n, {n});
    return;
  }

  // WebGPU keeps this rank's part on the device from its sort to the exchange: the samples are gathered there and
  // read back alone, the splitters' bounds found by a search kernel, and the whole part read back once to be sent.
  // The native backend (and a part past one storage binding) sorts host arrays and does the same on the CPU. Either
  // way every rank makes the same collectives in the same order. WGPRIM_DIST_SORT=host runs the host steps on WebGPU
  // too (the earlier design: the received runs sorted again instead of merged), for A/B runs.
  const bool webgpu = ctx.backend() != backend_choice::native && !host_steps;
  const bool on_device = webgpu && n * 4 <= ctx.binding_limit();
  // The sampling and the partition work on keys mapped so that the local sort's order is ascending: descending is
  // the reverse order of distinct keys (NaNs, all equal, first) with equal keys still in input order, which is the
  // ascending order of ~ordered(key) with the same ties; the (rank, position) tie-break is then unchanged.
  auto key_of = [&](std::uint32_t b) { return descending ? ~ordered(key_type, b) : ordered(key_type, b); };
  // Regular samples of the sorted part, weighted by the elements each stands for, so that unequal parts (an empty
  // rank, an uneven split) still give parts of about n/p. Sample j stands for the sorted positions
  // [j n / taken, (j + 1) n / taken); it is the middle one.
  const std::size_t s = 64;
  const std::size_t taken = std::min(n, s);
  auto sample_lo = [&](std::size_t j) { return static_cast<std::uint64_t>(j) * n / taken; };
  auto sample_pos = [&](std::size_t j) { return sample_lo(j) + (sample_lo(j + 1) - sample_lo(j)) / 2; };
  std::vector<sample> mine(s);
  std::uint32_t sampled[s] = {};

  // 1. Stable local sort of this rank's part: into dk (dv) on the device, or k (v) on the host; 2. its samples.
  buffer dk, dv;
  std::unique_ptr<std::uint32_t[]> k, v;
  if (!failure) try {
    if (n) {
      k.reset(new std::uint32_t[n]);
      if (pairs) v.reset(new std::uint32_t[n]);
    }
    if (on_device) {
      const auto a = clock_type::now();
      dk = ctx.create_buffer(std::max<std::size_t>(n, 1) * 4);
      if (pairs) dv = ctx.create_buffer(std::max<std::size_t>(n, 1) * 4);
      if (n) {
        ctx.write(dk, 0, keys, n * 4);
        const range_ref rk = in_place_ref(device_span<std::uint32_t>(dk, 0, n));
        if (pairs) {
          ctx.write(dv, 0, vals, n * 4);
          const range_ref rv = in_place_ref(device_span<std::uint32_t>(dv, 0, n));
          sort_run(ctx, nullptr, rk, rk, &rv, &rv, key_type, o, opt);
        } else {
          sort_run(ctx, nullptr, rk, rk, nullptr, nullptr, key_type, o, opt);
        }
        // The samples: one 4-byte copy each (a strided gather), read back with the sort's submission.
        recorder rec(ctx);
        const buffer& sb = scratch(ctx, "dist.samples", s * 4);
        for (std::size_t j = 0; j < taken; ++j) rec.copy(dk, sample_pos(j) * 4, sb, j * 4, 4);
        const recorder::readback rb{sb.native(), 0, taken * 4, sampled};
        rec.submit(&rb);
      }
      local_ms += ms_between(a, clock_type::now());
    } else {
      if (pairs && overlaps(vals, keys)) copy_vals();
      gpu_sort(keys, vals, k.get(), v.get(), n);
      for (std::size_t j = 0; j < taken; ++j) sampled[j] = k[sample_pos(j)];
    }
    for (std::size_t j = 0; j < taken; ++j)
      mine[j] = sample{key_of(sampled[j]), static_cast<std::uint32_t>(me), sample_pos(j),
                       sample_lo(j + 1) - sample_lo(j)};
  } catch (...) {
    failure = dist_failure(std::current_exception());
  }
  c.agree(failure,
          0x5047u + static_cast<std::uint64_t>(key_type) * 2 + (pairs ? 1 : 0) + (descending ? 0x10000u : 0));

  const std::vector<std::uint8_t> gathered = c.allgather(mine.data(), s * sizeof(sample));
  std::vector<sample> all(static_cast<std::size_t>(p) * s);
  std::memcpy(all.data(), gathered.data(), gathered.size());
  all.erase(std::remove_if(all.begin(), all.end(), [](const sample& x) { return x.rank == 0xffffffffu; }),
            all.end());
  std::sort(all.begin(), all.end(), sample_less);
  std::uint64_t total = 0;
  for (const sample& x : all) total += x.weight;

  // Splitter d (1..p-1): the first sample at which the running weight reaches d / p of the total; rank d - 1 takes
  // the elements before it.
  std::vector<sample> splitters;
  splitters.reserve(p - 1);
  {
    std::uint64_t run = 0;
    std::size_t i = 0;
    for (int d = 1; d < p; ++d) {
      const std::uint64_t want = (total * static_cast<std::uint64_t>(d) + p - 1) / p;
      while (i < all.size() && run + all[i].weight / 2 < want) run += all[i++].weight;
      // past the last sample: everything goes below (the splitter is +infinity)
      splitters.push_back(i < all.size() ? all[i] : sample{0xffffffffu, 0xfffffffeu, ~0ull, 0});
    }
  }
  // 3. Where each splitter falls in this rank's sorted part (elements strictly before it in the (key, rank,
  // position) order): binary searches of the sorted keys, on the GPU (dist/splitter_bounds.wgsl) or the host.
  std::vector<std::uint64_t> bound(p + 1, 0);
  bound[p] = n;
  try {
    std::vector<std::uint32_t> found(p - 1, 0);
    if (on_device && n) {
      const auto a = clock_type::now();
      std::vector<std::uint32_t> table;
      for (const sample& sp : splitters)
        table.insert(table.end(), {sp.key, sp.rank, static_cast<std::uint32_t>(sp.pos),
                                   static_cast<std::uint32_t>(sp.pos >> 32)});
      buffer tb = ctx.create_buffer(table.size() * 4), bb = ctx.create_buffer(found.size() * 4);
      ctx.write(tb, 0, table.data(), table.size() * 4);
      bounds_params bp{};
      bp.n = static_cast<std::uint32_t>(n);
      bp.rank = static_cast<std::uint32_t>(me);
      bp.splitters = static_cast<std::uint32_t>(p - 1);
      bp.key_kind = key_type == dtype::i32 ? 1u : key_type == dtype::f32 ? 2u : 0u;
      bp.descending = descending ? 1u : 0u;
      bp.mask_lo = bp.mask_hi = 0xffffffffu;
      static const monoid u32_sum(op::sum(), dtype::u32);
      const kernel& kern = get_kernel(
          ctx, dist_splitter_bounds_spec,
          compose_wgsl(dist_splitter_bounds_spec.file, u32_sum, sort_constants(bounds_wg, 1, 1)), /*trusted=*/false);
      recorder rec(ctx);
      rec.dispatch(kern, {rec.params(bp), bind(dk, 0, n * 4), bind(tb), bind(bb)},
                   static_cast<std::uint32_t>((p - 1 + bounds_wg - 1) / bounds_wg));
      if (found.size() * 4 <= 4096) {
        const recorder::readback rb{bb.native(), 0, found.size() * 4, found.data()};
        rec.submit(&rb);
      } else {
        rec.submit();
        ctx.read(bb, 0, found.data(), found.size() * 4);
      }
      local_ms += ms_between(a, clock_type::now());
    } else if (n) {
      const std::uint32_t* kb = k.get();
      const std::uint32_t* ke = kb + n;
      for (int d = 1; d < p; ++d) {
        const sample& sp = splitters[d - 1];
        const std::uint64_t lo =
            std::lower_bound(kb, ke, sp.key, [&](std::uint32_t e, std::uint32_t x) { return key_of(e) < x; }) - kb;
        const std::uint64_t hi =
            std::upper_bound(kb, ke, sp.key, [&](std::uint32_t x, std::uint32_t e) { return x < key_of(e); }) - kb;
        std::uint64_t b;
        if (static_cast<std::uint32_t>(me) < sp.rank) b = hi;
        else if (static_cast<std::uint32_t>(me) > sp.rank) b = lo;
        else b = std::min(std::max<std::uint64_t>(sp.pos, lo), hi);
        found[d - 1] = static_cast<std::uint32_t>(b);
      }
    }
    for (int d = 1; d < p; ++d) bound[d] = std::max<std::uint64_t>(found[d - 1], bound[d - 1]);
    // The part to send, staged to the host (one read of the keys, one of the values).
    if (on_device && n) {
      const auto a = clock_type::now();
      ctx.read(dk, 0, k.get(), n * 4);
      if (pairs) ctx.read(dv, 0, v.get(), n * 4);
      dk = buffer();
      dv = buffer();
      local_ms += ms_between(a, clock_type::now());
    }
  } catch (...) {
    failure = dist_failure(std::current_exception());
  }
  c.agree(failure, 0);

  // 4. The exchange.
  std::vector<std::uint64_t> send_counts(p), recv_counts;
  for (int d = 0; d < p; ++d) send_counts[d] = bound[d + 1] - bound[d];
  std::vector<std::uint32_t> rk, rv;
  c.alltoallv(k.get(), send_counts, rk, recv_counts);
  if (pairs) c.alltoallv(v.get(), send_counts, rv, recv_counts);
  k.reset();
  v.reset();

  // 5. The received runs, each sorted, in source-rank order: a stable merge (equal keys: the lower source rank's
  // first) or a stable sort of them keeps equal keys in global input order. Either writes into the caller's vectors.
  const std::uint64_t count = rk.size();
  try {
    std::uint32_t* ko = keys_out.words(count);
    std::uint32_t* vo = pairs ? vals_out->words(count) : nullptr;
    if (webgpu && count && count * 4 <= ctx.binding_limit()) {
      const auto a = clock_type::now();
      buffer mk = ctx.create_buffer(count * 4), mv;
      ctx.write(mk, 0, rk.data(), count * 4);
      const device_view kview = view_of(mk, count);
      device_view vview;
      if (pairs) {
        mv = ctx.create_buffer(count * 4);
        ctx.write(mv, 0, rv.data(), count * 4);
        vview = view_of(mv, count);
      }
      key_compare cmp;
      cmp.kind = key_type == dtype::i32   ? sort_key_kind::signed_int
                 : key_type == dtype::f32 ? sort_key_kind::floating
                                          : sort_key_kind::unsigned_int;
      cmp.ord = o;
      recorder rec(ctx);
      const buffer tables = record_merge_runs(rec, cmp, kview, pairs ? &vview : nullptr, recv_counts);
      rec.submit();
      ctx.read(mk, 0, ko, count * 4);
      if (pairs) ctx.read(mv, 0, vo, count * 4);
      local_ms += ms_between(a, clock_type::now());
    } else {
      gpu_sort(rk.data(), pairs ? rv.data() : nullptr, ko, vo, count);
    }
  } catch (...) {
    failure = dist_failure(std::current_exception());
  }
  rk = {};
  rv = {};
  c.agree(failure, 0);
  std::vector<std::uint64_t> counts(p);
  {
    const std::vector<std::uint8_t> cs = c.allgather(&count, sizeof count);
    std::memcpy(counts.data(), cs.data(), cs.size());
  }
  finish_stats(count, std::move(counts));
}

}  // namespace detail
}  // namespace wgprim
