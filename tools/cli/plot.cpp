#include "plot.hpp"

#include <cairo.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "gpu/gpu.hpp"
#include "core/wgsl_compose.hpp"

using namespace wgprim;

namespace plot {
namespace {

struct plot_params {
  std::uint32_t count, curve, blocks, stride;
  float y0, y1, avg_scale, pad;
};

const double background[4] = {0.97, 0.96, 0.93, 1.0};

// Draws with a render pipeline into an offscreen rgba8 texture and returns a cairo surface holding it.
cairo_surface_t* render(context& ctx, const std::string& vs, const monoid& m, const plot_params& p,
                        const buffer& values, const buffer& original, std::uint32_t instances) {
  const std::string src = detail::compose_wgsl("cli/plot.wgsl", m, {});
  using detail::rslot;
  const auto& k = detail::get_render_kernel(ctx, src, vs, "fill",
                                            {rslot::uniform, rslot::storage_read, rslot::storage_read},
                                            detail::tex_format::rgba8unorm);
  detail::texture target(ctx, width, height, detail::tex_format::rgba8unorm);
  const std::uint32_t row = detail::recorder::bytes_per_row(target);
  buffer pixels = ctx.create_buffer(std::uint64_t(row) * height);
  {
    detail::recorder rec(ctx);
    rec.draw(k, {detail::rbind(rec.params(p)), detail::rbind(detail::bind(values)), detail::rbind(detail::bind(original))},
             target, background, 4, instances);
    rec.copy(target, pixels);
    rec.submit();
  }
  std::vector<std::uint8_t> rgba(std::size_t(row) * height);
  ctx.read(pixels, 0, rgba.data(), rgba.size());
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
  cairo_surface_flush(s);
  std::uint8_t* dst = cairo_image_surface_get_data(s);
  const int stride = cairo_image_surface_get_stride(s);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const std::uint8_t* px = &rgba[std::size_t(y) * row + std::size_t(x) * 4];
      std::uint32_t argb = (std::uint32_t(px[3]) << 24) | (std::uint32_t(px[0]) << 16) | (std::uint32_t(px[1]) << 8) | px[2];
      std::memcpy(dst + std::size_t(y) * stride + std::size_t(x) * 4, &argb, 4);
    }
  cairo_surface_mark_dirty(s);
  return s;
}

void text(cairo_t* cr, double x, double y, const std::string& s, double size, bool bold, double r, double g, double b,
          bool mono = false) {
  cairo_select_font_face(cr, mono ? "DejaVu Sans Mono" : "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
  cairo_set_source_rgb(cr, r, g, b);
  cairo_move_to(cr, x, y);
  cairo_show_text(cr, s.c_str());
}

// Writes through a temporary file renamed into place.
void save(cairo_surface_t* s, const std::string& path) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  cairo_status_t st = cairo_surface_write_to_png(s, tmp.c_str());
  if (st != CAIRO_STATUS_SUCCESS || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw error(errc::io, "cannot write '" + path + "': " + cairo_status_to_string(st));
  }
}

// clip-space y to pixel row
double row_of(double y) { return (1.0 - y) * 0.5 * height; }

}  // namespace

void reduce_partials(context& ctx, const buffer& in, std::size_t n, const monoid& m, const std::string& title,
                     const std::vector<std::string>& lines, const std::string& path) {
  std::uint32_t count = 0;
  buffer partials = detail::seed_partials(ctx, in, n, m, count);
  plot_params p{count, 0, 0, 1, -0.30f, 0.80f, 0.0f, 0.0f};
  cairo_surface_t* s = render(ctx, "bars_vs", m, p, partials, partials, count);
  cairo_t* cr = cairo_create(s);
  text(cr, 20, 30, title, 15, true, 0.13, 0.13, 0.13);
  text(cr, 20, row_of(-0.30) + 18, "bar height: each partial's place between the smallest and the largest partial",
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

void scan_curve(context& ctx, const buffer& in, const buffer& out, std::size_t n, const monoid& m, double max_input,
                const std::string& title, const std::vector<std::string>& lines, const std::string& path) {
  if (n == 0) throw error(errc::invalid_argument, "nothing to plot: the array is empty");
  const std::uint32_t curve = static_cast<std::uint32_t>(std::min<std::size_t>(512, n));
  const std::uint32_t blocks = static_cast<std::uint32_t>(std::min<std::size_t>(256, n));
  const std::uint32_t per_block = static_cast<std::uint32_t>(std::max<std::size_t>(1, n / blocks));
  plot_params p{static_cast<std::uint32_t>(n), curve, blocks, std::max<std::uint32_t>(1, per_block / 16), -0.30f, 0.80f,
                static_cast<float>(max_input > 0 ? 1.0 / max_input : 0.0), 0.0f};
  cairo_surface_t* s = render(ctx, "scan_vs", m, p, out, in, curve + blocks);
  cairo_t* cr = cairo_create(s);
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
