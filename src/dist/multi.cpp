// Several contexts in one process (wgprim/multi.hpp): an in-process communicator over threads, the adapter set and
// its speed-proportional split.
#include "wgprim/multi.hpp"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <mutex>

namespace wgprim::multi {

namespace {

// What the threads of one group share: a reusable barrier and one slot per rank where each posts a pointer to its
// contribution. A collective is post -> barrier -> read the others' slots -> barrier (nobody's data is reused or
// freed before everyone has read it).
struct hub {
  explicit hub(int k, double timeout_s) : k(k), timeout(timeout_s), ptr(k), counts(k) {}
  const int k;
  const double timeout;
  std::mutex mu;
  std::condition_variable cv;
  int arrived = 0;
  std::uint64_t generation = 0;
  std::vector<const void*> ptr;
  std::vector<const std::vector<std::uint64_t>*> counts;

  void barrier() {
    std::unique_lock<std::mutex> lock(mu);
    const std::uint64_t g = generation;
    if (++arrived == k) {
      arrived = 0;
      ++generation;
      cv.notify_all();
      return;
    }
    if (!cv.wait_for(lock, std::chrono::duration<double>(timeout), [&] { return generation != g; }))
      throw error(errc::timeout, "a participant did not reach the collective within " +
                                     std::to_string(static_cast<long>(timeout)) + " s");
  }
};

class thread_communicator final : public communicator {
 public:
  thread_communicator(hub& h, int rank) : h_(h), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return h_.k; }

  std::vector<std::uint8_t> allgather(const void* mine, std::size_t bytes) override {
    h_.ptr[rank_] = mine;
    h_.barrier();
    std::vector<std::uint8_t> out(bytes * h_.k);
    for (int r = 0; r < h_.k; ++r) std::memcpy(out.data() + r * bytes, h_.ptr[r], bytes);
    h_.barrier();
    return out;
  }
  void broadcast(void* data, std::size_t bytes, int root) override {
    h_.ptr[rank_] = data;
    h_.barrier();
    if (rank_ != root) std::memcpy(data, h_.ptr[root], bytes);
    h_.barrier();
  }
  void exscan(const void* mine, void* result, std::size_t bytes, const combine_fn& f, bool) override {
    h_.ptr[rank_] = mine;
    h_.barrier();
    if (rank_ > 0) {
      // (r0 op r1) op r2 ... in rank order: acc = lower, then acc = acc op record_j.
      std::vector<std::uint8_t> acc(bytes), next(bytes);
      std::memcpy(acc.data(), h_.ptr[0], bytes);
      for (int j = 1; j < rank_; ++j) {
        std::memcpy(next.data(), h_.ptr[j], bytes);
        f(acc.data(), next.data());
        acc.swap(next);
      }
      std::memcpy(result, acc.data(), bytes);
    }
    h_.barrier();
  }
  void allreduce(void* inout, std::size_t bytes, const combine_fn& f, bool) override {
    const std::vector<std::uint8_t> mine(static_cast<std::uint8_t*>(inout), static_cast<std::uint8_t*>(inout) + bytes);
    h_.ptr[rank_] = mine.data();
    h_.barrier();
    std::vector<std::uint8_t> acc(bytes), next(bytes);
    std::memcpy(acc.data(), h_.ptr[0], bytes);
    for (int j = 1; j < h_.k; ++j) {
      std::memcpy(next.data(), h_.ptr[j], bytes);
      f(acc.data(), next.data());
      acc.swap(next);
    }
    h_.barrier();
    std::memcpy(inout, acc.data(), bytes);
  }
  void alltoallv(const std::uint32_t* send, const std::vector<std::uint64_t>& send_counts,
                 std::vector<std::uint32_t>& recv, std::vector<std::uint64_t>& recv_counts) override {
    h_.ptr[rank_] = send;
    h_.counts[rank_] = &send_counts;
    h_.barrier();
    recv_counts.assign(h_.k, 0);
    std::uint64_t total = 0;
    for (int s = 0; s < h_.k; ++s) total += recv_counts[s] = (*h_.counts[s])[rank_];
    recv.resize(total);
    std::uint64_t at = 0;
    for (int s = 0; s < h_.k; ++s) {
      std::uint64_t offset = 0;
      for (int d = 0; d < rank_; ++d) offset += (*h_.counts[s])[d];
      if (recv_counts[s])
        std::memcpy(recv.data() + at, static_cast<const std::uint32_t*>(h_.ptr[s]) + offset, recv_counts[s] * 4);
      at += recv_counts[s];
    }
    h_.barrier();
  }

 private:
  hub& h_;
  int rank_;
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

void run(int k, const std::function<void(int, communicator&)>& fn, double timeout_s) {
  if (k < 1) throw error(errc::invalid_argument, "multi::run needs at least one participant");
  hub h(k, timeout_s);
  std::vector<std::exception_ptr> failed(k);
  std::vector<std::thread> threads;
  threads.reserve(k);
  for (int r = 0; r < k; ++r)
    threads.emplace_back([&, r] {
      thread_communicator c(h, r);
      try {
        fn(r, c);
      } catch (...) {
        failed[r] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (auto& e : failed)
    if (e) std::rethrow_exception(e);
}

device_set open(const std::string& adapters, double timeout_s) {
  std::vector<std::string> names;
  if (lower(adapters) == "all") {
    const auto list = context::enumerate_adapters();
    bool any_gpu = false;
    for (const auto& a : list) any_gpu |= a.kind != adapter_kind::cpu;
    for (std::size_t i = 0; i < list.size(); ++i)
      if (!any_gpu || list[i].kind != adapter_kind::cpu) names.push_back("#" + std::to_string(i));
    if (names.empty()) throw error(errc::no_adapter, "no WebGPU adapter found");
  } else {
    std::size_t at = 0;
    while (at <= adapters.size()) {
      const std::size_t comma = std::min(adapters.find(',', at), adapters.size());
      std::string name = adapters.substr(at, comma - at);
      while (!name.empty() && name.front() == ' ') name.erase(name.begin());
      while (!name.empty() && name.back() == ' ') name.pop_back();
      if (name.empty())
        throw error(errc::invalid_argument, "--adapters '" + wgprim::detail::excerpt(adapters) +
                                                "': an empty name (give all, or NAME,NAME,... or #K,#K,...)");
      names.push_back(name);
      at = comma + 1;
    }
  }
  if (names.size() > 64) throw error(errc::invalid_argument, "at most 64 contexts in one process");
  device_set set;
  for (const auto& n : names) set.contexts.emplace_back(context_options{n, timeout_s});
  set.speed.assign(set.contexts.size(), 1.0);
  return set;
}

void measure(device_set& set, std::size_t n) {
  for (std::size_t i = 0; i < set.contexts.size(); ++i) {
    context& ctx = set.contexts[i];
    const std::size_t m = n ? n : ctx.adapter().kind == adapter_kind::cpu ? (1u << 20) : (1u << 24);
    device_vector<std::uint32_t> v(ctx, m);
    std::vector<std::uint32_t> ones(m, 1);
    v.assign(ones);
    (void)wgprim::reduce(ctx, v);  // warm-up: compiles the pipelines
    double best = 1e300;
    for (int rep = 0; rep < 3; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      (void)wgprim::reduce(ctx, v);
      best = std::min(best, wgprim::detail::ms_between(t0, std::chrono::steady_clock::now()));
    }
    set.speed[i] = static_cast<double>(m) / std::max(best, 1e-3);
  }
}

std::vector<std::size_t> split(std::size_t n, const std::vector<double>& weights) {
  if (weights.empty()) throw error(errc::invalid_argument, "split: no parts");
  double sum = 0;
  for (double w : weights) {
    if (!(w >= 0) || !std::isfinite(w)) throw error(errc::invalid_argument, "split: a weight is negative or not finite");
    sum += w;
  }
  std::vector<std::size_t> out(weights.size(), 0);
  if (sum <= 0) {  // no weights: even
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = n / out.size() + (i < n % out.size() ? 1 : 0);
    return out;
  }
  std::size_t given = 0;
  double run = 0;
  for (std::size_t i = 0; i + 1 < out.size(); ++i) {
    run += weights[i];
    const std::size_t upto = std::min<std::size_t>(n, static_cast<std::size_t>(std::llround(n * (run / sum))));
    out[i] = upto > given ? upto - given : 0;
    given += out[i];
  }
  out.back() = n - given;
  return out;
}

}  // namespace wgprim::multi
