// File readers and writers, and the generators (no GPU needed).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cmath>
#include <fstream>
#include <limits>

#include "wgprim/error.hpp"
#include "wgprim/io.hpp"

namespace wgprim {
namespace {

std::string tmp(const std::string& name) { return ::testing::TempDir() + "wgprim_io_" + name; }

TEST(Io, NpyRoundTripEveryType) {
  for (dtype t : {dtype::f32, dtype::i32, dtype::u32}) {
    io::array a{t, {1, 2, 0xffffffffu, 0x3f800000u}};
    std::string p = tmp(std::string("rt_") + dtype_name(t) + ".npy");
    io::write_array(p, a);
    io::array b = io::read_array(p);
    EXPECT_EQ(b.type, t);
    EXPECT_EQ(b.bits, a.bits);
  }
  io::array empty{dtype::u32, {}};
  EXPECT_EQ(io::parse_npy(io::format_npy(empty)).bits.size(), 0u);
}

TEST(Io, NpyRejectsMalformedFiles) {
  io::array a{dtype::f32, {1, 2, 3}};
  std::string good = io::format_npy(a);
  auto expect_io = [](const std::string& bytes) {
    try {
      io::parse_npy(bytes);
      ADD_FAILURE() << "accepted a malformed .npy";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::io);
    }
  };
  expect_io(good.substr(0, good.size() - 1));        // truncated data
  expect_io(good.substr(0, 20));                      // truncated header
  expect_io("hello world, not numpy");
  std::string f8 = good;
  f8.replace(f8.find("<f4"), 3, "<f8");
  expect_io(f8);
  std::string two_d = good;  // N-D arrays are read (flattened), but their data must be all there
  two_d.replace(two_d.find("(3,)"), 4, "(2,3)");
  expect_io(two_d);
  std::string complex = good;
  complex.replace(complex.find("<f4"), 3, "<c8");
  expect_io(complex);
}

TEST(Io, TextInfersOrForcesTheType) {
  EXPECT_EQ(io::parse_text("1\n2\n-3\n", std::nullopt).type, dtype::i32);
  EXPECT_EQ(io::parse_text("1\n4294967295\n", std::nullopt).type, dtype::u32);
  // A negative value and one past i32 need i64 whichever comes first; past i64, u64.
  EXPECT_EQ(io::parse_text("-1\n4000000000\n", std::nullopt).type, dtype::i64);
  EXPECT_EQ(io::parse_text("4000000000\n-1\n", std::nullopt).type, dtype::i64);
  EXPECT_EQ(io::parse_text("1\n18446744073709551615\n", std::nullopt).type, dtype::u64);
  EXPECT_EQ(io::parse_text("1\n2.5\n", std::nullopt).type, dtype::f32);
  auto a = io::parse_text("  7 \r\n\n8,\n", dtype::u32);
  EXPECT_EQ(a.bits, (std::vector<std::uint32_t>{7, 8}));
  EXPECT_THROW(io::parse_text("1\nabc\n", std::nullopt), error);
  EXPECT_THROW(io::parse_text("1 2\n", std::nullopt), error);
  EXPECT_THROW(io::parse_text("-1\n", dtype::u32), error);
}

TEST(Io, RawNeedsAType) {
  std::string p = tmp("raw.bin");
  { std::ofstream f(p, std::ios::binary); f.write("\1\0\0\0\2\0\0\0", 8); }
  EXPECT_THROW(io::read_array(p), error);
  EXPECT_EQ(io::read_array(p, dtype::u32).bits, (std::vector<std::uint32_t>{1, 2}));
  { std::ofstream f(p, std::ios::binary); f.write("\1\0\0", 3); }
  EXPECT_THROW(io::read_array(p, dtype::u32), error);
}

TEST(Io, WriteFailuresLeaveNoFile) {
  io::array a{dtype::u32, {1}};
  EXPECT_THROW(io::write_array("/nonexistent-dir/x.npy", a), error);
  EXPECT_THROW(io::write_array(tmp("x.parquet"), a), error);
}

std::string npy_with_header(std::string header, std::size_t data_bytes) {
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + std::string(data_bytes, '\0');
}

// The header is a Python literal, read as NumPy reads it (ast.literal_eval).
TEST(Io, NpyHeaderGrammarFollowsNumpy) {
  auto accepts = [](const std::string& h, std::size_t n) {
    try {
      return io::parse_npy(npy_with_header(h, n * 4)).bits.size() == n;
    } catch (const error& e) {
      ADD_FAILURE() << h << ": " << e.what();
      return false;
    }
  };
  EXPECT_TRUE(accepts("{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (5,)}", 5));  // double quotes
  EXPECT_TRUE(accepts("{'shape': (3, ), 'fortran_order': False, 'descr': '<i4', }", 3));  // any order
  EXPECT_TRUE(accepts("{'descr':'<u4','fortran_order':False,'shape':(0,)}   ", 0));
  EXPECT_TRUE(accepts("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 5)}", 5));  // 2-D, flattened
  for (const char* h : {"{'descr': '<f4', 'fortran_order': False, 'shape': (1 5,)}",   // a syntax error
                        "{'descr': '<f4', 'fortran_order': False, 'shape': (5)}",      // an int, not a tuple
                        "{'descr': '<f4', 'fortran_order': False, 'shape': ()}",       // 0-d: 1 element, not 5
                        "{'descr': '<f4', 'fortran_order': False}",                    // no shape
                        "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), 'x': 1}",
                        "{'descr': '<f4', 'fortran_order': False, 'shape': (5,)} junk",
                        "{'descr': '<f4', 'fortran_order': 0, 'shape': (5,)}",
                        "{'descr': '<f4, 'fortran_order': False, 'shape': (5,)}",
                        "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (5,)}"}) {
    try {
      io::parse_npy(npy_with_header(h, 20));
      ADD_FAILURE() << "accepted " << h;
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::io) << h;
    }
  }
}

TEST(Io, TextIsDecimalAndReadsItsOwnOutputBack) {
  EXPECT_EQ(io::parse_text("010\n08\n-010\n", std::nullopt).bits, (std::vector<std::uint32_t>{10, 8, static_cast<std::uint32_t>(-10)}));
  EXPECT_EQ(io::parse_text("010\n", dtype::u32).bits, (std::vector<std::uint32_t>{10}));
  EXPECT_EQ(io::parse_text("0x10\n", dtype::u32).bits, (std::vector<std::uint32_t>{16}));
  // min / max / lowest name identities, not data.
  for (const char* t : {"1\nmin\n", "max\n", "lowest\n"})
    for (auto type : {std::optional<dtype>{}, std::optional<dtype>{dtype::f32}, std::optional<dtype>{dtype::u32}})
      EXPECT_THROW(io::parse_text(t, type), error) << t;
  // The largest float's shortest text (NumPy's too) is above FLT_MAX as a decimal, but rounds to it.
  const float big = std::numeric_limits<float>::max();
  EXPECT_EQ(io::parse_text("3.4028235e+38\n-3.4028235e+38\n", dtype::f32).bits,
            (std::vector<std::uint32_t>{to_bits(big), to_bits(-big)}));
  EXPECT_THROW(io::parse_text("3.5e38\n", dtype::f32), error);
  io::array a{dtype::f32, {to_bits(big), to_bits(-big), to_bits(std::numeric_limits<float>::denorm_min()),
                           to_bits(0.1f), to_bits(-0.0f), to_bits(1e-5f)}};
  std::string p = tmp("roundtrip.csv");
  io::write_array(p, a);
  EXPECT_EQ(io::read_array(p, dtype::f32).bits, a.bits);
}

TEST(Io, ErrorMessagesQuoteAtMostAShortExcerpt) {
  const std::string huge(1 << 20, '7');
  for (const std::string& text : {huge + "x\n", "1\n" + huge + " 2\n", huge + "\n"}) {
    try {
      io::parse_text(text, dtype::i32);
      ADD_FAILURE() << "accepted";
    } catch (const error& e) {
      EXPECT_LT(std::string(e.what()).size(), 200u) << std::string(e.what()).substr(0, 200);
    }
  }
}

TEST(Io, InputMustBeARegularFile) {
  const std::string dir = tmp("dir.csv"), zero = tmp("zero.bin");
  ::mkdir(dir.c_str(), 0700);
  std::remove(zero.c_str());
  ASSERT_EQ(::symlink("/dev/zero", zero.c_str()), 0);
  for (const std::string& p : {dir, zero}) {
    try {
      io::read_array(p, dtype::u32);
      ADD_FAILURE() << "read " << p;
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::io) << e.what();
    }
  }
  std::remove(zero.c_str());
  ::rmdir(dir.c_str());
}

TEST(Io, OutputWritesThroughLinksAndRefusesOtherFiles) {
  const std::string target = tmp("target.csv"), link = tmp("link.csv"), fifo = tmp("fifo.csv"),
                    dir = tmp("outdir.csv");
  std::remove(link.c_str());
  std::remove(fifo.c_str());
  { std::ofstream f(target); f << "99\n"; }
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  io::array a{dtype::u32, {1, 2}};
  io::check_writable(link);
  io::write_array(link, a);
  struct stat st;
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the link was replaced";
  EXPECT_EQ(io::read_array(target).bits, a.bits);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ::mkdir(dir.c_str(), 0700);
  for (const std::string& p : {fifo, dir}) {
    EXPECT_THROW(io::check_writable(p), error) << p;
    EXPECT_THROW(io::write_array(p, a), error) << p;
    ASSERT_EQ(::lstat(p.c_str(), &st), 0);
    EXPECT_FALSE(S_ISREG(st.st_mode)) << p << " was replaced";
  }
  std::remove(link.c_str());
  std::remove(fifo.c_str());
  std::remove(target.c_str());
  ::rmdir(dir.c_str());
}

TEST(Io, Generators) {
  auto p = io::generate("prices:1000:3");
  EXPECT_EQ(p.type, dtype::f32);
  ASSERT_EQ(p.bits.size(), 1000u);
  for (auto b : p.bits) {
    float v = from_bits<float>(b);
    EXPECT_GE(v, 5.0f);
    EXPECT_LE(v, 50.0f);
    EXPECT_NEAR(v * 100, std::round(v * 100), 1e-3);
  }
  EXPECT_EQ(io::generate("prices:10:3").bits, io::generate("prices:10:3").bits);  // seeded
  EXPECT_NE(io::generate("prices:10:3").bits, io::generate("prices:10:4").bits);
  auto o = io::generate("orders:65536");
  EXPECT_EQ(o.type, dtype::u32);
  for (auto b : o.bits) EXPECT_LE(b, 9u);
  EXPECT_EQ(io::generate("uniform:0").bits.size(), 0u);
  for (const char* bad : {"prices", "prices:-5", "prices:abc", "prices:99999999999999", "bananas:10",
                          "prices:10:1:2", "prices:1e9", "prices:18446744073709551616"})
    EXPECT_THROW(io::generate(bad), error) << bad;
}

}  // namespace
}  // namespace wgprim
