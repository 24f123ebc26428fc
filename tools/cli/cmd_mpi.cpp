// reduce / scan / sort of one array split across ranks: MPI processes (`mpirun -np N wgprim reduce|scan|sort
// --input big.npy`, when the CLI is built with MPI) or contexts on several adapters of one process (`--adapters
// all|LIST`, threads). Every rank reads only its slice of the .npy (pread at its offset), scan and sort outputs are
// written by every rank at its offset into one .npy (rank 0 writes the header), and rank 0 prints the report once,
// with `ranks` and every rank's timings. The same body runs for both kinds of ranks, over a wgprim::communicator.
#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "command.hpp"
#include "util.hpp"
#include "wgprim/io.hpp"
#include "wgprim/multi.hpp"
#include "wgprim/wgprim.hpp"
#ifdef WGPRIM_HAVE_MPI
#include "wgprim/mpi.hpp"
#endif

using json = nlohmann::json;
using namespace wgprim;

namespace {

struct dist_cli {
  std::string cmd, input, generate, type, op = "sum", identity, accuracy = "fast", algorithm, output, adapter,
                                          adapters, values_output;
  bool json = false, exclusive = false, no_check = false, per_rank = false, adapter_per_rank = false,
       descending = false;
  int repeat = 1;
};

// What every rank knows about the whole array: its type and length, where each rank's slice starts.
struct plan {
  dtype type = dtype::f32;
  std::uint64_t n = 0;
  std::uint64_t data_offset = 0;      // --input: where the values start in the file
  std::vector<std::uint64_t> shape;   // --input: the array's shape (a scan's output keeps it, as one process does)
  std::vector<std::uint64_t> first;   // size p + 1
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void put_value(json& j, const std::string& key, dtype t, std::uint32_t bits) {
  if (t == dtype::f32) {
    const float f = from_bits<float>(bits);
    if (std::isfinite(f)) j[key] = std::strtod(format_bits(t, bits).c_str(), nullptr);
    else j[key] = nullptr, j[key + "_text"] = format_bits(t, bits);
  } else if (t == dtype::i32) {
    j[key] = static_cast<std::int32_t>(bits);
  } else {
    j[key] = bits;
  }
}

void read_slice(const std::string& path, std::uint64_t offset, std::uint64_t bytes, void* out) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw error(errc::io, "cannot open '" + detail::excerpt(path, 200) + "': " + std::strerror(errno));
  std::uint64_t done = 0;
  while (done < bytes) {
    const ssize_t got = ::pread(fd, static_cast<char*>(out) + done, std::min<std::uint64_t>(bytes - done, 1u << 30),
                                static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      const int e = errno;
      ::close(fd);
      throw error(errc::io, "'" + detail::excerpt(path, 200) + "': " +
                                (got < 0 ? std::string(std::strerror(e))
                                         : "the file ends before byte " + std::to_string(offset + bytes) +
                                               " (truncated .npy?)"));
    }
    done += static_cast<std::uint64_t>(got);
  }
  ::close(fd);
}

void write_slice(const std::string& path, std::uint64_t offset, const void* data, std::uint64_t bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) throw error(errc::io, "cannot open '" + detail::excerpt(path, 200) + "': " + std::strerror(errno));
  std::uint64_t done = 0;
  while (done < bytes) {
    const ssize_t put = ::pwrite(fd, static_cast<const char*>(data) + done,
                                 std::min<std::uint64_t>(bytes - done, 1u << 30), static_cast<off_t>(offset + done));
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) {
      const int e = errno;
      ::close(fd);
      throw error(errc::io, "cannot write '" + detail::excerpt(path, 200) + "': " + std::strerror(e));
    }
    done += static_cast<std::uint64_t>(put);
  }
  if (::close(fd) != 0) throw error(errc::io, "cannot write '" + detail::excerpt(path, 200) + "': " + std::strerror(errno));
}

// Rank 0 creates OUTPUT.part with the header and its full length; every rank then writes its slice; rank 0 renames
// it into place at the end (a failed run leaves no partial OUTPUT).
std::string part_path(const std::string& out) { return out + ".wgprim-part"; }

void create_output(const std::string& out, dtype t, std::uint64_t n, const std::vector<std::uint64_t>& dims = {}) {
  const std::string tmp = part_path(out);
  const std::string header = io::format_npy_header(t, n, dims);
  // A link planted at the predictable name was followed and its target truncated (issue 29 row 2): remove what is
  // there (a link is removed, not followed), then create the file exclusively.
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) throw error(errc::io, "cannot create '" + detail::excerpt(tmp, 200) + "': " + std::strerror(errno));
  const bool ok = ::write(fd, header.data(), header.size()) == static_cast<ssize_t>(header.size()) &&
                  ::ftruncate(fd, static_cast<off_t>(header.size() + n * 4)) == 0;
  const int e = errno;
  ::close(fd);
  if (!ok) throw error(errc::io, "cannot write '" + detail::excerpt(tmp, 200) + "': " + std::strerror(e));
}

struct rank_report {
  double local_ms = 0, comm_ms = 0, total_ms = 0, read_ms = 0, write_ms = 0;
  std::uint64_t n_in = 0, n_out = 0;
  char adapter[112] = {};
};

// The whole command on one rank. Throws the same wgprim::error on every rank when any fails; returns the report
// (on rank 0) through `report`.
void rank_body(context& ctx, communicator& comm, const dist_cli& o, const plan& pl, json& report) {
  using clock = std::chrono::steady_clock;
  const int p = comm.size(), me = comm.rank();
  const std::uint64_t first = pl.first[me], count = pl.first[me + 1] - pl.first[me];
  const dtype t = pl.type;
  rank_report mine;
  std::strncpy(mine.adapter, ctx.adapter().name.c_str(), sizeof mine.adapter - 1);
  mine.n_in = count;

  // 1. This rank's slice.
  std::vector<std::uint32_t> bits;
  std::exception_ptr failure;
  try {
    const auto t0 = clock::now();
    mpi_test_hooks(me);  // test_hooks.cpp: nothing outside the test build
    if (!o.input.empty()) {
      bits.resize(count);
      read_slice(o.input, pl.data_offset + first * 4, count * 4, bits.data());
    } else {
      const io::generate_spec g = io::parse_generate_spec(o.generate);
      bits = io::generate(g.kind + ":" + std::to_string(count) + ":" + std::to_string(g.seed + me), t).bits;
    }
    mine.read_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  } catch (...) {
    failure = detail::dist_failure(std::current_exception());
  }
  comm.agree(failure, 0);

  run_options ro;
  ro.algorithm = o.algorithm;
  ro.accuracy = parse_accuracy(o.accuracy);
  ro.check_operator = !o.no_check;
  const op the_op = op::parse(o.op, o.identity);
  // As one process does (main.cpp): a custom operator is checked before any work. Across ranks `a - b` ran and
  // exited 0 (issue 29 row 8). Every rank checks the same operator, so every rank throws the same error.
  if (o.cmd != "sort" && the_op.is_custom() && !o.no_check) monoid(the_op, t).check(/*need_commutative=*/o.cmd == "reduce");
  std::vector<std::uint32_t> out_bits;  // scan / sort: this rank's part of the output
  std::vector<std::uint32_t> out_values;
  std::uint32_t value_bits = 0;
  std::vector<dist_stats> runs;
  std::vector<std::uint64_t> counts;

  with_type(t, [&](auto tag) {
    using T = decltype(tag);
    const host_span<const T> in(reinterpret_cast<const T*>(bits.data()), count);
    if (o.cmd == "sort") {
      const std::vector<T> keys(in.data(), in.data() + count);
      std::vector<std::uint32_t> index(count);
      for (std::uint64_t i = 0; i < count; ++i) index[i] = static_cast<std::uint32_t>(first + i);
      for (int rep = 0; rep < o.repeat; ++rep) {
        comm.agree(nullptr, 0);  // start together
        dist_stats st;
        std::vector<T> ko;
        const order ord = o.descending ? order::descending : order::ascending;
        if (o.values_output.empty()) {
          ko = dist::sort(ctx, comm, keys, ord, ro, &st);
        } else {
          std::vector<std::uint32_t> vo;
          dist::sort_pairs(ctx, comm, keys, index, ko, vo, ord, ro, &st);
          out_values = std::move(vo);
        }
        out_bits.assign(reinterpret_cast<const std::uint32_t*>(ko.data()),
                        reinterpret_cast<const std::uint32_t*>(ko.data()) + ko.size());
        counts = st.counts;
        runs.push_back(st);
      }
      return;
    }
    // reduce / scan: the slice lives on the device, as in the one-process command's timing.
    device_vector<T> d_in, d_out;
    try {
      d_in = device_vector<T>(ctx, count);
      d_out = device_vector<T>(ctx, o.cmd == "scan" ? count : 0);
      d_in.assign(in);
    } catch (...) {
      failure = detail::dist_failure(std::current_exception());
    }
    comm.agree(failure, 0);
    for (int rep = 0; rep < o.repeat; ++rep) {
      comm.agree(nullptr, 0);
      dist_stats st;
      if (o.cmd == "reduce") {
        value_bits = to_bits(dist::reduce(ctx, comm, d_in, the_op, ro, &st));
      } else {
        dist::scan(ctx, comm, d_in, d_out, o.exclusive ? scan_kind::exclusive : scan_kind::inclusive, the_op, ro,
                   &st);
      }
      runs.push_back(st);
    }
    if (o.cmd == "scan" && !o.output.empty()) {
      try {
        const std::vector<T> h = d_out.to_host();
        out_bits.resize(count);
        if (count) std::memcpy(out_bits.data(), h.data(), count * 4);
      } catch (...) {
        failure = detail::dist_failure(std::current_exception());
      }
      comm.agree(failure, 0);
    }
  });
  mine.n_out = o.cmd == "sort" ? out_bits.size() : count;
  {
    std::vector<double> loc, com, tot;
    for (const auto& r : runs) loc.push_back(r.local_ms), com.push_back(r.comm_ms), tot.push_back(r.total_ms);
    mine.local_ms = median(loc), mine.comm_ms = median(com), mine.total_ms = median(tot);
  }

  // 3. Output: one .npy, every rank at its offset.
  if (!o.output.empty() && o.cmd != "reduce") {
    const auto t0 = clock::now();
    std::uint64_t out_first = first;
    if (o.cmd == "sort") {
      out_first = 0;
      for (int r = 0; r < me; ++r) out_first += counts[r];
    }
    const std::vector<std::uint64_t> dims = o.cmd == "scan" ? pl.shape : std::vector<std::uint64_t>{};
    const std::uint64_t header = io::format_npy_header(t, pl.n, dims).size();
    const std::uint64_t vheader = io::format_npy_header(dtype::u32, pl.n).size();
    try {
      if (me == 0) {
        create_output(o.output, t, pl.n, dims);
        if (!o.values_output.empty()) create_output(o.values_output, dtype::u32, pl.n);
      }
    } catch (...) {
      failure = detail::dist_failure(std::current_exception());
    }
    comm.agree(failure, 0);
    try {
      write_slice(part_path(o.output), header + out_first * 4, out_bits.data(), out_bits.size() * 4);
      if (!o.values_output.empty())
        write_slice(part_path(o.values_output), vheader + out_first * 4, out_values.data(), out_values.size() * 4);
    } catch (...) {
      failure = detail::dist_failure(std::current_exception());
    }
    try {
      comm.agree(failure, 0);
    } catch (...) {
      if (me == 0) {
        ::unlink(part_path(o.output).c_str());
        if (!o.values_output.empty()) ::unlink(part_path(o.values_output).c_str());
      }
      throw;
    }
    if (me == 0) {
      if (std::rename(part_path(o.output).c_str(), o.output.c_str()) != 0 ||
          (!o.values_output.empty() && std::rename(part_path(o.values_output).c_str(), o.values_output.c_str()) != 0))
        failure = std::make_exception_ptr(
            error(errc::io, "cannot rename into '" + detail::excerpt(o.output, 200) + "': " + std::strerror(errno)));
    }
    comm.agree(failure, 0);
    mine.write_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  }

  // 4. The report, on rank 0.
  const std::vector<std::uint8_t> all = comm.allgather(&mine, sizeof mine);
  if (me != 0) return;
  json per = json::array();
  double slowest = 0, max_out = 0;
  for (int r = 0; r < p; ++r) {
    rank_report x;
    std::memcpy(&x, all.data() + r * sizeof x, sizeof x);
    x.adapter[sizeof x.adapter - 1] = 0;
    per.push_back({{"rank", r}, {"adapter", x.adapter}, {"n", x.n_in}, {"n_out", x.n_out}, {"ms", x.total_ms},
                   {"local_ms", x.local_ms}, {"comm_ms", x.comm_ms}, {"read_ms", x.read_ms},
                   {"write_ms", x.write_ms}});
    slowest = std::max(slowest, x.total_ms);
    max_out = std::max(max_out, static_cast<double>(x.n_out));
  }
  const bool f32_sum = t == dtype::f32 && o.op == "sum";
  report = {{"primitive", o.cmd == "sort" ? (o.values_output.empty() ? "sort_keys" : "sort_pairs") : o.cmd},
            {"type", dtype_name(t)}, {"n", pl.n}, {"ranks", p}, {"ms", slowest}, {"repeat", o.repeat},
            {"per_rank", per}};
  if (o.cmd != "sort") report["op"] = the_op.is_custom() ? the_op.expression() : the_op.name();
  if (f32_sum) report["accuracy"] = o.accuracy;
  if (o.cmd == "reduce") put_value(report, "result", t, value_bits);
  if (o.cmd == "scan") report["kind"] = o.exclusive ? "exclusive" : "inclusive";
  if (o.cmd == "sort") report["order"] = o.descending ? "descending" : "ascending";
  if (o.cmd == "sort") report["imbalance"] = pl.n ? max_out / (static_cast<double>(pl.n) / p) : 1.0;
  if (!o.output.empty() && o.cmd != "reduce") report["output"] = o.output;
  if (slowest > 0) report["gb_per_s"] = static_cast<double>(pl.n) * 4 * (o.cmd == "reduce" ? 1 : 2) / slowest / 1e6;
}

plan make_plan(const dist_cli& o, int p, const std::vector<double>* weights) {
  plan pl;
  std::optional<dtype> want;
  if (!o.type.empty()) want = parse_dtype(o.type);
  if (!o.input.empty() && !o.generate.empty())
    throw error(errc::invalid_argument, "give either --input or --generate, not both");
  if (!o.input.empty()) {
    const std::string ext = o.input.size() > 4 ? o.input.substr(o.input.size() - 4) : "";
    if (ext != ".npy")
      throw error(errc::invalid_argument, "across ranks the input is a .npy file (every rank reads its slice)");
    const io::npy_layout l = io::read_npy_layout(o.input);
    if (dtype_bytes(l.type) != 4 || l.big_endian)
      throw error(errc::unsupported, std::string("across ranks the .npy input holds little-endian f4, i4 or u4; '") +
                                         detail::excerpt(o.input, 200) + "' holds " + (l.big_endian ? "big-endian " : "") +
                                         dtype_name(l.type));
    if (want && *want != l.type)
      throw error(errc::invalid_argument, std::string("--type ") + dtype_name(*want) + " but '" +
                                              detail::excerpt(o.input, 200) + "' holds " + dtype_name(l.type));
    pl.type = l.type, pl.n = l.n, pl.data_offset = l.data_offset, pl.shape = l.shape;
  } else if (!o.generate.empty()) {
    const io::generate_spec g = io::parse_generate_spec(o.generate);
    pl.n = o.per_rank ? g.n * static_cast<std::uint64_t>(p) : g.n;
    if (want) pl.type = *want;
    else pl.type = io::generate(g.kind + ":0", std::nullopt).type;  // the kind's own type
    if (dtype_bytes(pl.type) != 4)
      throw error(errc::unsupported, std::string("across ranks the elements are f32, i32 or u32, not ") +
                                         dtype_name(pl.type));
  } else {
    throw error(errc::invalid_argument, "no data: give --input FILE.npy or --generate KIND:N[:SEED]");
  }
  if (o.cmd == "sort" && !o.values_output.empty() && pl.n > 0xffffffffull)
    throw error(errc::limit, "--values-output holds u32 input positions: at most 2^32 elements");
  pl.first.assign(p + 1, 0);
  if (weights) {
    const auto c = multi::split(pl.n, *weights);
    for (int r = 0; r < p; ++r) pl.first[r + 1] = pl.first[r] + c[r];
  } else {
    for (int r = 0; r <= p; ++r) pl.first[r] = pl.n * r / p;
  }
  return pl;
}

void check_options(const dist_cli& o) {
  parse_accuracy(o.accuracy);
  if (o.repeat < 1 || o.repeat > 1000) throw error(errc::invalid_argument, "--repeat must be 1..1000");
  if (o.cmd == "reduce" && !o.output.empty()) throw error(errc::invalid_argument, "reduce has no --output");
  if (!o.values_output.empty() && (o.cmd != "sort" || o.output.empty()))
    throw error(errc::invalid_argument, "--values-output goes with sort --output");
  if (o.cmd != "scan" && o.exclusive) throw error(errc::invalid_argument, "--exclusive is a scan option");
  if (!o.output.empty() && !o.values_output.empty())  // two outputs naming one file lost one (issue 29 row 4)
    io::check_distinct_outputs({{"--output", o.output}, {"--values-output", o.values_output}});
  for (const std::string& f : {o.output, o.values_output})
    if (!f.empty() && (f.size() < 5 || f.substr(f.size() - 4) != ".npy"))
      throw error(errc::invalid_argument, "across ranks the output is a .npy file ('" + detail::excerpt(f, 200) + "')");
}

void print_report(const json& j, bool as_json) {
  if (as_json) {
    std::cout << j.dump() << "\n";
    return;
  }
  fmt::print("{} of {} {} over {} ranks: {:.3f} ms (slowest rank, median of {})\n", j["primitive"].get<std::string>(),
             j["n"].get<std::uint64_t>(), j["type"].get<std::string>(), j["ranks"].get<int>(), j["ms"].get<double>(),
             j["repeat"].get<int>());
  if (j.contains("result"))
    fmt::print("  result {}\n", j.contains("result_text") ? j["result_text"].get<std::string>() : j["result"].dump());
  if (j.contains("imbalance")) fmt::print("  largest part / mean part {:.3f}\n", j["imbalance"].get<double>());
  for (const auto& r : j["per_rank"])
    fmt::print("  rank {:3} {:>12} elements in, {:>12} out: {:9.3f} ms (local {:.3f}, collectives {:.3f}) on {}\n",
               r["rank"].get<int>(), r["n"].get<std::uint64_t>(), r["n_out"].get<std::uint64_t>(),
               r["ms"].get<double>(), r["local_ms"].get<double>(), r["comm_ms"].get<double>(),
               r["adapter"].get<std::string>());
  if (j.contains("output")) fmt::print("  written to {}\n", j["output"].get<std::string>());
}

CLI::App* make_app(CLI::App& app, dist_cli& o) {
  app.require_subcommand(1);
  for (const char* name : {"reduce", "scan", "sort"}) {
    auto* s = app.add_subcommand(name, std::string(name) + " across MPI ranks or adapters");
    s->add_option("--input", o.input, ".npy input (every rank reads its slice)");
    s->add_option("--generate", o.generate, "KIND:N[:SEED]: every rank draws its part (seed SEED + rank)");
    s->add_flag("--per-rank", o.per_rank, "with --generate: N elements per rank (weak scaling)");
    s->add_option("--type", o.type, "element type f32|i32|u32 (across ranks: 32-bit only)");
    s->add_option("--output", o.output, ".npy output (scan, sort), written by every rank at its offset");
    s->add_option("--algorithm", o.algorithm, "the local algorithm");
    s->add_option("--adapter", o.adapter, "adapter name substring or #K (default: WGPRIM_ADAPTER, else the best)");
    s->add_flag("--adapter-per-rank", o.adapter_per_rank, "under MPI: adapter #(node-local rank), a GPU per rank");
    s->add_option("--adapters", o.adapters, "one process, several contexts: all | NAME,NAME,... | #K,#K,...");
    s->add_flag("--json", o.json, "print one JSON object (rank 0)");
    s->add_option("--repeat", o.repeat, "run this many times and report the median");
    if (std::string(name) != "sort") {
      s->add_option("--op", o.op, "sum|min|max|and|or|xor, or a WGSL expression in a and b");
      s->add_option("--identity", o.identity, "identity of a custom operator");
      s->add_flag("--no-check", o.no_check, "skip the monoid check of a custom operator");
      s->add_option("--accuracy", o.accuracy, "f32 sums: fast | compensated | reproducible");
    }
    if (std::string(name) == "scan") s->add_flag("--exclusive", o.exclusive, "exclusive scan");
    if (std::string(name) == "sort") {
      s->add_option("--values-output", o.values_output, "sort pairs (key, input position): the positions (.npy u32)");
      s->add_flag("--descending", o.descending, "largest first (still stable; f32 NaNs first)");
    }
  }
  return &app;
}

}  // namespace

// Returns -1 when the command is not a distributed one (the ordinary commands handle it), else the exit code.
int run_distributed_command(int argc, char** argv) {
  if (argc < 2) return -1;
  const std::string cmd = argv[1];
  if (cmd != "reduce" && cmd != "scan" && cmd != "sort") return -1;
  bool adapters = false;
  for (int i = 2; i < argc; ++i)
    if (std::strcmp(argv[i], "--adapters") == 0 || std::strncmp(argv[i], "--adapters=", 11) == 0) adapters = true;
#ifdef WGPRIM_HAVE_MPI
  const bool under_mpi = mpi::launched();
#else
  const bool under_mpi = false;
#endif
  if (!under_mpi && !adapters) return -1;

  dist_cli o;
  o.cmd = cmd;
  CLI::App app{"wgprim across ranks"};
  make_app(app, o);
  int rank = 0;
#ifdef WGPRIM_HAVE_MPI
  std::unique_ptr<mpi::environment> env;
  if (under_mpi) {
    env = std::make_unique<mpi::environment>(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  }
#endif
  auto fail = [&](const std::string& msg, int code) {
    if (rank == 0) std::cerr << "wgprim: error: " << one_line(msg) << "\n";
    return code;
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return rank == 0 ? app.exit(e) : 0;
    return fail(std::string(e.what()) + " (across ranks: see wgprim " + cmd + " --adapters x --help)",
                static_cast<int>(errc::invalid_argument));
  }

  json report;
  try {
    check_options(o);
    if (under_mpi) {
#ifdef WGPRIM_HAVE_MPI
      if (adapters) throw error(errc::invalid_argument, "--adapters is for one process; under mpirun use --adapter-per-rank");
      mpi::communicator comm(MPI_COMM_WORLD);
      std::exception_ptr failure;
      std::unique_ptr<context> ctx;
      plan pl;
      try {
        pl = make_plan(o, comm.size(), nullptr);
        std::string adapter = o.adapter;
        if (o.adapter_per_rank) adapter = "#" + std::to_string(mpi::local_rank(MPI_COMM_WORLD));
        ctx = std::make_unique<context>(context_options{adapter});
      } catch (...) {
        failure = detail::dist_failure(std::current_exception());
      }
      comm.agree(failure, 0);
      rank_body(*ctx, comm, o, pl, report);
#endif
    } else {
      multi::device_set set = multi::open(o.adapters);
      if (set.contexts.size() > 1) multi::measure(set);
      const plan pl = make_plan(o, static_cast<int>(set.contexts.size()), &set.speed);
      multi::run(static_cast<int>(set.contexts.size()), [&](int r, communicator& c) {
        json mine;
        rank_body(set.contexts[r], c, o, pl, mine);
        if (r == 0) report = std::move(mine);
      });
      report["mode"] = "adapters";
      json sp = json::array();
      for (double s : set.speed) sp.push_back(s);
      report["speed"] = sp;
    }
  } catch (const error& e) {
    return fail(e.what(), static_cast<int>(e.code()));
  } catch (const std::bad_alloc&) {
    return fail("out of host memory", static_cast<int>(errc::out_of_memory));
  } catch (const std::exception& e) {
    return fail(e.what(), 1);
  }
  if (rank == 0) {
    if (under_mpi) report["mode"] = "mpi";
    print_report(report, o.json);
  }
  return 0;
}
