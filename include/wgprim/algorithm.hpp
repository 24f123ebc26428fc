// Options and statistics shared by the device-wide algorithms.
#pragma once
#include <string>
#include <vector>

namespace wgprim {

/// What one call measured.
struct run_stats {
  double gpu_ms = 0;          // GPU time of the algorithm's dispatches (timestamps, or wall time on CPU adapters)
  bool gpu_timestamps = false;  // whether gpu_ms came from GPU timestamps
  double upload_ms = 0;       // host-to-device copy (host-span overloads only)
  double download_ms = 0;     // device-to-host copy (host-span overloads only)
  std::string algorithm;      // the algorithm that ran
};

struct run_options {
  /// Algorithm name; empty picks the default for the adapter. See reduce_algorithms() / scan_algorithms().
  std::string algorithm;
  /// Where to report what was measured (may be null).
  run_stats* stats = nullptr;
  /// Measure GPU time with timestamp queries (slightly slower; implied when stats is set).
  bool timestamps = false;
};

std::vector<std::string> reduce_algorithms();
std::vector<std::string> scan_algorithms();

}  // namespace wgprim
