// tico-circle compare --html: one self-contained page (inline CSS and SVG, no scripts, nothing
// fetched), so a report can be mailed or attached to a bug as a single file.
#include "compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace tico::circle_tool::compare {
namespace {

// SQNR along the graph: x = position in A's execution order, y = dB. Identical tensors (inf)
// sit on the top edge as triangles, -inf ones on the bottom edge; every point has a tooltip.
std::string sqnrChart(const Report &report) {
  const double width = 920, height = 320, left = 56, right = 16, top = 24, bottom = 44;
  const std::size_t n = report.rows.size();
  double lo = std::min(0.0, report.threshold_db - 10), hi = report.threshold_db + 20;
  for (const Row &row : report.rows)
    if (std::isfinite(row.metrics.sqnr_db)) {
      lo = std::min(lo, row.metrics.sqnr_db);
      hi = std::max(hi, row.metrics.sqnr_db);
    }
  lo = std::floor(lo / 10) * 10;
  hi = std::ceil((hi + 5) / 10) * 10;
  auto xOf = [&](std::size_t i) {
    return left + (n <= 1 ? (width - left - right) / 2 : (width - left - right) * static_cast<double>(i) / static_cast<double>(n - 1));
  };
  auto yOf = [&](double db) {
    const double clamped = std::isinf(db) ? (db > 0 ? hi : lo) : db;
    return top + (height - top - bottom) * (hi - clamped) / (hi - lo);
  };
  std::ostringstream svg;
  char buf[256];
  svg << "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " << width << " " << height
      << "\" width=\"" << width << "\" height=\"" << height << "\" role=\"img\" aria-label=\"SQNR along the graph\">\n";
  // Grid and y labels every 10 dB (or coarser when the range is wide).
  const double step = (hi - lo) > 120 ? 40 : (hi - lo) > 60 ? 20 : 10;
  for (double db = lo; db <= hi + 1e-9; db += step) {
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/><text x=\"%.1f\" y=\"%.1f\" "
                  "class=\"tick\" text-anchor=\"end\">%g</text>\n",
                  left, yOf(db), width - right, yOf(db), left - 6, yOf(db) + 4, db);
    svg << buf;
  }
  std::snprintf(buf, sizeof buf,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"threshold\"/><text x=\"%.1f\" y=\"%.1f\" "
                "class=\"tick threshold-label\" text-anchor=\"end\">threshold %s dB</text>\n",
                left, yOf(report.threshold_db), width - right, yOf(report.threshold_db), width - right - 4,
                yOf(report.threshold_db) - 5, formatDb(report.threshold_db).c_str());
  svg << buf;
  // X ticks: about ten operator indices.
  const std::size_t every = std::max<std::size_t>(1, (n + 9) / 10);
  for (std::size_t i = 0; i < n; i += every) {
    const Row &row = report.rows[i];
    std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"middle\">%s</text>\n", xOf(i),
                  height - bottom + 16, row.op < 0 ? "in" : std::to_string(row.op).c_str());
    svg << buf;
  }
  std::snprintf(buf, sizeof buf,
                "<text x=\"%.1f\" y=\"%.1f\" class=\"axis\" text-anchor=\"middle\">operator (A's execution order)</text>\n"
                "<text x=\"14\" y=\"%.1f\" class=\"axis\" text-anchor=\"middle\" transform=\"rotate(-90 14 %.1f)\">SQNR (dB)</text>\n",
                left + (width - left - right) / 2, height - 8, top + (height - top - bottom) / 2,
                top + (height - top - bottom) / 2);
  svg << buf;
  svg << "<polyline class=\"line\" points=\"";
  for (std::size_t i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof buf, "%.1f,%.1f ", xOf(i), yOf(report.rows[i].metrics.sqnr_db));
    svg << buf;
  }
  svg << "\"/>\n";
  for (std::size_t i = 0; i < n; ++i) {
    const Row &row = report.rows[i];
    const double x = xOf(i), y = yOf(row.metrics.sqnr_db);
    const std::string tip = htmlEscape(row.name + " (" + (row.op < 0 ? std::string("input") : row.op_name + " #" + std::to_string(row.op)) +
                                       "): " + formatDb(row.metrics.sqnr_db) + " dB");
    const char *cls = row.metrics.sqnr_db < report.threshold_db ? "point low" : "point";
    const bool triangle = std::isinf(row.metrics.sqnr_db) && row.metrics.sqnr_db > 0;
    if (triangle)
      std::snprintf(buf, sizeof buf, "<path class=\"%s inf\" d=\"M%.1f %.1f l-4 7 h8 z\">", cls, x, y);
    else
      std::snprintf(buf, sizeof buf, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\">", cls, x, y);
    svg << buf << "<title>" << tip << "</title>" << (triangle ? "</path>\n" : "</circle>\n");
  }
  if (report.divergence) {
    const std::size_t i = report.divergence->row;
    const Row &row = report.rows[i];
    const double x = xOf(i), y = yOf(row.metrics.sqnr_db);
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"divergence\"/>"
                  "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"7\" class=\"divergence-mark\"/>",
                  x, top, x, height - bottom, x, y);
    svg << buf;
    const bool right_half = x > left + (width - left - right) * 0.6;
    std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" class=\"divergence-label\" text-anchor=\"%s\">", right_half ? x - 8 : x + 8,
                  top + 12, right_half ? "end" : "start");
    svg << buf << "first divergence: " << htmlEscape(row.name) << "</text>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

} // namespace

std::string htmlEscape(const std::string &text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&#39;"; break;
    default: out += (static_cast<unsigned char>(c) < 0x20 && c != '\t') ? '?' : c;
    }
  }
  return out;
}

std::string compareHtmlSection(const Report &report) {
  std::ostringstream html;
  html << "<section>\n<h2>Tensor comparison</h2>\n<p>A (reference): <code>" << htmlEscape(report.model_a)
       << "</code><br>B: <code>" << htmlEscape(report.model_b) << "</code><br>subgraph " << report.subgraph << ", "
       << report.rows.size() << " tensors compared, " << report.only_in_a.size() << " only in A, " << report.only_in_b
       << " only in B, " << report.shape_mismatches.size() << " with other sizes; threshold "
       << formatDb(report.threshold_db) << " dB</p>\n";
  if (report.divergence) {
    const Row &row = report.rows[report.divergence->row];
    html << "<p class=\"verdict bad\">First divergence: <b id=\"first-divergence\">" << htmlEscape(row.name) << "</b> &mdash; "
         << htmlEscape(divergenceSentence(report)) << "</p>\n<ul class=\"inputs\">\n";
    for (const DivergenceInput &input : report.divergence->inputs)
      html << "<li><code>" << htmlEscape(input.name) << "</code>" << (input.constant ? " (constant)" : "") << ": "
           << (input.sqnr_db ? formatDb(*input.sqnr_db) + " dB" : std::string("not in B")) << "</li>\n";
    html << "</ul>\n";
  } else {
    html << "<p class=\"verdict good\">No divergence: every compared tensor is at or above "
         << formatDb(report.threshold_db) << " dB.</p>\n";
  }
  html << sqnrChart(report);
  html << "<table>\n<thead><tr><th>#</th><th>op</th><th>operator</th><th>tensor (A)</th><th>tensor (B)</th>"
          "<th>shape</th><th>SQNR dB</th><th>cosine</th><th>max |a&minus;b|</th><th>mean |a&minus;b|</th>"
          "<th>A type</th><th>B type</th></tr></thead>\n<tbody>\n";
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    const Row &row = report.rows[i];
    const bool diverged = report.divergence && report.divergence->row == i;
    const bool low = row.metrics.sqnr_db < report.threshold_db;
    html << "<tr" << (diverged ? " class=\"divergence\"" : low ? " class=\"low\"" : "") << "><td>" << i << "</td><td>"
         << (row.op < 0 ? std::string("in") : std::to_string(row.op)) << "</td><td>" << htmlEscape(row.op_name)
         << "</td><td>" << htmlEscape(row.name) << "</td><td>" << htmlEscape(row.name_b) << "</td><td>"
         << shapeText(row.shape_a) << "</td><td class=\"num\">" << formatDb(row.metrics.sqnr_db)
         << "</td><td class=\"num\">" << formatNumber(row.metrics.cosine, "%.6f") << "</td><td class=\"num\">"
         << formatNumber(row.metrics.max_abs, "%.4g") << "</td><td class=\"num\">" << formatNumber(row.metrics.mean_abs, "%.4g") << "</td><td>"
         << htmlEscape(row.type_a) << "</td><td>" << htmlEscape(row.type_b) << "</td></tr>\n";
  }
  html << "</tbody>\n</table>\n";
  if (!report.shape_mismatches.empty()) {
    html << "<h3>Not compared (other sizes)</h3>\n<ul>\n";
    for (const ShapeMismatch &m : report.shape_mismatches)
      html << "<li><code>" << htmlEscape(m.name) << "</code> " << shapeText(m.shape_a) << " in A, <code>"
           << htmlEscape(m.name_b) << "</code> " << shapeText(m.shape_b) << " in B</li>\n";
    html << "</ul>\n";
  }
  html << "</section>\n";
  return html.str();
}

std::string htmlPage(const std::string &title, const std::string &body) {
  std::ostringstream html;
  html << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" << htmlEscape(title)
       << "</title>\n<style>\n"
          "body{font-family:system-ui,sans-serif;margin:24px;color:#222}\n"
          "code{font-family:ui-monospace,monospace}\n"
          "table{border-collapse:collapse;font-size:13px;margin-top:12px}\n"
          "th,td{border:1px solid #ccc;padding:2px 6px;text-align:left}\n"
          "td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
          "tr.low td{background:#fff3e0}\n"
          "tr.divergence td{background:#ffcdd2;font-weight:bold}\n"
          ".verdict{font-size:16px;padding:6px 10px;border-radius:4px}\n"
          ".verdict.bad{background:#ffebee;border-left:4px solid #c62828}\n"
          ".verdict.good{background:#e8f5e9;border-left:4px solid #2e7d32}\n"
          "svg .grid{stroke:#e0e0e0}\n"
          "svg .tick{font-size:11px;fill:#555}\n"
          "svg .axis{font-size:12px;fill:#333}\n"
          "svg .threshold{stroke:#c62828;stroke-dasharray:6 4}\n"
          "svg .threshold-label{fill:#c62828}\n"
          "svg .line{fill:none;stroke:#1565c0;stroke-width:1.5}\n"
          "svg .point{fill:#1565c0}\n"
          "svg .point.low{fill:#ef6c00}\n"
          "svg .divergence{stroke:#c62828;stroke-width:1}\n"
          "svg .divergence-mark{fill:none;stroke:#c62828;stroke-width:2}\n"
          "svg .divergence-label{font-size:12px;fill:#c62828;font-weight:bold}\n"
          "svg .bar{fill:#1565c0}\n"
          "svg .bar.activation{fill:#1565c0}\n"
          "svg .bar.weight{fill:#2e7d32}\n"
          "svg .bar.bias{fill:#ef6c00}\n"
          "</style>\n</head>\n<body>\n<h1>"
       << htmlEscape(title) << "</h1>\n"
       << body << "</body>\n</html>\n";
  return html.str();
}

} // namespace tico::circle_tool::compare
