/// @file
/// wgprim across processes and hosts with MPI (the wgprim::mpi library; CMake target wgprim::mpi, built when
/// find_package(MPI) finds it; the core library does not depend on MPI). Each rank holds a consecutive part of the
/// array on its own context (ranks may share one GPU); the parts in rank order are the array.
///
/// @code
///   wgprim::mpi::environment env(argc, argv);          // MPI_Init_thread .. MPI_Finalize (unless already done)
///   wgprim::context ctx;                               // e.g. context_options{"#" + local rank} for a GPU per rank
///   float s = wgprim::mpi::reduce(ctx, MPI_COMM_WORLD, my_part);                   // the same on every rank
///   wgprim::mpi::inclusive_scan(ctx, MPI_COMM_WORLD, my_part, my_out);            // local reduce -> MPI_Exscan of
///                                                                                 // the totals -> seeded local scan
///   std::vector<float> mine = wgprim::mpi::sort(ctx, MPI_COMM_WORLD, my_keys);     // sample sort, MPI_Alltoallv
///   auto down = wgprim::mpi::sort(ctx, MPI_COMM_WORLD, my_keys, wgprim::order::descending);  // largest first
/// @endcode
///
/// The operator's combine runs as a user-defined MPI_Op (commutative when the monoid is); a custom operator is
/// built by every rank from the same text, and the ranks check that they agree. accuracy::reproducible f32 sums
/// combine the ranks' exact superaccumulators (56 bytes each): the same bits for any number of ranks and any split.
/// Failures: when a rank fails, every rank throws the same wgprim::error ("rank R: ..."); a rank that stops
/// answering (a crash, a hang) is caught by a watchdog that ends the job with MPI_Abort after timeout_s.
/// @namespace wgprim::mpi
/// The distributed algorithms over MPI ranks (library wgprim::mpi).
#pragma once
#include <mpi.h>

#include <memory>

#include "wgprim/distributed.hpp"

namespace wgprim::mpi {

/// Initializes MPI (thread level MPI_THREAD_MULTIPLE requested, so that the watchdog may call MPI_Abort) unless
/// it is already initialized, and finalizes it at the end if it did.
class environment {
 public:
  /// Initialises MPI (MPI_Init_thread) unless it already is; the destructor finalises what it initialised.
  environment(int* argc, char*** argv);
  ~environment();
  environment(const environment&) = delete;
  environment& operator=(const environment&) = delete;

 private:
  bool owns_ = false;
};

/// wgprim's collectives over an MPI communicator (MPI_Allgather, MPI_Bcast, MPI_Exscan and MPI_Allreduce with a
/// user-defined MPI_Op, MPI_Alltoallv).
class communicator final : public wgprim::communicator {
 public:
  /// timeout_s: the longest wait inside one collective before the watchdog prints a one-line error and ends the
  /// job (MPI_Abort); 0 disables it. The environment variable WGPRIM_MPI_TIMEOUT_S overrides it.
  explicit communicator(MPI_Comm comm, double timeout_s = 600);
  ~communicator() override;
  communicator(const communicator&) = delete;
  communicator& operator=(const communicator&) = delete;

  /// This process's rank in the communicator.
  int rank() const override { return rank_; }
  /// The number of ranks.
  int size() const override { return size_; }
  /// The MPI communicator.
  MPI_Comm comm() const { return comm_; }
  std::vector<std::uint8_t> allgather(const void* mine, std::size_t bytes) override;
  void broadcast(void* data, std::size_t bytes, int root) override;
  void exscan(const void* mine, void* result, std::size_t bytes, const combine_fn& f, bool commutative) override;
  void allreduce(void* inout, std::size_t bytes, const combine_fn& f, bool commutative) override;
  void alltoallv(const std::uint32_t* send, const std::vector<std::uint64_t>& send_counts,
                 std::vector<std::uint32_t>& recv, std::vector<std::uint64_t>& recv_counts) override;

  struct watchdog;

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  std::unique_ptr<watchdog> dog_;
};

// The wgprim::dist calls over an MPI_Comm.
/// The reduction of the whole array, returned on every rank (see wgprim::dist::reduce).
template <class R, class = std::enable_if_t<detail::is_range_v<R>>, class T = detail::range_value_t<R>>
T reduce(context& ctx, MPI_Comm comm, const R& local, const op& o = op::sum(), const run_options& opt = {},
         dist_stats* st = nullptr) {
  communicator c(comm);
  return dist::reduce(ctx, c, local, o, opt, st);
}
/// The inclusive scan of the whole array: each rank gets its part's prefixes.
template <class In, class Out, class = detail::if_ranges<In, Out>>
void inclusive_scan(context& ctx, MPI_Comm comm, const In& local, Out&& out, const op& o = op::sum(),
                    const run_options& opt = {}, dist_stats* st = nullptr) {
  communicator c(comm);
  dist::inclusive_scan(ctx, c, local, std::forward<Out>(out), o, opt, st);
}
/// The exclusive scan of the whole array: each rank gets its part's prefixes.
template <class In, class Out, class = detail::if_ranges<In, Out>>
void exclusive_scan(context& ctx, MPI_Comm comm, const In& local, Out&& out, const op& o = op::sum(),
                    const run_options& opt = {}, dist_stats* st = nullptr) {
  communicator c(comm);
  dist::exclusive_scan(ctx, c, local, std::forward<Out>(out), o, opt, st);
}
/// The sample sort of wgprim/distributed.hpp (dist::sort): this rank's part of the stable sort in order `o`.
template <class T>
std::vector<T> sort(context& ctx, MPI_Comm comm, const std::vector<T>& local, order o = order::ascending,
                    const run_options& opt = {}, dist_stats* st = nullptr) {
  communicator c(comm);
  return dist::sort(ctx, c, local, o, opt, st);
}
/// sort with run_options and the default (ascending) order.
template <class T>
std::vector<T> sort(context& ctx, MPI_Comm comm, const std::vector<T>& local, const run_options& opt,
                    dist_stats* st = nullptr) {
  return mpi::sort(ctx, comm, local, order::ascending, opt, st);
}
/// Sorts (key, value) pairs across ranks: each rank receives its part of the sorted pairs.
template <class K, class V>
void sort_pairs(context& ctx, MPI_Comm comm, const std::vector<K>& keys, const std::vector<V>& values,
                std::vector<K>& keys_out, std::vector<V>& values_out, order o = order::ascending,
                const run_options& opt = {}, dist_stats* st = nullptr) {
  communicator c(comm);
  dist::sort_pairs(ctx, c, keys, values, keys_out, values_out, o, opt, st);
}
/// sort_pairs with run_options and the default (ascending) order.
template <class K, class V>
void sort_pairs(context& ctx, MPI_Comm comm, const std::vector<K>& keys, const std::vector<V>& values,
                std::vector<K>& keys_out, std::vector<V>& values_out, const run_options& opt,
                dist_stats* st = nullptr) {
  mpi::sort_pairs(ctx, comm, keys, values, keys_out, values_out, order::ascending, opt, st);
}

/// Whether this process was started by an MPI launcher (mpirun / mpiexec / srun with PMIx: OMPI_COMM_WORLD_SIZE,
/// PMIX_RANK or PMI_RANK set), without initializing MPI.
bool launched();
/// The rank of this process among those of its node (OMPI_COMM_WORLD_LOCAL_RANK, MPI_COMM_TYPE_SHARED), for
/// choosing one GPU per rank: context_options{"#" + std::to_string(local_rank(comm))}.
int local_rank(MPI_Comm comm);

}  // namespace wgprim::mpi
