/// @file
/// Reduce, scan and sort of one array split across several participants ("ranks": MPI processes, or contexts on
/// several adapters in one process). Rank r holds a consecutive part of the array on its own context; the parts in
/// rank order are the array. Every rank calls the same functions in the same order with the same operator.
///
/// @code
///   reduce:  local reduce -> the rank totals combined (allreduce with the monoid's combine)
///   scans:   local reduce -> exclusive scan of the rank totals in rank order -> local scan seeded with that carry
///   sort:    sample sort: local GPU sort (kept on the device) -> regular samples gathered on the GPU -> p-1
///            splitters (host) -> their bounds by a GPU search -> one staging read (per array: keys, values) ->
///            all-to-all -> one upload per array ->
///            GPU k-way merge of the received runs -> one read (one rank: the local GPU sort alone; the native
///            backend: the same steps on host arrays, the received runs sorted again)
/// @endcode
///
/// The collectives come from a `communicator`: wgprim::mpi::communicator (wgprim/mpi.hpp, the wgprim::mpi library,
/// over an MPI_Comm) or the in-process one behind wgprim/multi.hpp. Failures are agreed on: when one rank fails
/// (bad input, device lost, out of memory), every rank throws the same wgprim::error, "rank R: <what failed>", the
/// failure of the lowest failing rank, instead of leaving the others waiting.
///
/// @code
///   wgprim::mpi::communicator comm(MPI_COMM_WORLD);
///   float s = wgprim::dist::reduce(ctx, comm, my_part);                        // the same on every rank
///   wgprim::dist::inclusive_scan(ctx, comm, my_part, my_out);                  // my_out: my part of the scan
///   std::vector<float> mine = wgprim::dist::sort(ctx, comm, my_keys);          // my part of the sorted array
///   auto down = wgprim::dist::sort(ctx, comm, my_keys, wgprim::order::descending);
/// @endcode
/// @namespace wgprim::dist
/// The distributed algorithms over any wgprim::communicator.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "wgprim/error.hpp"
#include "wgprim/exact.hpp"
#include "wgprim/reduce.hpp"
#include "wgprim/scan.hpp"
#include "wgprim/sort.hpp"

namespace wgprim {

/// The few collectives the distributed algorithms need. Implementations: MPI (wgprim/mpi.hpp) and threads of one
/// process (wgprim/multi.hpp). All ranks call each collective in the same order.
class communicator {
 public:
  /// inout = lower (op) inout, on records of the size the collective was given; `lower` comes from lower ranks.
  using combine_fn = std::function<void(const void* lower, void* inout)>;
  virtual ~communicator() = default;
  /// This participant's rank, 0 .. size() - 1.
  virtual int rank() const = 0;
  /// The number of participants.
  virtual int size() const = 0;
  /// Every rank's `bytes` bytes (the same size on all ranks), in rank order.
  virtual std::vector<std::uint8_t> allgather(const void* mine, std::size_t bytes) = 0;
  /// root's bytes copied into `data` on every rank.
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
  /// result = record_0 op ... op record_{r-1} on rank r > 0; rank 0's result is left as it was (put the identity).
  virtual void exscan(const void* mine, void* result, std::size_t bytes, const combine_fn& f, bool commutative) = 0;
  /// inout = record_0 op ... op record_{p-1} on every rank.
  virtual void allreduce(void* inout, std::size_t bytes, const combine_fn& f, bool commutative) = 0;
  /// 32-bit words: send_counts[d] words to rank d (consecutive in `send`, in rank order); receives recv_counts[s]
  /// words from every rank s, concatenated in rank order into `recv`.
  virtual void alltoallv(const std::uint32_t* send, const std::vector<std::uint64_t>& send_counts,
                         std::vector<std::uint32_t>& recv, std::vector<std::uint64_t>& recv_counts) = 0;

  /// Agreement point: every rank passes its local failure (null: none) and a fingerprint of what it is about to
  /// do (the operator and type: must be the same everywhere). Throws the same wgprim::error on every rank when any
  /// rank failed (the lowest failing rank's, prefixed "rank R: " when there are several ranks) or when the
  /// fingerprints differ.
  void agree(std::exception_ptr failure, std::uint64_t fingerprint = 0);
};

/// What one rank measured in a distributed call (wall time: ranks may share one GPU).
struct dist_stats {
  double local_ms = 0;  ///< this rank's GPU work: local reduce + scan, or the local sorts (one at P = 1; uploads in)
  double comm_ms = 0;   ///< the collectives, waiting for the other ranks included
  double total_ms = 0;  ///< the whole call
  std::uint64_t count = 0;            ///< elements this rank holds after the call (sort: its part of the output)
  std::vector<std::uint64_t> counts;  ///< sort: every rank's part of the output, in rank order
};

namespace detail {
std::uint64_t dist_fingerprint(const monoid& m, int kind);
std::exception_ptr dist_failure(std::exception_ptr e);  // maps non-wgprim exceptions to wgprim::error
/// Combines this rank's total with the others': `scan` true -> exclusive scan of the totals in rank order (rank 0
/// gets the identity), false -> allreduce.
std::uint32_t dist_combine(communicator& c, const monoid& m, std::uint32_t local_bits, bool scan, bool commutative);
superaccumulator dist_combine_exact(communicator& c, const superaccumulator& local);
/// The exclusive scan of the ranks' superaccumulators in rank order (56 bytes each): rank r gets the exact sum of
/// ranks 0 .. r-1 (rank 0 an exact zero).
superaccumulator dist_exscan_exact(communicator& c, const superaccumulator& local);
/// This rank's part of an exact (accuracy::reproducible) f32 sum scan, started from the whole accumulator `carry`:
/// every output is the exact prefix sum of the whole array, rounded once.
void dist_exact_scan(context& ctx, const range_ref& in, const range_ref& out, scan_kind kind,
                     const superaccumulator& carry, const run_options& opt);
/// Whether combine commutes (built-ins do; a custom expression is checked on the CPU twin).
bool dist_commutes(const monoid& m);
/// The last element of an output range (read back from the device for device ranges).
std::uint32_t dist_last_bits(context& ctx, const range_ref& r);
/// Where the sort puts this rank's part: words(m) sizes the output for m 32-bit words and returns where they go, so
/// that the last local sort writes straight into the caller's vector (no copy of the result).
struct dist_sink {
  virtual ~dist_sink() = default;
  virtual std::uint32_t* words(std::size_t m) = 0;
};
template <class T>
class vector_sink final : public dist_sink {
 public:
  explicit vector_sink(std::vector<T>& v) : v_(v) {}
  std::uint32_t* words(std::size_t m) override {
    static_assert(sizeof(T) == 4, "wgprim elements are 32-bit");
    v_.resize(m);
    return reinterpret_cast<std::uint32_t*>(v_.data());
  }

 private:
  std::vector<T>& v_;
};
/// keys / vals: this rank's n input elements (vals null for keys only, or when n is 0). The inputs are read before
/// the sinks are sized, so an output may be the input's own vector.
void dist_sort_run(context& ctx, communicator& c, dtype key_type, const std::uint32_t* keys,
                   const std::uint32_t* vals, std::size_t n, dist_sink& keys_out, dist_sink* vals_out, order o,
                   const run_options& opt, dist_stats* st);
inline double ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}
template <class T>
const std::uint32_t* bits_of(const std::vector<T>& v) {
  static_assert(sizeof(T) == 4, "wgprim elements are 32-bit");
  return reinterpret_cast<const std::uint32_t*>(v.data());
}
}  // namespace detail

namespace dist {

/// The reduction of the whole array (every rank's part), returned on every rank. f32 sums with
/// accuracy::reproducible combine the ranks' exact superaccumulators: the same bits for any number of ranks and
/// any split (and the same as the one-process reduce).
template <class R, class = std::enable_if_t<detail::is_range_v<R>>, class T = detail::range_value_t<R>>
T reduce(context& ctx, communicator& comm, const R& local, const op& o = op::sum(), const run_options& opt = {},
         dist_stats* st = nullptr) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  static_assert(sizeof(T) == 4, "wgprim: the distributed primitives take 32-bit elements (f32, i32, u32)");
  const monoid m(o, dtype_of<T>::value);
  const bool exact = dtype_of<T>::value == dtype::f32 && m.is_sum() && opt.accuracy == accuracy::reproducible;
  std::exception_ptr failure;
  std::uint32_t bits = m.identity_bits();
  superaccumulator acc;
  try {
    if constexpr (std::is_same_v<T, float>) {
      if (exact) acc = exact_sum(ctx, local, opt).accumulator;
    }
    if (!exact) bits = to_bits(wgprim::reduce(ctx, local, o, opt));
  } catch (...) {
    failure = detail::dist_failure(std::current_exception());
  }
  const auto t1 = clock::now();
  comm.agree(failure, detail::dist_fingerprint(m, exact ? 1 : 0));
  const T result = exact ? static_cast<T>(detail::dist_combine_exact(comm, acc).round_to_float())
                         : from_bits<T>(detail::dist_combine(comm, m, bits, false, true));
  if (st) {
    const auto t2 = clock::now();
    st->local_ms = detail::ms_between(t0, t1);
    st->comm_ms = detail::ms_between(t1, t2);
    st->total_ms = detail::ms_between(t0, t2);
    st->count = detail::in_ref(local).count;
  }
  return result;
}

/// This rank's part of the scan of the whole array, into `out` (same length as `local`; host or device ranges as
/// for wgprim::inclusive_scan). The operator must be associative; it need not commute (the rank order is kept).
/// Every rank but the last reads its part three times (reduce, then scan), the one-GPU scan twice.
/// f32 sums with accuracy::reproducible (exact) carry the ranks' exact superaccumulators instead of rounded totals:
/// the output is the one-process exact scan bit for bit, for any number of ranks and any split.
template <class In, class Out, class = detail::if_ranges<In, Out>>
void scan(context& ctx, communicator& comm, const In& local, Out&& out, scan_kind kind, const op& o = op::sum(),
          const run_options& opt = {}, dist_stats* st = nullptr) {
  using T = detail::range_value_t<In>;
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  static_assert(sizeof(T) == 4, "wgprim: the distributed primitives take 32-bit elements (f32, i32, u32)");
  const monoid m(o, dtype_of<T>::value);
  const bool exact = std::is_same_v<T, float> && m.is_sum() && opt.accuracy == accuracy::reproducible;
  std::exception_ptr failure;
  std::uint32_t total = m.identity_bits();
  superaccumulator exact_total, exact_carry;
  bool commutes = true;
  double local_ms = 0;
  // The last rank's total reaches nobody (rank r's carry combines ranks 0..r-1): it skips the local reduce, and one
  // rank alone scans directly.
  const bool need_total = comm.rank() + 1 < comm.size();
  try {
    commutes = detail::dist_commutes(m);
    if (exact) {
      if constexpr (std::is_same_v<T, float>) {
        if (need_total) exact_total = exact_sum(ctx, local, opt).accumulator;
      }
    } else if (need_total && commutes) {
      total = to_bits(wgprim::reduce(ctx, local, o, opt));
    } else if (need_total) {
      // reduce() may reorder: a non-commutative operator's total is the last element of the local scan.
      wgprim::inclusive_scan(ctx, local, out, o, opt);
      const std::size_t n = detail::in_ref(local).count;
      if (n) total = detail::dist_last_bits(ctx, detail::out_ref(out));
    }
  } catch (...) {
    failure = detail::dist_failure(std::current_exception());
  }
  auto t1 = clock::now();
  local_ms += detail::ms_between(t0, t1);
  comm.agree(failure, detail::dist_fingerprint(m, exact ? 3 : 2));
  T carry{};
  if (exact) exact_carry = detail::dist_exscan_exact(comm, exact_total);
  else carry = from_bits<T>(detail::dist_combine(comm, m, total, true, commutes));
  const auto t2 = clock::now();
  try {
    // Rank 0 has no carry: its scan is the one-process scan (no init, which for f32 sums keeps a leading -0.0).
    if (comm.rank() == 0) wgprim::scan(ctx, local, out, kind, o, opt);
    else if (exact) detail::dist_exact_scan(ctx, detail::in_ref(local), detail::out_ref(out), kind, exact_carry, opt);
    else if (kind == scan_kind::inclusive) wgprim::inclusive_scan(ctx, local, out, o, carry, opt);
    else wgprim::exclusive_scan(ctx, local, out, carry, o, opt);
  } catch (...) {
    failure = detail::dist_failure(std::current_exception());
  }
  const auto t3 = clock::now();
  comm.agree(failure, 0);
  if (st) {
    const auto t4 = clock::now();
    st->local_ms = local_ms + detail::ms_between(t2, t3);
    st->comm_ms = detail::ms_between(t1, t2) + detail::ms_between(t3, t4);
    st->total_ms = detail::ms_between(t0, t4);
    st->count = detail::in_ref(local).count;
  }
}
/// The inclusive scan of the concatenation of every rank's part: each rank gets its part's prefixes.
template <class In, class Out, class = detail::if_ranges<In, Out>>
void inclusive_scan(context& ctx, communicator& comm, const In& local, Out&& out, const op& o = op::sum(),
                    const run_options& opt = {}, dist_stats* st = nullptr) {
  scan(ctx, comm, local, std::forward<Out>(out), scan_kind::inclusive, o, opt, st);
}
/// The exclusive scan of the concatenation of every rank's part (see inclusive_scan).
template <class In, class Out, class = detail::if_ranges<In, Out>>
void exclusive_scan(context& ctx, communicator& comm, const In& local, Out&& out, const op& o = op::sum(),
                    const run_options& opt = {}, dist_stats* st = nullptr) {
  scan(ctx, comm, local, std::forward<Out>(out), scan_kind::exclusive, o, opt, st);
}

/// Sample sort: returns this rank's part of the sort of the whole array in order `o` (key order as wgprim::sort:
/// descending is the reverse order of distinct keys, f32 NaNs first; stable either way: equal keys keep their global
/// input order, so the concatenation of the parts in rank order is exactly the one-process wgprim::sort). Parts hold
/// about n/p keys each (regular sampling: at most about 2 n/p even on skewed keys; ties are broken by input position,
/// so even all-equal keys split evenly); st->counts has them all. Every rank passes the same order.
template <class T>
std::vector<T> sort(context& ctx, communicator& comm, const std::vector<T>& local, order o = order::ascending,
                    const run_options& opt = {}, dist_stats* st = nullptr) {
  static_assert(sizeof(T) == 4, "wgprim: the distributed primitives take 32-bit elements (f32, i32, u32)");
  std::vector<T> r;
  detail::vector_sink<T> out(r);
  detail::dist_sort_run(ctx, comm, dtype_of<T>::value, detail::bits_of(local), nullptr, local.size(), out, nullptr, o,
                        opt, st);
  return r;
}
/// Ascending (the signature before `order` was added).
template <class T>
std::vector<T> sort(context& ctx, communicator& comm, const std::vector<T>& local, const run_options& opt,
                    dist_stats* st = nullptr) {
  return dist::sort(ctx, comm, local, order::ascending, opt, st);
}
/// Pairs: the values (any 32-bit type) travel with their keys.
template <class K, class V>
void sort_pairs(context& ctx, communicator& comm, const std::vector<K>& keys, const std::vector<V>& values,
                std::vector<K>& keys_out, std::vector<V>& values_out, order o = order::ascending,
                const run_options& opt = {}, dist_stats* st = nullptr) {
  static_assert(sizeof(V) == 4, "wgprim: values are 32-bit");
  if (keys.size() != values.size())
    throw error(errc::invalid_argument, "sort_pairs: " + std::to_string(keys.size()) + " keys but " +
                                            std::to_string(values.size()) + " values");
  static_assert(sizeof(K) == 4, "wgprim: the distributed primitives take 32-bit elements (f32, i32, u32)");
  detail::vector_sink<K> ko(keys_out);
  detail::vector_sink<V> vo(values_out);
  detail::dist_sort_run(ctx, comm, dtype_of<K>::value, detail::bits_of(keys), detail::bits_of(values), keys.size(),
                        ko, &vo, o, opt, st);
}
/// Ascending (the signature before `order` was added).
template <class K, class V>
void sort_pairs(context& ctx, communicator& comm, const std::vector<K>& keys, const std::vector<V>& values,
                std::vector<K>& keys_out, std::vector<V>& values_out, const run_options& opt,
                dist_stats* st = nullptr) {
  dist::sort_pairs(ctx, comm, keys, values, keys_out, values_out, order::ascending, opt, st);
}

}  // namespace dist
}  // namespace wgprim
