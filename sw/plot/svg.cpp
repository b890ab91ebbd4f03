#include "sw/plot/svg.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace cello::plot {

namespace {

const char* kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                          "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
constexpr size_t kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);

std::string fmt_tick(double v) {
  double a = std::fabs(v);
  if (a == 0) return "0";
  if (a >= 1e12) return fmt::format("{:g}T", v / 1e12);
  if (a >= 1e9) return fmt::format("{:g}G", v / 1e9);
  if (a >= 1e6) return fmt::format("{:g}M", v / 1e6);
  if (a >= 1e3) return fmt::format("{:g}k", v / 1e3);
  return fmt::format("{:g}", v);
}

struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  double map(double v, double p0, double p1) const {
    double t;
    if (log) {
      double l = std::log10(std::max(v, 1e-300));
      t = (l - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
    } else {
      t = (v - lo) / (hi - lo);
    }
    return p0 + t * (p1 - p0);
  }
  std::vector<double> ticks() const {
    std::vector<double> out;
    if (log) {
      for (double d = std::floor(std::log10(lo)); d <= std::ceil(std::log10(hi)); d += 1) {
        double v = std::pow(10.0, d);
        if (v >= lo * 0.999 && v <= hi * 1.001) out.push_back(v);
      }
    } else {
      double span = hi - lo;
      double step = std::pow(10.0, std::floor(std::log10(span)));
      if (span / step < 4) step /= 2;
      if (span / step < 4) step /= 2;
      for (double v = std::ceil(lo / step) * step; v <= hi * 1.0001; v += step) out.push_back(v);
    }
    return out;
  }
};

Axis make_axis(double lo, double hi, bool log) {
  Axis a;
  a.log = log;
  if (log) {
    lo = std::max(lo, 1e-12);
    hi = std::max(hi, lo * 10);
    a.lo = std::pow(10.0, std::floor(std::log10(lo)));
    a.hi = std::pow(10.0, std::ceil(std::log10(hi)));
    if (a.hi <= a.lo) a.hi = a.lo * 10;
  } else {
    a.lo = std::min(0.0, lo);
    a.hi = hi > a.lo ? hi * 1.08 : a.lo + 1;
  }
  return a;
}

}  // namespace

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string line_chart_svg(const LineChart& c) {
  const double W = 820, H = 520, L = 90, R = 210, T = 50, B = 70;
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  for (const auto& s : c.series)
    for (const auto& p : s.points) {
      if (c.log_x && p.x <= 0) continue;
      if (c.log_y && p.y <= 0) continue;
      xlo = std::min(xlo, p.x), xhi = std::max(xhi, p.x);
      ylo = std::min(ylo, p.y), yhi = std::max(yhi, p.y);
    }
  if (!(xlo <= xhi)) xlo = 1, xhi = 10;
  if (!(ylo <= yhi)) ylo = 1, yhi = 10;
  Axis ax = make_axis(xlo, xhi, c.log_x), ay = make_axis(ylo, yhi, c.log_y);
  if (!c.log_y) ay.lo = 0;
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" "
      "font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      W, H);
  s += fmt::format("<text x=\"{}\" y=\"28\" font-size=\"16\" text-anchor=\"middle\">{}</text>\n", (L + W - R) / 2,
                   xml_escape(c.title));
  const double x0 = L, x1 = W - R, y0 = H - B, y1 = T;
  for (double t : ax.ticks()) {
    double x = ax.map(t, x0, x1);
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/>\n", x, y0, y1);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x, y0 + 16, fmt_tick(t));
  }
  for (double t : ay.ticks()) {
    double y = ay.map(t, y0, y1);
    s += fmt::format("<line x1=\"{1}\" y1=\"{0:.1f}\" x2=\"{2}\" y2=\"{0:.1f}\" stroke=\"#ddd\"/>\n", y, x0, x1);
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", x0 - 6, y + 4, fmt_tick(t));
  }
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"black\"/>\n", x0, y1,
                   x1 - x0, y0 - y1);
  s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", (x0 + x1) / 2, H - 25,
                   xml_escape(c.x_label));
  s += fmt::format("<text x=\"20\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 20 {0})\">{1}</text>\n",
                   (y0 + y1) / 2, xml_escape(c.y_label));
  for (size_t i = 0; i < c.series.size(); ++i) {
    const auto& se = c.series[i];
    const char* color = kPalette[i % kPaletteSize];
    std::string pts;
    double prev_y = 0;
    bool first = true;
    for (const auto& p : se.points) {
      if ((c.log_x && p.x <= 0) || (c.log_y && p.y <= 0)) continue;
      double x = ax.map(p.x, x0, x1), y = ay.map(p.y, y0, y1);
      if (c.step && !first) pts += fmt::format("{:.1f},{:.1f} ", x, prev_y);
      pts += fmt::format("{:.1f},{:.1f} ", x, y);
      prev_y = y;
      first = false;
    }
    if (c.step && !first) pts += fmt::format("{:.1f},{:.1f} ", x1, prev_y);
    if (se.line)
      s += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>\n", color, pts);
    if (se.markers)
      for (const auto& p : se.points) {
        if ((c.log_x && p.x <= 0) || (c.log_y && p.y <= 0)) continue;
        s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\"/>\n", ax.map(p.x, x0, x1),
                         ay.map(p.y, y0, y1), color);
      }
    double ly = T + 10 + 20 * static_cast<double>(i);
    if (se.line)
      s += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"3\"/>\n", x1 + 12, ly,
                       x1 + 32, ly, color);
    else
      s += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"{}\"/>\n", x1 + 22, ly, color);
    s += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", x1 + 38, ly + 4, xml_escape(se.name));
  }
  return s + "</svg>\n";
}

std::string bar_chart_svg(const std::string& title, const std::vector<BarPanel>& panels) {
  size_t nseries = 0, ngroups = 0;
  for (const auto& p : panels) {
    nseries = std::max(nseries, p.series.size());
    ngroups = std::max(ngroups, p.groups.size());
  }
  const double L = 80, R = 190, PH = 300, GAP = 110, T = 50;
  const double group_w = std::max(60.0, 14.0 * static_cast<double>(nseries) + 24);
  const double W = L + R + group_w * static_cast<double>(std::max<size_t>(ngroups, 1));
  const double H = T + static_cast<double>(panels.size()) * (PH + GAP);
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" font-family=\"sans-serif\" "
      "font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      W, H);
  s += fmt::format("<text x=\"{:.1f}\" y=\"26\" font-size=\"16\" text-anchor=\"middle\">{}</text>\n", (L + W - R) / 2,
                   xml_escape(title));
  for (size_t pi = 0; pi < panels.size(); ++pi) {
    const auto& p = panels[pi];
    const double y1 = T + static_cast<double>(pi) * (PH + GAP) + 20, y0 = y1 + PH;
    const double x0 = L, x1 = L + group_w * static_cast<double>(p.groups.size());
    double lo = INFINITY, hi = -INFINITY;
    for (const auto& row : p.values)
      for (double v : row)
        if (v > 0) lo = std::min(lo, v), hi = std::max(hi, v);
    if (p.reference > 0) lo = std::min(lo, p.reference), hi = std::max(hi, p.reference);
    if (!(lo <= hi)) lo = 0.1, hi = 1;
    Axis ay = make_axis(lo, hi, p.log_y);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"13\" text-anchor=\"middle\">{}</text>\n",
                     (x0 + x1) / 2, y1 - 6, xml_escape(p.title));
    for (double t : ay.ticks()) {
      double y = ay.map(t, y0, y1);
      s += fmt::format("<line x1=\"{1}\" y1=\"{0:.1f}\" x2=\"{2}\" y2=\"{0:.1f}\" stroke=\"#ddd\"/>\n", y, x0, x1);
      s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", x0 - 5, y + 4, fmt_tick(t));
    }
    s += fmt::format("<text x=\"18\" y=\"{0:.1f}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {0:.1f})\">{1}</text>\n",
                     (y0 + y1) / 2, xml_escape(p.y_label));
    const double base = p.log_y ? y0 : ay.map(0, y0, y1);
    for (size_t g = 0; g < p.groups.size(); ++g) {
      const double gx = x0 + group_w * static_cast<double>(g) + 12;
      for (size_t si = 0; si < p.series.size(); ++si) {
        double v = g < p.values.size() && si < p.values[g].size() ? p.values[g][si] : 0;
        if (!(v > 0)) continue;
        double y = ay.map(v, y0, y1);
        double bx = gx + 14.0 * static_cast<double>(si);
        s += fmt::format(
            "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"{:.1f}\" fill=\"{}\"><title>{} {}: {:.4g}</title></rect>\n",
            bx, std::min(y, base), std::fabs(base - y), kPalette[si % kPaletteSize], xml_escape(p.groups[g]),
            xml_escape(p.series[si]), v);
      }
      const double cx = x0 + group_w * (static_cast<double>(g) + 0.5);
      s += fmt::format(
          "<text x=\"{0:.1f}\" y=\"{1:.1f}\" text-anchor=\"end\" transform=\"rotate(-30 {0:.1f} {1:.1f})\">{2}</text>\n",
          cx, y0 + 14, xml_escape(p.groups[g]));
    }
    if (p.reference > 0) {
      double y = ay.map(p.reference, y0, y1);
      s += fmt::format(
          "<line x1=\"{1}\" y1=\"{0:.1f}\" x2=\"{2}\" y2=\"{0:.1f}\" stroke=\"black\" stroke-dasharray=\"5,4\"/>\n", y,
          x0, x1);
    }
    s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"black\"/>\n", x0, y1,
                     x1 - x0, y0 - y1);
    if (pi == 0)
      for (size_t si = 0; si < p.series.size(); ++si) {
        double ly = y1 + 8 + 18 * static_cast<double>(si);
        s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"{}\"/>\n", x1 + 14, ly,
                         kPalette[si % kPaletteSize]);
        s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", x1 + 32, ly + 10, xml_escape(p.series[si]));
      }
  }
  return s + "</svg>\n";
}

}  // namespace cello::plot
