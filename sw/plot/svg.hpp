// Minimal standalone SVG charts for the model reports: a (log-)line chart for
// ski-slope bounds and grouped bar charts for per-configuration comparisons.
// Output is plain SVG 1.1 text that browsers and image viewers open directly.
#pragma once

#include <string>
#include <vector>

namespace cello::plot {

struct XY {
  double x = 0, y = 0;
};

struct LineSeries {
  std::string name;
  std::vector<XY> points;
  bool line = true;      // join the points
  bool markers = false;  // a dot at every point (a scatter plot: line = false)
};

struct LineChart {
  std::string title, x_label, y_label;
  bool log_x = false, log_y = false;
  bool step = false;  // draw as a staircase (value holds until the next x)
  std::vector<LineSeries> series;
};

std::string line_chart_svg(const LineChart& c);

// One panel: groups along x (datasets), one bar per series (configuration) in
// every group. Values <= 0 are drawn as missing.
struct BarPanel {
  std::string title, y_label;
  bool log_y = false;
  double reference = 0;  // draw a dashed horizontal line at this value if > 0
  std::vector<std::string> groups;
  std::vector<std::string> series;
  std::vector<std::vector<double>> values;  // [group][series]
};

// Panels stacked vertically, with one shared legend.
std::string bar_chart_svg(const std::string& title, const std::vector<BarPanel>& panels);

std::string xml_escape(const std::string& s);

}  // namespace cello::plot
