// File readers and writers, and the generators (no GPU needed).
#include <gtest/gtest.h>

#include <cstdio>
#include <cmath>
#include <fstream>

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
  std::string two_d = good;
  two_d.replace(two_d.find("(3,)"), 4, "(1,3)");
  expect_io(two_d);
  std::string big_endian = good;
  big_endian.replace(big_endian.find("<f4"), 3, ">f4");
  expect_io(big_endian);
}

TEST(Io, TextInfersOrForcesTheType) {
  EXPECT_EQ(io::parse_text("1\n2\n-3\n", std::nullopt).type, dtype::i32);
  EXPECT_EQ(io::parse_text("1\n4294967295\n", std::nullopt).type, dtype::u32);
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
