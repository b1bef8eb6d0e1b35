// tico-circle compare: the text report (stdout) and the JSON report (--json).
#include "compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <sstream>

namespace tico::circle_tool::compare {
namespace {

std::string shortened(const std::string &name, std::size_t width) {
  std::string clean;
  for (char c : name) // names come from files: no control bytes on the terminal
    clean += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  return clean.size() <= width ? clean : clean.substr(0, width - 3) + "...";
}

// JSON has no infinity: non-finite values become the strings "inf" / "-inf" (Python's float()
// reads both forms).
nlohmann::ordered_json jsonNumber(double value) {
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  return value;
}

std::string operatorText(int32_t op, const std::string &name) {
  return op < 0 ? std::string("model input") : "#" + std::to_string(op) + " " + name;
}

// The lowest SQNR among the operator's inputs that come from the run (not constants).
std::optional<double> activationInputsDb(const Divergence &divergence) {
  std::optional<double> lowest;
  for (const DivergenceInput &input : divergence.inputs)
    if (!input.constant && input.sqnr_db)
      lowest = lowest ? std::min(*lowest, *input.sqnr_db) : *input.sqnr_db;
  return lowest;
}

// Why the output diverged, as far as the inputs tell.
std::string diagnosis(const Report &report) {
  const Divergence &divergence = *report.divergence;
  const Row &row = report.rows[divergence.row];
  if (row.op < 0)
    return "a model input differs: the two runs did not get the same data";
  for (const DivergenceInput &input : divergence.inputs)
    if (input.constant && input.sqnr_db && *input.sqnr_db < report.threshold_db)
      return "the constant input '" + input.name + "' is at " + formatDb(*input.sqnr_db) +
             " dB: its values (quantization) differ, check its scales";
  return "the inputs are fine: the operator itself loses the accuracy (its output range, its parameters or its kernel)";
}

} // namespace

std::string divergenceSentence(const Report &report) {
  if (!report.divergence)
    return {};
  const Divergence &divergence = *report.divergence;
  const Row &row = report.rows[divergence.row];
  std::string text = "'" + row.name + "' (" + (row.op < 0 ? std::string("model input") : row.op_name + " #" + std::to_string(row.op)) + "): ";
  if (const auto inputs = activationInputsDb(divergence))
    text += "inputs at " + formatDb(*inputs) + " dB, ";
  return text + "output at " + formatDb(row.metrics.sqnr_db) + " dB";
}

std::string textReport(const Report &report, std::size_t top) {
  std::ostringstream out;
  const std::size_t exact = static_cast<std::size_t>(
      std::count_if(report.rows.begin(), report.rows.end(), [](const Row &r) { return r.match == "exact"; }));
  out << "A: " << report.model_a << "\nB: " << report.model_b << "\nsubgraph " << report.subgraph << ": captured "
      << report.captured_a << " tensors of A and " << report.captured_b << " of B; compared " << report.rows.size()
      << " (" << exact << " by name, " << report.rows.size() - exact << " by a quantization suffix); "
      << report.only_in_a.size() << " only in A, " << report.only_in_b << " only in B, "
      << report.shape_mismatches.size() << " with other sizes\n\n";

  std::vector<std::size_t> order(report.rows.size());
  std::iota(order.begin(), order.end(), 0);
  if (top > 0) {
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      return report.rows[x].metrics.sqnr_db < report.rows[y].metrics.sqnr_db;
    });
    order.resize(std::min(top, order.size()));
    out << "lowest SQNR (" << order.size() << " of " << report.rows.size() << " tensors):\n";
  }
  std::size_t width = 6;
  for (std::size_t r : order)
    width = std::max(width, std::min<std::size_t>(40, report.rows[r].name.size()));
  char line[512];
  std::snprintf(line, sizeof line, "  %6s  %-18s %-*s %8s %9s %11s %11s  %s\n", "op", "operator", static_cast<int>(width),
                "tensor", "SQNR dB", "cosine", "max|a-b|", "mean|a-b|", "B type");
  out << line;
  for (std::size_t r : order) {
    const Row &row = report.rows[r];
    const bool diverged = report.divergence && report.divergence->row == r;
    std::snprintf(line, sizeof line, "%s %6s  %-18s %-*s %8s %9s %11s %11s  %s\n", diverged ? ">" : " ",
                  row.op < 0 ? "in" : std::to_string(row.op).c_str(), shortened(row.op_name, 18).c_str(),
                  static_cast<int>(width), shortened(row.name, width).c_str(), formatDb(row.metrics.sqnr_db).c_str(),
                  formatNumber(row.metrics.cosine, "%.6f").c_str(), formatNumber(row.metrics.max_abs, "%.4g").c_str(),
                  formatNumber(row.metrics.mean_abs, "%.4g").c_str(), row.type_b.c_str());
    out << line;
  }
  for (const ShapeMismatch &m : report.shape_mismatches) {
    auto dims = [](const std::vector<int64_t> &shape) {
      std::string text = "[";
      for (std::size_t i = 0; i < shape.size(); ++i)
        text += (i ? "," : "") + std::to_string(shape[i]);
      return text + "]";
    };
    out << "  not compared: '" << shortened(m.name, 80) << "' has " << dims(m.shape_a) << " in A and "
        << dims(m.shape_b) << " in B ('" << shortened(m.name_b, 80) << "')\n";
  }

  out << "\n";
  if (!report.divergence) {
    const auto lowest = std::min_element(report.rows.begin(), report.rows.end(), [](const Row &x, const Row &y) {
      return x.metrics.sqnr_db < y.metrics.sqnr_db;
    });
    out << "no divergence: every compared tensor is at or above " << formatDb(report.threshold_db)
        << " dB (lowest: '" << shortened(lowest->name, 80) << "' at " << formatDb(lowest->metrics.sqnr_db) << " dB)\n";
    return out.str();
  }
  const Row &row = report.rows[report.divergence->row];
  out << "first divergence (SQNR < " << formatDb(report.threshold_db) << " dB): '" << shortened(row.name, 80)
      << "', output of " << operatorText(row.op, row.op_name) << " in A";
  if (row.name_b != row.name || row.op_b != row.op)
    out << " ('" << shortened(row.name_b, 80) << "', " << operatorText(row.op_b, row.op_name_b) << " in B)";
  out << "\n  " << divergenceSentence(report) << "\n";
  for (const DivergenceInput &input : report.divergence->inputs)
    out << "    input '" << shortened(input.name, 80) << "'" << (input.constant ? " (constant)" : "") << ": "
        << (input.sqnr_db ? formatDb(*input.sqnr_db) + " dB" : std::string("not in B")) << "\n";
  out << "  " << diagnosis(report) << "\n";
  return out.str();
}

nlohmann::ordered_json jsonReport(const Report &report) {
  nlohmann::ordered_json doc;
  doc["format"] = "tico.compare";
  doc["version"] = 1;
  doc["model_a"] = report.model_a;
  doc["model_b"] = report.model_b;
  doc["subgraph"] = report.subgraph;
  doc["threshold_db"] = report.threshold_db;
  const std::size_t exact = static_cast<std::size_t>(
      std::count_if(report.rows.begin(), report.rows.end(), [](const Row &r) { return r.match == "exact"; }));
  double lowest = std::numeric_limits<double>::infinity();
  for (const Row &row : report.rows)
    lowest = std::min(lowest, row.metrics.sqnr_db);
  doc["summary"] = {{"captured_a", report.captured_a},
                    {"captured_b", report.captured_b},
                    {"compared", report.rows.size()},
                    {"matched_by_name", exact},
                    {"matched_by_suffix", report.rows.size() - exact},
                    {"only_in_a", report.only_in_a.size()},
                    {"only_in_b", report.only_in_b},
                    {"shape_mismatches", report.shape_mismatches.size()},
                    {"lowest_sqnr_db", jsonNumber(lowest)},
                    {"first_divergence",
                     report.divergence ? nlohmann::ordered_json(report.rows[report.divergence->row].name) : nullptr}};
  if (report.divergence) {
    const Row &row = report.rows[report.divergence->row];
    nlohmann::ordered_json inputs = nlohmann::ordered_json::array();
    for (const DivergenceInput &input : report.divergence->inputs)
      inputs.push_back({{"tensor", input.name},
                        {"constant", input.constant},
                        {"sqnr_db", input.sqnr_db ? jsonNumber(*input.sqnr_db) : nlohmann::ordered_json(nullptr)}});
    doc["divergence"] = {{"row", report.divergence->row}, {"tensor", row.name},       {"tensor_b", row.name_b},
                         {"op", row.op},                  {"op_name", row.op_name},   {"sqnr_db", jsonNumber(row.metrics.sqnr_db)},
                         {"inputs", inputs},              {"summary", divergenceSentence(report)}};
  } else {
    doc["divergence"] = nullptr;
  }
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const Row &row : report.rows)
    rows.push_back({{"tensor", row.name},
                    {"tensor_b", row.name_b},
                    {"match", row.match},
                    {"op", row.op},
                    {"op_name", row.op_name},
                    {"op_b", row.op_b},
                    {"op_name_b", row.op_name_b},
                    {"shape_a", row.shape_a},
                    {"shape_b", row.shape_b},
                    {"type_a", row.type_a},
                    {"type_b", row.type_b},
                    {"elements", row.metrics.count},
                    {"sqnr_db", jsonNumber(row.metrics.sqnr_db)},
                    {"cosine", row.metrics.cosine},
                    {"max_abs", jsonNumber(row.metrics.max_abs)},
                    {"mean_abs", jsonNumber(row.metrics.mean_abs)},
                    {"non_finite", row.metrics.non_finite}});
  doc["rows"] = std::move(rows);
  nlohmann::ordered_json mismatches = nlohmann::ordered_json::array();
  for (const ShapeMismatch &m : report.shape_mismatches)
    mismatches.push_back({{"tensor", m.name}, {"tensor_b", m.name_b}, {"shape_a", m.shape_a}, {"shape_b", m.shape_b}});
  doc["shape_mismatches"] = std::move(mismatches);
  doc["only_in_a"] = report.only_in_a;
  return doc;
}

} // namespace tico::circle_tool::compare
