// A test process that dies of a signal (a heap corruption glibc aborts on, a segfault inside a driver) says where
// before it goes: the test that was running, the note the test last left (crash_note: the differential test's
// batch), and the native stack. CI keeps only the output, so without this a crash there is one line
// ("free(): corrupted unsorted chunks") and no place. Not installed under AddressSanitizer, which reports
// faults better itself and whose handlers this must not replace.
#include <execinfo.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>

#include "common.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define WGPRIM_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WGPRIM_TEST_ASAN 1
#endif
#endif

namespace wgprim::test {
namespace {

// Written by the main thread before the work they describe, read only by the handler (plain char arrays: the
// handler must not allocate).
char current_test[256];
char current_note[256];

void put(const char* s) {
  if (s && *s) {
    ssize_t ignored = ::write(STDERR_FILENO, s, std::strlen(s));
    (void)ignored;
  }
}
void copy_into(char (&dst)[256], const char* src) {
  std::strncpy(dst, src ? src : "", sizeof dst - 1);
  dst[sizeof dst - 1] = '\0';
}

void on_fatal(int sig) {
  put("\n*** fatal signal ");
  put(sig == SIGSEGV ? "SIGSEGV" : sig == SIGABRT ? "SIGABRT" : sig == SIGBUS ? "SIGBUS"
      : sig == SIGFPE ? "SIGFPE" : sig == SIGILL ? "SIGILL" : "?");
  put(" in test ");
  put(current_test[0] ? current_test : "(none)");
  if (current_note[0]) {
    put(" (");
    put(current_note);
    put(")");
  }
  put("; stack:\n");
  void* frames[64];
  const int n = ::backtrace(frames, 64);
  ::backtrace_symbols_fd(frames, n, STDERR_FILENO);
  // Die of the same signal, so the exit status (and ctest's "Subprocess aborted") stay what they were.
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

class note_test_names : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo& t) override {
    std::string name = std::string(t.test_suite_name()) + "." + t.name();
    copy_into(current_test, name.c_str());
    current_note[0] = '\0';
  }
  void OnTestEnd(const ::testing::TestInfo&) override {
    current_test[0] = '\0';
    current_note[0] = '\0';
  }
};

struct install {
  install() {
#ifndef WGPRIM_TEST_ASAN
    void* warm[1];
    ::backtrace(warm, 1);  // loads libgcc's unwinder now: the first backtrace() may allocate
    for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) {
      struct sigaction sa {};
      sa.sa_handler = on_fatal;
      sigemptyset(&sa.sa_mask);
      sa.sa_flags = SA_RESETHAND;
      ::sigaction(sig, &sa, nullptr);
    }
    ::testing::UnitTest::GetInstance()->listeners().Append(new note_test_names);
#endif
  }
} const installed;

}  // namespace

void crash_note(const std::string& note) { copy_into(current_note, note.c_str()); }

}  // namespace wgprim::test
