#include "wgprim/io.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <iostream>

#include <csignal>

#include "wgprim/error.hpp"
#include "wgprim/op.hpp"

namespace wgprim::io {

namespace {

std::string extension(const std::string& path) {
  auto slash = path.find_last_of('/');
  auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string e = path.substr(dot + 1);
  for (char& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

[[noreturn]] void io_fail(const std::string& msg) { throw error(errc::io, msg); }

// The most bytes an input may hold: a .bin of max_elements values, or a text file of as many short lines.
constexpr std::uint64_t max_input_bytes = max_elements * 4 + 4096;

// Reads a whole regular file, or standard input for "-". A directory, a device (a link to /dev/zero), a FIFO
// or a socket is refused before reading: they read as empty or never end. Reading stops past max_input_bytes.
std::string slurp(const std::string& path) {
  std::istream* in = &std::cin;
  std::ifstream f;
  if (path != "-") {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) io_fail("cannot open '" + path + "': " + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) io_fail("'" + path + "' is a directory, not a file");
    if (!S_ISREG(st.st_mode)) io_fail("'" + path + "' is not a regular file (a device, FIFO or socket)");
    if (static_cast<std::uint64_t>(st.st_size) > max_input_bytes) io_fail("'" + path + "' is too large");
    f.open(path, std::ios::binary);
    if (!f) io_fail("cannot open '" + path + "': " + std::strerror(errno));
    in = &f;
  }
  std::string out;
  char buf[1 << 16];
  while (*in) {
    in->read(buf, sizeof buf);
    out.append(buf, static_cast<std::size_t>(in->gcount()));
    if (out.size() > max_input_bytes) io_fail("'" + path + "' is too large");
  }
  if (in->bad()) io_fail("cannot read '" + path + "'");
  return out;
}

const char* npy_descr(dtype t) {
  switch (t) {
    case dtype::f32: return "<f4";
    case dtype::i32: return "<i4";
    case dtype::u32: return "<u4";
    case dtype::f64: return "<f8";
    case dtype::i64: return "<i8";
    case dtype::u64: return "<u8";
    case dtype::f16: return "<f2";
    case dtype::u8: return "|u1";
    case dtype::i8: return "|i1";
  }
  return "?";
}

// A .npy descr: the type and whether its bytes are big-endian. One-byte types take any byte-order mark.
bool npy_type(const std::string& d, dtype& t, bool& big) {
  if (d.size() != 3) return false;
  const char order = d[0];
  if (order != '<' && order != '>' && order != '|' && order != '=') return false;
  big = order == '>';
  const std::string k = d.substr(1);
  if (k == "u1" || k == "i1") { t = k == "u1" ? dtype::u8 : dtype::i8; big = false; return true; }
  if (order == '|') return false;  // multi-byte types need a byte order
  static const struct { const char* k; dtype t; } kinds[] = {{"f4", dtype::f32}, {"i4", dtype::i32}, {"u4", dtype::u32},
                                                             {"f8", dtype::f64}, {"i8", dtype::i64}, {"u8", dtype::u64},
                                                             {"f2", dtype::f16}};
  for (const auto& x : kinds)
    if (k == x.k) { t = x.t; return true; }
  return false;
}

// The .npy header is a Python dict literal, which NumPy reads with ast.literal_eval: keys 'descr',
// 'fortran_order' and 'shape' exactly, in any order, quoted with ' or ", Python whitespace between tokens, an
// optional trailing comma; shape a tuple of non-negative integers ("(5,)", "(5, )"; "(5)" is an int, not a
// tuple, and "(1 5,)" a syntax error). The trailing newline and padding are whitespace.
struct npy_header {
  std::string descr;
  bool fortran_order = false;
  std::vector<unsigned long long> shape;
};

npy_header parse_npy_header(const std::string& h) {
  std::size_t i = 0;
  auto bad = [&](const std::string& why) -> error {
    return error(errc::io, "malformed .npy header: " + why + " at byte " + std::to_string(i) + " of '" +
                               detail::excerpt(h, 80) + "'");
  };
  auto space = [&] { while (i < h.size() && (h[i] == ' ' || h[i] == '\t' || h[i] == '\n' || h[i] == '\r')) ++i; };
  auto expect = [&](char c) {
    space();
    if (i >= h.size() || h[i] != c) throw bad(std::string("expected '") + c + "'");
    ++i;
  };
  auto peek = [&](char c) { space(); return i < h.size() && h[i] == c; };
  auto string_literal = [&] {
    space();
    if (i >= h.size() || (h[i] != '\'' && h[i] != '"')) throw bad("expected a quoted string");
    const char q = h[i++];
    std::size_t start = i;
    while (i < h.size() && h[i] != q) {
      if (h[i] == '\\' || h[i] == '\n') throw bad("unsupported character in a string");
      ++i;
    }
    if (i >= h.size()) throw bad("unterminated string");
    return h.substr(start, i++ - start);
  };
  auto integer = [&] {
    space();
    std::size_t start = i;
    while (i < h.size() && std::isdigit(static_cast<unsigned char>(h[i]))) ++i;
    if (i == start || i - start > 19) throw bad("expected a dimension");
    if (h[start] == '0' && i - start > 1) throw bad("a dimension with a leading zero");  // Python refuses 05
    return std::stoull(h.substr(start, i - start));
  };
  npy_header out;
  bool seen[3] = {false, false, false};
  expect('{');
  while (!peek('}')) {
    const std::string key = string_literal();
    expect(':');
    space();
    if (key == "descr" && !seen[0]) {
      seen[0] = true;
      out.descr = string_literal();
    } else if (key == "fortran_order" && !seen[1]) {
      seen[1] = true;
      if (h.compare(i, 4, "True") == 0) out.fortran_order = true, i += 4;
      else if (h.compare(i, 5, "False") == 0) i += 5;
      else throw bad("fortran_order must be True or False");
    } else if (key == "shape" && !seen[2]) {
      seen[2] = true;
      expect('(');
      bool tuple = false;
      while (!peek(')')) {
        out.shape.push_back(integer());
        if (peek(',')) { ++i; tuple = true; }
        else if (!peek(')')) throw bad("expected ',' or ')' in the shape");
      }
      ++i;
      if (!out.shape.empty() && !tuple) throw bad("the shape is not a tuple");  // (5) is 5 in Python
    } else {
      throw bad("unexpected key '" + detail::excerpt(key) + "'");
    }
    if (peek(',')) ++i;
    else if (!peek('}')) throw bad("expected ',' or '}'");
  }
  ++i;
  space();
  if (i != h.size()) throw bad("text after the dict");
  if (!(seen[0] && seen[1] && seen[2])) throw bad("it needs the keys 'descr', 'fortran_order' and 'shape'");
  return out;
}

}  // namespace

npy_layout parse_npy_layout(const std::string& b) {
  if (b.size() < 10 || b.compare(0, 6, "\x93NUMPY") != 0) io_fail("not a .npy file (bad magic)");
  unsigned major = static_cast<unsigned char>(b[6]);
  std::size_t hlen, hstart;
  if (major == 1) {
    hlen = static_cast<unsigned char>(b[8]) | (static_cast<unsigned char>(b[9]) << 8);
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) io_fail("truncated .npy header");
    hlen = 0;
    for (int i = 3; i >= 0; --i) hlen = (hlen << 8) | static_cast<unsigned char>(b[8 + i]);
    hstart = 12;
  } else {
    io_fail("unsupported .npy version " + std::to_string(major));
  }
  if (hstart + hlen > b.size()) io_fail("truncated .npy header");
  const npy_header h = parse_npy_header(b.substr(hstart, hlen));
  npy_layout a;
  if (!npy_type(h.descr, a.type, a.big_endian))
    io_fail("unsupported .npy dtype '" + detail::excerpt(h.descr) +
            "' (expected f2, f4, f8, i1, i4, i8, u1, u4 or u8, little- or big-endian)");
  if (h.fortran_order) io_fail(".npy arrays in Fortran order are not supported (save with order='C')");
  // N-D arrays are flattened in C order (which is how their bytes lie); a 0-d array is one element.
  unsigned long long n = 1;
  for (unsigned long long d : h.shape) {
    if (d != 0 && n > max_elements / d) io_fail(".npy array too large: more than " + std::to_string(max_elements) + " elements");
    n *= d;
  }
  if (n > max_elements) io_fail(".npy array too large: " + std::to_string(n) + " elements");
  a.n = n;
  a.shape.assign(h.shape.begin(), h.shape.end());
  a.data_offset = hstart + hlen;
  return a;
}

array parse_npy(const std::string& b) {
  const npy_layout l = parse_npy_layout(b);
  array a;
  a.type = l.type;
  a.shape = l.shape;
  const bool big = l.big_endian;
  const std::uint64_t n = l.n;
  const std::size_t data = l.data_offset;
  const unsigned eb = dtype_bytes(a.type);
  if (b.size() - data != n * eb)
    io_fail(".npy data is " + std::to_string(b.size() - data) + " bytes, expected " + std::to_string(n * eb) +
            " (truncated or corrupt file)");
  a.packed_count = n;
  a.bits.assign((n * eb + 3) / 4, 0);
  if (n) std::memcpy(a.bits.data(), b.data() + data, n * eb);
  if (big && eb > 1) {  // byte-swap each element in place
    auto* p = reinterpret_cast<unsigned char*>(a.bits.data());
    for (unsigned long long i = 0; i < n; ++i) std::reverse(p + i * eb, p + (i + 1) * eb);
  }
  return a;
}

npy_layout read_npy_layout(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) io_fail("cannot open '" + detail::excerpt(path, 200) + "': " + std::strerror(errno));
  std::string head(12, '\0');
  head.resize(std::fread(&head[0], 1, head.size(), f));
  std::size_t want = head.size();
  if (head.size() >= 10 && static_cast<unsigned char>(head[6]) == 1)
    want = 10 + (static_cast<unsigned char>(head[8]) | (static_cast<unsigned char>(head[9]) << 8));
  else if (head.size() >= 12 && (head[6] == 2 || head[6] == 3))
    want = 12 + std::min<std::size_t>(1u << 20, static_cast<unsigned char>(head[8]) |
                                                    (static_cast<unsigned char>(head[9]) << 8) |
                                                    (static_cast<unsigned char>(head[10]) << 16));
  if (want > head.size()) {
    const std::size_t had = head.size();
    head.resize(want);
    head.resize(had + std::fread(&head[had], 1, want - had, f));
  }
  std::fclose(f);
  try {
    return parse_npy_layout(head);
  } catch (const error& e) {
    throw error(e.code(), detail::excerpt(path, 200) + ": " + e.what());
  }
}

array parse_text(const std::string& text, std::optional<dtype> type) {
  std::vector<std::string> tokens;
  std::size_t line_no = 0, pos = 0;
  // A UTF-8 byte-order mark (spreadsheets write one) was read as part of the first number (issue 29 row 11).
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) pos = 3;
  std::vector<std::size_t> lines;
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    ++line_no;
    std::string s = text.substr(pos, nl - pos);
    pos = nl + 1;
    while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t' || s.back() == ',')) s.pop_back();
    std::size_t b = s.find_first_not_of(" \t");
    if (b == std::string::npos) continue;  // blank line
    s = s.substr(b);
    if (s.find_first_of(" \t,;") != std::string::npos)
      io_fail("line " + std::to_string(line_no) + ": expected one number per line, got '" + detail::excerpt(s) + "'");
    // The names parse_value knows for identities (min, max, lowest) are not data.
    const char c0 = s[0];
    if (!(std::isdigit(static_cast<unsigned char>(c0)) || c0 == '-' || c0 == '+' || c0 == '.' || c0 == 'i' ||
          c0 == 'I' || c0 == 'n' || c0 == 'N'))
      io_fail("line " + std::to_string(line_no) + ": '" + detail::excerpt(s) + "' is not a number");
    tokens.push_back(s);
    lines.push_back(line_no);
    if (tokens.size() > max_elements) io_fail("too many values");
  }
  dtype t;
  if (type) {
    t = *type;
  } else {
    // The narrowest of i32 < u32 < i64 < u64 that holds every integer (read exactly); f32 once a value is a float.
    t = dtype::i32;
    int rank = 0;  // 0 i32, 1 u32, 2 i64, 3 u64
    for (const auto& s : tokens) {
      if (s.find_first_of(".eEnNiI") != std::string::npos && s.rfind("0x", 0) != 0 && s.rfind("-0x", 0) != 0) {
        t = dtype::f32;
        rank = -1;
        break;
      }
      auto fits = [&](dtype d) {
        try { parse_raw(d, s); return true; } catch (const error&) { return false; }
      };
      if (rank < 1 && !fits(dtype::i32)) rank = fits(dtype::u32) ? 1 : 2;
      if (rank == 1 && !fits(dtype::u32)) rank = 2;
      if (rank == 2 && !fits(dtype::i64)) rank = 3;
    }
    // A negative value anywhere rules out u32 (-1 then 4000000000 is i64, as 4000000000 then -1 is).
    if (rank == 1)
      for (const auto& s : tokens)
        if (s[0] == '-') rank = 2;
    if (rank >= 0) t = rank == 0 ? dtype::i32 : rank == 1 ? dtype::u32 : rank == 2 ? dtype::i64 : dtype::u64;
  }
  array a = array::zeros(t, tokens.size());
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    try {
      a.set(i, parse_raw(t, tokens[i]));
    } catch (const error&) {
      // With no type asked, "not a valid u64" named a type the user never chose (issue 29 row 11: `1_000`).
      if (!type && tokens[i].find_first_not_of("0123456789+-") != std::string::npos)
        io_fail("line " + std::to_string(lines[i]) + ": '" + detail::excerpt(tokens[i]) + "' is not a number");
      io_fail("line " + std::to_string(lines[i]) + ": '" + detail::excerpt(tokens[i]) + "' is not a valid " +
              dtype_name(t) + " value");
    }
  }
  return a;
}

array read_array(const std::string& path, std::optional<dtype> type) {
  if (path == "-") {  // standard input: .npy by its magic, else text
    std::string b = slurp(path);
    if (b.compare(0, 6, "\x93NUMPY") == 0) {
      array a = parse_npy(b);
      if (type && *type != a.type)
        io_fail("standard input holds " + std::string(dtype_name(a.type)) + ", not the requested " + dtype_name(*type));
      return a;
    }
    if (b.find('\0') != std::string::npos) io_fail("standard input is neither .npy nor text");
    try {
      return parse_text(b, type);
    } catch (const error& e) {
      io_fail(std::string("standard input: ") + e.what());
    }
  }
  std::string ext = extension(path);
  if (ext == "npy") {
    array a = parse_npy(slurp(path));
    if (type && *type != a.type)
      io_fail("'" + path + "' holds " + dtype_name(a.type) + ", not the requested " + dtype_name(*type));
    return a;
  }
  if (ext == "bin" || ext == "raw") {
    if (!type) throw error(errc::invalid_argument, "raw file '" + path + "' needs --type (f32, i32, u32, f64, i64, u64, f16, u8, i8)");
    std::string b = slurp(path);
    const unsigned eb = dtype_bytes(*type);
    if (b.size() % eb)
      io_fail("'" + path + "' is " + std::to_string(b.size()) + " bytes, not a multiple of " + std::to_string(eb));
    if (b.size() / eb > max_elements) io_fail("'" + path + "' is too large");
    array a = array::zeros(*type, b.size() / eb);
    if (!b.empty()) std::memcpy(a.bits.data(), b.data(), b.size());
    return a;
  }
  if (ext == "csv" || ext == "txt") {
    std::string text = slurp(path);
    if (text.find('\0') != std::string::npos) io_fail("'" + path + "' is not a text file");
    try {
      return parse_text(text, type);
    } catch (const error& e) {
      io_fail("'" + path + "' " + e.what());
    }
  }
  throw error(errc::invalid_argument, "unknown file type '" + path + "' (expected .npy, .bin, .csv or .txt)");
}

std::string format_npy(const array& a) {
  std::string out = format_npy_header(a.type, a.size(), a.shape);
  out.append(reinterpret_cast<const char*>(a.bits.data()), a.bytes());
  return out;
}

std::string format_npy_header(dtype t, std::uint64_t n, const std::vector<std::uint64_t>& dims) {
  // The array's shape when it describes its elements (a scan's output keeps its input's), else 1-D.
  std::uint64_t product = 1;
  for (std::uint64_t d : dims) product *= d;
  std::string shape;
  if (!dims.empty() && product == n) {
    for (std::uint64_t d : dims) shape += std::to_string(d) + ", ";
    shape.resize(shape.size() - (dims.size() > 1 ? 2 : 1));  // (a, b) and (a,), as NumPy writes them
  } else {
    shape = std::to_string(n) + ",";
  }
  std::string header = std::string("{'descr': '") + npy_descr(t) + "', 'fortran_order': False, 'shape': (" +
                       shape + "), }";
  std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  return out;
}

std::uint64_t array::get(std::uint64_t i) const {
  std::uint64_t r = 0;
  const unsigned eb = dtype_bytes(type);
  std::memcpy(&r, reinterpret_cast<const unsigned char*>(bits.data()) + i * eb, eb);
  return r;
}

void array::set(std::uint64_t i, std::uint64_t raw) {
  const unsigned eb = dtype_bytes(type);
  std::memcpy(reinterpret_cast<unsigned char*>(bits.data()) + i * eb, &raw, eb);
}

array array::zeros(dtype t, std::uint64_t n) {
  array a;
  a.type = t;
  a.packed_count = n;
  a.bits.assign((n * dtype_bytes(t) + 3) / 4, 0);
  return a;
}

namespace {
// The temporary files being written or held (hold_outputs), for the interrupt handler: fixed slots and flags,
// async-signal-safe.
constexpr int tmp_slots = 16;
char g_tmp_path[tmp_slots][4096];
volatile std::sig_atomic_t g_tmp_active[tmp_slots] = {};

extern "C" void on_interrupt(int sig) {
  for (int i = 0; i < tmp_slots; ++i)
    if (g_tmp_active[i]) ::unlink(g_tmp_path[i]);
  ::_exit(128 + sig);
}

// The slot that now names p (-1 when p is too long or every slot is taken: then only an interrupt leaves it).
int set_tmp(const std::string& p) {
  if (p.size() >= sizeof g_tmp_path[0]) return -1;
  for (int i = 0; i < tmp_slots; ++i)
    if (!g_tmp_active[i]) {
      std::memcpy(g_tmp_path[i], p.c_str(), p.size() + 1);
      std::atomic_signal_fence(std::memory_order_seq_cst);  // the name is in place before its flag
      g_tmp_active[i] = 1;
      return i;
    }
  return -1;
}
void clear_tmp(int slot) {
  if (slot >= 0) g_tmp_active[slot] = 0;
}
}  // namespace

void install_interrupt_cleanup() {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}

namespace {
bool known_output(const std::string& ext) {
  return ext == "npy" || ext == "bin" || ext == "raw" || ext == "csv" || ext == "txt";
}

// Where an output path is written. A symbolic link is written through: its target is replaced (through a
// temporary file next to the target), the link stays. A path that exists and is not a regular file (a
// directory, a device node, a FIFO) is refused rather than replaced. `st` gets the existing target's status.
std::string output_target(const std::string& path, struct stat& st, bool& exists) {
  exists = false;
  if (::lstat(path.c_str(), &st) != 0) return path;  // a new file
  std::string target = path;
  if (S_ISLNK(st.st_mode)) {
    char* real = ::realpath(path.c_str(), nullptr);
    if (!real) {
      if (errno == ELOOP) io_fail("cannot write '" + path + "': a loop of symbolic links");
      io_fail("cannot write '" + path + "': a symbolic link whose target does not exist");
    }
    target = real;
    std::free(real);
    if (::stat(target.c_str(), &st) != 0) io_fail("cannot write '" + path + "': " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode))
    io_fail("will not write '" + path + "': it is not a regular file (a directory, device or FIFO)");
  // As cp does: a file the user may not write is not replaced, even where its folder is writable (hostile
  // pass, issue 29: a read-only file of another user was replaced and changed owner).
  if (::faccessat(AT_FDCWD, target.c_str(), W_OK, AT_EACCESS) != 0)
    io_fail("cannot write '" + path + "': " + std::strerror(errno));
  exists = true;
  return target;
}

// A new temporary file next to target, created exclusively under a random name (O_CREAT | O_EXCL | O_NOFOLLOW:
// a link planted at a guessable name is never followed or truncated, issue 29), with the mode of the file it
// will replace (else 0666 less the umask). Returns the descriptor; `tmp` gets the name and `slot` the interrupt
// handler's slot for it, taken before the file exists: an interrupt between the two left the file behind (H200,
// session 13, tests/cli_test.sh's Ctrl-C check).
int create_temp(const std::string& target, const std::string& shown, const struct stat* existing, std::string& tmp,
                int& slot) {
  static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  static std::mt19937_64 rng{std::random_device{}() ^ (std::uint64_t(::getpid()) << 32)};
  for (int attempt = 0; attempt < 64; ++attempt) {
    tmp = target + ".tmp.";
    for (int i = 0; i < 12; ++i) tmp += alphabet[rng() % (sizeof alphabet - 1)];
    slot = set_tmp(tmp);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, existing ? 0600 : 0666);
    if (fd < 0) clear_tmp(slot);
    if (fd >= 0) {
      if (existing) {
        if (::fchown(fd, existing->st_uid, existing->st_gid) != 0) {}  // keeps the group where allowed
        ::fchmod(fd, existing->st_mode & 07777);
      }
      return fd;
    }
    if (errno != EEXIST) io_fail("cannot write '" + shown + "': " + std::strerror(errno));
  }
  io_fail("cannot write '" + shown + "': no free temporary name next to it");
}

struct held_output {
  std::string tmp, target, shown;
  int slot;
};
bool g_hold = false;
std::vector<held_output> g_held;

// Writes data to path through an exclusive temporary file renamed into place (or held, see hold_outputs).
void write_file_atomically(const std::string& path, const std::string& data) {
  struct stat st;
  bool exists = false;
  const std::string target = output_target(path, st, exists);
  std::string tmp;
  int slot = -1;
  const int fd = create_temp(target, path, exists ? &st : nullptr, tmp, slot);
  std::size_t done = 0;
  int err = 0;
  while (done < data.size()) {
    const ssize_t w = ::write(fd, data.data() + done, data.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) { err = w < 0 ? errno : ENOSPC; break; }
    done += static_cast<std::size_t>(w);
  }
  if (::close(fd) != 0 && !err) err = errno;
  if (err) {
    ::unlink(tmp.c_str());
    clear_tmp(slot);
    io_fail("cannot write '" + path + "': " + std::strerror(err));
  }
  if (g_hold) {
    g_held.push_back({tmp, target, path, slot});
    return;
  }
  if (std::rename(tmp.c_str(), target.c_str()) != 0) {
    err = errno;
    ::unlink(tmp.c_str());
    clear_tmp(slot);
    io_fail("cannot write '" + path + "': " + std::strerror(err));
  }
  clear_tmp(slot);
}

std::string output_ext(const std::string& path, const std::string& format) {
  return format.empty() ? (path == "-" ? "txt" : extension(path)) : format;
}
}  // namespace

void check_writable(const std::string& path, const std::string& format) {
  const std::string ext = output_ext(path, format);
  if (!known_output(ext))
    throw error(errc::invalid_argument, "unknown output type '" + path + "' (expected .npy, .bin, .csv or .txt)");
  if (path == "-") return;
  struct stat st;
  bool exists = false;
  const std::string target = output_target(path, st, exists);
  std::string tmp;
  int slot = -1;
  const int fd = create_temp(target, path, nullptr, tmp, slot);
  ::close(fd);
  ::unlink(tmp.c_str());
  clear_tmp(slot);
}

void write_file(const std::string& path, const std::string& bytes) {
  if (path == "-") {
    std::cout.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    std::cout.flush();
    if (!std::cout) io_fail("cannot write to standard output");
    return;
  }
  write_file_atomically(path, bytes);
}

void hold_outputs() { g_hold = true; }

void commit_outputs() {
  g_hold = false;
  std::vector<held_output> held;
  held.swap(g_held);
  std::string failed;
  int err = 0;
  for (const held_output& h : held) {
    if (failed.empty() && std::rename(h.tmp.c_str(), h.target.c_str()) != 0) {
      err = errno;
      failed = h.shown;
    }
    if (!failed.empty()) ::unlink(h.tmp.c_str());
    clear_tmp(h.slot);
  }
  if (!failed.empty()) io_fail("cannot write '" + failed + "': " + std::strerror(err));
}

void discard_outputs() {
  g_hold = false;
  for (const held_output& h : g_held) {
    ::unlink(h.tmp.c_str());
    clear_tmp(h.slot);
  }
  g_held.clear();
}

void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  // What names a file: "-", its device and inode when it exists, else its folder's resolved path + its name.
  auto key = [](const std::string& p) -> std::string {
    if (p == "-") return "-";
    struct stat st;
    if (::stat(p.c_str(), &st) == 0) return "inode " + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
    const auto slash = p.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : p.substr(0, slash));
    char* real = ::realpath(dir.c_str(), nullptr);
    if (!real) return "path " + p;
    std::string k = "path " + std::string(real) + "/" + p.substr(slash == std::string::npos ? 0 : slash + 1);
    std::free(real);
    return k;
  };
  std::vector<std::string> keys;
  for (const auto& o : outputs) keys.push_back(key(o.second));
  for (std::size_t i = 0; i < outputs.size(); ++i)
    for (std::size_t j = i + 1; j < outputs.size(); ++j)
      if (keys[i] == keys[j])
        throw error(errc::invalid_argument, outputs[i].first + " and " + outputs[j].first + " name the same " +
                                                (outputs[i].second == "-" ? "standard output" : "file '" + outputs[j].second + "'") +
                                                ": one would be lost");
}

void write_array(const std::string& path, const array& a, const std::string& format) {
  std::string ext = output_ext(path, format), data;
  if (ext == "npy") {
    data = format_npy(a);
  } else if (ext == "bin" || ext == "raw") {
    data.assign(reinterpret_cast<const char*>(a.bits.data()), a.bytes());
  } else if (ext == "csv" || ext == "txt") {
    data.reserve(a.size() * 8);
    if (a.type == dtype::f32 || a.type == dtype::i32 || a.type == dtype::u32)
      for (std::uint32_t b : a.bits) { data += format_bits(a.type, b); data += '\n'; }
    else
      for (std::uint64_t i = 0; i < a.size(); ++i) { data += format_raw(a.type, a.get(i)); data += '\n'; }
  } else {
    throw error(errc::invalid_argument, "unknown output type '" + path + "' (expected .npy, .bin, .csv or .txt)");
  }
  write_file(path, data);
}

generate_spec parse_generate_spec(const std::string& spec) {
  auto bad = [&](const std::string& why) -> error {
    return error(errc::invalid_argument, "bad --generate '" + spec + "': " + why + " (expected KIND:N[:SEED])");
  };
  std::vector<std::string> parts;
  std::size_t p = 0;
  for (;;) {
    auto c = spec.find(':', p);
    parts.push_back(spec.substr(p, c == std::string::npos ? std::string::npos : c - p));
    if (c == std::string::npos || parts.size() > 3) break;
    p = c + 1;
  }
  if (parts.size() < 2 || parts.size() > 3) throw bad("wrong number of fields");
  auto number = [&](const std::string& s, const char* what) {
    if (s.empty() || s.size() > 20 || s.find_first_not_of("0123456789") != std::string::npos)
      throw bad(std::string(what) + " must be a non-negative integer");
    errno = 0;
    unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
    if (errno == ERANGE) throw bad(std::string(what) + " is too large");
    return v;
  };
  generate_spec g;
  g.kind = parts[0];
  if (g.kind != "prices" && g.kind != "orders" && g.kind != "uniform" && g.kind != "mixed" && g.kind != "cancelling")
    throw bad("unknown kind '" + g.kind + "' (prices, orders, uniform, mixed, cancelling)");
  g.n = number(parts[1], "N");
  if (g.n > max_elements) throw bad("N exceeds " + std::to_string(max_elements));
  if (parts.size() == 3) g.seed = number(parts[2], "SEED");
  return g;
}

array generate(const std::string& spec_text, std::optional<dtype> type) {
  const generate_spec spec = parse_generate_spec(spec_text);
  auto bad = [&](const std::string& why) -> error {
    return error(errc::invalid_argument, "bad --generate '" + spec_text + "': " + why);
  };
  const std::string& kind = spec.kind;
  const unsigned long long n = spec.n, seed = spec.seed;
  std::mt19937_64 rng(seed);
  auto unit = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };  // [0, 1), portable
  if (type && (is_wide(*type) || is_narrow(*type))) {
    // The new types: the same kinds, values computed in double (floats) or 64-bit integers, stored in the type.
    const dtype t = *type;
    array a = array::zeros(t, n);
    auto put = [&](std::uint64_t i, double v, std::uint64_t iv) {
      a.set(i, t == dtype::f64 ? to_raw(v) : t == dtype::f16 ? float_to_half(static_cast<float>(v)) : iv);
    };
    if ((kind == "mixed" || kind == "cancelling") && t != dtype::f64)
      throw bad(kind + " data is f32 or f64");
    if (kind == "prices" && (t == dtype::u8 || t == dtype::i8)) throw bad("prices (500..5000 cents) do not fit 8 bits");
    for (std::uint64_t i = 0; i < n; ++i) {
      if (kind == "prices") {
        const std::uint64_t cents = 500 + static_cast<std::uint64_t>(std::lround(unit() * 4500));
        put(i, static_cast<double>(cents) / 100.0, cents);
      } else if (kind == "orders") {
        const double v = std::round(4 + 4 * std::sin(static_cast<double>(i) / 3000) + unit());
        put(i, v, static_cast<std::uint64_t>(v));
      } else if (kind == "uniform") {
        // Floats in [0, 1); integers over the type's whole range.
        const std::uint64_t r = rng();
        put(i, unit(), dtype_bytes(t) == 1 ? r >> 56 : r);
      } else if (kind == "mixed") {
        put(i, (0.5 + 0.5 * unit()) * std::exp2(16 * unit() - 8) * ((rng() & 1) ? 1 : -1), 0);
      } else {  // cancelling: ordinary values, pairs +-v of 1e30..1e300 that cancel exactly
        put(i, 1 + 99 * unit(), 0);
      }
    }
    if (kind == "cancelling")
      for (std::uint64_t i = 0; i + 1 < n; i += 8) {
        const std::uint64_t j = i + 1 + (rng() % 7) % (n - i - 1);
        const double v = std::pow(10.0, 30 + 270 * unit()) * ((rng() & 1) ? 1.0 : -1.0);
        put(i, v, 0);
        put(j, -v, 0);
      }
    return a;
  }
  array a;
  a.bits.resize(n);
  if (kind == "prices") {
    a.type = type.value_or(dtype::f32);
    for (auto& b : a.bits) {
      std::uint32_t cents = 500 + static_cast<std::uint32_t>(std::lround(unit() * 4500));
      b = a.type == dtype::f32 ? to_bits(static_cast<float>(cents / 100.0)) : cents;
    }
  } else if (kind == "orders") {
    a.type = type.value_or(dtype::u32);
    for (std::size_t i = 0; i < n; ++i) {
      double v = std::round(4 + 4 * std::sin(static_cast<double>(i) / 3000) + unit());
      a.bits[i] = a.type == dtype::f32 ? to_bits(static_cast<float>(v)) : static_cast<std::uint32_t>(v);
    }
  } else if (kind == "mixed") {
    // Mixed signs and magnitudes (2^-8 .. 2^8), the last value adjusted so that sum|x| / |sum x| is about 1e6:
    // an ill-conditioned sum, where any f32 tree loses digits.
    if (type && *type != dtype::f32) throw bad("mixed data is f32");
    a.type = dtype::f32;
    double s = 0, abs_sum = 0;
    for (auto& b : a.bits) {
      float v = static_cast<float>((0.5 + 0.5 * unit()) * std::exp2(16 * unit() - 8) * ((rng() & 1) ? 1 : -1));
      s += v;
      abs_sum += std::fabs(v);
      b = to_bits(v);
    }
    if (n) {
      float last = from_bits<float>(a.bits[n - 1]);
      a.bits[n - 1] = to_bits(static_cast<float>(last + (abs_sum / 1e6 - s)));
    }
  } else if (kind == "cancelling") {
    // Ordinary values (1 .. 100) with every eighth slot pair holding +-v, v of 1e30 .. 1e37, that cancel
    // exactly: the exact sum is ordinary, while any f32 or double-word tree is off by about 1e24 ulps.
    if (type && *type != dtype::f32) throw bad("cancelling data is f32");
    a.type = dtype::f32;
    for (std::size_t i = 0; i < n; ++i) a.bits[i] = to_bits(static_cast<float>(1 + 99 * unit()));
    for (std::size_t i = 0; i + 1 < n; i += 8) {
      const std::size_t j = i + 1 + static_cast<std::size_t>(rng() % 7) % (n - i - 1);  // a partner in (i, i + 7]
      const float v = static_cast<float>(std::pow(10.0, 30 + 7 * unit())) * ((rng() & 1) ? 1.0f : -1.0f);
      a.bits[i] = to_bits(v);
      a.bits[j] = to_bits(-v);
    }
  } else if (kind == "uniform") {
    a.type = type.value_or(dtype::f32);
    for (auto& b : a.bits)
      b = a.type == dtype::f32 ? to_bits(static_cast<float>(unit())) : static_cast<std::uint32_t>(rng() >> 32);
  } else {
    throw bad("unknown kind '" + kind + "'");
  }
  return a;
}

}  // namespace wgprim::io
