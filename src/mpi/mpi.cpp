// wgprim's collectives over MPI (wgprim/mpi.hpp): the only file of the wgprim::mpi library.
#include "wgprim/mpi.hpp"

#include "core/env.hpp"

#include <unistd.h>

#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

namespace wgprim::mpi {

namespace {

bool thread_multiple = false;  // what MPI granted: MPI_Abort from the watchdog thread needs MPI_THREAD_MULTIPLE

// The combine of the running user-defined MPI_Op. MPI's user function has no user-data argument, so the call in
// flight leaves its combine here; the collectives of one communicator are called from one thread at a time, and a
// mutex keeps two communicators in two threads apart.
std::mutex op_mutex;
const communicator::combine_fn* op_combine = nullptr;
std::size_t op_bytes = 0;

// MPI calls it with invec from lower ranks and inoutvec from higher ones: inoutvec = invec op inoutvec.
void user_op(void* invec, void* inoutvec, int* len, MPI_Datatype*) {
  auto* in = static_cast<const std::uint8_t*>(invec);
  auto* inout = static_cast<std::uint8_t*>(inoutvec);
  for (int i = 0; i < *len; ++i) (*op_combine)(in + i * op_bytes, inout + i * op_bytes);
}

// One record of `bytes` bytes as a single MPI element, so that MPI never splits a record between two calls of the
// user function.
struct record_type {
  explicit record_type(std::size_t bytes) {
    MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &type);
    MPI_Type_commit(&type);
  }
  ~record_type() { MPI_Type_free(&type); }
  MPI_Datatype type;
};

struct user_operation {
  user_operation(const communicator::combine_fn& f, std::size_t bytes, bool commutative) : lock(op_mutex) {
    op_combine = &f;
    op_bytes = bytes;
    MPI_Op_create(&user_op, commutative ? 1 : 0, &op);
  }
  ~user_operation() {
    MPI_Op_free(&op);
    op_combine = nullptr;
  }
  std::lock_guard<std::mutex> lock;
  MPI_Op op;
};

double env_timeout(double given) {
  return detail::env::mpi_timeout_s().value_or(given);  // WGPRIM_MPI_TIMEOUT_S
}

}  // namespace

// A thread that ends the job when one collective waits longer than the timeout: a rank that crashed without MPI
// noticing, or hangs, must not keep every other rank waiting forever.
struct communicator::watchdog {
  watchdog(MPI_Comm comm, int rank, double timeout_s) : comm(comm), rank(rank), timeout(timeout_s) {
    thread = std::thread([this] { loop(); });
  }
  ~watchdog() {
    {
      std::lock_guard<std::mutex> l(mu);
      stop = true;
    }
    cv.notify_all();
    thread.join();
  }
  void arm(const char* what) {
    std::lock_guard<std::mutex> l(mu);
    armed = what;
    deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                      std::chrono::duration<double>(timeout));
    cv.notify_all();
  }
  void disarm() {
    std::lock_guard<std::mutex> l(mu);
    armed = nullptr;
  }
  void loop() {
    std::unique_lock<std::mutex> l(mu);
    while (!stop) {
      if (!armed) {
        cv.wait(l);
        continue;
      }
      const auto d = deadline;
      if (cv.wait_until(l, d) == std::cv_status::timeout && armed && deadline == d && !stop) {
        std::fprintf(stderr,
                     "wgprim: error: rank %d: no answer from the other ranks within %.0f s in %s (a rank stopped or "
                     "hangs); ending the job\n",
                     rank, timeout, armed);
        std::fflush(stderr);
        if (thread_multiple) MPI_Abort(comm, static_cast<int>(errc::timeout));
        _exit(static_cast<int>(errc::timeout));
      }
    }
  }
  struct guard {
    guard(watchdog* w, const char* what) : w(w) {
      if (w) w->arm(what);
    }
    ~guard() {
      if (w) w->disarm();
    }
    watchdog* w;
  };
  MPI_Comm comm;
  int rank;
  double timeout;
  std::mutex mu;
  std::condition_variable cv;
  const char* armed = nullptr;
  std::chrono::steady_clock::time_point deadline;
  bool stop = false;
  std::thread thread;
};

environment::environment(int* argc, char*** argv) {
  int done = 0;
  MPI_Initialized(&done);
  if (!done) {
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    owns_ = true;
  }
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  thread_multiple = provided == MPI_THREAD_MULTIPLE;
}

environment::~environment() {
  if (!owns_) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

communicator::communicator(MPI_Comm comm, double timeout_s) : comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  thread_multiple = provided == MPI_THREAD_MULTIPLE;
  const double t = env_timeout(timeout_s);
  if (t > 0) dog_ = std::make_unique<watchdog>(comm_, rank_, t);
}

communicator::~communicator() = default;

std::vector<std::uint8_t> communicator::allgather(const void* mine, std::size_t bytes) {
  std::vector<std::uint8_t> out(bytes * size_);
  record_type t(bytes);
  watchdog::guard g(dog_.get(), "MPI_Allgather");
  MPI_Allgather(mine, 1, t.type, out.data(), 1, t.type, comm_);
  return out;
}

void communicator::broadcast(void* data, std::size_t bytes, int root) {
  watchdog::guard g(dog_.get(), "MPI_Bcast");
  MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, root, comm_);
}

void communicator::exscan(const void* mine, void* result, std::size_t bytes, const combine_fn& f, bool commutative) {
  std::vector<std::uint8_t> got(bytes);
  {
    record_type t(bytes);
    user_operation op(f, bytes, commutative);
    watchdog::guard g(dog_.get(), "MPI_Exscan");
    MPI_Exscan(mine, got.data(), 1, t.type, op.op, comm_);
  }
  if (rank_ > 0) std::memcpy(result, got.data(), bytes);  // rank 0's is undefined in MPI: it keeps the identity
}

void communicator::allreduce(void* inout, std::size_t bytes, const combine_fn& f, bool commutative) {
  record_type t(bytes);
  user_operation op(f, bytes, commutative);
  watchdog::guard g(dog_.get(), "MPI_Allreduce");
  MPI_Allreduce(MPI_IN_PLACE, inout, 1, t.type, op.op, comm_);
}

void communicator::alltoallv(const std::uint32_t* send, const std::vector<std::uint64_t>& send_counts,
                             std::vector<std::uint32_t>& recv, std::vector<std::uint64_t>& recv_counts) {
  recv_counts.assign(size_, 0);
  {
    watchdog::guard g(dog_.get(), "MPI_Alltoall");
    MPI_Alltoall(send_counts.data(), 1, MPI_UINT64_T, recv_counts.data(), 1, MPI_UINT64_T, comm_);
  }
  // MPI counts and displacements are int: every rank checks its own, and they agree before the exchange.
  std::vector<int> sc(size_), sd(size_), rc(size_), rd(size_);
  std::uint64_t s_at = 0, r_at = 0;
  std::int32_t too_big = 0;
  for (int r = 0; r < size_; ++r) {
    if (s_at > INT_MAX || r_at > INT_MAX || send_counts[r] > INT_MAX || recv_counts[r] > INT_MAX) too_big = 1;
    sc[r] = static_cast<int>(send_counts[r]);
    sd[r] = static_cast<int>(s_at);
    rc[r] = static_cast<int>(recv_counts[r]);
    rd[r] = static_cast<int>(r_at);
    s_at += send_counts[r];
    r_at += recv_counts[r];
  }
  {
    watchdog::guard g(dog_.get(), "MPI_Allreduce");
    MPI_Allreduce(MPI_IN_PLACE, &too_big, 1, MPI_INT32_T, MPI_MAX, comm_);
  }
  if (too_big)
    throw error(errc::limit, "a rank would send or receive more than 2^31 - 1 elements in one MPI_Alltoallv; use "
                             "more ranks");
  recv.resize(r_at);
  watchdog::guard g(dog_.get(), "MPI_Alltoallv");
  MPI_Alltoallv(send, sc.data(), sd.data(), MPI_UINT32_T, recv.data(), rc.data(), rd.data(), MPI_UINT32_T, comm_);
}

bool launched() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (detail::env::system(v)) return true;
  return false;
}

int local_rank(MPI_Comm comm) {
  if (const char* e = detail::env::system("OMPI_COMM_WORLD_LOCAL_RANK")) return std::atoi(e);
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int r = 0;
  MPI_Comm_rank(node, &r);
  MPI_Comm_free(&node);
  return r;
}

}  // namespace wgprim::mpi
