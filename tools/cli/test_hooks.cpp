// The test hooks of tests/mpi_cli_test.sh: make one rank fail, or stop answering, in its local step. This file is
// compiled twice (CMakeLists.txt): empty into `wgprim`, the command that is installed and packaged, and with
// WGPRIM_TEST_HOOKS into `wgprim-test-hooks`, the test build of the same command, which alone reads
// WGPRIM_TEST_FAIL_RANK and WGPRIM_TEST_STALL_RANK.
#include "command.hpp"

#ifdef WGPRIM_TEST_HOOKS
#include <chrono>
#include <cstdlib>
#include <thread>

#include "wgprim/error.hpp"

void mpi_test_hooks(int rank) {
  if (const char* e = std::getenv("WGPRIM_TEST_FAIL_RANK"); e && std::atoi(e) == rank)
    throw wgprim::error(wgprim::errc::io, "test failure injected on this rank (WGPRIM_TEST_FAIL_RANK)");
  if (const char* e = std::getenv("WGPRIM_TEST_STALL_RANK"); e && std::atoi(e) == rank)
    std::this_thread::sleep_for(std::chrono::hours(1));
}
#else
void mpi_test_hooks(int) {}
#endif
