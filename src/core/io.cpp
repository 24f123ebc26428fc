#include "wgprim/io.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <unistd.h>

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

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) io_fail("cannot open '" + path + "': " + std::strerror(errno));
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) io_fail("cannot read '" + path + "'");
  return ss.str();
}

const char* npy_descr(dtype t) { return t == dtype::f32 ? "<f4" : t == dtype::i32 ? "<i4" : "<u4"; }

}  // namespace

array parse_npy(const std::string& b) {
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
  std::string h = b.substr(hstart, hlen);
  auto field = [&](const std::string& key) -> std::string {
    auto k = h.find("'" + key + "'");
    if (k == std::string::npos) io_fail(".npy header has no '" + key + "'");
    auto colon = h.find(':', k);
    if (colon == std::string::npos) io_fail("malformed .npy header");
    std::size_t i = colon + 1;
    while (i < h.size() && h[i] == ' ') ++i;
    std::size_t j = i;
    if (j < h.size() && h[j] == '(') j = h.find(')', j);
    else if (j < h.size() && h[j] == '\'') j = h.find('\'', j + 1);
    else j = h.find_first_of(",}", j) - 1;
    if (j == std::string::npos || j < i) io_fail("malformed .npy header");
    return h.substr(i, j - i + 1);
  };
  std::string descr = field("descr"), order = field("fortran_order"), shape = field("shape");
  array a;
  if (descr == "'<f4'") a.type = dtype::f32;
  else if (descr == "'<i4'") a.type = dtype::i32;
  else if (descr == "'<u4'") a.type = dtype::u32;
  else io_fail("unsupported .npy dtype " + descr + " (expected little-endian f4, i4 or u4)");
  if (order != "False") io_fail(".npy arrays in Fortran order are not supported");
  // shape must be (N,) : one dimension
  if (shape.size() < 3 || shape.front() != '(' || shape.back() != ')') io_fail("malformed .npy shape " + shape);
  std::string inner = shape.substr(1, shape.size() - 2);
  while (!inner.empty() && (inner.back() == ' ' || inner.back() == ',')) inner.pop_back();
  if (inner.empty() || inner.find(',') != std::string::npos || inner.find_first_not_of("0123456789 ") != std::string::npos)
    io_fail("only 1-D .npy arrays are supported, got shape " + shape);
  errno = 0;
  unsigned long long n = std::strtoull(inner.c_str(), nullptr, 10);
  if (errno == ERANGE || n > max_elements) io_fail(".npy array too large: " + inner + " elements");
  std::size_t data = hstart + hlen;
  if (b.size() - data != n * 4)
    io_fail(".npy data is " + std::to_string(b.size() - data) + " bytes, expected " + std::to_string(n * 4) +
            " (truncated or corrupt file)");
  a.bits.resize(n);
  if (n) std::memcpy(a.bits.data(), b.data() + data, n * 4);
  return a;
}

array parse_text(const std::string& text, std::optional<dtype> type) {
  std::vector<std::string> tokens;
  std::size_t line_no = 0, pos = 0;
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
      io_fail("line " + std::to_string(line_no) + ": expected one number per line, got '" + s + "'");
    tokens.push_back(s);
    lines.push_back(line_no);
    if (tokens.size() > max_elements) io_fail("too many values");
  }
  dtype t;
  if (type) {
    t = *type;
  } else {
    t = dtype::i32;
    for (const auto& s : tokens) {
      if (s.find_first_of(".eEnNiI") != std::string::npos && s.rfind("0x", 0) != 0) { t = dtype::f32; break; }
      if (s[0] != '-' && (s.size() > 10 || (s.size() == 10 && s > "2147483647"))) t = dtype::u32;
    }
  }
  array a;
  a.type = t;
  a.bits.reserve(tokens.size());
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    try {
      a.bits.push_back(parse_value(t, tokens[i]));
    } catch (const error&) {
      io_fail("line " + std::to_string(lines[i]) + ": '" + tokens[i] + "' is not a valid " + dtype_name(t) + " value");
    }
  }
  return a;
}

array read_array(const std::string& path, std::optional<dtype> type) {
  std::string ext = extension(path);
  if (ext == "npy") {
    array a = parse_npy(slurp(path));
    if (type && *type != a.type)
      io_fail("'" + path + "' holds " + dtype_name(a.type) + ", not the requested " + dtype_name(*type));
    return a;
  }
  if (ext == "bin" || ext == "raw") {
    if (!type) throw error(errc::invalid_argument, "raw file '" + path + "' needs --type f32|i32|u32");
    std::string b = slurp(path);
    if (b.size() % 4) io_fail("'" + path + "' is " + std::to_string(b.size()) + " bytes, not a multiple of 4");
    if (b.size() / 4 > max_elements) io_fail("'" + path + "' is too large");
    array a;
    a.type = *type;
    a.bits.resize(b.size() / 4);
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
  std::string header = std::string("{'descr': '") + npy_descr(a.type) +
                       "', 'fortran_order': False, 'shape': (" + std::to_string(a.bits.size()) + ",), }";
  std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(reinterpret_cast<const char*>(a.bits.data()), a.bits.size() * 4);
  return out;
}

namespace {
// The temporary file being written, for the interrupt handler (async-signal-safe: a fixed buffer and a flag).
char g_tmp_path[4096];
volatile std::sig_atomic_t g_tmp_active = 0;

extern "C" void on_interrupt(int sig) {
  if (g_tmp_active) ::unlink(g_tmp_path);
  ::_exit(128 + sig);
}

void set_tmp(const std::string& p) {
  if (p.size() < sizeof g_tmp_path) {
    std::memcpy(g_tmp_path, p.c_str(), p.size() + 1);
    g_tmp_active = 1;
  }
}
}  // namespace

void install_interrupt_cleanup() {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}

void check_writable(const std::string& path) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  set_tmp(tmp);
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) {
    g_tmp_active = 0;
    io_fail("cannot write '" + path + "': " + std::strerror(errno));
  }
  std::fclose(f);
  std::remove(tmp.c_str());
  g_tmp_active = 0;
  std::string ext = extension(path);
  if (ext != "npy" && ext != "bin" && ext != "raw" && ext != "csv" && ext != "txt")
    throw error(errc::invalid_argument, "unknown output type '" + path + "' (expected .npy, .bin, .csv or .txt)");
}

void write_array(const std::string& path, const array& a) {
  std::string ext = extension(path), data;
  if (ext == "npy") {
    data = format_npy(a);
  } else if (ext == "bin" || ext == "raw") {
    data.assign(reinterpret_cast<const char*>(a.bits.data()), a.bits.size() * 4);
  } else if (ext == "csv" || ext == "txt") {
    data.reserve(a.bits.size() * 8);
    for (std::uint32_t b : a.bits) { data += format_bits(a.type, b); data += '\n'; }
  } else {
    throw error(errc::invalid_argument, "unknown output type '" + path + "' (expected .npy, .bin, .csv or .txt)");
  }
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  set_tmp(tmp);
  struct clear_tmp { ~clear_tmp() { g_tmp_active = 0; } } guard;
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) io_fail("cannot write '" + path + "': " + std::strerror(errno));
    f.write(data.data(), static_cast<std::streamsize>(data.size()));
    f.flush();
    if (!f) { std::remove(tmp.c_str()); io_fail("cannot write '" + path + "' (disk full?)"); }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    std::remove(tmp.c_str());
    io_fail("cannot write '" + path + "': " + std::strerror(e));
  }
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
