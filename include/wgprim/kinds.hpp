/// @file
/// The small vocabulary types that the entry points (scan.hpp, select.hpp, sort.hpp, arg_reduce.hpp), the
/// backends and the reference implementations share. Each of those headers includes this one, so user code
/// never includes it by itself.
#pragma once
#include <cstdint>

namespace wgprim {

/// An arg reduction's result: the extreme value and the first index holding it.
template <class T>
struct arg_result {
  /// The minimum or maximum (for f32: the first NaN, its bits kept, when there is one).
  T value;
  /// The smallest index at which value occurs (64-bit, correct past one storage binding).
  std::uint64_t index;
};

/// Which extreme an arg reduction looks for.
enum class arg_op { min, max };

/// Inclusive or exclusive scan (for the runtime-typed entry points).
enum class scan_kind { inclusive, exclusive };

/// What a compaction keeps (for the runtime-typed entry points).
enum class select_mode { predicate, flags, unique };

/// Sort order: ascending, or exactly its reverse (still stable).
enum class order { ascending, descending };

}  // namespace wgprim
