// Reading and writing 1-D arrays (.npy, raw .bin, .csv/.txt one number per line) and the generated data sets
// of the source documents. Every failure throws wgprim::error(errc::io or errc::invalid_argument).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wgprim/types.hpp"

namespace wgprim::io {

struct array {
  dtype type = dtype::f32;
  std::vector<std::uint32_t> bits;  // raw little-endian 32-bit values
};

/// The largest array the readers and generators accept (2^31 elements, 8 GiB).
constexpr std::uint64_t max_elements = std::uint64_t(1) << 31;

/// Reads by extension. `type` is required for .bin; for .csv/.txt it forces the type (else integers give i32, or
/// u32 when a value exceeds i32, and anything with a fraction, exponent, inf or nan gives f32); for .npy it must
/// match the file's dtype when given. "-" reads standard input (.npy by its magic bytes, else text). Only
/// regular files are read (a directory, device or FIFO is refused), up to max_elements values.
array read_array(const std::string& path, std::optional<dtype> type = std::nullopt);
array parse_npy(const std::string& bytes);
array parse_text(const std::string& text, std::optional<dtype> type);

/// Writes by extension (or `format`: npy, bin, raw, csv, txt) through a temporary file renamed into place, so a
/// failed or interrupted write leaves no partial file. "-" writes standard output (text unless `format`).
/// A symbolic link is written through (its target replaced, the link kept); an existing path that is not a
/// regular file (a directory, device node, FIFO) is refused, never replaced.
void write_array(const std::string& path, const array& a, const std::string& format = "");
/// Throws if `path` cannot be written (its folder, its type), without creating it.
void check_writable(const std::string& path, const std::string& format = "");
/// SIGINT/SIGTERM remove the temporary file being written, then exit(128 + signal). For command-line programs.
void install_interrupt_cleanup();
std::string format_npy(const array& a);
/// The .npy header (magic, version 1.0, the dict, padded to 64 bytes) of n values of type t: the data follows it.
std::string format_npy_header(dtype t, std::uint64_t n);

/// Where a 1-D .npy file's values are, without reading them (for readers of one slice: pread at data_offset +
/// 4 * first). The file's length is not checked here.
struct npy_layout {
  dtype type = dtype::f32;
  std::uint64_t n = 0;
  std::uint64_t data_offset = 0;
};
npy_layout read_npy_layout(const std::string& path);
npy_layout parse_npy_layout(const std::string& bytes);

/// KIND:N[:SEED] with KIND = prices (5.00-50.00 in cents; f32 dollars, or integer cents for i32/u32),
/// orders (round(4 + 4 sin(i/3000) + U[0,1)); u32 unless a type is given), uniform (f32 in [0,1), or the
/// integer type's full range) or mixed (f32, signs and magnitudes mixed, condition number about 1e6).
array generate(const std::string& spec, std::optional<dtype> type = std::nullopt);

/// The parsed form of a --generate spec; throws wgprim::error(invalid_argument) on a malformed one.
struct generate_spec {
  std::string kind;
  std::uint64_t n = 0, seed = 42;
};
generate_spec parse_generate_spec(const std::string& spec);

}  // namespace wgprim::io
