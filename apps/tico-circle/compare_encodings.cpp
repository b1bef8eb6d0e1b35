// tico-circle compare --encodings: a report on tico-run's --encodings JSON (docs/quantizers.md,
// "Encodings export"): the quantizers' per-layer metrics (gptq's error_ratio, a plugin's own)
// as bar charts, and the distribution of scales per tensor role as histograms. A scale far from
// its role's crowd (a weight whose scale is 100x its neighbours') is where to look first.
#include "compare.h"

#include "tico/support/error.h"
#include "tico/support/file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace tico::circle_tool::compare {
namespace {

// Encodings of an LLM list every channel's scale: far more than a manifest, so a larger cap.
constexpr std::size_t kMaxEncodingsBytes = std::size_t{1} << 30;

// Every scale of each role ("activation", "weight", "bias"; MX tensors have none).
std::map<std::string, std::vector<double>> scalesByRole(const nlohmann::json &encodings) {
  std::map<std::string, std::vector<double>> out;
  for (const auto &tensor : encodings["tensors"]) {
    const std::string role = tensor.value("role", std::string("other"));
    if (!tensor.contains("scale") || !tensor["scale"].is_array())
      continue;
    for (const auto &s : tensor["scale"])
      if (s.is_number() && s.get<double>() > 0)
        out[role].push_back(s.get<double>());
  }
  return out;
}

// Metric name -> (subject, value) in the order the quantizers reported them (layer order).
std::map<std::string, std::vector<std::pair<std::string, double>>> metricsByName(const nlohmann::json &encodings) {
  std::map<std::string, std::vector<std::pair<std::string, double>>> out;
  for (const auto &m : encodings["metrics"])
    if (m.contains("value") && m["value"].is_number())
      out[m.value("metric", std::string("metric"))].emplace_back(m.value("subject", std::string("?")),
                                                                 m["value"].get<double>());
  return out;
}

// A horizontal bar per subject; the value printed after each bar.
std::string barChart(const std::string &metric, const std::vector<std::pair<std::string, double>> &values) {
  const double label_width = 260, bar_width = 520, row = 16, top = 8;
  double hi = 0, lo = 0;
  for (const auto &[subject, v] : values) {
    hi = std::max(hi, v);
    lo = std::min(lo, v);
  }
  if (hi == lo)
    hi = lo + 1;
  const double height = top * 2 + row * static_cast<double>(values.size());
  auto xOf = [&](double v) { return label_width + bar_width * (v - lo) / (hi - lo); };
  std::ostringstream svg;
  svg << "<svg class=\"bars\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " << label_width + bar_width + 90 << " "
      << height << "\" width=\"" << label_width + bar_width + 90 << "\" height=\"" << height << "\" role=\"img\" aria-label=\""
      << htmlEscape(metric) << " per layer\">\n";
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto &[subject, v] = values[i];
    const double y = top + row * static_cast<double>(i);
    std::string label = subject.size() > 40 ? subject.substr(0, 37) + "..." : subject;
    const double x0 = xOf(std::min(0.0, v)), x1 = xOf(std::max(0.0, v));
    svg << "<text x=\"" << label_width - 6 << "\" y=\"" << y + 12 << "\" class=\"tick\" text-anchor=\"end\">"
        << htmlEscape(label) << "</text><rect class=\"bar\" x=\"" << formatNumber(x0, "%.1f") << "\" y=\"" << y + 2 << "\" width=\""
        << formatNumber(std::max(1.0, x1 - x0), "%.1f") << "\" height=\"" << row - 4 << "\"><title>" << htmlEscape(subject) << ": "
        << formatNumber(v, "%.6g") << "</title></rect><text x=\"" << formatNumber(x1 + 4, "%.1f") << "\" y=\"" << y + 12
        << "\" class=\"tick\">" << formatNumber(v, "%.4g") << "</text>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

// Histogram of log10(scale), four bins per decade, on an x range shared by every role so the
// roles can be compared by eye.
std::string scaleHistogram(const std::string &role, const std::vector<double> &scales, double lo_decade,
                           double hi_decade) {
  const int bins_per_decade = 4;
  const int bins = std::max(1, static_cast<int>((hi_decade - lo_decade) * bins_per_decade));
  std::vector<std::size_t> counts(static_cast<std::size_t>(bins), 0);
  for (double s : scales) {
    const int b = static_cast<int>(std::floor((std::log10(s) - lo_decade) * bins_per_decade));
    ++counts[static_cast<std::size_t>(std::clamp(b, 0, bins - 1))];
  }
  const std::size_t peak = std::max<std::size_t>(1, *std::max_element(counts.begin(), counts.end()));
  const double width = 640, height = 180, left = 48, right = 12, top = 12, bottom = 36;
  const double bin_width = (width - left - right) / bins;
  std::ostringstream svg;
  svg << "<svg class=\"histogram\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " << width << " " << height
      << "\" width=\"" << width << "\" height=\"" << height << "\" role=\"img\" aria-label=\"scales of "
      << htmlEscape(role) << " tensors\">\n";
  for (int b = 0; b < bins; ++b) {
    const double h = (height - top - bottom) * static_cast<double>(counts[static_cast<std::size_t>(b)]) / static_cast<double>(peak);
    const double from = lo_decade + static_cast<double>(b) / bins_per_decade;
    svg << "<rect class=\"bar " << htmlEscape(role) << "\" x=\"" << formatNumber(left + bin_width * b + 1, "%.1f") << "\" y=\""
        << formatNumber(height - bottom - h, "%.1f") << "\" width=\"" << formatNumber(std::max(1.0, bin_width - 2), "%.1f") << "\" height=\""
        << formatNumber(h, "%.1f") << "\"><title>scale in [1e" << formatNumber(from, "%.2f") << ", 1e" << formatNumber(from + 0.25, "%.2f")
        << "): " << counts[static_cast<std::size_t>(b)] << "</title></rect>\n";
  }
  for (double d = lo_decade; d <= hi_decade + 1e-9; d += 1)
    svg << "<text x=\"" << formatNumber(left + (d - lo_decade) * bins_per_decade * bin_width, "%.1f") << "\" y=\"" << height - bottom + 16
        << "\" class=\"tick\" text-anchor=\"middle\">1e" << formatNumber(d, "%g") << "</text>\n";
  svg << "<text x=\"" << left - 6 << "\" y=\"" << top + 10 << "\" class=\"tick\" text-anchor=\"end\">" << peak
      << "</text><text x=\"" << left - 6 << "\" y=\"" << height - bottom << "\" class=\"tick\" text-anchor=\"end\">0</text>"
      << "<text x=\"" << left + (width - left - right) / 2 << "\" y=\"" << height - 6
      << "\" class=\"axis\" text-anchor=\"middle\">scale (log10 bins)</text>\n</svg>\n";
  return svg.str();
}

double medianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace

nlohmann::json readEncodings(const std::string &path) {
  requireRegularFile(path, "encodings file");
  const std::string text = readRegularFile(path, "encodings file", kMaxEncodingsBytes);
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded())
    throw Error("encodings file '" + path + "' is not valid JSON");
  if (!doc.is_object() || doc.value("format", std::string()) != "tico.encodings")
    throw Error("encodings file '" + path + "' is not tico-run --encodings output (its \"format\" is not \"tico.encodings\")");
  if (!doc.contains("version") || !doc["version"].is_number_integer() || doc["version"].get<int64_t>() != 1)
    throw Error("encodings file '" + path + "' has a version this tool does not know (it reads version 1)");
  for (const char *field : {"tensors", "metrics"})
    if (!doc.contains(field) || !doc[field].is_array())
      throw Error("encodings file '" + path + "' has no \"" + field + "\" list");
  for (const auto &tensor : doc["tensors"])
    if (!tensor.is_object() || !tensor.contains("name") || !tensor["name"].is_string() || !tensor.contains("index") ||
        !tensor["index"].is_number_unsigned() || !tensor.contains("subgraph") || !tensor["subgraph"].is_number_unsigned())
      throw Error("encodings file '" + path + "': a tensor entry lacks its subgraph, index or name");
  return doc;
}

void checkEncodingsMatch(const nlohmann::json &encodings, const CircleModel &model, const std::string &model_path,
                         const std::string &encodings_path) {
  for (const auto &tensor : encodings["tensors"]) {
    const auto s = tensor["subgraph"].get<std::size_t>(), i = tensor["index"].get<std::size_t>();
    const std::string name = tensor["name"].get<std::string>();
    if (s >= model.subgraphs.size() || i >= model.subgraphs[s].tensors.size() || model.subgraphs[s].tensors[i].name != name)
      throw Error("encodings file '" + encodings_path + "' does not describe '" + model_path + "': its tensor '" + name +
                  "' (subgraph " + std::to_string(s) + ", index " + std::to_string(i) + ") is not in the model");
  }
}

std::string encodingsTextSummary(const nlohmann::json &encodings, const std::string &path) {
  std::map<std::string, std::size_t> roles;
  for (const auto &tensor : encodings["tensors"])
    ++roles[tensor.value("role", std::string("other"))];
  std::ostringstream out;
  out << "\nencodings '" << path << "': " << encodings["tensors"].size() << " quantized tensors";
  const char *separator = " (";
  for (const auto &[role, count] : roles) {
    out << separator << count << " " << role;
    separator = ", ";
  }
  out << (roles.empty() ? "" : ")") << "\n";
  for (const auto &[metric, values] : metricsByName(encodings)) {
    const auto worst = std::max_element(values.begin(), values.end(),
                                        [](const auto &x, const auto &y) { return x.second < y.second; });
    out << "  " << metric << ": " << values.size() << " layers, highest " << formatNumber(worst->second, "%.4g") << " ('"
        << worst->first << "')\n";
  }
  for (const auto &[role, scales] : scalesByRole(encodings)) {
    const auto [lo, hi] = std::minmax_element(scales.begin(), scales.end());
    out << "  " << role << " scales: " << scales.size() << ", min " << formatNumber(*lo, "%.4g") << ", median "
        << formatNumber(medianOf(scales), "%.4g") << ", max " << formatNumber(*hi, "%.4g") << "\n";
  }
  return out.str();
}

std::string encodingsHtmlSection(const nlohmann::json &encodings, const std::string &path) {
  std::ostringstream html;
  html << "<section>\n<h2>Encodings</h2>\n<p><code>" << htmlEscape(path) << "</code> (model <code>"
       << htmlEscape(encodings.value("model", std::string("?"))) << "</code>): " << encodings["tensors"].size()
       << " quantized tensors, " << encodings["metrics"].size() << " quantizer metrics.</p>\n";
  const auto metrics = metricsByName(encodings);
  if (metrics.empty())
    html << "<p>The quantizers reported no metrics (ptq reports none; gptq reports <code>error_ratio</code> per layer).</p>\n";
  for (const auto &[metric, values] : metrics)
    html << "<h3>" << htmlEscape(metric) << " per layer</h3>\n" << barChart(metric, values);
  const auto scales = scalesByRole(encodings);
  if (!scales.empty()) {
    double lo = INFINITY, hi = -INFINITY;
    for (const auto &[role, values] : scales)
      for (double s : values) {
        lo = std::min(lo, std::log10(s));
        hi = std::max(hi, std::log10(s));
      }
    lo = std::floor(lo);
    hi = std::max(lo + 1, std::ceil(hi));
    html << "<h3>Scales per tensor role</h3>\n<table>\n<thead><tr><th>role</th><th>scales</th><th>min</th><th>median</th>"
            "<th>max</th></tr></thead>\n<tbody>\n";
    for (const auto &[role, values] : scales) {
      const auto [min, max] = std::minmax_element(values.begin(), values.end());
      html << "<tr><td>" << htmlEscape(role) << "</td><td class=\"num\">" << values.size() << "</td><td class=\"num\">"
           << formatNumber(*min, "%.4g") << "</td><td class=\"num\">" << formatNumber(medianOf(values), "%.4g") << "</td><td class=\"num\">"
           << formatNumber(*max, "%.4g") << "</td></tr>\n";
    }
    html << "</tbody>\n</table>\n";
    for (const auto &[role, values] : scales)
      html << "<h4>" << htmlEscape(role) << "</h4>\n" << scaleHistogram(role, values, lo, hi);
  }
  html << "</section>\n";
  return html.str();
}

} // namespace tico::circle_tool::compare
