#include "plot.hpp"

#include <cairo.h>
#include <plplot/plplot.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "util.hpp"
#include "wgprim/io.hpp"

using namespace wgprim;

// PLplot does the plotting: axis ranges, nice tick values and their labels (plbox), axis titles (pllab), legends
// (pllegend). It draws into our cairo context through its extcairo device, so the page, the figure's title and
// notes (cairo text, shrunk to fit the page so that nothing is clipped) and the PNG written through io::write_file
// stay ours. Nothing here computes a tick or places a tick label by hand.
namespace plot {
namespace {

// PLplot's colour map 0, by index.
enum colour : PLINT { ink = 1, grid = 2, blue = 3, orange = 4, green = 5, purple = 6, red = 7, grey = 8, teal = 9 };
const int palette[][3] = {{248, 246, 240}, {40, 40, 40},   {222, 219, 211}, {21, 101, 192}, {222, 140, 30},
                          {31, 140, 77},   {140, 64, 166}, {204, 38, 38},   {115, 115, 115}, {0, 140, 150}};
const double page_rgb[3] = {248 / 255.0, 246 / 255.0, 240 / 255.0};

// PLplot reports a bad call (an empty window, a bad viewport) through its abort handler and goes on; we turn the
// first such message into a wgprim::error once the picture is done.
std::string plplot_complaint;
void on_plplot_abort(const char* message) {
  if (plplot_complaint.empty()) plplot_complaint = message ? message : "unknown PLplot error";
}

// PLplot's text escape is '#': a literal one is "##".
std::string escaped(const std::string& s) {
  std::string r;
  for (char c : s) {
    r += c;
    if (c == '#') r += '#';
  }
  return r;
}

}  // namespace

// A tick value as people read it: SI prefixes from ten thousand up ("20k", "1.5M", "3G"), plain below ("8000",
// "0.25"), never PLplot's separate "(x10^5)" that sits past the axis end.
std::string si_label(double v) {
  const double a = std::fabs(v);
  char buf[32];
  if (a < 1e4) {
    std::snprintf(buf, sizeof buf, "%.4g", a < 1e-12 ? 0.0 : v);
  } else {
    const char* prefixes[] = {"k", "M", "G", "T", "P", "E"};
    int p = 0;
    double scaled = v / 1e3;
    while (std::fabs(scaled) >= 1e3 && p < 5) {
      scaled /= 1e3;
      ++p;
    }
    std::snprintf(buf, sizeof buf, "%.4g%s", scaled, prefixes[p]);
  }
  return buf;
}

namespace {

// PLplot's custom tick labels (plbox option "o"): log2 axes show the exponent as a superscript of 2 (the data are
// log2 values already); the others si_label.
void log2_label(PLINT axis, PLFLT value, char* label, PLINT length, PLPointer) {
  if (axis == PL_X_AXIS) std::snprintf(label, static_cast<std::size_t>(length), "2#u%ld#d", std::lround(value));
  else std::snprintf(label, static_cast<std::size_t>(length), "%s", si_label(value).c_str());
}
void plain_label(PLINT, PLFLT value, char* label, PLINT length, PLPointer) {
  std::snprintf(label, static_cast<std::size_t>(length), "%s", si_label(value).c_str());
}

// One axis of a panel: its range, its title (with the unit in brackets), and for a log2 axis the tick step in
// powers of two (the data are log2 values already).
struct axis {
  axis(double lo_, double hi_, std::string title_, bool log2_ = false, double step_ = 0)
      : lo(lo_), hi(hi_), title(std::move(title_)), log2(log2_), step(step_) {}
  double lo, hi;
  std::string title;
  bool log2;
  double step;                          // 0: PLplot chooses
  std::vector<std::string> categories;  // x only: named slots [i, i + 1) instead of numbers
  bool numbers = true;                  // false: ticks without labels (an x axis shared with the panel below)
};

struct legend_entry {
  enum kind_t { box, line, note } kind;  // a filled box (bars), a line, or text alone
  std::string text;
  PLINT colour;
  int style = 1;  // line style (1 solid, 2 dashed)
};

// A PNG page: a cairo surface that PLplot draws on. Only one at a time (PLplot keeps global state).
class figure {
 public:
  figure(int w, int h) : w_(w), h_(h) {
    surface_ = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    cr_ = cairo_create(surface_);
    cairo_set_source_rgb(cr_, page_rgb[0], page_rgb[1], page_rgb[2]);
    cairo_paint(cr_);
    // Without its cairo driver PLplot would ask on stdin which device to use: refuse first.
    int count = 128;
    std::vector<const char*> menu(count), names(count);
    const char** m = menu.data();
    const char** d = names.data();
    plgDevs(&m, &d, &count);
    bool found = false;
    for (int i = 0; i < count; ++i) found = found || std::strcmp(d[i], "extcairo") == 0;
    if (!found) {
      destroy();
      throw error(errc::unsupported,
                  "cannot draw the picture: PLplot's cairo driver is missing (Debian: plplot-driver-cairo, which "
                  "scripts/setup.sh installs)");
    }
    plplot_complaint.clear();
    plsabort(on_plplot_abort);
    plsdev("extcairo");
    plspage(0, 0, w, h, 0, 0);
    plscmap0n(16);
    for (int i = 0; i < 10; ++i) plscol0(i, palette[i][0], palette[i][1], palette[i][2]);
    plinit();
    pl_cmd(PLESC_DEVINIT, cr_);
    pladv(0);
    plcol0(ink);
    plschr(0, 0.85);
  }
  figure(const figure&) = delete;
  figure& operator=(const figure&) = delete;
  ~figure() { destroy(); }

  // A panel at pixel rectangle [x0, x1] x [y0, y1] (y down, as on the page): grid, frame, ticks, tick labels and
  // axis titles from PLplot; a line at zero when zero lies inside the y range.
  void panel(double x0, double x1, double y0, double y1, const axis& x, const axis& y, const std::string& heading) {
    if (!(x.hi > x.lo) || !(y.hi > y.lo) || !std::isfinite(x.lo + x.hi + y.lo + y.hi))
      throw error(errc::invalid_argument, "cannot draw an axis over an empty or infinite range");
    plvpor(x0 / w_, x1 / w_, 1 - y1 / h_, 1 - y0 / h_);
    plwind(x.lo, x.hi, y.lo, y.hi);
    plslabelfunc(x.log2 ? log2_label : plain_label, nullptr);
    const std::string xo = !x.categories.empty() ? "bc" : x.numbers ? "bcnsto" : "bcst";
    plcol0(grid);
    plwidth(1);
    plbox("g", x.step, 0, "g", y.step, 0);
    plcol0(ink);
    plbox(xo.c_str(), x.step, 0, "bcnstvo", y.step, 0);
    if (y.lo < 0 && y.hi > 0) {
      plwidth(1.6);
      pljoin(x.lo, 0, x.hi, 0);
      plwidth(1);
    }
    for (std::size_t i = 0; i < x.categories.size(); ++i)
      plmtex("b", 1.5, (static_cast<double>(i) + 0.5) / static_cast<double>(x.categories.size()), 0.5,
             escaped(x.categories[i]).c_str());
    pllab(escaped(x.title).c_str(), escaped(y.title).c_str(), escaped(heading).c_str());
    plslabelfunc(nullptr, nullptr);
  }

  // Bars from zero to v[i] over [x[i] - half, x[i] + half] in world units.
  void bars(const std::vector<double>& x, const std::vector<double>& v, double half, PLINT c) {
    plcol0(c);
    for (std::size_t i = 0; i < x.size(); ++i) {
      PLFLT px[4] = {x[i] - half, x[i] + half, x[i] + half, x[i] - half}, py[4] = {0, 0, v[i], v[i]};
      plfill(4, px, py);
    }
  }

  void line(const std::vector<double>& x, const std::vector<double>& y, PLINT c, double width, int style = 1) {
    if (x.empty()) return;
    plcol0(c);
    plwidth(width);
    pllsty(style);
    plline(static_cast<PLINT>(x.size()), x.data(), y.data());
    pllsty(1);
    if (x.size() <= 64) {  // few points: each one marked (a single one would not show as a line)
      plssym(0, 0.9);
      plpoin(static_cast<PLINT>(x.size()), x.data(), y.data(), 17);
    }
    plwidth(1);
  }

  // Text in world coordinates of the current panel, centred on x (PLplot's plptex).
  void label(double x, double y, const std::string& s, PLINT c) {
    plcol0(c);
    plptex(x, y, 1, 0, 0.5, escaped(s).c_str());
  }

  // A legend inside the current panel's top left (or top right) corner.
  void legend(const std::vector<legend_entry>& entries, bool right = false) {
    const PLINT count = static_cast<PLINT>(entries.size());
    std::vector<PLINT> opts(count), colours(count), patterns(count, 0), styles(count);
    std::vector<PLFLT> scales(count, 0.6), widths(count, 2.0);
    std::vector<std::string> texts(count);
    std::vector<const char*> ptrs(count);
    for (PLINT i = 0; i < count; ++i) {
      opts[i] = entries[i].kind == legend_entry::box    ? PL_LEGEND_COLOR_BOX
                : entries[i].kind == legend_entry::line ? PL_LEGEND_LINE
                                                        : PL_LEGEND_NONE;
      colours[i] = entries[i].colour;
      styles[i] = entries[i].style;
      texts[i] = escaped(entries[i].text);
      ptrs[i] = texts[i].c_str();
    }
    PLFLT lw, lh;
    plscol0a(15, palette[0][0], palette[0][1], palette[0][2], 0.85);
    pllegend(&lw, &lh, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
             PL_POSITION_TOP | (right ? PL_POSITION_RIGHT : PL_POSITION_LEFT) | PL_POSITION_INSIDE, 0.02, 0.03, 0.06,
             15, grid, 1, 0, 0, count, opts.data(), 0.8, 0.85, 1.8, 0.0, colours.data(), ptrs.data(),
             colours.data(), patterns.data(), scales.data(), widths.data(), colours.data(), styles.data(),
             widths.data(), nullptr, nullptr, nullptr, nullptr);
  }

  // Page text (the figure's title and notes), drawn with cairo at pixel (x, y) of the baseline: shrunk until it
  // fits before the right margin, then cut with an ellipsis, so that no text runs off the page.
  void text(double x, double y, const std::string& s, double size, bool bold, const int rgb[3], bool mono = false) {
    cairo_save(cr_);
    cairo_identity_matrix(cr_);  // PLplot leaves its own transformation (y up) on the context
    cairo_reset_clip(cr_);
    cairo_select_font_face(cr_, mono ? "DejaVu Sans Mono" : "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    const double room = w_ - 12 - x;
    std::string shown = s;
    cairo_text_extents_t e;
    for (;;) {
      cairo_set_font_size(cr_, size);
      cairo_text_extents(cr_, shown.c_str(), &e);
      if (e.x_advance <= room) break;
      if (size > 9) { size -= 0.5; continue; }
      // Cut whole UTF-8 characters, then add the ellipsis.
      std::size_t cut = shown.size() > 4 ? shown.size() - 4 : 0;
      while (cut > 0 && (static_cast<unsigned char>(shown[cut]) & 0xC0) == 0x80) --cut;
      if (cut == 0) break;
      shown = shown.substr(0, cut) + "\u2026";
    }
    cairo_set_source_rgb(cr_, rgb[0] / 255.0, rgb[1] / 255.0, rgb[2] / 255.0);
    cairo_move_to(cr_, x, y);
    cairo_show_text(cr_, shown.c_str());
    cairo_restore(cr_);
  }

  // Ends PLplot's drawing, then encodes the PNG in memory and writes it as every output is written
  // (io::write_file: an exclusive temporary file renamed into place).
  void save(const std::string& path) {
    end_plplot();
    if (!plplot_complaint.empty())
      throw error(errc::invalid_argument, "cannot draw the picture: PLplot: " + plplot_complaint);
    cairo_surface_flush(surface_);
    std::string png;
    auto append = [](void* closure, const unsigned char* data, unsigned int length) -> cairo_status_t {
      static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
      return CAIRO_STATUS_SUCCESS;
    };
    cairo_status_t st = cairo_surface_write_to_png_stream(surface_, append, &png);
    if (st != CAIRO_STATUS_SUCCESS)
      throw error(errc::io, "cannot write '" + path + "': " + cairo_status_to_string(st));
    wgprim::io::write_file(path, png);
  }

 private:
  void end_plplot() {
    if (plplot_open_) {
      plend();
      plplot_open_ = false;
    }
  }
  void destroy() {
    end_plplot();
    if (cr_) cairo_destroy(cr_);
    if (surface_) cairo_surface_destroy(surface_);
    cr_ = nullptr;
    surface_ = nullptr;
  }
  int w_, h_;
  cairo_surface_t* surface_ = nullptr;
  cairo_t* cr_ = nullptr;
  bool plplot_open_ = true;
};

const int dark[3] = {34, 34, 34}, muted[3] = {90, 90, 90}, green_rgb[3] = {31, 110, 60};


double as_double(dtype t, std::uint32_t bits) {
  return with_type(t, [&](auto tag) { return static_cast<double>(from_bits<decltype(tag)>(bits)); });
}

// The upper end of a y axis that starts at zero: a little room above the largest value; 1 when all are zero.
double headroom(double largest) { return largest > 0 ? largest * 1.12 : 1.0; }

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

std::string grouped(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", std::fabs(v));
  std::string digits = buf, r;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) r += ',';
    r += digits[i];
  }
  return (v < 0 ? "-" : "") + r;
}

std::string ran_on(const context& ctx) {
  const adapter_info& a = ctx.adapter();
  if (ctx.backend() == backend_choice::native) return "the native CPU backend (" + a.name + ")";
  std::string kind = a.type == "cpu" ? "a CPU adapter" : a.type;
  return a.name + " through WebGPU (" + a.backend + (kind.empty() ? "" : ", " + kind) + ")";
}

void reduce_partials(context& ctx, const buffer& in, std::size_t n, const op& o, dtype t, const std::string& title,
                     const std::vector<std::string>& lines, const std::string& path) {
  (void)lines;  // the report's lines: the picture states its own numbers
  if (n == 0) throw error(errc::invalid_argument, "nothing to plot: the array is empty");
  // The array in up to 256 equal blocks (as pass 1 gives one partial per workgroup), each reduced through the
  // public API on ctx (device_span sub-ranges).
  const std::size_t count = std::min<std::size_t>(256, n);
  const bool f32_sum = t == dtype::f32 && o.name() == "sum";
  std::vector<double> at(count);
  for (std::size_t b = 0; b < count; ++b) at[b] = static_cast<double>(b);
  const std::string block_axis = "block (" + grouped(static_cast<double>(n / count)) + (n % count ? "+" : "") +
                                 (n == count ? " value" : " values") + " each: one partial per block)";
  figure fig(width, height);
  fig.text(16, 24, title, 15, true, dark);
  fig.text(16, 44, "ran on " + ran_on(ctx), 12, false, muted);

  // f32 sums: the errors in ulps, when every sum is finite (NaN or inf data: the block results below).
  bool drawn = false;
  if (f32_sum) {
    std::vector<float> x(n);
    ctx.read(in, 0, x.data(), n * sizeof(float));
    std::vector<double> tree_ulp(count), naive_ulp(count);
    double tree_max = 0, naive_max = 0;
    bool finite = true;
    for (std::size_t b = 0; b < count && finite; ++b) {
      const std::size_t first = b * n / count, last = (b + 1) * n / count;
      const float tree = wgprim::reduce(ctx, device_span<const float>(in, first, last - first), o);
      float naive = 0;
      for (std::size_t k = first; k < last; ++k) naive += x[k];
      superaccumulator exact;
      exact.add(x.data() + first, last - first);
      tree_ulp[b] = reference::ulp_error_f32(tree, exact.to_double());
      naive_ulp[b] = reference::ulp_error_f32(naive, exact.to_double());
      finite = std::isfinite(tree_ulp[b]) && std::isfinite(naive_ulp[b]) && std::isfinite(exact.to_double());
      tree_max = std::max(tree_max, tree_ulp[b]);
      naive_max = std::max(naive_max, naive_ulp[b]);
    }
    // The whole array: the same three sums.
    const float tree_all = wgprim::reduce(ctx, device_span<const float>(in, 0, n), o);
    float naive_all = 0;
    for (float v : x) naive_all += v;
    superaccumulator exact_all;
    exact_all.add(x.data(), n);
    const double e_tree = reference::ulp_error_f32(tree_all, exact_all.to_double());
    const double e_naive = reference::ulp_error_f32(naive_all, exact_all.to_double());
    finite = finite && std::isfinite(e_tree) && std::isfinite(e_naive) && std::isfinite(exact_all.to_double());
    if (finite) {
      drawn = true;
      fig.panel(80, 590, 92, 430, axis{-0.5, count - 0.5, block_axis},
                axis{0, headroom(std::max(naive_max, tree_max)), "|error| (ulp of the block's exact sum)"},
                "each block's sum against its exact sum");
      fig.bars(at, naive_ulp, 0.42, orange);
      fig.bars(at, tree_ulp, 0.42, blue);
      fig.legend({{legend_entry::box, "naive f32 loop (max " + fixed(naive_max, 1) + " ulp)", orange},
                  {legend_entry::box, "wgprim::reduce tree (max " + fixed(tree_max, 2) + " ulp)", blue}});

      const double top = std::max(e_naive, e_tree) > 0 ? std::max(e_naive, e_tree) * 1.2 : 1.0;
      axis whole{0, 2, "the whole array"};
      whole.categories = {"tree", "naive"};
      fig.panel(680, 880, 92, 430, whole, axis{0, top, "|error| (ulp of the exact sum)"},
                grouped(static_cast<double>(n)) + " values");
      fig.bars({0.5}, {e_tree}, 0.3, blue);
      fig.bars({1.5}, {e_naive}, 0.3, orange);
      auto ulps = [](double e) { return (e < 10 ? fixed(e, 2) : grouped(e)) + " ulp"; };
      fig.label(0.5, e_tree + top * 0.04, ulps(e_tree), blue);
      fig.label(1.5, e_naive + top * 0.04, ulps(e_naive), orange);
      const std::string decimal = exact_all.to_decimal();
      fig.text(16, 506,
               "exact sum " + (decimal.size() > 24 ? decimal.substr(0, 24) + "\u2026" : decimal) + "   tree " +
                   fixed(tree_all, 3) + "   naive " + fixed(naive_all, 3),
               12, false, green_rgb, true);
    }
  }
  if (!drawn) {
    // Exact in any order (integers, f32 min/max) or a custom operator: each block's result, in the data's units.
    // A NaN or infinite block is drawn as 0 and counted in the note.
    std::vector<double> partials(count);
    std::size_t not_finite = 0;
    for (std::size_t b = 0; b < count; ++b) {
      const std::size_t first = b * n / count, last = (b + 1) * n / count;
      partials[b] = with_type(t, [&](auto tag) {
        using T = decltype(tag);
        return static_cast<double>(wgprim::reduce(ctx, device_span<const T>(in, first, last - first), o));
      });
      if (!std::isfinite(partials[b])) {
        partials[b] = 0;
        ++not_finite;
      }
    }
    const auto [lo, hi] = std::minmax_element(partials.begin(), partials.end());
    const double ylo = std::min(0.0, *lo * 1.12), yhi = *hi > 0 ? *hi * 1.12 : (ylo < 0 ? 0.0 : 1.0);
    const std::string opname = o.is_custom() ? o.expression() : o.name();
    fig.panel(80, 870, 92, 430, axis{-0.5, count - 0.5, block_axis},
              axis{ylo, yhi, "block result (" + std::string(dtype_name(t)) + " " + opname + ", data units)"},
              "each block's " + opname + ", reduced through wgprim::reduce");
    fig.bars(at, partials, 0.42, blue);
    const double all = with_type(t, [&](auto tag) {
      using T = decltype(tag);
      return static_cast<double>(wgprim::reduce(ctx, device_span<const T>(in, 0, n), o));
    });
    fig.text(16, 506,
             "whole array: " + fixed(all, t == dtype::f32 ? 3 : 0) + "   smallest block " +
                 fixed(*lo, t == dtype::f32 ? 3 : 0) + "   largest block " + fixed(*hi, t == dtype::f32 ? 3 : 0) +
                 (not_finite ? "   NaN/inf blocks drawn as 0: " + std::to_string(not_finite) : std::string()),
             12, false, green_rgb, true);
  }
  fig.save(path);
}

void scan_curve(context& ctx, const buffer& in, const buffer& out, std::size_t n, dtype t, double max_input,
                const std::string& title, const std::vector<std::string>& lines, const std::string& path) {
  (void)max_input;
  if (n == 0) throw error(errc::invalid_argument, "nothing to plot: the array is empty");
  std::vector<std::uint32_t> x(n), y(n);
  ctx.read(in, 0, x.data(), n * 4);
  ctx.read(out, 0, y.data(), n * 4);
  // The running total at up to 1,024 evenly spaced indices (and the last one).
  const std::size_t points = std::min<std::size_t>(1024, n);
  std::vector<double> xi, yi;
  double ylo = 0, yhi = 0;
  std::size_t not_finite = 0;
  for (std::size_t i = 0; i < points; ++i) {
    const std::size_t k = points == 1 ? n - 1 : i * (n - 1) / (points - 1);
    const double v = as_double(t, y[k]);
    if (!std::isfinite(v)) {  // NaN / inf (f32 data): left out of the curve, counted in the legend
      ++not_finite;
      continue;
    }
    xi.push_back(static_cast<double>(k));
    yi.push_back(v);
    ylo = std::min(ylo, yi.back());
    yhi = std::max(yhi, yi.back());
  }
  // The input's mean over up to 128 equal blocks.
  const std::size_t blocks = std::min<std::size_t>(128, n);
  std::vector<double> centre(blocks), mean(blocks);
  double mlo = 0, mhi = 0;
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t first = b * n / blocks, last = (b + 1) * n / blocks;
    double sum = 0;
    for (std::size_t k = first; k < last; ++k) sum += as_double(t, x[k]);
    centre[b] = 0.5 * static_cast<double>(first + last - 1);
    mean[b] = sum / static_cast<double>(last - first);
    if (!std::isfinite(mean[b])) mean[b] = 0;  // drawn as 0 (the curve's legend counts NaN / inf)
    mlo = std::min(mlo, mean[b]);
    mhi = std::max(mhi, mean[b]);
  }
  // Few elements: each gets a slot [i - 0.5, i + 0.5] (so that the first one is not on the frame).
  const double xlo = n <= 64 ? -0.5 : 0.0, xhi = n <= 64 ? static_cast<double>(n) - 0.5 : static_cast<double>(n - 1);
  const double half = 0.42 * static_cast<double>(n) / static_cast<double>(blocks);

  figure fig(width, height);
  fig.text(16, 24, title, 15, true, dark);
  fig.text(16, 44, "ran on " + ran_on(ctx), 12, false, muted);
  axis shared{xlo, xhi, ""};
  shared.numbers = false;
  fig.panel(90, 880, 90, 300, shared,
            axis{ylo < 0 ? ylo * 1.12 : 0, yhi > 0 ? yhi * 1.12 : 1, "running total (data units)"},
            "the scan's output: element i holds the total of elements 0..i");
  fig.line(xi, yi, blue, 2.2);
  fig.legend({{legend_entry::line, "running total", blue}});
  // The report's lines under the legend, as page text (shrunk to fit: they can be long).
  std::vector<std::string> notes = lines;
  if (not_finite) notes.push_back(std::to_string(not_finite) + " of the plotted points are NaN/inf (left out)");
  for (std::size_t i = 0; i < notes.size(); ++i) fig.text(104, 146 + 18.0 * i, notes[i], 12, false, green_rgb);
  fig.panel(90, 880, 336, 466, axis{xlo, xhi, "index i (0 to " + grouped(static_cast<double>(n - 1)) + ")"},
            axis{mlo < 0 ? mlo * 1.12 : 0, mhi > 0 ? mhi * 1.12 : 1, "input (data units)"},
            blocks == n ? std::string("the input")
                        : "the input, averaged over " + std::to_string(blocks) + " blocks");
  fig.bars(centre, mean, half, orange);
  fig.save(path);
}

void bench_chart(const nlohmann::json& ours, const nlohmann::json* cub, const std::string& path) {
  struct series {
    std::string name;
    std::vector<double> x, y;  // log2 n, GB/s
    PLINT colour;
    int style;
  };
  // One panel per primitive / type / op that ours measured (copy is the bandwidth reference drawn in each).
  auto fields = [](const nlohmann::json& r) {
    return std::make_tuple(r["primitive"].get<std::string>(), r["type"].get<std::string>(),
                           r["op"].get<std::string>(), r["algorithm"].get<std::string>(), r["n"].get<double>(),
                           r["gbps"].get<double>());
  };
  std::vector<std::string> keys;
  for (const auto& r : ours["results"]) {
    auto [prim, type, opname, alg, n, gbps] = fields(r);
    (void)alg;
    (void)gbps;
    (void)n;
    if (prim == "copy") continue;
    std::string key = prim + " " + type + " " + opname;
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  if (keys.empty()) keys.push_back("copy");  // a copy-only run: one panel of it
  // Two panels at most (a page stays readable): the two that CUB's bench also times first, then the rest in the
  // order measured; the subtitle says how many were left out (bench --primitives picks them).
  const std::vector<std::string> preferred = {"reduce f32 sum", "inclusive_scan u32 sum"};
  std::stable_sort(keys.begin(), keys.end(), [&](const std::string& a, const std::string& b) {
    auto rank = [&](const std::string& k) {
      return static_cast<std::size_t>(std::find(preferred.begin(), preferred.end(), k) - preferred.begin());
    };
    return rank(a) < rank(b);
  });
  const std::size_t left_out = keys.size() > 2 ? keys.size() - 2 : 0;
  keys.resize(keys.size() - left_out);
  const PLINT ours_colours[] = {blue, green, purple, teal, orange};
  std::vector<std::vector<series>> panels(keys.size());
  double xmin = 1e300, xmax = -1e300;
  auto add = [&](const nlohmann::json& doc, bool is_cub) {
    for (const auto& r : doc["results"]) {
      auto [prim, type, opname, alg, n, gbps] = fields(r);
      if (!(n >= 1) || !(n <= 18446744073709551616.0) || !std::isfinite(gbps) || gbps < 0)
        throw error(errc::invalid_argument, "cannot chart these results: n must be from 1 to 2^64 and GB/s finite");
      const std::string key = prim + " " + type + " " + opname;
      for (std::size_t p = 0; p < keys.size(); ++p) {
        if (prim != "copy" && key != keys[p]) continue;
        // CUB's records name their algorithm "cub", its copy "cudaMemcpy"
        const std::string name = is_cub && alg == "cub" ? "CUB" : alg + (prim == "copy" ? " (copy)" : "");
        auto& list = panels[p];
        auto it = std::find_if(list.begin(), list.end(), [&](const series& s) { return s.name == name; });
        if (it == list.end()) {
          PLINT c = prim == "copy" ? (is_cub ? red : grey) : is_cub ? red : ours_colours[list.size() % 5];
          list.push_back({name, {}, {}, c, prim == "copy" ? 2 : 1});
          it = list.end() - 1;
        }
        it->x.push_back(std::log2(n));
        it->y.push_back(gbps);
        xmin = std::min(xmin, it->x.back());
        xmax = std::max(xmax, it->x.back());
      }
    }
  };
  add(ours, false);
  if (cub) add(*cub, true);
  if (xmax < xmin) throw error(errc::invalid_argument, "cannot chart these results: there are none");
  if (xmax - xmin < 1) {
    xmin -= 1;
    xmax += 1;
  }
  const double step = xmax - xmin > 12 ? 4 : xmax - xmin > 6 ? 2 : 1;
  const std::size_t columns = keys.size();
  figure fig(1100, 480);
  std::string backend = ours.value("backend", std::string());
  fig.text(16, 24, "GB/s against n: wgprim on " + ours.value("adapter", std::string("?")) +
                       (backend.empty() ? "" : " (" + backend + ")") +
                       (cub ? ", CUB on " + cub->value("adapter", std::string("?")) : ""),
           15, true, dark);
  fig.text(16, 44,
           "GB/s = bytes read and written / time; dashed: a plain copy, the memory bound" +
               (left_out ? "; " + std::to_string(left_out) + " more primitive/type/op in the data (--primitives)"
                         : std::string()),
           12, false, muted);
  for (std::size_t p = 0; p < keys.size(); ++p) {
    const double panel_w = columns == 1 ? 960 : 440;
    const double x0 = 90 + static_cast<double>(p) * 540, y0 = 90;
    // Sorted by n, so each curve runs left to right.
    double ymax = 0;
    for (auto& s : panels[p]) {
      std::vector<std::size_t> order(s.x.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s.x[a] < s.x[b]; });
      std::vector<double> xs, ys;
      for (std::size_t i : order) {
        xs.push_back(s.x[i]);
        ys.push_back(s.y[i]);
        ymax = std::max(ymax, s.y[i]);
      }
      s.x = xs;
      s.y = ys;
    }
    fig.panel(x0, x0 + panel_w, y0, y0 + 320,
              axis{std::floor(xmin), std::ceil(xmax), "n (elements, log2 scale)", true, step},
              axis{0, headroom(ymax), "GB/s"}, keys[p]);
    std::vector<legend_entry> entries;
    for (const auto& s : panels[p]) {
      fig.line(s.x, s.y, s.colour, 2.0, s.style);
      entries.push_back({legend_entry::line, s.name, s.colour, s.style});
    }
    fig.legend(entries);
  }
  fig.save(path);
}

}  // namespace plot
