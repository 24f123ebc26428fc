/// @file
/// Reading and writing 1-D arrays (.npy, raw .bin, .csv/.txt one number per line) and the generated data sets
/// of the source documents. Every failure throws wgprim::error(errc::io or errc::invalid_argument).
/// @namespace wgprim::io
/// Array files (.npy, raw, text) and the generated data sets of the command line.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "wgprim/types.hpp"

namespace wgprim::io {

/// A 1-D (or flattened N-D) array of any dtype, stored as 32-bit words.
struct array {
  array() = default;
  /// An array of type t holding `words` (packed types several per word, 64-bit types two), with dims for N-D.
  array(dtype t, std::vector<std::uint32_t> words, std::vector<std::uint64_t> dims = {})
      : type(t), bits(std::move(words)), shape(std::move(dims)), packed_count(bits.size() * 4 / dtype_bytes(t)) {}

  /// The element type.
  dtype type = dtype::f32;
  /// Raw little-endian storage in 32-bit words: one word per 32-bit element, two per 64-bit element (low word
  /// first), two f16 or four u8/i8 elements per word (the last word's unused part zero).
  std::vector<std::uint32_t> bits;
  /// The shape the data had (a .npy's, C order; the readers flatten it); empty: one dimension of size().
  std::vector<std::uint64_t> shape;
  /// Elements of a packed type (f16, u8, i8); ignored for the others, whose count follows from bits.size().
  std::uint64_t packed_count = 0;

  /// The number of elements.
  std::uint64_t size() const {
    return is_narrow(type) ? packed_count : is_wide(type) ? bits.size() / 2 : bits.size();
  }
  /// Bytes of the elements (bits holds them rounded up to whole words).
  std::uint64_t bytes() const { return size() * dtype_bytes(type); }
  /// Element i in to_raw's layout.
  std::uint64_t get(std::uint64_t i) const;
  /// Sets element i from its raw bits (to_raw's layout).
  void set(std::uint64_t i, std::uint64_t raw);
  /// n zero elements of type t.
  static array zeros(dtype t, std::uint64_t n);
};

/// The largest array the readers and generators accept (2^31 elements, 8 GiB).
constexpr std::uint64_t max_elements = std::uint64_t(1) << 31;

/// Reads by extension. `type` is required for .bin; for .csv/.txt it forces the type (else integers give i32,
/// u32 when a value exceeds i32, i64 or u64 past u32 (exactly: 64-bit integers never pass through a double), and
/// anything with a fraction, exponent, inf or nan gives f32); for .npy it must match the file's dtype when given.
/// .npy: every dtype wgprim has (<f4 <i4 <u4 <f8 <i8 <u8 <f2 |u1 |i1; big-endian ones are byte-swapped), any number
/// of dimensions in C order, flattened (`shape` keeps the original); Fortran order is refused. "-" reads standard input (.npy by its magic bytes, else text). Only
/// regular files are read (a directory, device or FIFO is refused), up to max_elements values.
array read_array(const std::string& path, std::optional<dtype> type = std::nullopt);
/// Parses the bytes of a .npy file.
array parse_npy(const std::string& bytes);
/// Parses text (one number per line); the type is inferred unless given.
array parse_text(const std::string& text, std::optional<dtype> type);

/// Writes by extension (or `format`: npy, bin, raw, csv, txt) through a temporary file renamed into place, so a
/// failed or interrupted write leaves no partial file. "-" writes standard output (text unless `format`).
/// The temporary file is created exclusively under a random name next to the target (a link planted there is
/// never followed), with the mode of the file it replaces; a file the user may not write is refused (as cp does).
/// A symbolic link is written through (its target replaced, the link kept); an existing path that is not a
/// regular file (a directory, device node, FIFO) is refused, never replaced.
void write_array(const std::string& path, const array& a, const std::string& format = "");
/// The same for any bytes (a PNG, a JSON report).
void write_file(const std::string& path, const std::string& bytes);
/// Throws if `path` cannot be written (its folder, its type, its permission), without creating it.
void check_writable(const std::string& path, const std::string& format = "");
/// For command-line programs: after hold_outputs(), every file write_array / write_file writes stays its temporary
/// file until commit_outputs() renames them all into place or discard_outputs() removes them, so a failed run
/// (a mismatch against the CPU twin, an error) never replaces a file. Standard output is written at once.
void hold_outputs();
/// Renames every held output into place (the command succeeded).
void commit_outputs();
/// Removes every held output's temporary file (the command failed): the targets stay as they were.
void discard_outputs();
/// Throws errc::invalid_argument when two outputs ({option, path}) name the same file: the same path, both "-",
/// the same device and inode, or the same resolved folder and name. Call it before any work.
void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs);
/// SIGINT/SIGTERM remove the temporary file being written, then exit(128 + signal). For command-line programs.
void install_interrupt_cleanup();
/// The bytes of a .npy file holding a.
std::string format_npy(const array& a);
/// The .npy header (magic, version 1.0, the dict, padded to 64 bytes) of n values of type t: the data follows it.
/// The shape is `dims` when their product is n, else (n,).
std::string format_npy_header(dtype t, std::uint64_t n, const std::vector<std::uint64_t>& dims = {});

/// Where a .npy file's values are, without reading them (for readers of one slice: pread at data_offset +
/// element bytes * first; N-D arrays as their C-order flattening). The file's length is not checked here.
struct npy_layout {
  /// The element type.
  dtype type = dtype::f32;
  std::uint64_t n = 0;  ///< elements (the product of the shape)
  /// Where the data starts in the file, in bytes.
  std::uint64_t data_offset = 0;
  /// Whether the file is big-endian (byte-swapped on reading).
  bool big_endian = false;
  /// The shape (N-D arrays are flattened in C order).
  std::vector<std::uint64_t> shape;
};
/// Reads only the header of a .npy file (for reading slices).
npy_layout read_npy_layout(const std::string& path);
/// Parses the header of .npy bytes.
npy_layout parse_npy_layout(const std::string& bytes);

/// KIND:N[:SEED] with KIND = prices (5.00-50.00 in cents; f32 dollars, or integer cents for i32/u32),
/// orders (round(4 + 4 sin(i/3000) + U[0,1)); u32 unless a type is given), uniform (f32 in [0,1), or the
/// integer type's full range) or mixed (f32, signs and magnitudes mixed, condition number about 1e6).
array generate(const std::string& spec, std::optional<dtype> type = std::nullopt);

/// The parsed form of a --generate spec; throws wgprim::error(invalid_argument) on a malformed one.
struct generate_spec {
  /// The data set: "prices", "orders", "uniform", "mixed" or "cancelling".
  std::string kind;
  /// The number of elements and the seed.
  ///@{
  std::uint64_t n = 0, seed = 42;
  ///@}
};
/// Parses KIND:N[:SEED].
generate_spec parse_generate_spec(const std::string& spec);

}  // namespace wgprim::io
