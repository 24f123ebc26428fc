// wgprim._wgprim: the NumPy-shaped binding of the C++ library (nanobind). Arrays come in without a copy (NumPy,
// the buffer protocol or DLPack: any C-contiguous array on the CPU) or as DeviceArray (data already on the GPU);
// results go out as NumPy arrays and scalars, or as DeviceArray when the input was one. The GIL is released while
// the GPU works; a wgprim::context is not thread-safe, so every Device has a mutex that each call holds.
// The Python package (python/wgprim/__init__.py) adds histogram's NumPy rules, Error and the bench on top.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>
#include <wgprim/pipeline.hpp>
#include <wgprim/wgprim.hpp>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/parallel_scan.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <execution>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using wgprim::dtype;
using wgprim::errc;

// ---- The one table of element types: wgprim::dtype, C++ type, NumPy's kind and bits, NumPy's name. A type the
// library gains is one line here and one in python/tests/test_wgprim.py; any other dtype is refused with the
// conversion to ask for. Every function takes every type here; the library refuses (wgprim.Error, errc
// unsupported) what it does not run: 64-bit types need a WebGPU device with shader-f64 / shader-int64 (sort and
// argsort only a WebGPU device), the packed f16/u8/i8 run reduce and scan only, widened to f32/u32/i32.
#define WGPRIM_PY_DTYPES(X)                      \
  X(f32, float, Float, 32, "float32")            \
  X(i32, std::int32_t, Int, 32, "int32")         \
  X(u32, std::uint32_t, UInt, 32, "uint32")      \
  X(f64, double, Float, 64, "float64")           \
  X(i64, std::int64_t, Int, 64, "int64")         \
  X(u64, std::uint64_t, UInt, 64, "uint64")      \
  X(f16, wgprim::half, Float, 16, "float16")     \
  X(u8, std::uint8_t, UInt, 8, "uint8")          \
  X(i8, std::int8_t, Int, 8, "int8")

template <class T> struct type_tag { using type = T; };

/// Calls f(type_tag<T>{}) with the C++ type of t.
template <class F>
decltype(auto) visit(dtype t, F&& f) {
  switch (t) {
#define WGPRIM_CASE(name, T, kind, bits, np_name) \
  case dtype::name: return f(type_tag<T>{});
    WGPRIM_PY_DTYPES(WGPRIM_CASE)
#undef WGPRIM_CASE
    default: break;
  }
  throw wgprim::error(errc::unsupported, "wgprim (Python): no binding for element type " +
                                             std::string(wgprim::dtype_name(t)));
}

const char* numpy_name(dtype t) {
  switch (t) {
#define WGPRIM_CASE(name, T, kind, bits, np_name) \
  case dtype::name: return np_name;
    WGPRIM_PY_DTYPES(WGPRIM_CASE)
#undef WGPRIM_CASE
    default: return wgprim::dtype_name(t);
  }
}

nb::dlpack::dtype dlpack_of(dtype t) {
  switch (t) {
#define WGPRIM_CASE(name, T, kind, bits, np_name) \
  case dtype::name: return nb::dlpack::dtype{std::uint8_t(nb::dlpack::dtype_code::kind), bits, 1};
    WGPRIM_PY_DTYPES(WGPRIM_CASE)
#undef WGPRIM_CASE
    default: break;
  }
  throw wgprim::error(errc::unsupported, "wgprim (Python): no NumPy type for " + std::string(wgprim::dtype_name(t)));
}

std::size_t elem_bytes(dtype t) {
  return visit(t, [](auto tag) { return sizeof(typename decltype(tag)::type); });
}

/// NumPy's name of a DLPack type, for messages about types wgprim does not take.
std::string dlpack_name(nb::dlpack::dtype d) {
  std::string kind;
  switch (nb::dlpack::dtype_code(d.code)) {
    case nb::dlpack::dtype_code::Int: kind = "int"; break;
    case nb::dlpack::dtype_code::UInt: kind = "uint"; break;
    case nb::dlpack::dtype_code::Float: kind = "float"; break;
    case nb::dlpack::dtype_code::Complex: kind = "complex"; break;
    case nb::dlpack::dtype_code::Bool: return "bool";
    default: kind = "code" + std::to_string(d.code) + "_";
  }
  return kind + std::to_string(d.bits);
}

/// The wgprim type of a DLPack type, or a wgprim::error naming it and the conversion to ask for (never a silent
/// conversion: float64 -> float32 loses digits, int64 -> int32 may wrap).
dtype dtype_from(nb::dlpack::dtype d, const char* what) {
#define WGPRIM_CASE(name, T, kind, bits_, np_name) \
  if (d.code == std::uint8_t(nb::dlpack::dtype_code::kind) && d.bits == bits_ && d.lanes == 1) return dtype::name;
  WGPRIM_PY_DTYPES(WGPRIM_CASE)
#undef WGPRIM_CASE
  std::string taken;
#define WGPRIM_CASE(name, T, kind, bits, np_name) taken += std::string(taken.empty() ? "" : ", ") + np_name;
  WGPRIM_PY_DTYPES(WGPRIM_CASE)
#undef WGPRIM_CASE
  const auto code = nb::dlpack::dtype_code(d.code);
  const char* to = code == nb::dlpack::dtype_code::Float || code == nb::dlpack::dtype_code::Complex ? "np.float32"
                   : code == nb::dlpack::dtype_code::UInt                                          ? "np.uint32"
                                                                                                   : "np.int32";
  throw wgprim::error(errc::unsupported, std::string(what) + ": dtype " + dlpack_name(d) +
                                                  " is not supported (wgprim takes " + taken +
                                                  "); convert explicitly, e.g. a.astype(" + to + ")");
}

// ---- Devices and device arrays ----

struct py_device {
  wgprim::context ctx;
  std::mutex mu;  // a context is not thread-safe: every use holds this
  explicit py_device(const wgprim::context_options& o) : ctx(o) {}
};
using device_ptr = std::shared_ptr<py_device>;

std::mutex default_mu;
device_ptr default_dev;

device_ptr default_device() {
  // The GIL goes first: a thread that waits for default_mu must not hold it while the creator needs it back.
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(default_mu);
  if (!default_dev) default_dev = std::make_shared<py_device>(wgprim::context_options{});
  return default_dev;
}

/// Elements on the GPU: a buffer of one Device, its dtype and NumPy shape (C order).
struct py_array {
  device_ptr dev;  // declared before buf: the context outlives the buffer
  wgprim::buffer buf;
  dtype type = dtype::f32;
  std::vector<std::size_t> shape;
  std::size_t n = 0;
  py_array() = default;
  py_array(const py_array&) = delete;
  ~py_array() {
    // Released under the device's lock like every other use of the context. Whoever holds the lock is in GPU
    // work that needs no GIL, so waiting here with the GIL held cannot deadlock.
    if (dev && buf) {
      std::lock_guard<std::mutex> lock(dev->mu);
      buf = wgprim::buffer();
    }
  }
};

py_array* new_array(const device_ptr& dev, dtype t, std::vector<std::size_t> shape) {
  auto a = std::make_unique<py_array>();
  a->dev = dev;
  a->type = t;
  a->n = 1;
  for (std::size_t s : shape) a->n *= s;
  a->shape = std::move(shape);
  // Whole 32-bit words, at least one: a buffer of zero bytes is not a valid binding, and packed f16/u8/i8 are
  // read and written as words (the padding is zero).
  const std::uint64_t bytes = std::max<std::uint64_t>(4, (std::uint64_t(a->n) * elem_bytes(t) + 3) / 4 * 4);
  {
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(dev->mu);
    a->buf = dev->ctx.create_buffer(bytes);
  }
  return a.release();
}

using host_array = nb::ndarray<nb::ro, nb::device::cpu>;

/// A function argument: host memory (borrowed, not copied) or a DeviceArray.
struct input {
  host_array host;  // keeps the Python object alive
  const void* data = nullptr;
  py_array* dev = nullptr;
  dtype type = dtype::f32;
  std::vector<std::size_t> shape;
  std::size_t n = 0;
};

input as_input(nb::handle h, const char* what) {
  input in;
  if (nb::isinstance<py_array>(h)) {
    in.dev = nb::inst_ptr<py_array>(h);
    in.type = in.dev->type;
    in.shape = in.dev->shape;
    in.n = in.dev->n;
    return in;
  }
  if (!nb::try_cast<host_array>(h, in.host, false))
    throw wgprim::error(errc::invalid_argument,
                        std::string(what) + ": expected an array (NumPy, buffer protocol or DLPack, on the CPU) or a "
                        "wgprim.DeviceArray, got " + std::string(nb::type_name(h.type()).c_str()));
  in.type = dtype_from(in.host.dtype(), what);
  in.n = 1;
  for (std::size_t i = 0; i < in.host.ndim(); ++i) in.shape.push_back(in.host.shape(i));
  for (std::size_t s : in.shape) in.n *= s;
  // C-contiguous: strides (in elements) are the running products of the shape, ignoring extents of 1 (and any
  // strides of an empty array).
  std::int64_t expect = 1;
  for (std::size_t i = in.host.ndim(); in.n && i-- > 0;) {
    const std::size_t s = in.shape[i];
    if (s != 1 && in.host.stride(i) != expect)
      throw wgprim::error(errc::invalid_argument, std::string(what) +
                                                      ": the array is not C-contiguous; pass np.ascontiguousarray(a)");
    expect *= std::int64_t(s);
  }
  in.data = in.host.data();
  return in;
}

/// The Device a call runs on: that of its device-array inputs (all the same), else `device`, else the default.
device_ptr pick_device(std::initializer_list<const input*> ins, const std::optional<device_ptr>& device) {
  device_ptr d = device && *device ? *device : nullptr;
  for (const input* i : ins) {
    if (!i || !i->dev) continue;
    if (d && d != i->dev->dev)
      throw wgprim::error(errc::invalid_argument, "arrays of different wgprim.Device objects in one call");
    d = i->dev->dev;
  }
  return d ? d : default_device();
}

/// Host memory for a NumPy result, owned by a capsule (the NumPy array's base).
struct host_out {
  void* data = nullptr;
  nb::capsule owner;
  nb::dlpack::dtype type;
  std::vector<std::size_t> shape;
  host_out(nb::dlpack::dtype t, std::vector<std::size_t> s) : type(t), shape(std::move(s)) {
    std::size_t n = 1;
    for (std::size_t x : shape) n *= x;
    auto* p = new std::uint8_t[std::max<std::size_t>(8, n * (t.bits / 8))];
    data = p;
    owner = nb::capsule(p, [](void* q) noexcept { delete[] static_cast<std::uint8_t*>(q); });
  }
  host_out(dtype t, std::vector<std::size_t> s) : host_out(dlpack_of(t), std::move(s)) {}
  nb::object numpy() const {
    nb::ndarray<nb::numpy> a(data, shape.size(), shape.data(), owner, nullptr, type);
    nb::object r = nb::cast(a, nb::rv_policy::reference);
    // nanobind names 64-bit integers 'q'/'Q' (long long), which on Linux is not np.int64 ('l'): the same bits,
    // but its scalars fail isinstance(x, np.int64). NumPy's canonical 64-bit types instead.
    const auto code = nb::dlpack::dtype_code(type.code);
    if (type.bits == 64 && (code == nb::dlpack::dtype_code::Int || code == nb::dlpack::dtype_code::UInt))
      r = r.attr("view")(code == nb::dlpack::dtype_code::Int ? "int64" : "uint64");
    return r;
  }
};

/// A NumPy scalar of type t holding the bytes at p (exact bits: NaN payloads and -0.0 survive).
nb::object scalar(dtype t, const void* p) {
  host_out o(t, {});
  std::memcpy(o.data, p, elem_bytes(t));
  return o.numpy().attr("__getitem__")(nb::tuple());
}

/// Copies `bytes` host bytes to the start of a buffer made by new_array (whole words: the last one zero-padded).
void write_words(wgprim::context& ctx, wgprim::buffer& buf, const void* data, std::uint64_t bytes) {
  const std::uint64_t whole = bytes / 4 * 4;
  if (whole) ctx.write(buf, 0, data, whole);
  if (whole == bytes) return;
  std::uint8_t tail[4] = {};
  std::memcpy(tail, static_cast<const std::uint8_t*>(data) + whole, bytes - whole);
  ctx.write(buf, whole, tail, 4);
}
/// The inverse: `bytes` bytes from the start of a buffer into host memory of exactly that size.
void read_words(wgprim::context& ctx, const wgprim::buffer& buf, void* data, std::uint64_t bytes) {
  const std::uint64_t whole = bytes / 4 * 4;
  if (whole) ctx.read(buf, 0, data, whole);
  if (whole == bytes) return;
  std::uint8_t tail[4] = {};
  ctx.read(buf, whole, tail, 4);
  std::memcpy(static_cast<std::uint8_t*>(data) + whole, tail, bytes - whole);
}

/// Entries into GPU work, and those of them made without the GIL (PyGILState_Check): the tests compare the two.
std::atomic<std::uint64_t> gpu_entries{0}, gpu_entries_without_gil{0};

/// Runs f() with the GIL released and the device's lock held.
template <class F>
decltype(auto) on_device(py_device& d, F&& f) {
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(d.mu);
  gpu_entries.fetch_add(1, std::memory_order_relaxed);
  if (!PyGILState_Check()) gpu_entries_without_gil.fetch_add(1, std::memory_order_relaxed);
  try {
    return f();
  } catch (const wgprim::error& e) {
    // The library names its C++ way out (context_options::backend); a Python caller needs the binding's.
    if (e.code() == errc::unsupported && d.ctx.backend() == wgprim::backend_choice::native &&
        std::string(e.what()).find("native CPU backend") != std::string::npos)
      throw wgprim::error(errc::unsupported,
                          std::string(e.what()) + "; in Python: device=wgprim.Device(backend='webgpu')");
    throw;
  }
}

template <class T> wgprim::host_span<const T> host_in(const input& in) {
  return wgprim::host_span<const T>(static_cast<const T*>(in.data), in.n);
}
template <class T> wgprim::device_span<const T> dev_in(const input& in) {
  return wgprim::device_span<const T>(in.dev->buf, 0, in.n);
}

/// An output of n elements of type t: a DeviceArray when the input was on the device, else NumPy memory.
struct result_1d {
  std::optional<host_out> host;
  std::unique_ptr<py_array> dev;
  std::size_t n;
  result_1d(bool on_device, const device_ptr& d, dtype t, std::size_t count) : n(count) {
    if (on_device) dev.reset(new_array(d, t, {n}));
    else host.emplace(t, std::vector<std::size_t>{n});
  }
  template <class T> wgprim::device_span<T> dspan() { return wgprim::device_span<T>(dev->buf, 0, n); }
  template <class T> wgprim::host_span<T> hspan() { return {static_cast<T*>(host->data), n}; }
  /// The first `kept` elements (select: the output was sized for all of them).
  nb::object finish(std::size_t kept) {
    if (dev) {
      dev->n = kept;
      dev->shape = {kept};
      return nb::cast(std::move(dev));
    }
    host->shape = {kept};
    return host->numpy();
  }
  nb::object finish() { return finish(n); }
};

// ---- Operators and options ----

std::string identity_text(nb::handle identity) {
  if (identity.is_none()) return "";
  if (nb::isinstance<nb::str>(identity)) return nb::cast<std::string>(identity);
  if (nb::isinstance<nb::bool_>(identity))
    throw wgprim::error(errc::invalid_argument, "identity=: a number or its text, not a bool");
  // repr of a Python or NumPy number: the shortest round-trip text of a float ('inf', '-inf', 'nan', '1e+30'),
  // the digits of an integer.
  nb::object num = nb::module_::import_("operator").attr("index");
  if (nb::hasattr(identity, "__index__")) return nb::cast<std::string>(nb::repr(num(identity)));
  return nb::cast<std::string>(nb::repr(nb::float_(identity)));
}

wgprim::op make_op(const std::string& name, nb::handle identity) {
  const std::string id = identity_text(identity);
  const bool builtin = name == "sum" || name == "min" || name == "max" || name == "and" || name == "or" ||
                       name == "xor" || name == "prod";
  if (builtin) {
    if (!id.empty())
      throw wgprim::error(errc::invalid_argument,
                          "identity= is only for custom expressions; '" + name + "' has its own");
    if (name == "prod") return wgprim::op::custom("a * b", "1");
    return wgprim::op::parse(name);
  }
  const bool looks_like_expression =
      name.find_first_of("()+-*/%&|^<>!~, ") != std::string::npos || name == "a" || name == "b";
  if (!looks_like_expression)
    throw wgprim::error(errc::invalid_argument, "unknown operator '" + wgprim::detail::excerpt(name) +
                                                    "' (expected sum, prod, min, max, and, or, xor, or an "
                                                    "expression in a and b with identity=)");
  if (id.empty())
    throw wgprim::error(errc::invalid_argument, "custom operator '" + wgprim::detail::excerpt(name) +
                                                    "' needs identity= (e.g. identity='-inf' for max(a, b))");
  return wgprim::op::custom(name, id);
}

wgprim::run_options options(const std::string& accuracy, bool check) {
  wgprim::run_options o;
  o.accuracy = wgprim::parse_accuracy(accuracy);
  o.check_operator = check;
  return o;
}

using opt_device = std::optional<device_ptr>;

// ---- Functions ----

nb::object reduce(nb::handle a, const std::string& op_name, nb::handle identity, const std::string& accuracy,
                  bool check, opt_device device, const char* what = "reduce") {
  const input in = as_input(a, what);
  const device_ptr dev = pick_device({&in}, device);
  const wgprim::op o = make_op(op_name, identity);
  const wgprim::run_options opt = options(accuracy, check);
  // The library's result type: the accumulation type (f16 -> float32, u8 -> uint32, i8 -> int32; the others
  // themselves). min, max and the bitwise operators of a packed type give a value of the input's type, which
  // comes back in that type as NumPy's does; sums and products stay in the wider type.
  const bool same_type = op_name == "min" || op_name == "max" || op_name == "and" || op_name == "or" ||
                         op_name == "xor";
  const dtype out_type = same_type ? in.type : wgprim::accumulation_type(in.type);
  std::uint8_t result[16] = {};
  on_device(*dev, [&] {
    visit(in.type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using A = wgprim::accumulation_t<T>;
      const A r = in.dev ? wgprim::reduce(dev->ctx, dev_in<T>(in), o, opt)
                         : wgprim::reduce(dev->ctx, host_in<T>(in), o, opt);
      if (out_type == in.type && !std::is_same_v<A, T>) {
        // Exact for a min, max or bitwise result of T values; an empty array's result is the wider type's
        // identity, which the clamp turns into T's own (min of no int8: 127, max: -128, and of no uint8: 255).
        T narrow(r);
        if constexpr (std::is_integral_v<T>) {
          if (r > static_cast<A>(std::numeric_limits<T>::max())) narrow = std::numeric_limits<T>::max();
          if (r < static_cast<A>(std::numeric_limits<T>::lowest())) narrow = std::numeric_limits<T>::lowest();
        }
        std::memcpy(result, &narrow, sizeof(T));
      } else {
        std::memcpy(result, &r, sizeof(A));
      }
    });
  });
  return scalar(out_type, result);
}

/// np.min / np.max: an empty array has no minimum (NumPy raises; wgprim.reduce(op='min') gives the identity).
nb::object extreme(nb::handle a, const char* name, opt_device device) {
  if (as_input(a, name).n == 0)
    throw wgprim::error(errc::invalid_argument, std::string(name) + " of an empty array (as NumPy; reduce(a, op='" +
                                                    name + "') gives the identity)");
  return reduce(a, name, nb::none(), "fast", true, device, name);
}

std::int64_t arg_reduce(nb::handle a, bool is_max, opt_device device) {
  const input in = as_input(a, is_max ? "argmax" : "argmin");
  const device_ptr dev = pick_device({&in}, device);
  return on_device(*dev, [&] {
    return visit(in.type, [&](auto tag) -> std::int64_t {
      using T = typename decltype(tag)::type;
      // The library's arg_reduce templates are 32-bit only (they do not compile for other types): the same
      // refusal its run-time check gives.
      if constexpr (sizeof(T) != 4) {
        if (in.dev || !std::is_arithmetic_v<T>)
          throw wgprim::error(errc::unsupported, std::string("arg_reduce does not support ") +
                                                     wgprim::dtype_name(in.type) +
                                                     " elements yet (it takes f32, i32 and u32)");
        // A host array of another type: NumPy's rule on the host (the first NaN, else the first extreme).
        std::size_t best = 0;
        if constexpr (std::is_arithmetic_v<T>) {
          const T* x = static_cast<const T*>(in.data);
          for (std::size_t i = 0; i < in.n; ++i) {
            if constexpr (std::is_floating_point_v<T>) {
              if (x[i] != x[i]) return std::int64_t(i);
            }
            if (is_max ? x[best] < x[i] : x[i] < x[best]) best = i;
          }
        }
        return std::int64_t(best);
      } else {
        wgprim::arg_result<T> r{};
        if (in.dev) r = is_max ? wgprim::argmax(dev->ctx, dev_in<T>(in)) : wgprim::argmin(dev->ctx, dev_in<T>(in));
        else r = is_max ? wgprim::argmax(dev->ctx, host_in<T>(in)) : wgprim::argmin(dev->ctx, host_in<T>(in));
        return std::int64_t(r.index);
      }
    });
  });
}

nb::object scan(nb::handle a, bool inclusive, const std::string& op_name, nb::handle identity,
                const std::string& accuracy, bool check, opt_device device) {
  const input in = as_input(a, inclusive ? "inclusive_scan" : "exclusive_scan");
  const device_ptr dev = pick_device({&in}, device);
  const wgprim::op o = make_op(op_name, identity);
  const wgprim::run_options opt = options(accuracy, check);
  const wgprim::scan_kind kind = inclusive ? wgprim::scan_kind::inclusive : wgprim::scan_kind::exclusive;
  // The output has the accumulation type (f16 -> float32, u8 -> uint32, i8 -> int32; the others themselves).
  result_1d out(in.dev, dev, wgprim::accumulation_type(in.type), in.n);
  on_device(*dev, [&] {
    visit(in.type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using A = wgprim::accumulation_t<T>;
      if (in.dev) wgprim::scan(dev->ctx, dev_in<T>(in), out.dspan<A>(), kind, o, opt);
      else wgprim::scan(dev->ctx, host_in<T>(in), out.hspan<A>(), kind, o, opt);
    });
  });
  return out.finish();
}

void require_1d(const input& in, const char* what) {
  if (in.shape.size() > 1)
    throw wgprim::error(errc::invalid_argument, std::string(what) +
                                                    " takes a 1-D array (NumPy's sorts along the last axis; pass "
                                                    "a.ravel() to sort all elements)");
}

/// The sort's order with CUB's begin_bit / end_bit (end_bit None: the key's width; the library checks the range).
wgprim::sort_order sort_order_of(bool descending, unsigned begin_bit, std::optional<unsigned> end_bit) {
  if (end_bit && *end_bit == 0)
    throw wgprim::error(errc::invalid_argument, "sort: end_bit must be above begin_bit (0 <= begin_bit < end_bit)");
  return {descending ? wgprim::order::descending : wgprim::order::ascending, begin_bit, end_bit.value_or(0)};
}

/// A copy of a sorted by a comparator expression in a and b (a stable merge sort).
nb::object comparator_sort_py(const input& in, const std::string& less, opt_device device) {
  const device_ptr dev = pick_device({&in}, device);
  const wgprim::comparator c = wgprim::comparator::expr(less);
  result_1d out(in.dev, dev, in.type, in.n);
  on_device(*dev, [&] {
    visit(in.type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (in.dev) {
        wgprim::copy(dev->ctx, dev_in<T>(in), out.dspan<T>());
        wgprim::sort(dev->ctx, out.dspan<T>(), c);
      } else {
        const wgprim::host_span<const T> x = host_in<T>(in);
        std::copy(x.data(), x.data() + in.n, out.hspan<T>().data());
        wgprim::sort(dev->ctx, out.hspan<T>(), c);
      }
    });
  });
  return out.finish();
}

// A copy of a sorted by segments (defined below, after the index inputs it takes).
nb::object segmented_sort_py(const input& in, nb::handle offsets, const wgprim::sort_order& ord, opt_device device);

nb::object sort(nb::handle a, bool descending, unsigned begin_bit, std::optional<unsigned> end_bit,
                nb::handle offsets, std::optional<std::string> less, opt_device device) {
  const input in = as_input(a, "sort");
  require_1d(in, "sort");
  const wgprim::sort_order ord = sort_order_of(descending, begin_bit, end_bit);
  if (less) {
    if (!offsets.is_none() || descending || begin_bit || end_bit)
      throw wgprim::error(errc::invalid_argument, "sort: less= gives the order (no offsets, descending or bits)");
    return comparator_sort_py(in, *less, device);
  }
  if (!offsets.is_none()) return segmented_sort_py(in, offsets, ord, device);
  const device_ptr dev = pick_device({&in}, device);
  result_1d out(in.dev, dev, in.type, in.n);
  on_device(*dev, [&] {
    visit(in.type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (in.dev) wgprim::sort(dev->ctx, dev_in<T>(in), out.dspan<T>(), ord);
      else wgprim::sort(dev->ctx, host_in<T>(in), out.hspan<T>(), ord);
    });
  });
  return out.finish();
}

/// The indices of the stable sort, through sort_pairs of the keys with 0..n-1. NumPy input: int64 indices
/// (np.intp, as np.argsort gives); DeviceArray input: a uint32 DeviceArray (indices up to 2^32 - 1).
nb::object argsort(nb::handle a, bool descending, unsigned begin_bit, std::optional<unsigned> end_bit,
                   opt_device device) {
  const input in = as_input(a, "argsort");
  require_1d(in, "argsort");
  const device_ptr dev = pick_device({&in}, device);
  const wgprim::sort_order ord = sort_order_of(descending, begin_bit, end_bit);
  if (in.n > 0xffffffffull) throw wgprim::error(errc::limit, "argsort: more than 2^32 - 1 elements");
  if (in.dev) {
    std::unique_ptr<py_array> keys(new_array(dev, in.type, {in.n})), iota(new_array(dev, dtype::u32, {in.n}));
    std::unique_ptr<py_array> idx(new_array(dev, dtype::u32, {in.n}));
    on_device(*dev, [&] {
      std::vector<std::uint32_t> seq(in.n);
      for (std::size_t i = 0; i < in.n; ++i) seq[i] = std::uint32_t(i);
      if (in.n) dev->ctx.write(iota->buf, 0, seq.data(), seq.size() * 4);
      visit(in.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        wgprim::sort_pairs(dev->ctx, dev_in<T>(in), wgprim::device_span<const std::uint32_t>(iota->buf, 0, in.n),
                           wgprim::device_span<T>(keys->buf, 0, in.n),
                           wgprim::device_span<std::uint32_t>(idx->buf, 0, in.n), ord);
      });
    });
    return nb::cast(std::move(idx));
  }
  host_out out(nb::dlpack::dtype{std::uint8_t(nb::dlpack::dtype_code::Int), 64, 1}, {in.n});
  on_device(*dev, [&] {
    std::vector<std::uint32_t> seq(in.n), idx(in.n);
    for (std::size_t i = 0; i < in.n; ++i) seq[i] = std::uint32_t(i);
    visit(in.type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      std::vector<T> keys(in.n);
      wgprim::sort_pairs(dev->ctx, host_in<T>(in), wgprim::host_span<const std::uint32_t>(seq.data(), in.n), keys,
                         idx, ord);
    });
    auto* o = static_cast<std::int64_t*>(out.data);
    for (std::size_t i = 0; i < in.n; ++i) o[i] = idx[i];
  });
  return out.numpy();
}

/// Reads integer index data of any NumPy integer type (offsets, masks) into u32, refusing values out of range.
std::vector<std::uint32_t> host_u32(const host_array& h, std::size_t n, const char* what, bool allow_bool) {
  const nb::dlpack::dtype d = h.dtype();
  const auto code = nb::dlpack::dtype_code(d.code);
  const bool is_int = code == nb::dlpack::dtype_code::Int || code == nb::dlpack::dtype_code::UInt;
  const bool is_bool = code == nb::dlpack::dtype_code::Bool && d.bits == 8;
  if (!(is_int && (d.bits == 8 || d.bits == 16 || d.bits == 32 || d.bits == 64)) && !(allow_bool && is_bool))
    throw wgprim::error(errc::invalid_argument, std::string(what) + ": dtype " + dlpack_name(d) + " is not " +
                                                    (allow_bool ? "bool or an integer type" : "an integer type"));
  std::vector<std::uint32_t> out(n);
  const auto* p = static_cast<const std::uint8_t*>(h.data());
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t v = 0;
    std::uint64_t u = 0;
    const bool sig = code == nb::dlpack::dtype_code::Int;
    switch (d.bits) {
      case 8: if (sig) v = reinterpret_cast<const std::int8_t*>(p)[i]; else u = p[i]; break;
      case 16: if (sig) v = reinterpret_cast<const std::int16_t*>(p)[i]; else u = reinterpret_cast<const std::uint16_t*>(p)[i]; break;
      case 32: if (sig) v = reinterpret_cast<const std::int32_t*>(p)[i]; else u = reinterpret_cast<const std::uint32_t*>(p)[i]; break;
      default: if (sig) v = reinterpret_cast<const std::int64_t*>(p)[i]; else u = reinterpret_cast<const std::uint64_t*>(p)[i];
    }
    if (sig) {
      if (v < 0) throw wgprim::error(errc::invalid_argument, std::string(what) + "[" + std::to_string(i) + "] = " +
                                                                 std::to_string(v) + " is negative");
      u = std::uint64_t(v);
    }
    if (u > 0xffffffffull)
      throw wgprim::error(errc::invalid_argument,
                          std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(u) + " exceeds 2^32 - 1");
    out[i] = std::uint32_t(u);
  }
  return out;
}

/// A u32 index argument (offsets, flags): a uint32 DeviceArray, or a host array of any integer type (read into u32).
struct index_input {
  input arr;
  std::vector<std::uint32_t> words;  // host data, when not a DeviceArray
};
index_input as_index(nb::handle h, const char* what, bool allow_bool) {
  index_input r;
  if (nb::isinstance<py_array>(h)) {
    r.arr = as_input(h, what);
    if (r.arr.type != dtype::u32)
      throw wgprim::error(errc::invalid_argument, std::string(what) + ": a DeviceArray of uint32 is needed, got " +
                                                      numpy_name(r.arr.type));
    return r;
  }
  // Index data is small metadata: a Python sequence is taken too (through np.asarray), unlike the data itself.
  nb::object held = nb::borrow(h);
  if (nb::isinstance<nb::list>(h) || nb::isinstance<nb::tuple>(h))
    held = nb::module_::import_("numpy").attr("asarray")(h);
  if (!nb::try_cast<host_array>(held, r.arr.host, false))
    throw wgprim::error(errc::invalid_argument, std::string(what) + ": expected an array or a list");
  std::size_t n = 1;
  for (std::size_t i = 0; i < r.arr.host.ndim(); ++i) r.arr.shape.push_back(r.arr.host.shape(i));
  for (std::size_t s : r.arr.shape) n *= s;
  std::int64_t expect = 1;
  for (std::size_t i = r.arr.host.ndim(); n && i-- > 0;) {
    const std::size_t s = r.arr.shape[i];
    if (s != 1 && r.arr.host.stride(i) != expect)
      throw wgprim::error(errc::invalid_argument, std::string(what) + ": the array is not C-contiguous");
    expect *= std::int64_t(s);
  }
  r.arr.n = n;
  r.words = host_u32(r.arr.host, n, what, allow_bool);
  r.arr.data = r.words.data();
  r.arr.type = dtype::u32;
  return r;
}

/// The index data on the side of the values: uploads host words when the values are on the device.
struct index_on_side {
  std::unique_ptr<py_array> uploaded;
  const input* src;
  index_on_side(const index_input& ix, bool values_on_device, const device_ptr& dev, const char* what)
      : src(&ix.arr) {
    if (ix.arr.dev && !values_on_device)
      throw wgprim::error(errc::invalid_argument, std::string(what) +
                                                      " is a DeviceArray but the data is not: pass both on the same "
                                                      "side (wgprim.asarray(a))");
    if (values_on_device && !ix.arr.dev) {
      uploaded.reset(new_array(dev, dtype::u32, {ix.arr.n}));
      on_device(*dev, [&] {
        if (ix.arr.n) dev->ctx.write(uploaded->buf, 0, ix.words.data(), ix.words.size() * 4);
      });
    }
  }
  wgprim::device_span<const std::uint32_t> dspan() const {
    return wgprim::device_span<const std::uint32_t>(uploaded ? uploaded->buf : src->dev->buf, 0, src->n);
  }
  wgprim::host_span<const std::uint32_t> hspan() const {
    return {static_cast<const std::uint32_t*>(src->data), src->n};
  }
};

/// A copy of a sorted by segments (CSR offsets: n_segments + 1), each segment on its own (segmented_sort).
nb::object segmented_sort_py(const input& in, nb::handle offsets, const wgprim::sort_order& ord, opt_device device) {
  const index_input off = as_index(offsets, "sort: offsets", false);
  if (off.arr.n == 0)
    throw wgprim::error(errc::invalid_argument, "sort: offsets needs at least one element (n_segments + 1)");
  const device_ptr dev = pick_device({&in, &off.arr}, device);
  const index_on_side side(off, bool(in.dev), dev, "sort: offsets");
  result_1d out(in.dev, dev, in.type, in.n);
  on_device(*dev, [&] {
    visit(in.type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (in.dev) {
        wgprim::copy(dev->ctx, dev_in<T>(in), out.dspan<T>());
        wgprim::segmented_sort(dev->ctx, out.dspan<T>(), side.dspan(), ord);
      } else {
        const wgprim::host_span<const T> x = host_in<T>(in);
        std::copy(x.data(), x.data() + in.n, out.hspan<T>().data());
        wgprim::segmented_sort(dev->ctx, out.hspan<T>(), side.hspan(), ord);
      }
    });
  });
  return out.finish();
}


/// a[condition]: condition is a predicate expression in `a` ("a > 0") or a mask of a's shape (bool, or integer:
/// nonzero keeps). The kept elements, in order, flattened in C order as NumPy's a[mask].
nb::object select_py(nb::handle a, nb::handle condition, opt_device device) {
  const input in = as_input(a, "select");
  std::optional<index_input> mask;
  if (!nb::isinstance<nb::str>(condition)) {
    mask = as_index(condition, "select: mask", true);
    if (mask->arr.shape != in.shape)
      throw wgprim::error(errc::invalid_argument, "select: the mask's shape differs from the array's");
  }
  const device_ptr dev = pick_device({&in, mask ? &mask->arr : nullptr}, device);
  std::optional<index_on_side> flags;
  if (mask) flags.emplace(*mask, bool(in.dev), dev, "select: mask");
  std::optional<wgprim::predicate> pred;
  if (!mask) pred = wgprim::predicate::expr(nb::cast<std::string>(condition));
  result_1d out(in.dev, dev, in.type, in.n);
  const std::size_t kept = on_device(*dev, [&] {
    return visit(in.type, [&](auto tag) -> std::size_t {
      using T = typename decltype(tag)::type;
      if (in.dev) {
        if (pred) return wgprim::select_if(dev->ctx, dev_in<T>(in), out.dspan<T>(), *pred);
        return wgprim::select_flagged(dev->ctx, dev_in<T>(in), flags->dspan(), out.dspan<T>());
      }
      if (pred) return wgprim::select_if(dev->ctx, host_in<T>(in), out.hspan<T>(), *pred);
      return wgprim::select_flagged(dev->ctx, host_in<T>(in), flags->hspan(), out.hspan<T>());
    });
  });
  return out.finish(kept);
}

/// out[s] = the reduction of a[offsets[s]:offsets[s+1]] (CSR offsets, n_segments + 1 of them).
nb::object segment_reduce(nb::handle a, nb::handle offsets, const std::string& op_name, nb::handle identity,
                          bool check, opt_device device) {
  const input in = as_input(a, "segment_reduce");
  const index_input off = as_index(offsets, "segment_reduce: offsets", false);
  if (off.arr.n == 0)
    throw wgprim::error(errc::invalid_argument, "segment_reduce: offsets needs at least one element (n_segments + 1)");
  const device_ptr dev = pick_device({&in, &off.arr}, device);
  const index_on_side side(off, bool(in.dev), dev, "segment_reduce: offsets");
  const wgprim::op o = make_op(op_name, identity);
  const wgprim::run_options opt = options("fast", check);
  result_1d out(in.dev, dev, in.type, off.arr.n - 1);
  on_device(*dev, [&] {
    visit(in.type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (in.dev) wgprim::segmented_reduce(dev->ctx, dev_in<T>(in), side.dspan(), out.dspan<T>(), o, opt);
      else wgprim::segmented_reduce(dev->ctx, host_in<T>(in), side.hspan(), out.hspan<T>(), o, opt);
    });
  });
  return out.finish();
}

// ---- Rows: the NumPy layer's reductions and scans along an axis ----
// python/wgprim/__init__.py moves the reduced axis last and copies to C order, so every call here sees `rows`
// rows of in.n / rows elements, already in the result's dtype (NumPy accumulates in it: int32 -> int64 sums).
// They run on the device when it takes the type (one row: reduce / scan with every accuracy mode; several: the
// segmented primitives); where the library refuses (errc::unsupported: the native backend's 64-bit types, custom
// operators over 64-bit types), the host loops below compute them with NumPy's semantics: pairwise float sums
// (NumPy's blocking of 8 lanes and 128 elements), wrapping integers, NaN-propagating min / max, scans in index
// order within blocks. They run on the oneTBB threads (the native backend's): rows in parallel, and a long row
// split into blocks (the float sum's pairwise tree split at its own halves, so its bits are NumPy's whatever the
// thread count; a float scan's blocks start from the sum of the blocks before them, within the sum's bound).

enum class row_op { sum, prod, min, max, bit_and, bit_or, bit_xor };

row_op parse_row_op(const std::string& name) {
  if (name == "sum") return row_op::sum;
  if (name == "prod") return row_op::prod;
  if (name == "min") return row_op::min;
  if (name == "max") return row_op::max;
  if (name == "and") return row_op::bit_and;
  if (name == "or") return row_op::bit_or;
  if (name == "xor") return row_op::bit_xor;
  throw wgprim::error(errc::invalid_argument, "unknown operator '" + wgprim::detail::excerpt(name) + "'");
}

template <class T> T host_identity(row_op o) {
  switch (o) {
    case row_op::sum: if constexpr (std::is_floating_point_v<T>) return T(-0.0); else return T(0);
    case row_op::prod: return T(1);
    case row_op::min: return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                                  : std::numeric_limits<T>::max();
    case row_op::max: return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                                  : std::numeric_limits<T>::lowest();
    case row_op::bit_and: if constexpr (std::is_integral_v<T>) return T(~T(0)); else return T(0);
    default: return T(0);
  }
}

template <row_op o, class T> T host_combine(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (o) {
      case row_op::sum: return a + b;
      case row_op::prod: return a * b;
      case row_op::min: return a != a ? a : b != b ? b : (b < a ? b : a);
      case row_op::max: return a != a ? a : b != b ? b : (a < b ? b : a);
      default: throw wgprim::error(errc::unsupported, "bitwise operators take integer types");
    }
  } else {
    using U = std::make_unsigned_t<T>;  // two's complement wrap-around, as NumPy's integer loops
    switch (o) {
      case row_op::sum: return T(U(a) + U(b));
      case row_op::prod: return T(U(a) * U(b));
      case row_op::min: return b < a ? b : a;
      case row_op::max: return a < b ? b : a;
      case row_op::bit_and: return T(a & b);
      case row_op::bit_or: return T(a | b);
      default: return T(a ^ b);
    }
  }
}

/// NumPy's pairwise summation (numpy/_core/src/umath/loops_utils.h.src): 8 lanes below 128 elements, halves above.
template <class T> T pairwise_sum(const T* x, std::size_t n) {
  if (n < 8) {
    T r = T(-0.0);
    for (std::size_t i = 0; i < n; ++i) r += x[i];
    return r;
  }
  if (n <= 128) {
    T r[8];
    for (int j = 0; j < 8; ++j) r[j] = x[j];
    std::size_t i = 8;
    for (; i + 8 <= n; i += 8)
      for (int j = 0; j < 8; ++j) r[j] += x[i + j];
    T s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) s += x[i];
    return s;
  }
  std::size_t half = n / 2;
  half -= half % 8;
  return pairwise_sum(x, half) + pairwise_sum(x + half, n - half);
}

/// Elements below which a host loop stays on one thread (a block of the parallel loops).
constexpr std::size_t host_block = std::size_t(1) << 15;

/// pairwise_sum with its top halves on the oneTBB threads: the same tree, so the same bits.
template <class T> T pairwise_sum_par(const T* x, std::size_t n) {
  if (n < 2 * host_block) return pairwise_sum(x, n);
  std::size_t half = n / 2;
  half -= half % 8;
  T a, b;
  tbb::parallel_invoke([&] { a = pairwise_sum_par(x, half); }, [&] { b = pairwise_sum_par(x + half, n - half); });
  return a + b;
}

/// Calls f(std::integral_constant<row_op, o>{}) for o: the loops below are instantiated per operator.
template <class F> void with_row_op(row_op o, F&& f) {
  switch (o) {
    case row_op::sum: return f(std::integral_constant<row_op, row_op::sum>{});
    case row_op::prod: return f(std::integral_constant<row_op, row_op::prod>{});
    case row_op::min: return f(std::integral_constant<row_op, row_op::min>{});
    case row_op::max: return f(std::integral_constant<row_op, row_op::max>{});
    case row_op::bit_and: return f(std::integral_constant<row_op, row_op::bit_and>{});
    case row_op::bit_or: return f(std::integral_constant<row_op, row_op::bit_or>{});
    case row_op::bit_xor: return f(std::integral_constant<row_op, row_op::bit_xor>{});
  }
}

template <row_op o, class T> T host_reduce(const T* x, std::size_t n) {
  if constexpr (std::is_floating_point_v<T> && o == row_op::sum) {
    return pairwise_sum(x, n);
  } else if constexpr (std::is_floating_point_v<T> && (o == row_op::min || o == row_op::max)) {
    // NaN apart (a flag the compiler vectorises with the comparisons): NumPy's result is NaN if any element is.
    T r = host_identity<T>(o);
    bool nan = false;
    for (std::size_t i = 0; i < n; ++i) {
      nan |= x[i] != x[i];
      r = o == row_op::min ? (x[i] < r ? x[i] : r) : (r < x[i] ? x[i] : r);
    }
    return nan ? std::numeric_limits<T>::quiet_NaN() : r;
  } else {
    T r = host_identity<T>(o);
    for (std::size_t i = 0; i < n; ++i) r = host_combine<o>(r, x[i]);
    return r;
  }
}

/// host_reduce over blocks on the oneTBB threads, merged in a tree that depends on n alone; float sums: the
/// pairwise tree (NumPy's bits).
template <row_op o, class T> T host_reduce_par(const T* x, std::size_t n) {
  if constexpr (std::is_floating_point_v<T> && o == row_op::sum) {
    return pairwise_sum_par(x, n);
  } else {
    if (n < 2 * host_block) return host_reduce<o>(x, n);
    struct part { T v; bool set; };
    return tbb::parallel_deterministic_reduce(
               tbb::blocked_range<std::size_t>(0, n, host_block), part{T{}, false},
               [&](const tbb::blocked_range<std::size_t>& r, part acc) {
                 const T here = host_reduce<o>(x + r.begin(), r.size());
                 return acc.set ? part{host_combine<o>(acc.v, here), true} : part{here, true};
               },
               [](part a, part b) {
                 if (!a.set) return b;
                 if (!b.set) return a;
                 return part{host_combine<o>(a.v, b.v), true};
               })
        .v;
  }
}

/// f(first, last) over the rows [0, rows) on the oneTBB threads, about host_block elements a task.
template <class F> void for_rows(std::size_t rows, std::size_t cols, F&& f) {
  const std::size_t grain = std::max<std::size_t>(1, host_block / std::max<std::size_t>(cols, 1));
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, rows, grain),
                    [&](const tbb::blocked_range<std::size_t>& r) { f(r.begin(), r.end()); });
}

/// The inclusive scan of x[0, n) into r: in index order on one thread below 2 host blocks, else oneTBB's
/// parallel_scan over blocks (each block in index order from the combination of the blocks before it).
template <row_op o, class T> void host_scan_par(const T* x, T* r, std::size_t n, row_op ro) {
  if (n < 2 * host_block) {
    T acc = host_identity<T>(ro);
    for (std::size_t j = 0; j < n; ++j) r[j] = acc = host_combine<o>(acc, x[j]);
    return;
  }
  tbb::parallel_scan(
      tbb::blocked_range<std::size_t>(0, n, host_block), host_identity<T>(ro),
      [&](const tbb::blocked_range<std::size_t>& b, T acc, bool final) {
        if (final) {
          for (std::size_t j = b.begin(); j < b.end(); ++j) r[j] = acc = host_combine<o>(acc, x[j]);
          return acc;
        }
        return host_combine<o>(acc, host_reduce<o>(x + b.begin(), b.size()));
      },
      [](T a, T b) { return host_combine<o>(a, b); });
}

/// Row offsets 0, cols, 2 cols, ... for the segmented primitives (u32: refused past 2^32 - 1 elements).
std::vector<std::uint32_t> row_offsets(std::size_t rows, std::size_t cols) {
  if (rows * cols > 0xffffffffull) throw wgprim::error(errc::limit, "axis=: more than 2^32 - 1 elements");
  std::vector<std::uint32_t> off(rows + 1);
  for (std::size_t r = 0; r <= rows; ++r) off[r] = std::uint32_t(r * cols);
  return off;
}

/// Whether a type runs on the device for rows of the NumPy layer: the 32- and 64-bit types the device takes.
bool rows_on_device(const device_ptr& dev, dtype t) { return elem_bytes(t) >= 4 && dev->ctx.supports(t); }

/// Runs f on the device when it takes the type (rows_on_device) and true; false when it does not, or when the call
/// says unsupported (errc::unsupported): the caller then computes on the host. Other errors propagate.
template <class F>
bool done_on_device(const device_ptr& dev, dtype t, F&& f) {
  if (!rows_on_device(dev, t)) return false;
  try {
    on_device(*dev, std::forward<F>(f));
    return true;
  } catch (const wgprim::error& e) {
    if (e.code() != errc::unsupported) throw;
    return false;
  }
}

/// out[r] = op over row r (rows of in.n / rows elements), in the input's dtype; a 1-D NumPy array.
nb::object reduce_rows(nb::handle a, std::size_t rows, const std::string& op_name, const std::string& accuracy,
                       opt_device device) {
  const input in = as_input(a, op_name.c_str());
  if (in.dev) throw wgprim::error(errc::invalid_argument, op_name + ": axis= takes host arrays (not a DeviceArray)");
  if (rows == 0 ? in.n != 0 : in.n % rows != 0)
    throw wgprim::error(errc::invalid_argument, op_name + ": rows do not divide the array");
  const std::size_t cols = rows ? in.n / rows : 0;
  const device_ptr dev = pick_device({&in}, device);
  const row_op ro = parse_row_op(op_name);
  const wgprim::op o = make_op(op_name, nb::none());
  const wgprim::run_options opt = options(accuracy, true);
  host_out out(in.type, {rows});
  const bool done = rows == 0 || done_on_device(dev, in.type, [&] {
    visit(in.type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<wgprim::accumulation_t<T>, T>) {
        T* r = static_cast<T*>(out.data);
        if (rows == 1) {
          r[0] = wgprim::reduce(dev->ctx, host_in<T>(in), o, opt);
        } else {
          const std::vector<std::uint32_t> off = row_offsets(rows, cols);
          wgprim::segmented_reduce(dev->ctx, host_in<T>(in), wgprim::host_span<const std::uint32_t>(off.data(), off.size()),
                                   wgprim::host_span<T>(r, rows), o, opt);
        }
      }
    });
  });
  if (!done) {
    if (accuracy != "fast" && accuracy != "compensated" && accuracy != "reproducible" && accuracy != "exact")
      (void)wgprim::parse_accuracy(accuracy);  // the library's message for a bad name
    nb::gil_scoped_release release;
    visit(in.type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_arithmetic_v<T>) {
        const T* x = static_cast<const T*>(in.data);
        T* r = static_cast<T*>(out.data);
        with_row_op(ro, [&](auto op) {
          constexpr row_op o = decltype(op)::value;
          for_rows(rows, cols, [&](std::size_t first, std::size_t last) {
            for (std::size_t i = first; i < last; ++i) r[i] = host_reduce_par<o>(x + i * cols, cols);
          });
        });
      } else {
        throw wgprim::error(errc::unsupported, op_name + ": " + numpy_name(in.type) + " rows on the host");
      }
    });
  }
  return out.numpy();
}

/// The inclusive scan of each row (rows of in.n / rows elements), in the input's dtype and shape (flattened).
nb::object scan_rows(nb::handle a, std::size_t rows, const std::string& op_name, opt_device device) {
  const input in = as_input(a, op_name.c_str());
  if (in.dev) throw wgprim::error(errc::invalid_argument, op_name + ": axis= takes host arrays (not a DeviceArray)");
  if (rows == 0 ? in.n != 0 : in.n % rows != 0)
    throw wgprim::error(errc::invalid_argument, op_name + ": rows do not divide the array");
  const std::size_t cols = rows ? in.n / rows : 0;
  const device_ptr dev = pick_device({&in}, device);
  const row_op ro = parse_row_op(op_name);
  const wgprim::op o = make_op(op_name, nb::none());
  host_out out(in.type, {in.n});
  const bool done = in.n == 0 || done_on_device(dev, in.type, [&] {
    visit(in.type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<wgprim::accumulation_t<T>, T>) {
        wgprim::host_span<T> r(static_cast<T*>(out.data), in.n);
        if (rows == 1) {
          wgprim::scan(dev->ctx, host_in<T>(in), r, wgprim::scan_kind::inclusive, o);
        } else {
          const std::vector<std::uint32_t> off = row_offsets(rows, cols);
          wgprim::segmented_inclusive_scan(dev->ctx, host_in<T>(in),
                                           wgprim::host_span<const std::uint32_t>(off.data(), off.size()), r, o);
        }
      }
    });
  });
  if (!done) {
    nb::gil_scoped_release release;
    visit(in.type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_arithmetic_v<T>) {
        const T* x = static_cast<const T*>(in.data);
        T* r = static_cast<T*>(out.data);
        with_row_op(ro, [&](auto op) {
          constexpr row_op o = decltype(op)::value;
          for_rows(rows, cols, [&](std::size_t first, std::size_t last) {
            for (std::size_t i = first; i < last; ++i) host_scan_par<o>(x + i * cols, r + i * cols, cols, ro);
          });
        });
      } else {
        throw wgprim::error(errc::unsupported, op_name + ": " + numpy_name(in.type) + " rows on the host");
      }
    });
  }
  return out.numpy();
}

/// The index in x[0, n) (n > 0) of its first NaN, else of its first extreme: one thread below 2 host blocks, else
/// blocks on the oneTBB threads merged in index order.
template <class T> std::size_t host_arg(const T* x, std::size_t n, bool is_max) {
  auto serial = [&](std::size_t first, std::size_t last) {
    std::size_t best = first;
    for (std::size_t i = first; i < last; ++i) {
      if constexpr (std::is_floating_point_v<T>) {
        if (x[i] != x[i]) return i;
      }
      if (is_max ? x[best] < x[i] : x[i] < x[best]) best = i;
    }
    return best;
  };
  if (n < 2 * host_block) return serial(0, n);
  constexpr std::size_t none = ~std::size_t(0);
  // b comes after a in the index order: a keeps ties; a NaN found first wins.
  auto merge = [&](std::size_t a, std::size_t b) {
    if (a == none) return b;
    if (b == none) return a;
    if constexpr (std::is_floating_point_v<T>) {
      if (x[a] != x[a]) return a;
      if (x[b] != x[b]) return b;
    }
    return (is_max ? x[a] < x[b] : x[b] < x[a]) ? b : a;
  };
  return tbb::parallel_deterministic_reduce(
      tbb::blocked_range<std::size_t>(0, n, host_block), none,
      [&](const tbb::blocked_range<std::size_t>& r, std::size_t acc) { return merge(acc, serial(r.begin(), r.end())); },
      merge);
}

/// np.argmin / np.argmax along rows (rows of in.n / rows > 0 elements): the int64 index in each row of its first
/// NaN, else of its first extreme. The binding's host loop on the oneTBB threads (the library's arg_reduce has no
/// segmented form).
nb::object arg_rows(nb::handle a, std::size_t rows, bool is_max) {
  const char* what = is_max ? "argmax" : "argmin";
  const input in = as_input(a, what);
  if (in.dev) throw wgprim::error(errc::invalid_argument, std::string(what) + ": axis= takes host arrays");
  if (rows == 0 || in.n % rows != 0 || in.n == 0)
    throw wgprim::error(errc::invalid_argument, std::string(what) + ": rows do not divide the array");
  const std::size_t cols = in.n / rows;
  host_out out(nb::dlpack::dtype{std::uint8_t(nb::dlpack::dtype_code::Int), 64, 1}, {rows});
  auto* r = static_cast<std::int64_t*>(out.data);
  {
    nb::gil_scoped_release release;  // until the result is made (that needs the GIL)
    visit(in.type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_arithmetic_v<T>) {
        for_rows(rows, cols, [&](std::size_t first, std::size_t last) {
          for (std::size_t row = first; row < last; ++row)
            r[row] = std::int64_t(host_arg(static_cast<const T*>(in.data) + row * cols, cols, is_max));
        });
      } else {
        throw wgprim::error(errc::unsupported, std::string(what) + ": " + numpy_name(in.type) + " rows on the host");
      }
    });
  }
  return out.numpy();
}

/// The float order of the library's sort: -inf < ... < -0.0 < +0.0 < ... < inf < NaN.
template <class T> bool sort_less(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a) return false;
    if (b != b) return true;
    if (a == b) return std::signbit(a) && !std::signbit(b);
  }
  return a < b;
}

/// A 64-bit element as an unsigned key in the library's sort order: integers by value, floats -inf < ... < -0.0 <
/// +0.0 < ... < inf, then every NaN as one key (so NaNs keep their input order, last).
template <class T> std::uint64_t ordered_key(T v) {
  std::uint64_t b;
  std::memcpy(&b, &v, 8);
  if constexpr (std::is_floating_point_v<T>) {
    if (v != v) return ~std::uint64_t(0);
    return (b >> 63) ? ~b : b | (std::uint64_t(1) << 63);
  } else if constexpr (std::is_signed_v<T>) {
    return b ^ (std::uint64_t(1) << 63);
  } else {
    return b;
  }
}

/// Stable LSD radix sort of n (key, index) pairs in place: six passes of 11-bit digits, whose counts are taken in
/// one read of the keys (split over the oneTBB threads); a pass whose digit is the same for every key is skipped.
void radix_sort_pairs(std::vector<std::uint64_t>& keys, std::vector<std::uint32_t>& idx) {
  constexpr int bits = 11, passes = 6;
  constexpr std::size_t buckets = std::size_t(1) << bits;
  const std::size_t n = keys.size();
  using counts = std::vector<std::size_t>;
  counts hist = tbb::parallel_reduce(
      tbb::blocked_range<std::size_t>(0, n, host_block), counts(passes * buckets, 0),
      [&](const tbb::blocked_range<std::size_t>& r, counts h) {
        for (std::size_t i = r.begin(); i < r.end(); ++i)
          for (int p = 0; p < passes; ++p) ++h[p * buckets + ((keys[i] >> (p * bits)) & (buckets - 1))];
        return h;
      },
      [](counts a, const counts& b) {
        for (std::size_t j = 0; j < a.size(); ++j) a[j] += b[j];
        return a;
      });
  std::vector<std::uint64_t> k2(n);
  std::vector<std::uint32_t> i2(n);
  for (int p = 0; p < passes; ++p) {
    std::size_t* h = hist.data() + p * buckets;
    if (std::any_of(h, h + buckets, [&](std::size_t c) { return c == n; })) continue;
    std::size_t at = 0;
    for (std::size_t d = 0; d < buckets; ++d) {
      const std::size_t c = h[d];
      h[d] = at;
      at += c;
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t to = h[(keys[i] >> (p * bits)) & (buckets - 1)]++;
      k2[to] = keys[i];
      i2[to] = idx[i];
    }
    keys.swap(k2);
    idx.swap(i2);
  }
}

/// (sorted copy, int64 stable permutation) of a 1-D host array: wgprim's sort_pairs where the device takes the
/// type, else on the host: 64-bit keys by a radix sort of (key, index) pairs, other types by a parallel
/// std::stable_sort (unique's building block, and sort / argsort's for the types the device does not sort).
nb::tuple sort_perm(nb::handle a, opt_device device) {
  const input in = as_input(a, "unique");
  if (in.dev) throw wgprim::error(errc::invalid_argument, "unique: takes host arrays (not a DeviceArray)");
  if (in.n > 0xffffffffull) throw wgprim::error(errc::limit, "unique: more than 2^32 - 1 elements");
  const device_ptr dev = pick_device({&in}, device);
  host_out keys(in.type, {in.n});
  host_out perm(nb::dlpack::dtype{std::uint8_t(nb::dlpack::dtype_code::Int), 64, 1}, {in.n});
  std::vector<std::uint32_t> idx(in.n);
  for (std::size_t i = 0; i < in.n; ++i) idx[i] = std::uint32_t(i);
  const bool done = in.n == 0 || done_on_device(dev, in.type, [&] {
    visit(in.type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_arithmetic_v<T>) {
        const std::vector<std::uint32_t> seq(idx);
        wgprim::sort_pairs(dev->ctx, host_in<T>(in), wgprim::host_span<const std::uint32_t>(seq.data(), in.n),
                           wgprim::host_span<T>(static_cast<T*>(keys.data), in.n), idx);
      }
    });
  });
  if (!done) {
    nb::gil_scoped_release release;
    visit(in.type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_arithmetic_v<T>) {
        const T* x = static_cast<const T*>(in.data);
        if constexpr (sizeof(T) == 8) {
          // 64-bit keys (the native backend's): a radix sort of (ordered key, index) pairs
          std::vector<std::uint64_t> k(in.n);
          tbb::parallel_for(std::size_t(0), std::size_t(in.n), [&](std::size_t i) { k[i] = ordered_key(x[i]); });
          radix_sort_pairs(k, idx);
        } else {
          // libstdc++'s parallel stable sort (its oneTBB backend)
          std::stable_sort(std::execution::par, idx.begin(), idx.end(),
                           [&](std::uint32_t i, std::uint32_t j) { return sort_less(x[i], x[j]); });
        }
        T* k = static_cast<T*>(keys.data);
        tbb::parallel_for(std::size_t(0), std::size_t(in.n), [&](std::size_t i) { k[i] = x[idx[i]]; });
      } else {
        throw wgprim::error(errc::unsupported, std::string("unique: ") + numpy_name(in.type) + " on the host");
      }
    });
  }
  auto* p = static_cast<std::int64_t*>(perm.data);
  for (std::size_t i = 0; i < in.n; ++i) p[i] = idx[i];
  return nb::make_tuple(keys.numpy(), perm.numpy());
}

/// Counts (uint32, on the host) of `bins` even bins over [lo, hi], or of the bins between `levels` (an array of
/// the input's dtype). NumPy's rules; the Python layer (wgprim.histogram) picks the range and the edges.
nb::object histogram_counts(nb::handle a, std::size_t bins, double lo, double hi, nb::handle levels,
                            opt_device device) {
  const input in = as_input(a, "histogram");
  const device_ptr dev = pick_device({&in}, device);
  std::optional<input> lv;
  if (!levels.is_none()) {
    lv = as_input(levels, "histogram: bins");
    if (lv->type != in.type || lv->dev)
      throw wgprim::error(errc::invalid_argument, "histogram: the edges must be a host array of the input's dtype");
    bins = lv->n ? lv->n - 1 : 0;
  }
  host_out counts(dtype::u32, {bins});
  on_device(*dev, [&] {
    wgprim::host_span<std::uint32_t> c(static_cast<std::uint32_t*>(counts.data), bins);
    visit(in.type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (in.dev) {
        wgprim::device_vector<std::uint32_t> dc(dev->ctx, std::max<std::size_t>(bins, 1));
        auto dcs = dc.span().first(bins);
        if (lv) {
          wgprim::device_vector<T> dl(dev->ctx, host_in<T>(*lv));
          wgprim::histogram_range(dev->ctx, dev_in<T>(in), dcs, dl);
        } else {
          wgprim::histogram_even(dev->ctx, dev_in<T>(in), dcs, bins, lo, hi);
        }
        if (bins) dev->ctx.read(dc.raw(), 0, c.data(), bins * 4);
      } else if (lv) {
        wgprim::histogram_range(dev->ctx, host_in<T>(in), c, host_in<T>(*lv));
      } else {
        wgprim::histogram_even(dev->ctx, host_in<T>(in), c, bins, lo, hi);
      }
    });
  });
  return counts.numpy();
}

// ---- DeviceArray ----

py_array* asarray(nb::handle x, opt_device device) {
  const input in = as_input(x, "asarray");
  if (in.dev) {
    if (device && *device && *device != in.dev->dev)
      throw wgprim::error(errc::invalid_argument, "asarray: the array is on another wgprim.Device; copy it through "
                                                  "the host: wgprim.asarray(a.numpy(), device=d)");
    return nullptr;  // the caller returns x itself
  }
  const device_ptr dev = device && *device ? *device : default_device();
  std::unique_ptr<py_array> a(new_array(dev, in.type, in.shape));
  const std::uint64_t bytes = std::uint64_t(in.n) * elem_bytes(in.type);
  on_device(*dev, [&] {
    if (bytes) write_words(dev->ctx, a->buf, in.data, bytes);
  });
  return a.release();
}

nb::object to_numpy(const py_array& a) {
  host_out out(a.type, a.shape);
  const std::uint64_t bytes = std::uint64_t(a.n) * elem_bytes(a.type);
  on_device(*a.dev, [&] {
    if (bytes) read_words(a.dev->ctx, a.buf, out.data, bytes);
  });
  return out.numpy();
}

nb::tuple shape_tuple(const std::vector<std::size_t>& shape) {
  nb::list l;
  for (std::size_t s : shape) l.append(s);
  return nb::tuple(l);
}

nb::dict adapter_dict(const wgprim::adapter_info& i) {
  nb::dict d;
  d["name"] = i.name;
  d["vendor"] = i.vendor;
  d["architecture"] = i.architecture;
  d["driver"] = i.driver;
  d["backend"] = i.backend;
  d["type"] = i.type;
  return d;
}

// ---- Errors: wgprim::error -> wgprim.Error(message, code name, code number) ----

PyObject* error_class = nullptr;  // set by wgprim/__init__.py; kept for the life of the process

const char* errc_name(errc c) {
  switch (c) {
    case errc::invalid_argument: return "invalid_argument";
    case errc::io: return "io";
    case errc::unsupported: return "unsupported";
    case errc::limit: return "limit";
    case errc::shader: return "shader";
    case errc::no_adapter: return "no_adapter";
    case errc::device_lost: return "device_lost";
    case errc::out_of_memory: return "out_of_memory";
    case errc::gpu: return "gpu";
    case errc::timeout: return "timeout";
  }
  return "unknown";
}

}  // namespace

// ---- Views (python/wgprim/view.py): ranges computed in the load of the primitive that reads them ----

/// The view python/wgprim/view.py describes: kind 'counting' / 'constant' / 'gather' / 'buffer' / 'zip:EXPR', the
/// source's dtype name, n, the bits of start (constant: the value) and step, the base and index DeviceArrays
/// (gather; buffer: base; zip: a and b), and the transform's expression ('' for none).
wgprim::detail::view_desc view_of_py(const std::string& kind, const std::string& type, std::size_t n,
                                     std::uint32_t start, std::uint32_t step, py_array* base, py_array* index,
                                     const std::string& expr) {
  using src = wgprim::detail::view_desc::source;
  wgprim::detail::view_desc d;
  d.type = wgprim::parse_dtype(type);
  wgprim::detail::check_view_type(d.type, "wgprim.view");
  d.count = n;
  d.start = start;
  d.step = step;
  if (kind == "counting") d.kind = src::counting;
  else if (kind == "constant") d.kind = src::constant;
  else if (kind == "gather") d.kind = src::gather;
  else if (kind == "buffer") d.kind = src::buffer;
  else if (kind.rfind("zip:", 0) == 0) {  // zip:EXPRESSION
    d.kind = src::zip;
    d.zip_expr = kind.substr(4);
  }
  else throw wgprim::error(errc::invalid_argument, "wgprim.view: unknown kind '" + kind + "'");
  if (d.kind == src::gather || d.kind == src::buffer || d.kind == src::zip) {
    if (!base) throw wgprim::error(errc::invalid_argument, "wgprim.view: the view needs its array");
    if (base->type != d.type) throw wgprim::error(errc::invalid_argument, "wgprim.view: the array's dtype differs");
    d.base = wgprim::device_span<const std::uint32_t>(base->buf, 0, base->n).view();
    if (d.kind == src::buffer) d.count = base->n;
  }
  if (d.kind == src::zip) {
    if (!index || index->type != d.type) throw wgprim::error(errc::invalid_argument, "wgprim.view.zip: the arrays' dtypes differ");
    if (index->n != base->n)
      throw wgprim::error(errc::invalid_argument, "wgprim.view.zip: the arrays differ in length (" +
                                                      std::to_string(base->n) + " and " + std::to_string(index->n) + ")");
    d.index = wgprim::device_span<const std::uint32_t>(index->buf, 0, index->n).view();
    d.count = base->n;
    wgprim::detail::check_zip_expr(d.type, d.zip_expr);
  }
  if (d.kind == src::gather) {
    if (!index || index->type != dtype::u32)
      throw wgprim::error(errc::invalid_argument, "wgprim.view.gather: the indices are a uint32 array");
    d.index = wgprim::device_span<const std::uint32_t>(index->buf, 0, index->n).view();
    d.count = index->n;
  }
  if (!expr.empty()) d.tr = std::make_shared<const wgprim::transform>(wgprim::transform::expr(expr));
  return d;
}

device_ptr view_device(py_array* base, py_array* index, opt_device device) {
  device_ptr d = device && *device ? *device : nullptr;
  for (py_array* a : {base, index}) {
    if (!a) continue;
    if (d && d != a->dev) throw wgprim::error(errc::invalid_argument, "arrays of different wgprim.Device objects in one call");
    d = a->dev;
  }
  return d ? d : default_device();
}

nb::object view_reduce(const std::string& kind, const std::string& type, std::size_t n, std::uint32_t start,
                       std::uint32_t step, py_array* base, py_array* index, const std::string& expr,
                       const std::string& op_name, nb::handle identity, const std::string& accuracy,
                       opt_device device) {
  const wgprim::detail::view_desc d = view_of_py(kind, type, n, start, step, base, index, expr);
  const device_ptr dev = view_device(base, index, device);
  const wgprim::op o = make_op(op_name, identity);
  const wgprim::run_options opt = options(accuracy, true);
  const dtype t = d.value_type();
  std::uint64_t raw = 0;
  on_device(*dev, [&] { raw = wgprim::detail::reduce_view_raw(dev->ctx, d, wgprim::monoid(o, t), nullptr, opt); });
  const std::uint32_t bits = static_cast<std::uint32_t>(raw);
  return scalar(t, &bits);
}

std::int64_t view_arg(const std::string& kind, const std::string& type, std::size_t n, std::uint32_t start,
                      std::uint32_t step, py_array* base, py_array* index, const std::string& expr, bool is_max,
                      opt_device device) {
  const wgprim::detail::view_desc d = view_of_py(kind, type, n, start, step, base, index, expr);
  const device_ptr dev = view_device(base, index, device);
  std::uint64_t at = 0;
  on_device(*dev, [&] {
    at = wgprim::detail::arg_reduce_view_bits(dev->ctx, d, is_max ? wgprim::arg_op::max : wgprim::arg_op::min, {})
             .index;
  });
  return static_cast<std::int64_t>(at);
}

nb::object view_select(const std::string& kind, const std::string& type, std::size_t n, std::uint32_t start,
                       std::uint32_t step, py_array* base, py_array* index, const std::string& expr,
                       const std::string& condition, opt_device device) {
  const wgprim::detail::view_desc d = view_of_py(kind, type, n, start, step, base, index, expr);
  const device_ptr dev = view_device(base, index, device);
  const wgprim::predicate pred = wgprim::predicate::expr(condition);
  std::unique_ptr<py_array> out(new_array(dev, d.value_type(), {static_cast<std::size_t>(d.count)}));
  std::uint64_t kept = 0;
  on_device(*dev, [&] {
    kept = wgprim::detail::select_view_run(
        dev->ctx, d, wgprim::detail::out_ref(wgprim::device_span<std::uint32_t>(out->buf, 0, out->n)),
        wgprim::select_mode::predicate, false, &pred, {});
  });
  out->n = kept;
  out->shape = {static_cast<std::size_t>(kept)};
  return to_numpy(*out);
}

nb::object view_sort(const std::string& kind, const std::string& type, std::size_t n, std::uint32_t start,
                     std::uint32_t step, py_array* base, py_array* index, const std::string& expr, bool descending,
                     unsigned begin_bit, std::optional<unsigned> end_bit, opt_device device) {
  const wgprim::detail::view_desc d = view_of_py(kind, type, n, start, step, base, index, expr);
  const device_ptr dev = view_device(base, index, device);
  const wgprim::sort_order ord = sort_order_of(descending, begin_bit, end_bit);
  std::unique_ptr<py_array> out(new_array(dev, d.value_type(), {static_cast<std::size_t>(d.count)}));
  on_device(*dev, [&] {
    wgprim::detail::sort_view_run(dev->ctx, d,
                                  wgprim::detail::out_ref(wgprim::device_span<std::uint32_t>(out->buf, 0, out->n)),
                                  ord, {});
  });
  return to_numpy(*out);
}

nb::object view_histogram(const std::string& kind, const std::string& type, std::size_t n, std::uint32_t start,
                          std::uint32_t step, py_array* base, py_array* index, const std::string& expr,
                          std::size_t bins, double lo, double hi, nb::handle levels, opt_device device) {
  const wgprim::detail::view_desc d = view_of_py(kind, type, n, start, step, base, index, expr);
  const device_ptr dev = view_device(base, index, device);
  std::optional<input> lv;
  if (!levels.is_none()) {
    lv = as_input(levels, "histogram: bins");
    if (lv->type != d.value_type() || lv->dev)
      throw wgprim::error(errc::invalid_argument, "histogram: the edges must be a host array of the view's dtype");
    bins = lv->n ? lv->n - 1 : 0;
  }
  host_out counts(dtype::u32, {bins});
  on_device(*dev, [&] {
    wgprim::device_vector<std::uint32_t> dc(dev->ctx, std::max<std::size_t>(bins, 1));
    const wgprim::detail::range_ref c = wgprim::detail::out_ref(dc.span().first(bins));
    std::optional<wgprim::device_vector<std::uint32_t>> dl;
    wgprim::detail::range_ref l;
    wgprim::detail::histogram_bins b{bins, lo, hi, nullptr, nullptr};
    if (lv) {
      dl.emplace(dev->ctx, wgprim::host_span<const std::uint32_t>(static_cast<const std::uint32_t*>(lv->data), lv->n));
      l = wgprim::detail::in_ref(*dl);
      l.type = lv->type;
      b.levels = &l;
    }
    wgprim::detail::histogram_view_run(dev->ctx, d, c, b, {});
    if (bins) dev->ctx.read(dc.raw(), 0, counts.data, bins * 4);
  });
  return counts.numpy();
}

nb::object view_scan(const std::string& kind, const std::string& type, std::size_t n, std::uint32_t start,
                     std::uint32_t step, py_array* base, py_array* index, const std::string& expr, bool inclusive,
                     const std::string& op_name, nb::handle identity, bool to_host, opt_device device) {
  const wgprim::detail::view_desc d = view_of_py(kind, type, n, start, step, base, index, expr);
  const device_ptr dev = view_device(base, index, device);
  const wgprim::op o = make_op(op_name, identity);
  const dtype t = d.value_type();
  std::unique_ptr<py_array> out(new_array(dev, t, {static_cast<std::size_t>(d.count)}));
  on_device(*dev, [&] {
    wgprim::detail::scan_view_run(dev->ctx, d, wgprim::detail::out_ref(wgprim::device_span<std::uint32_t>(out->buf, 0, out->n)),
                                  wgprim::monoid(o, t), inclusive ? wgprim::scan_kind::inclusive : wgprim::scan_kind::exclusive,
                                  nullptr, {});
  });
  if (to_host) return to_numpy(*out);
  return nb::cast(std::move(out));
}


// ---- Recorded pipelines (python/wgprim/pipeline.py): a chain recorded once, run on many inputs ----

/// wgprim::pipeline on a Device: the device (declared first: its context outlives the pipeline) and the chain.
struct py_pipeline {
  device_ptr dev;
  std::unique_ptr<wgprim::pipeline> p;
  py_pipeline(device_ptr d, dtype t) : dev(std::move(d)) {
    on_device(*dev, [&] { p = std::make_unique<wgprim::pipeline>(dev->ctx, t); });
  }
  py_pipeline(const py_pipeline&) = delete;
  ~py_pipeline() {
    if (!dev || !p) return;
    std::lock_guard<std::mutex> lock(dev->mu);  // released under the device's lock, as DeviceArray's buffer
    p.reset();
  }
  /// Runs the chain on a 1-D array of the pipeline's dtype (host memory or a DeviceArray of the same Device);
  /// returns the final count.
  std::uint64_t run(nb::handle a) {
    const input in = as_input(a, "pipeline");
    if (in.shape.size() != 1)
      throw wgprim::error(errc::invalid_argument, "pipeline: takes a 1-D array (pass a.ravel())");
    if (in.type != p->type())
      throw wgprim::error(errc::unsupported, std::string("pipeline: it takes ") + numpy_name(p->type()) +
                                                 " elements, not " + numpy_name(in.type) +
                                                 "; convert explicitly, e.g. a.astype(np." +
                                                 numpy_name(p->type()) + ")");
    if (in.dev && in.dev->dev != dev)
      throw wgprim::error(errc::invalid_argument, "pipeline: the array is on another wgprim.Device");
    std::uint64_t k = 0;
    on_device(*dev, [&] {
      visit(in.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (sizeof(T) == 4 && !std::is_same_v<T, wgprim::half>) {
          k = in.dev ? p->run(dev_in<T>(in)) : p->run(host_in<T>(in));
        }
      });
    });
    return k;
  }
  /// The last run's output (its first `count` elements) as a new NumPy array.
  nb::object output(std::uint64_t count) {
    host_out out(p->type(), {static_cast<std::size_t>(count)});
    on_device(*dev, [&] { p->read_output_bits(static_cast<std::uint32_t*>(out.data), count); });
    return out.numpy();
  }
};

NB_MODULE(_wgprim, m) {
  m.doc() = "wgprim's C++ library bound with nanobind; use the package `wgprim`, which re-exports this.";

  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const wgprim::error& e) {
      if (!error_class) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
        return;
      }
      // error_class is the package's _make_error: it picks wgprim.ValueError / TypeError / Error by the code.
      nb::object inst = nb::borrow(error_class)(e.what(), errc_name(e.code()), int(e.code()));
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(inst.ptr())), inst.ptr());
    }
  });

  m.def("_gil_counts", [] { return std::make_tuple(gpu_entries.load(), gpu_entries_without_gil.load()); },
        "(entries into GPU work, those made with the GIL released): for the tests.");
  m.def("_set_error_class", [](nb::handle cls) {
    Py_XINCREF(cls.ptr());
    error_class = cls.ptr();
  });

  nb::class_<py_device>(m, "Device",
                        "A WebGPU device (one adapter) that runs wgprim's primitives. Calls on one Device from "
                        "several threads are serialised by its lock; the GIL is released while the GPU works.")
      .def(nb::new_([](const std::string& adapter, double timeout_s, const std::string& backend) {
             wgprim::context_options o;
             o.adapter = adapter;
             o.timeout_s = timeout_s;
             if (backend == "webgpu") o.backend = wgprim::backend_choice::webgpu;
             else if (backend == "native") o.backend = wgprim::backend_choice::native;
             else if (backend != "auto")
               throw wgprim::error(errc::invalid_argument, "backend='" + wgprim::detail::excerpt(backend) +
                                                               "': expected 'auto', 'webgpu' or 'native'");
             nb::gil_scoped_release release;
             return std::make_shared<py_device>(o);
           }),
           "adapter"_a = "", "timeout_s"_a = 120.0, nb::kw_only(), "backend"_a = "auto",
           "adapter: case-insensitive substring of the adapter name (as the CLI's --adapter; empty: the "
           "WGPRIM_ADAPTER environment variable, else the best adapter). timeout_s: longest wait for the GPU. "
           "backend: 'auto' (the native CPU backend where the best adapter is a CPU, else WebGPU), 'webgpu' (the "
           "WGSL kernels even on a CPU adapter such as lavapipe: needed there for float64/int64/uint64/float16/"
           "uint8/int8) or 'native'.")
      .def("supports", [](py_device& d, nb::handle t) {
             const std::string name = nb::cast<std::string>(
                 nb::module_::import_("numpy").attr("dtype")(t).attr("name"));
             dtype parsed;
             try {
               parsed = wgprim::parse_dtype(name);
             } catch (const wgprim::error&) {
               return false;  // a NumPy type wgprim has no element type for
             }
             return d.ctx.supports(parsed);
           }, "dtype"_a,
           "Whether reduce and scan take elements of this NumPy dtype here (float64 needs the adapter feature "
           "shader-f64, int64/uint64 shader-int64; the native CPU backend takes float32, int32, uint32 only).")
      .def_prop_ro("name", [](py_device& d) { return d.ctx.adapter().name; })
      .def_prop_ro("backend", [](py_device& d) { return d.ctx.adapter().backend; })
      .def_prop_ro("type", [](py_device& d) { return d.ctx.adapter().type; })
      .def_prop_ro("info", [](py_device& d) { return adapter_dict(d.ctx.adapter()); },
                   "The adapter: name, vendor, architecture, driver, backend, type.")
      .def("synchronize", [](py_device& d) { on_device(d, [&] { d.ctx.finish(); }); },
           "Waits until all work submitted to this device has finished.")
      .def("flush", [](py_device& d) { on_device(d, [&] { d.ctx.flush(); }); },
           "Submits the calls queued on this device (calls whose results stay on the device are batched into "
           "one submission) without waiting for them: the GPU starts on them while Python goes on.")
      .def("__repr__", [](py_device& d) {
        return "wgprim.Device('" + d.ctx.adapter().name + "', backend='" + d.ctx.adapter().backend + "')";
      });

  nb::class_<py_array>(m, "DeviceArray",
                       "Elements on a wgprim.Device (made by wgprim.asarray). Every wgprim function takes it; "
                       "those that return arrays then return DeviceArray too, so data stays on the GPU.")
      .def_prop_ro("shape", [](const py_array& a) { return shape_tuple(a.shape); })
      .def_prop_ro("ndim", [](const py_array& a) { return a.shape.size(); })
      .def_prop_ro("size", [](const py_array& a) { return a.n; })
      .def_prop_ro("nbytes", [](const py_array& a) { return a.n * elem_bytes(a.type); })
      .def_prop_ro("dtype", [](const py_array& a) {
        return nb::module_::import_("numpy").attr("dtype")(numpy_name(a.type));
      })
      .def_prop_ro("device", [](const py_array& a) { return a.dev; })
      .def("__len__", [](const py_array& a) {
        if (a.shape.empty()) throw nb::type_error("len() of unsized object");
        return a.shape[0];
      })
      .def("numpy", &to_numpy, "Copies the elements to a new NumPy array (waits for the GPU).")
      .def("__array__", [](const py_array& a, nb::handle dtype, nb::handle /*copy: always a new array*/) {
             nb::object r = to_numpy(a);
             return dtype.is_none() ? r : r.attr("astype")(dtype);
           }, "dtype"_a = nb::none(), "copy"_a = nb::none())
      .def("__repr__", [](const py_array& a) {
        std::string s = "wgprim.DeviceArray(shape=(";
        for (std::size_t i = 0; i < a.shape.size(); ++i) s += std::to_string(a.shape[i]) + (a.shape.size() == 1 ? "," : i + 1 < a.shape.size() ? ", " : "");
        return s + "), dtype=" + numpy_name(a.type) + ", device='" + a.dev->ctx.adapter().name + "')";
      });

  m.def("default_device", &default_device, "The Device used when none is given (created on first use).");
  m.def("adapters", [] {
    nb::list l;
    for (const auto& a : wgprim::context::enumerate_adapters()) l.append(adapter_dict(a));
    return l;
  }, "Every adapter WebGPU sees, best first.");
  m.def("wgpu_version", &wgprim::context::wgpu_version);

  m.def("asarray", [](nb::handle x, opt_device device) -> nb::object {
    py_array* a = asarray(x, device);
    if (!a) return nb::borrow(x);
    return nb::cast(a, nb::rv_policy::take_ownership);
  }, "a"_a, "device"_a = nb::none(),
        "Copies a C-contiguous array to the GPU (a DeviceArray of the same shape and dtype); a DeviceArray comes "
        "back as it is.");

  const char* accuracy_doc = "accuracy: for float32 sums, 'fast' (default), 'compensated', 'reproducible' or "
                             "'exact' (correctly rounded, the same bits on every GPU)";
  m.def("reduce", [](nb::handle a, const std::string& op, nb::handle identity, const std::string& accuracy,
                     bool check, opt_device device) { return reduce(a, op, identity, accuracy, check, device); },
        "a"_a, "op"_a = "sum", "identity"_a = nb::none(), nb::kw_only(), "accuracy"_a = "fast",
        "check"_a = true, "device"_a = nb::none(),
        (std::string("Reduces all elements (flattened in C order) with op: 'sum', 'prod', 'min', 'max', 'and', "
                     "'or', 'xor', or a WGSL expression in a and b with its identity (e.g. op='max(a, b)', "
                     "identity='-inf'). The result has the input's dtype (integers wrap; float16/uint8/int8 sums "
                     "and custom operators: float32/uint32/int32, the library's accumulation types). check=False "
                     "skips the custom operator's monoid check. ") + accuracy_doc).c_str());
  m.def("sum", [](nb::handle a, const std::string& accuracy, opt_device device) {
    return reduce(a, "sum", nb::none(), accuracy, true, device, "sum");
  }, "a"_a, nb::kw_only(), "accuracy"_a = "fast", "device"_a = nb::none(),
        (std::string("The sum of all elements, in the input's dtype (np.sum(a, dtype=a.dtype)); float16/uint8/int8: in "
                    "float32/uint32/int32. ") + accuracy_doc).c_str());
  m.def("prod", [](nb::handle a, opt_device device) { return reduce(a, "prod", nb::none(), "fast", true, device, "prod"); },
        "a"_a, nb::kw_only(), "device"_a = nb::none(), "The product of all elements, in the input's dtype.");
  m.def("min", [](nb::handle a, opt_device device) { return extreme(a, "min", device); }, "a"_a, nb::kw_only(),
        "device"_a = nb::none(), "The smallest element (NaN if any element is NaN, as np.min).");
  m.def("max", [](nb::handle a, opt_device device) { return extreme(a, "max", device); }, "a"_a, nb::kw_only(),
        "device"_a = nb::none(), "The largest element (NaN if any element is NaN, as np.max).");
  m.def("argmin", [](nb::handle a, opt_device device) { return arg_reduce(a, false, device); }, "a"_a,
        nb::kw_only(), "device"_a = nb::none(),
        "The flat index of the first smallest element (np.argmin: a NaN wins, ties to the first).");
  m.def("argmax", [](nb::handle a, opt_device device) { return arg_reduce(a, true, device); }, "a"_a,
        nb::kw_only(), "device"_a = nb::none(), "The flat index of the first largest element (np.argmax).");
  m.def("inclusive_scan", [](nb::handle a, const std::string& op, nb::handle identity, const std::string& accuracy,
                             bool check, opt_device device) { return scan(a, true, op, identity, accuracy, check, device); },
        "a"_a, "op"_a = "sum", "identity"_a = nb::none(), nb::kw_only(), "accuracy"_a = "fast", "check"_a = true,
        "device"_a = nb::none(),
        "out[i] = a[0] op ... op a[i] over the flattened array (np.cumsum(a) for op='sum'), in the input's dtype "
        "(float16/uint8/int8: float32/uint32/int32).");
  m.def("exclusive_scan", [](nb::handle a, const std::string& op, nb::handle identity, const std::string& accuracy,
                             bool check, opt_device device) { return scan(a, false, op, identity, accuracy, check, device); },
        "a"_a, "op"_a = "sum", "identity"_a = nb::none(), nb::kw_only(), "accuracy"_a = "fast", "check"_a = true,
        "device"_a = nb::none(), "out[i] = identity op a[0] op ... op a[i-1] over the flattened array.");
  m.def("cumsum", [](nb::handle a, opt_device device) { return scan(a, true, "sum", nb::none(), "fast", true, device); },
        "a"_a, nb::kw_only(), "device"_a = nb::none(),
        "np.cumsum(a) in the input's dtype (flattened; float16/uint8/int8: float32/uint32/int32).");
  m.def("_view_reduce", &view_reduce, "kind"_a, "type"_a, "n"_a, "start"_a, "step"_a, "base"_a.none(),
        "index"_a.none(), "expr"_a, "op"_a, "identity"_a.none(), "accuracy"_a, "device"_a = nb::none(),
        "Reduces a view (wgprim.view builds the arguments).");
  m.def("_view_arg", &view_arg, "kind"_a, "type"_a, "n"_a, "start"_a, "step"_a, "base"_a.none(), "index"_a.none(),
        "expr"_a, "is_max"_a, "device"_a = nb::none(), "arg-min / arg-max of a view (wgprim.view builds the arguments).");
  m.def("_view_select", &view_select, "kind"_a, "type"_a, "n"_a, "start"_a, "step"_a, "base"_a.none(),
        "index"_a.none(), "expr"_a, "condition"_a, "device"_a = nb::none(),
        "The values of a view that satisfy a condition, in order (wgprim.view builds the arguments).");
  m.def("_view_sort", &view_sort, "kind"_a, "type"_a, "n"_a, "start"_a, "step"_a, "base"_a.none(), "index"_a.none(),
        "expr"_a, "descending"_a = false, "begin_bit"_a = 0u, "end_bit"_a = nb::none(), "device"_a = nb::none(),
        "The values of a view, sorted (wgprim.view builds the arguments).");
  m.def("_view_histogram", &view_histogram, "kind"_a, "type"_a, "n"_a, "start"_a, "step"_a, "base"_a.none(),
        "index"_a.none(), "expr"_a, "bins"_a, "lo"_a, "hi"_a, "levels"_a.none() = nb::none(), "device"_a = nb::none(),
        "Counts of a view's values per bin (wgprim.histogram builds the arguments).");
  m.def("_view_value_type", [](const std::string& type, const std::string& expression) {
          const wgprim::dtype t = wgprim::parse_dtype(type);
          if (expression.empty()) return std::string(wgprim::dtype_name(t));
          return std::string(wgprim::dtype_name(wgprim::transform::expr(expression).result_type(t)));
        }, "type"_a, "expression"_a, "The dtype name (u32, i32, f32) of a view's values: its transform's result type.");
  m.def("_view_check_zip", [](const std::string& type, const std::string& expression) {
          wgprim::detail::check_zip_expr(wgprim::parse_dtype(type), expression);
        }, "type"_a, "expression"_a, "Checks wgprim.view.zip's expression for elements of this dtype.");
  m.def("_view_scan", &view_scan, "kind"_a, "type"_a, "n"_a, "start"_a, "step"_a, "base"_a.none(), "index"_a.none(),
        "expr"_a, "inclusive"_a, "op"_a, "identity"_a.none(), "to_host"_a, "device"_a = nb::none(),
        "Scans a view into a new array (wgprim.view builds the arguments).");
  m.def("sort", &sort, "a"_a, nb::kw_only(), "descending"_a = false, "begin_bit"_a = 0u, "end_bit"_a = nb::none(),
        "offsets"_a = nb::none(), "less"_a = nb::none(), "device"_a = nb::none(),
        "A sorted copy of a 1-D array (stable radix sort; floats: -inf < ... < -0.0 < +0.0 < ... < inf < NaN). "
        "float32/int32/uint32 keys, and float64/int64/uint64 on a WebGPU device. begin_bit / end_bit (as CUB's): "
        "compare only those bits of the ordered key (signed: sign flipped; floats: negatives flipped, NaN all "
        "ones); keys equal there keep their order. offsets= (n_segments + 1 CSR offsets, 32-bit keys): every "
        "segment a[offsets[s]:offsets[s+1]] sorted on its own, the rest copied as it is. less= (32-bit keys): a "
        "bool expression in a and b, true when a goes first ('abs(a) < abs(b)'): a stable merge sort in that order, "
        "refused unless it is a strict weak order on a sample.");
  m.def("argsort", &argsort, "a"_a, nb::kw_only(), "descending"_a = false, "begin_bit"_a = 0u,
        "end_bit"_a = nb::none(), "device"_a = nb::none(),
        "The indices that sort a 1-D array, stably (np.argsort(a, kind='stable'), except that -0.0 sorts before "
        "+0.0). int64 for NumPy input, uint32 DeviceArray for DeviceArray input. begin_bit / end_bit: as sort.");
  m.def("select", &select_py, "a"_a, "condition"_a, nb::kw_only(), "device"_a = nb::none(),
        "a[condition]: the elements where a mask (bool or integer, a's shape) is nonzero, or where a predicate "
        "expression in a holds (e.g. 'a > 0.5'), in order, flattened.");
  m.def("segment_reduce", &segment_reduce, "a"_a, "offsets"_a, "op"_a = "sum", "identity"_a = nb::none(),
        nb::kw_only(), "check"_a = true, "device"_a = nb::none(),
        "out[s] = reduce(a[offsets[s]:offsets[s+1]], op) for each of len(offsets) - 1 segments (the identity for an "
        "empty one).");
  m.def("_reduce_rows", &reduce_rows, "a"_a, "rows"_a, "op"_a, "accuracy"_a = "fast", "device"_a = nb::none(),
        "op over each of `rows` rows of a C-contiguous host array, in its dtype (the NumPy layer's axis=).");
  m.def("_scan_rows", &scan_rows, "a"_a, "rows"_a, "op"_a, "device"_a = nb::none(),
        "The inclusive scan of each of `rows` rows, in the input's dtype, flattened (cumsum / cumprod's axis=).");
  m.def("_arg_rows", &arg_rows, "a"_a, "rows"_a, "is_max"_a,
        "np.argmin / np.argmax of each of `rows` rows of a C-contiguous host array (int64).");
  m.def("_sort_perm", &sort_perm, "a"_a, "device"_a = nb::none(),
        "(sorted copy, stable int64 permutation) of a 1-D host array: unique's building block.");
  m.def("_histogram_counts", &histogram_counts, "a"_a, "bins"_a, "lo"_a, "hi"_a, "levels"_a = nb::none(),
        "device"_a = nb::none());

  nb::class_<py_pipeline>(m, "_Pipeline", "wgprim::pipeline on a Device (python/wgprim/pipeline.py wraps it).")
      .def(nb::new_([](const std::string& type, opt_device device) {
             const device_ptr d = device && *device ? *device : default_device();
             return std::make_shared<py_pipeline>(d, wgprim::parse_dtype(type));
           }),
           "type"_a, "device"_a = nb::none())
      .def("select", [](py_pipeline& p, const std::string& condition) {
             const wgprim::predicate pred = wgprim::predicate::expr(condition);
             on_device(*p.dev, [&] { p.p->select_if(pred); });
           }, "condition"_a)
      .def("sort", [](py_pipeline& p, bool descending, unsigned begin_bit, std::optional<unsigned> end_bit) {
             const wgprim::sort_order o = sort_order_of(descending, begin_bit, end_bit);
             on_device(*p.dev, [&] { p.p->sort(o); });
           }, "descending"_a = false, "begin_bit"_a = 0u, "end_bit"_a = nb::none())
      .def("unique", [](py_pipeline& p) { on_device(*p.dev, [&] { p.p->unique(); }); })
      .def("run", &py_pipeline::run, "a"_a, "Runs the chain (one submission, one wait); returns the final count.")
      .def("output", &py_pipeline::output, "count"_a, "The last run's first `count` output elements (NumPy).")
      .def_prop_ro("steps", [](py_pipeline& p) { return p.p->steps(); })
      .def_prop_ro("kernels_created_last_run", [](py_pipeline& p) { return p.p->kernels_created_last_run(); })
      .def_prop_ro("dispatches_last_run", [](py_pipeline& p) { return p.p->dispatches_last_run(); })
      .def_prop_ro("device", [](py_pipeline& p) { return p.dev; });
}
