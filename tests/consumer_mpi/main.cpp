// A one-rank (or more) reduce through an installed wgprim::mpi: every rank holds 1000 values, the sum of all is
// checked against the closed form. Exit code 0 when right.
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <vector>

#include "wgprim/mpi.hpp"
#include "wgprim/wgprim.hpp"

int main(int argc, char** argv) {
  wgprim::mpi::environment env(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  wgprim::context ctx;
  std::vector<std::uint32_t> part(1000);
  std::iota(part.begin(), part.end(), static_cast<std::uint32_t>(rank) * 1000u);
  const std::uint64_t n = 1000ull * static_cast<std::uint64_t>(size);
  const std::uint32_t got = wgprim::mpi::reduce(ctx, MPI_COMM_WORLD, part);
  const auto want = static_cast<std::uint32_t>(n * (n - 1) / 2);
  if (rank == 0) std::printf("mpi consumer: %d rank(s), sum %u, expected %u\n", size, got, want);
  return got == want ? 0 : 1;
}
