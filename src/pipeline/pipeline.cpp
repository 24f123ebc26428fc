// Recorded pipelines (wgprim/pipeline.hpp): the steps are kept as data; a run encodes them into one command
// encoder over two ping-pong buffers and one device_count, each step's length being the count the step before
// it left on the device (the compactions' counted inputs, the counted sort), and submits once. The encoder and
// the copy of the input come from the context's backend table (a backend that runs every call at once gives no
// encoder: each step then runs as it is called).
#include "wgprim/pipeline.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include "primitives/backend.hpp"
#include "wgprim/counted.hpp"
#include "wgprim/reference.hpp"
#include "wgprim/error.hpp"
#include "wgprim/select.hpp"

namespace wgprim {

namespace {
enum class step_kind { select_if, sort, unique };
struct step {
  step_kind kind;
  std::optional<predicate> pred;
  sort_order order;
};
}  // namespace

// What a run's recording depends on besides the steps and the capacity: where its input is and how long.
struct run_key {
  bool on_device = false;
  WGPUBuffer buf = nullptr;
  std::uint64_t offset = 0, n = 0, capacity = 0;
  bool operator==(const run_key& o) const {
    return on_device == o.on_device && buf == o.buf && offset == o.offset && n == o.n && capacity == o.capacity;
  }
};

struct pipeline::state {
  context* ctx;
  dtype type;
  std::vector<step> steps;
  buffer a, b;                  // ping-pong: the input is copied into a
  std::uint64_t capacity = 0;   // elements of a and b
  bool result_in_a = true;
  device_count count;
  std::uint64_t created = 0;
  std::uint64_t dispatches = 0, next_dispatches = 0;  // the last run's recording, and the one recorded ahead
  // A replay's recording, made while the GPU ran the run before it (WebGPU command buffers are single-use, and
  // recording the chain costs the host as much as a call's whole round trip): the next run with the same key only
  // submits it. Made once two runs in a row had the same key, so `next`, when held, was recorded for `last`.
  std::optional<run_key> last;
  // It holds the recording's encoder and command buffer, a reference to its input buffer and the ring slots of its
  // parameters; it uses the kernels and policies of when it was recorded (a set_policy or an environment override
  // between runs takes effect from the run after). drop: the backend's, kept so that the destructor needs no context.
  detail::finished_commands next;
  void (*drop)(detail::finished_commands&) noexcept;
  bool next_in_a = true;
  state(context& c, dtype t) : ctx(&c), type(t), count(c), drop(detail::backend_of(c).drop_chain) {}
  ~state() { drop_next(); }
  void drop_next() noexcept {
    if (next) drop(next);
  }
  // A step added: a run recorded ahead lacks it.
  void changed() {
    drop_next();
    last.reset();
  }
  bool record(WGPUCommandEncoder enc, const detail::range_ref& in);
};

pipeline::pipeline(context& ctx, dtype type) : s_(std::make_unique<state>(ctx, type)) {
  if (type != dtype::u32 && type != dtype::i32 && type != dtype::f32)
    throw error(errc::unsupported, std::string("pipeline: elements are u32, i32 or f32, not ") + dtype_name(type));
}
pipeline::~pipeline() = default;
pipeline::pipeline(pipeline&& o) noexcept = default;
pipeline& pipeline::operator=(pipeline&& o) noexcept = default;

pipeline& pipeline::select_if(const predicate& p) {
  bound_predicate check(p, s_->type);  // a bad predicate fails here, not at the first run
  s_->steps.push_back({step_kind::select_if, p, {}});
  s_->changed();
  return *this;
}
pipeline& pipeline::sort(sort_order o) {
  if (o.end_bit > 32 || (o.end_bit && o.begin_bit >= o.end_bit) || o.begin_bit >= 32)
    throw error(errc::invalid_argument, "pipeline: sort bits [" + std::to_string(o.begin_bit) + ", " +
                                            std::to_string(o.end_bit) + ") are not within a 32-bit key");
  if (s_->type == dtype::f32 && o.direction == order::descending)
    throw error(errc::unsupported, "pipeline: an f32 sort step sorts ascending only");
  s_->steps.push_back({step_kind::sort, std::nullopt, o});
  s_->changed();
  return *this;
}
pipeline& pipeline::unique() {
  s_->steps.push_back({step_kind::unique, std::nullopt, {}});
  s_->changed();
  return *this;
}
std::size_t pipeline::steps() const { return s_->steps.size(); }
dtype pipeline::type() const { return s_->type; }
const device_count& pipeline::count() const { return s_->count; }
std::uint64_t pipeline::kernels_created_last_run() const { return s_->created; }
std::uint64_t pipeline::dispatches_last_run() const { return s_->dispatches; }

void pipeline::check_type(dtype t) const {
  if (t != s_->type)
    throw error(errc::invalid_argument, std::string("pipeline: it takes ") + dtype_name(s_->type) + " elements, not " +
                                            dtype_name(t));
}

// Records the chain on `in` into enc (the host input's upload is the caller's) and returns whether the result
// ends in a.
bool pipeline::state::record(WGPUCommandEncoder enc, const detail::range_ref& in) {
  using namespace detail;
  context& c = *ctx;
  const backend_ops& backend = backend_of(c);
  const std::uint64_t n = in.count;
  // A device input whose first step is a compaction is read where it is (the step writes the pipeline's buffer);
  // a sort first, or no step, sorts or returns a copy.
  const bool read_in_place = in.on_device && !steps.empty() && steps.front().kind != step_kind::sort;
  if (in.on_device && n && !read_in_place) backend.copy_bytes(c, enc, in.view, view_of(a), n * 4);
  auto ref = [&](const buffer& buf) {
    range_ref r;
    r.on_device = true;
    r.view = view_of(buf, capacity);
    r.count = capacity;
    r.type = type;
    return r;
  };
  const device_view cv = count.span().view();
  range_ref count_ref = out_ref(count.span());
  const run_options opt;
  buffer* cur = &a;
  buffer* other = &b;
  for (const step& st : steps) {
    if (read_in_place && &st == &steps.front()) {
      // The caller's range, n elements, and the count n: the step writes a, then the chain goes on from there.
      const bool sel = st.kind == step_kind::select_if;
      select_run_counted(c, enc, in, cv, nullptr, ref(a), &count_ref,
                         sel ? select_mode::predicate : select_mode::unique, false, type,
                         sel ? &*st.pred : nullptr, opt);
      cur = &a;
      other = &b;
      continue;
    }
    switch (st.kind) {
      case step_kind::sort:
        sort_counted(c, enc, ref(*cur), cv, st.order, opt);
        break;
      case step_kind::select_if:
      case step_kind::unique: {
        const bool sel = st.kind == step_kind::select_if;
        select_run_counted(c, enc, ref(*cur), cv, nullptr, ref(*other), &count_ref,
                           sel ? select_mode::predicate : select_mode::unique, false, type,
                           sel ? &*st.pred : nullptr, opt);
        std::swap(cur, other);
        break;
      }
    }
  }
  return cur == &a;
}

void pipeline::enqueue_ref(const detail::range_ref& in) {
  using namespace detail;
  state& s = *s_;
  context& ctx = *s.ctx;
  const std::uint64_t n = in.count;
  if (n > 0xffffffffull) throw error(errc::limit, "pipeline: at most 2^32 - 1 elements");
  if (in.on_device) check_view(ctx, in.view, "pipeline input");
  if (n > s.capacity || !s.a) {
    // Grown to the largest input seen: new buffers, the same kernels.
    s.drop_next();
    s.capacity = std::max<std::uint64_t>({n, 1, s.capacity});
    s.a = ctx.create_buffer(s.capacity * 4);
    s.b = ctx.create_buffer(s.capacity * 4);
  }
  run_key key;
  key.on_device = in.on_device;
  key.buf = in.on_device ? in.view.buf : nullptr;
  key.offset = in.on_device ? in.view.offset : 0;
  key.n = n;
  key.capacity = s.capacity;
  const std::uint64_t before = kernels_created(ctx);
  const backend_ops& backend = backend_of(ctx);
  if (s.next && !(*s.last == key)) s.drop_next();
  s.count.write(n);
  if (n && !in.on_device) ctx.write(s.a, 0, in.host, n * 4);
  if (s.next) {
    // Recorded while the GPU ran the previous run: the queued writes above (count, host input) come before it.
    s.result_in_a = s.next_in_a;
    s.dispatches = s.next_dispatches;
    backend.submit_chain(ctx, s.next);
  } else {
    WGPUCommandEncoder enc = backend.begin_chain(ctx);
    s.dispatches = 0;  // until this run's recording is whole
    try {
      const std::uint64_t d0 = dispatches_recorded(ctx);
      s.result_in_a = s.record(enc, in);
      s.dispatches = dispatches_recorded(ctx) - d0;
      if (enc) ctx.submit(enc);
    } catch (...) {
      // Releases the encoder (what it holds is whole steps before the failing one); the first error is the one
      // to report.
      if (enc) try { ctx.submit(enc); } catch (...) {}
      throw;
    }
  }
  s.created = kernels_created(ctx) - before;
  // A replay (this run's key is the last one's): record the next run now, while the GPU runs this one.
  const bool replay = s.last && *s.last == key;
  s.last = key;
  if (!replay) return;
  // Only an early recording that fails is given up, unrun (its steps would overwrite this run's results); the next
  // run records again and reports what is wrong then (an error of the device meanwhile is reported by the next call
  // that checks, as any call's).
  WGPUCommandEncoder enc = nullptr;
  try {
    enc = backend.begin_early_chain(ctx, in.on_device ? &in.view : nullptr);
  } catch (...) {
    return;
  }
  if (!enc) return;
  try {
    const std::uint64_t d0 = dispatches_recorded(ctx);
    s.next_in_a = s.record(enc, in);
    s.next_dispatches = dispatches_recorded(ctx) - d0;
  } catch (...) {
    finished_commands unfinished;
    unfinished.enc = enc;
    unfinished.owner = ctx.id();
    backend.drop_chain(unfinished);
    return;
  }
  try {
    s.next = backend.finish_chain(ctx, enc, in.on_device ? &in.view : nullptr);  // released there if it fails
  } catch (...) {
  }
}

void pipeline::read_output(void* dst, std::size_t n) {
  if (!n) return;
  s_->ctx->read(s_->result_in_a ? s_->a : s_->b, 0, dst, std::uint64_t(n) * 4);
}

std::vector<std::uint32_t> pipeline::reference(const std::uint32_t* bits, std::size_t n) const {
  std::vector<std::uint32_t> x(bits, bits + n), y(n);
  for (const step& st : s_->steps) {
    switch (st.kind) {
      case step_kind::select_if:
        x.resize(reference::select_if(x.data(), x.size(), bound_predicate(*st.pred, s_->type), y.data()));
        std::copy(y.begin(), y.begin() + x.size(), x.begin());
        break;
      case step_kind::unique:
        x.resize(reference::unique(x.data(), x.size(), s_->type, y.data()));
        std::copy(y.begin(), y.begin() + x.size(), x.begin());
        break;
      case step_kind::sort:
        reference::stable_sort_bits(x.data(), x.size(), s_->type, st.order.direction == order::descending,
                              st.order.begin_bit, st.order.end_bit);
        break;
    }
  }
  return x;
}

}  // namespace wgprim
