/// @file
/// Errors wgprim reports. Every failure surfaces as a wgprim::error with a one-line message and a category
/// that the CLI maps to its exit code; nothing in the library aborts the process.
#pragma once
#include <stdexcept>
#include <string>

namespace wgprim {

/// The category of a wgprim::error; the CLI exits with its number (see docs/cli.md).
enum class errc : int {
  invalid_argument = 2,  ///< bad operator, type, size, option
  io = 3,                ///< unreadable/malformed/unwritable file
  unsupported = 4,       ///< the adapter lacks a feature the call needs
  limit = 5,             ///< a size exceeds a device limit
  shader = 6,            ///< a shader (usually a custom expression) failed to compile
  no_adapter = 7,        ///< no WebGPU adapter found / requested one missing
  device_lost = 8,       ///< the device was lost or destroyed
  out_of_memory = 9,     ///< the device ran out of memory
  gpu = 10,              ///< any other error reported by the WebGPU implementation
  timeout = 11,          ///< a wait on the GPU exceeded its deadline
};

/// Every failure in wgprim: a one-line message and a category (code()).
class error : public std::runtime_error {
 public:
  /// An error of category `code` with a one-line message.
  error(errc code, const std::string& message) : std::runtime_error(message), code_(code) {}
  /// The category.
  errc code() const noexcept { return code_; }

 private:
  errc code_;
};

namespace detail {
/// A piece of user input for an error message: at most `max` characters (then "..." and the length), so that
/// a 100 MB token does not become a 100 MB message, with bytes that are not printable ASCII shown as '?'.
inline std::string excerpt(const std::string& text, std::size_t max = 40) {
  std::string out = text.size() <= max ? text : text.substr(0, max);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
  if (text.size() > max) out += "... (" + std::to_string(text.size()) + " characters)";
  return out;
}
}  // namespace detail

}  // namespace wgprim
