#include "plot.hpp"

#include <cairo.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include <cstring>

#include "wgprim/io.hpp"

using namespace wgprim;

namespace plot {
namespace {

const double background[4] = {0.97, 0.96, 0.93, 1.0};

// A blank picture in the background colour.
cairo_surface_t* canvas() {
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
  cairo_t* cr = cairo_create(s);
  cairo_set_source_rgb(cr, background[0], background[1], background[2]);
  cairo_paint(cr);
  cairo_destroy(cr);
  return s;
}

// Bar i of `count` with the given height (0..1 of the band y0..y1, in clip space: x in [-0.9, 0.9]).
void bar(cairo_t* cr, std::size_t i, std::size_t count, double h, double y0, double y1, const double color[3]) {
  const double w = 1.8 / static_cast<double>(count);
  const double xa = -0.9 + (static_cast<double>(i) + 0.12) * w, xb = xa + 0.76 * w;
  const double ya = y0, yb = y0 + std::clamp(h, 0.0, 1.0) * (y1 - y0);
  auto px = [](double x) { return (x + 1.0) * 0.5 * width; };
  auto py = [](double y) { return (1.0 - y) * 0.5 * height; };
  cairo_set_source_rgb(cr, color[0], color[1], color[2]);
  cairo_rectangle(cr, px(xa), py(yb), std::max(1.0, px(xb) - px(xa)), py(ya) - py(yb));
  cairo_fill(cr);
}

// Calls f with a value of the C++ type of t (for the typed public API).
template <class F>
auto with_type(dtype t, F f) {
  switch (t) {
    case dtype::f32: return f(float{});
    case dtype::i32: return f(std::int32_t{});
    default: return f(std::uint32_t{});
  }
}

double as_double(dtype t, std::uint32_t bits) {
  return with_type(t, [&](auto tag) { return static_cast<double>(from_bits<decltype(tag)>(bits)); });
}

const double blue[3] = {0.08, 0.40, 0.75}, orange[3] = {0.85, 0.55, 0.15};

void text(cairo_t* cr, double x, double y, const std::string& s, double size, bool bold, double r, double g, double b,
          bool mono = false) {
  cairo_select_font_face(cr, mono ? "DejaVu Sans Mono" : "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
  cairo_set_source_rgb(cr, r, g, b);
  cairo_move_to(cr, x, y);
  cairo_show_text(cr, s.c_str());
}

// Encodes the PNG in memory, then writes it as every output is written (io::write_file: an exclusive temporary
// file renamed into place, held until the command succeeds).
void save(cairo_surface_t* s, const std::string& path) {
  std::string png;
  auto append = [](void* closure, const unsigned char* data, unsigned int length) -> cairo_status_t {
    static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
    return CAIRO_STATUS_SUCCESS;
  };
  cairo_status_t st = cairo_surface_write_to_png_stream(s, append, &png);
  if (st != CAIRO_STATUS_SUCCESS) throw error(errc::io, "cannot write '" + path + "': " + cairo_status_to_string(st));
  wgprim::io::write_file(path, png);
}

// clip-space y to pixel row
double row_of(double y) { return (1.0 - y) * 0.5 * height; }

}  // namespace

void reduce_partials(context& ctx, const buffer& in, std::size_t n, const op& o, dtype t, const std::string& title,
                     const std::vector<std::string>& lines, const std::string& path) {
  if (n == 0) throw error(errc::invalid_argument, "nothing to plot: the array is empty");
  // The array in 256 equal blocks, each reduced on the GPU through the public API (device_span sub-ranges).
  const std::size_t count = std::min<std::size_t>(256, n);
  std::vector<double> partials(count);
  for (std::size_t b = 0; b < count; ++b) {
    const std::size_t first = b * n / count, last = (b + 1) * n / count;
    partials[b] = with_type(t, [&](auto tag) {
      using T = decltype(tag);
      return static_cast<double>(wgprim::reduce(ctx, device_span<const T>(in, first, last - first), o));
    });
  }
  const auto [lo, hi] = std::minmax_element(partials.begin(), partials.end());
  cairo_surface_t* s = canvas();
  cairo_t* cr = cairo_create(s);
  for (std::size_t i = 0; i < count; ++i) {
    double h = *hi > *lo ? 0.08 + 0.92 * (partials[i] - *lo) / (*hi - *lo) : 1.0;
    bar(cr, i, count, h, -0.30, 0.80, blue);
  }
  text(cr, 20, 30, title, 15, true, 0.13, 0.13, 0.13);
  text(cr, 20, row_of(-0.30) + 18, "bar height: each block's result between the smallest and the largest block",
       11, false, 0.35, 0.35, 0.35);
  const double colors[3][3] = {{0.13, 0.13, 0.13}, {0.12, 0.42, 0.23}, {0.54, 0.17, 0.17}};
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const double* c = colors[std::min<std::size_t>(i, 2)];
    text(cr, 20, row_of(-0.30) + 48 + 22.0 * i, lines[i], 13, false, c[0], c[1], c[2], true);
  }
  cairo_destroy(cr);
  save(s, path);
  cairo_surface_destroy(s);
}

void scan_curve(context& ctx, const buffer& in, const buffer& out, std::size_t n, dtype t, double max_input,
                const std::string& title, const std::vector<std::string>& lines, const std::string& path) {
  if (n == 0) throw error(errc::invalid_argument, "nothing to plot: the array is empty");
  const std::size_t curve = std::min<std::size_t>(512, n), blocks = std::min<std::size_t>(256, n);
  std::vector<std::uint32_t> x(n), y(n);
  ctx.read(in, 0, x.data(), n * 4);
  ctx.read(out, 0, y.data(), n * 4);
  cairo_surface_t* s = canvas();
  cairo_t* cr = cairo_create(s);
  const double last = as_double(t, y[n - 1]);
  for (std::size_t i = 0; i < curve; ++i) {
    const std::size_t at = std::min(n - 1, (i + 1) * n / curve - 1);
    bar(cr, i, curve, last != 0 ? as_double(t, y[at]) / last : 0.0, -0.30, 0.80, blue);
  }
  const std::size_t per_block = std::max<std::size_t>(1, n / blocks);
  for (std::size_t b = 0; b < blocks; ++b) {
    double sum = 0;
    std::size_t cnt = 0;
    for (std::size_t k = b * per_block; k < std::min(n, (b + 1) * per_block); ++k, ++cnt) sum += as_double(t, x[k]);
    bar(cr, b, blocks, cnt && max_input > 0 ? sum / cnt / max_input : 0.0, -0.88, -0.52, orange);
  }
  text(cr, 20, 30, title, 15, true, 0.13, 0.13, 0.13);
  text(cr, 20, row_of(0.80) - 6, "running total (blue), normalised by its last value", 12, false, 0.12, 0.31, 0.54);
  text(cr, 20, row_of(-0.52) - 6, "input averaged per block (orange)", 12, false, 0.69, 0.48, 0.06);
  for (std::size_t i = 0; i < lines.size(); ++i)
    text(cr, 430, row_of(-0.30) + 22 + 19.0 * i, lines[i], 13, false, i == 0 ? 0.12 : 0.13, i == 0 ? 0.42 : 0.13,
         i == 0 ? 0.23 : 0.13, true);
  cairo_destroy(cr);
  save(s, path);
  cairo_surface_destroy(s);
}

void bench_chart(const nlohmann::json& ours, const nlohmann::json* cub, const std::string& path) {
  struct series { std::string name; std::vector<std::pair<double, double>> pts; bool dashed = false; };
  struct panel { std::string key; std::vector<series> lines; };
  const std::vector<std::pair<std::string, std::string>> wanted = {{"reduce", "f32 sum"},
                                                                   {"inclusive_scan", "u32 sum"}};
  std::vector<panel> panels;
  for (const auto& w : wanted) {
    panel pn{w.first + " " + w.second, {}};
    std::map<std::string, series> by_alg;
    auto add = [&](const nlohmann::json& doc, const std::string& prefix) {
      for (const auto& r : doc["results"]) {
        std::string key = r["primitive"].get<std::string>();
        std::string to = r["type"].get<std::string>() + " " + r["op"].get<std::string>();
        bool is_copy = key == "copy";
        if (!is_copy && (key != w.first || to != w.second)) continue;
        if (is_copy && w.first == "reduce") continue;  // the copy limit belongs to the scan panel
        std::string name = prefix + r["algorithm"].get<std::string>();
        auto& srs = by_alg[name];
        srs.name = name;
        srs.dashed = is_copy;
        srs.pts.emplace_back(std::log2(r["n"].get<double>()), r["gbps"].get<double>());
      }
    };
    add(ours, "");
    if (cub) add(*cub, "");
    for (auto& kv : by_alg) pn.lines.push_back(kv.second);
    panels.push_back(pn);
  }
  const int W = 1100, H = 480;
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
  cairo_t* cr = cairo_create(s);
  cairo_set_source_rgb(cr, background[0], background[1], background[2]);
  cairo_paint(cr);
  std::string title = "GB/s against n on " + ours.value("adapter", std::string("?")) +
                      (cub ? " (CUB: " + cub->value("adapter", std::string("?")) + ")" : "");
  text(cr, 20, 28, title, 15, true, 0.13, 0.13, 0.13);
  const double palette[][3] = {{0.08, 0.40, 0.75}, {0.85, 0.55, 0.15}, {0.12, 0.55, 0.30},
                               {0.55, 0.25, 0.65}, {0.80, 0.15, 0.15}, {0.35, 0.35, 0.35}};
  for (std::size_t pi = 0; pi < panels.size(); ++pi) {
    const panel& pn = panels[pi];
    const double x0 = 70 + pi * 540.0, x1 = x0 + 440, y0 = 420, y1 = 70;
    double xmin = 1e9, xmax = -1e9, ymax = 1;
    for (const auto& l : pn.lines)
      for (auto [x, y] : l.pts) { xmin = std::min(xmin, x); xmax = std::max(xmax, x); ymax = std::max(ymax, y); }
    if (xmax <= xmin) { xmin = 16; xmax = 28; }
    // The axis labels step through [xmin, xmax]: an infinite end (n == 0) never stopped (issue 29 row 7).
    if (!std::isfinite(xmin) || !std::isfinite(xmax) || !std::isfinite(ymax) || xmin < 0 || xmax > 64)
      throw error(errc::invalid_argument, "cannot chart these results: n must be from 1 to 2^64 and GB/s finite");
    ymax *= 1.08;
    auto X = [&](double x) { return x0 + (x - xmin) / (xmax - xmin) * (x1 - x0); };
    auto Y = [&](double y) { return y0 - y / ymax * (y0 - y1); };
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_set_line_width(cr, 1);
    cairo_move_to(cr, x0, y1); cairo_line_to(cr, x0, y0); cairo_line_to(cr, x1, y0); cairo_stroke(cr);
    for (int k = static_cast<int>(std::ceil(xmin)); k <= xmax; k += 2) {
      text(cr, X(k) - 10, y0 + 16, "2^" + std::to_string(k), 10, false, 0.3, 0.3, 0.3);
    }
    for (int t = 0; t <= 4; ++t) {
      double v = ymax / 1.08 * t / 4;
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.0f", v);
      text(cr, x0 - 45, Y(v) + 4, buf, 10, false, 0.3, 0.3, 0.3);
    }
    text(cr, x0, y1 - 12, pn.key + "  (GB/s, n log scale)", 13, true, 0.13, 0.13, 0.13);
    for (std::size_t li = 0; li < pn.lines.size(); ++li) {
      const auto& l = pn.lines[li];
      const double* c = (l.name == "cub" || l.name == "cudaMemcpy") ? palette[4] : l.dashed ? palette[5] : palette[li % 4];
      cairo_set_source_rgb(cr, c[0], c[1], c[2]);
      cairo_set_line_width(cr, 2);
      double dash[] = {6, 4};
      cairo_set_dash(cr, dash, l.dashed ? 2 : 0, 0);
      for (std::size_t i = 0; i < l.pts.size(); ++i) {
        if (i == 0) cairo_move_to(cr, X(l.pts[i].first), Y(l.pts[i].second));
        else cairo_line_to(cr, X(l.pts[i].first), Y(l.pts[i].second));
      }
      cairo_stroke(cr);
      cairo_set_dash(cr, dash, 0, 0);
      text(cr, x0 + 10, y1 + 14 + 16.0 * li, l.name, 11, false, c[0], c[1], c[2]);
    }
  }
  cairo_destroy(cr);
  save(s, path);
  cairo_surface_destroy(s);
}

}  // namespace plot
