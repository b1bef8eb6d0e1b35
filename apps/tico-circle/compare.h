// tico-circle compare: the pieces of the quantization debugger shared between its source files.
//
//   compare_capture.cpp   runs a model with every intermediate tensor made a subgraph output
//   compare_values.cpp    dequantizes tensors to float and measures the difference of two
//   compare.cpp           matches tensors by name, orders rows, finds the first divergence, CLI
//   compare_report.cpp    text and JSON reports
//   compare_html.cpp      the self-contained HTML page (SVG chart + table)
//   compare_encodings.cpp the report on tico-run's --encodings JSON
#pragma once

#include "tico/circle/model.h"
#include "tico/ir/tensor_data.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tico::circle_tool::compare {

// ---- Capturing every intermediate tensor --------------------------------------------------------

// One tensor value of a run: a subgraph input or an operator output.
struct CapturedTensor {
  uint32_t tensor = 0;   // index in the compared subgraph
  int32_t producer = -1; // index of the operator writing it; -1 for a subgraph input
  std::shared_ptr<const TensorData> value;
};

struct CaptureResult {
  std::vector<CapturedTensor> tensors; // in execution order: inputs, then operator outputs
};

// Runs subgraph `subgraph` of `model` (verified first) on the built-in interpreter with its
// output list extended by every non-constant operator output whose name matches one of `globs`
// (all when empty). `label` names the model in error messages ("A 'f.circle'"). Float32 inputs
// given for a quantized model input are quantized with that input's parameters.
CaptureResult captureTensors(const CircleModel &model, uint32_t subgraph,
                             const std::vector<std::shared_ptr<const TensorData>> &inputs,
                             const std::vector<std::string> &globs, const std::string &label);

// Whether `name` matches one of the shell patterns `globs` (fnmatch; true when there are none).
bool matchesAnyGlob(const std::string &name, const std::vector<std::string> &globs);

// ---- Values and metrics -------------------------------------------------------------------------

// The real values of `value`, a tensor of `tensor`'s type: float types widened, quantized
// integers dequantized with the tensor's parameters (real = scale * (q - zero_point), per tensor
// or per channel along quantized_dimension), other integers and bools as they are.
std::vector<float> realValues(const CircleTensor &tensor, const TensorData &value);

// The value of a constant tensor (its buffer, read with the tensor's type and shape; 4-bit
// payloads unpacked); null when the tensor has no data or a type that cannot be read.
std::shared_ptr<const TensorData> constantValue(const CircleModel &model, const CircleTensor &tensor);

// "float32", "uint8 (q, per-tensor)", "int8 (q, per-channel dim 0)": a tensor's type for reports.
std::string describeTensorType(const CircleTensor &tensor);

struct Metrics {
  double sqnr_db = 0;     // 10·log10(Σa² / Σ(a−b)²); +inf when identical, −inf for a non-finite error
  double cosine = 1;      // Σab / √(Σa²·Σb²); 1 when both are all zeros
  double max_abs = 0;     // max |a − b|
  double mean_abs = 0;    // mean |a − b|
  std::size_t count = 0;  // elements compared
  std::size_t non_finite = 0; // positions where exactly one side, or the two sides differently, are inf/nan
};

// Compares `a` (the reference) with `b`; both hold the same number of elements.
Metrics measure(const std::vector<float> &a, const std::vector<float> &b);

// ---- The comparison -----------------------------------------------------------------------------

// One tensor compared: A's tensor and the B tensor matched to it by name.
struct Row {
  std::string name;   // A's tensor name
  std::string name_b; // the B tensor's name (A's, or A's plus a quantization suffix)
  std::string match;  // "exact" or "suffix"
  int32_t op = -1;    // producing operator in A (-1: a subgraph input)
  std::string op_name; // its builtin name ("input" for a subgraph input)
  int32_t op_b = -1;
  std::string op_name_b;
  std::vector<int64_t> shape_a, shape_b;
  std::string type_a, type_b;
  Metrics metrics;
};

// A tensor matched by name whose element counts differ: reported, not compared.
struct ShapeMismatch {
  std::string name, name_b;
  std::vector<int64_t> shape_a, shape_b;
};

// An input of the diverging operator, with the SQNR of its value when it could be compared
// (activations from the run, constants such as weights read from both files).
struct DivergenceInput {
  std::string name;
  bool constant = false;
  std::optional<double> sqnr_db; // empty: no counterpart in B
};

struct Divergence {
  std::size_t row = 0; // index into Report::rows
  std::vector<DivergenceInput> inputs;
};

struct Report {
  std::string model_a, model_b;
  uint32_t subgraph = 0;
  double threshold_db = 20;
  std::size_t captured_a = 0, captured_b = 0; // tensors captured from each run
  std::vector<Row> rows;                      // in A's execution order
  std::vector<ShapeMismatch> shape_mismatches;
  std::vector<std::string> only_in_a; // captured tensors of A without a counterpart in B
  std::size_t only_in_b = 0;          // captured tensors of B no A tensor matched
  std::optional<Divergence> divergence;
};

// `value` through a printf format taking one double ("%.4g"); infinities are "inf" / "-inf"
// whatever the format. Every number the reports print goes through it.
std::string formatNumber(double value, const char *format);
// "inf", "-inf", or the value with one decimal ("41.2"): SQNR as printed in reports.
inline std::string formatDb(double db) { return formatNumber(db, "%.1f"); }

// ---- Reports ------------------------------------------------------------------------------------

// The text report on stdout: summary, table (all rows in execution order, or the `top` worst
// ones when top > 0), the first divergence.
std::string textReport(const Report &report, std::size_t top);
// Every row and the summary; SQNR values that are not finite are the strings "inf" / "-inf".
nlohmann::ordered_json jsonReport(const Report &report);
// One sentence on the divergence: "'h2' (FULLY_CONNECTED #1): inputs at 41.2 dB, output at 12.3 dB".
std::string divergenceSentence(const Report &report);

// ---- HTML ---------------------------------------------------------------------------------------

// Escapes & < > " ' for HTML text and attribute values.
std::string htmlEscape(const std::string &text);
// The sections of a report page (compare, encodings) and the page around them.
std::string compareHtmlSection(const Report &report);
std::string encodingsHtmlSection(const nlohmann::json &encodings, const std::string &path);
std::string htmlPage(const std::string &title, const std::string &body);

// Reads and checks tico-run's --encodings JSON (format "tico.encodings", version 1).
nlohmann::json readEncodings(const std::string &path);
// When `model` is given, checks that every encoding names a tensor of it (same subgraph, index
// and name), so a report is not drawn for the wrong file.
void checkEncodingsMatch(const nlohmann::json &encodings, const CircleModel &model, const std::string &model_path,
                         const std::string &encodings_path);
// A short text summary of the encodings (tensor counts per role, the largest metric values).
std::string encodingsTextSummary(const nlohmann::json &encodings, const std::string &path);

} // namespace tico::circle_tool::compare
