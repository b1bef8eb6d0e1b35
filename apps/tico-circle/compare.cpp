// tico-circle compare: where does a quantized (or otherwise transformed) model start to differ
// from its reference?
//
// Both models run on the built-in interpreter with every intermediate tensor captured
// (compare_capture.cpp); tensors are matched by name, dequantized, and compared (SQNR, cosine,
// errors). Rows follow A's execution order, so the first tensor whose SQNR falls below the
// threshold is where accuracy was lost first; its operator's inputs are measured too, to tell
// an operator that loses accuracy itself from one that only passes on what it was given.
#include "compare.h"
#include "tool.h"

#include "tico/circle/query.h"
#include "tico/io/npy.h"
#include "tico/support/error.h"
#include "tico/support/file.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

namespace tico::circle_tool {
namespace {

using namespace compare;

// Names the quantization pipeline gives the tensors it adds next to a float tensor `x` of the
// original graph (core/src/quant/graph_edits.cpp, plugins/quant-passes): `x_q` / `x_dq` for an
// activation's quantize / dequantize pair (a QUANTIZE of a model input writes `x_q`), `w_codes`
// for a weight's integer codes, `b_quantized` for a bias turned into integers, `x_requantize`
// for a requantization. A tensor of B is matched to A's `x` through them only when no tensor of
// B is named `x` (and the other way round, when A is the quantized model).
const std::vector<std::string> kQuantizationSuffixes = {"_q", "_dq", "_codes", "_quantized", "_requantize"};

struct CompareRequest {
  std::vector<std::string> models, inputs, globs;
  std::string inputs_dir, json, html, encodings;
  uint32_t subgraph = 0;
  double threshold_db = 20;
  std::size_t top = 0;
  bool force = false, fail_on_divergence = false;
};

std::string sanitizedFileName(const std::string &name) {
  std::string out = name;
  for (char &c : out)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
      c = '_';
  return out;
}

// The .npy files of --inputs-dir, one per input of `graph` in its input order: DIR/<input
// name>.npy (characters other than letters, digits, '.', '_', '-' replaced by '_'), or else the
// directory's .npy files in name order when there are exactly as many as inputs.
std::vector<std::string> inputsFromDirectory(const std::string &dir, const CircleSubGraph &graph) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw Error("--inputs-dir '" + dir + "' is not a directory");
  std::vector<std::string> by_name;
  for (int32_t t : graph.inputs) {
    const std::string &name = graph.tensors[static_cast<std::size_t>(t)].name;
    for (const std::string &candidate : {name, sanitizedFileName(name)}) {
      const auto path = std::filesystem::path(dir) / (candidate + ".npy");
      if (!candidate.empty() && candidate.find('/') == std::string::npos && std::filesystem::is_regular_file(path, ec)) {
        by_name.push_back(path.string());
        break;
      }
    }
  }
  if (by_name.size() == graph.inputs.size())
    return by_name;
  std::vector<std::string> all;
  for (const auto &entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().extension() == ".npy")
      all.push_back(entry.path().string());
  std::sort(all.begin(), all.end());
  if (all.size() != graph.inputs.size())
    throw Error("--inputs-dir '" + dir + "': the model takes " + std::to_string(graph.inputs.size()) +
                " inputs, but the directory has " + std::to_string(all.size()) +
                " .npy files and not one named after each input (<input name>.npy)");
  return all;
}

const std::string &tensorName(const CircleModel &model, uint32_t subgraph, uint32_t tensor) {
  return model.subgraphs[subgraph].tensors[tensor].name;
}

// The name under which `name` (of one side) appears on the other side, if it does: itself, with
// a quantization suffix added, or with one taken off. `found` answers whether a name exists there.
template <typename Found>
std::optional<std::pair<std::string, std::string>> counterpart(const std::string &name, Found found) {
  if (found(name))
    return std::pair{name, std::string("exact")};
  for (const std::string &suffix : kQuantizationSuffixes) {
    if (found(name + suffix))
      return std::pair{name + suffix, std::string("suffix")};
    if (name.size() > suffix.size() && name.ends_with(suffix) && found(name.substr(0, name.size() - suffix.size())))
      return std::pair{name.substr(0, name.size() - suffix.size()), std::string("suffix")};
  }
  return std::nullopt;
}

std::string operatorLabel(const CircleModel &model, uint32_t subgraph, int32_t op) {
  if (op < 0)
    return "input";
  return operatorName(model, model.subgraphs[subgraph].operators[static_cast<std::size_t>(op)]);
}

std::vector<int64_t> shapeOf(const TensorData &value) { return value.sizes; }

// SQNR of a constant input of the diverging operator (a weight, a bias) between both files.
std::optional<double> constantSqnr(const CircleModel &a, const CircleModel &b, uint32_t subgraph,
                                   const CircleTensor &tensor_a) {
  const CircleSubGraph &graph_b = b.subgraphs[subgraph];
  std::map<std::string, const CircleTensor *> constants_b;
  for (const CircleTensor &t : graph_b.tensors)
    if (isConstantTensor(b, t))
      constants_b.emplace(t.name, &t);
  const auto match = counterpart(tensor_a.name, [&](const std::string &n) { return constants_b.count(n) > 0; });
  if (!match)
    return std::nullopt;
  const CircleTensor &tensor_b = *constants_b.at(match->first);
  const auto value_a = constantValue(a, tensor_a), value_b = constantValue(b, tensor_b);
  if (!value_a || !value_b || value_a->numel() != value_b->numel())
    return std::nullopt;
  return measure(realValues(tensor_a, *value_a), realValues(tensor_b, *value_b)).sqnr_db;
}

Report compareModels(const CompareRequest &request, const CircleModel &a, const CircleModel &b,
                     const std::vector<std::shared_ptr<const TensorData>> &inputs) {
  Report report;
  report.model_a = request.models[0];
  report.model_b = request.models[1];
  report.subgraph = request.subgraph;
  report.threshold_db = request.threshold_db;
  CaptureResult run_a = captureTensors(a, request.subgraph, inputs, request.globs, "A '" + report.model_a + "'");
  CaptureResult run_b = captureTensors(b, request.subgraph, inputs, request.globs, "B '" + report.model_b + "'");
  report.captured_a = run_a.tensors.size();
  report.captured_b = run_b.tensors.size();

  std::map<std::string, std::size_t> by_name_b;
  for (std::size_t i = 0; i < run_b.tensors.size(); ++i)
    by_name_b.emplace(tensorName(b, request.subgraph, run_b.tensors[i].tensor), i);
  std::set<std::size_t> used_b;
  const CircleSubGraph &graph_a = a.subgraphs[request.subgraph];
  const CircleSubGraph &graph_b = b.subgraphs[request.subgraph];
  // Exact names first, over the whole model, so that a suffix match never takes a tensor of B
  // that has its own namesake in A ('attn' must not take 'attn_q' when A has 'attn_q' too).
  std::vector<std::optional<std::pair<std::size_t, std::string>>> matches(run_a.tensors.size());
  for (std::size_t i = 0; i < run_a.tensors.size(); ++i)
    if (const auto it = by_name_b.find(graph_a.tensors[run_a.tensors[i].tensor].name); it != by_name_b.end()) {
      matches[i] = std::pair{it->second, std::string("exact")};
      used_b.insert(it->second);
    }
  for (std::size_t i = 0; i < run_a.tensors.size(); ++i) {
    if (matches[i])
      continue;
    const auto match = counterpart(graph_a.tensors[run_a.tensors[i].tensor].name, [&](const std::string &n) {
      const auto it = by_name_b.find(n);
      return it != by_name_b.end() && !used_b.count(it->second);
    });
    if (match) {
      matches[i] = std::pair{by_name_b.at(match->first), match->second};
      used_b.insert(matches[i]->first);
    }
  }
  for (std::size_t i = 0; i < run_a.tensors.size(); ++i) {
    CapturedTensor &captured = run_a.tensors[i];
    const CircleTensor &tensor_a = graph_a.tensors[captured.tensor];
    if (!matches[i]) {
      report.only_in_a.push_back(tensor_a.name);
      continue;
    }
    const std::size_t index_b = matches[i]->first;
    CapturedTensor &other = run_b.tensors[index_b];
    const CircleTensor &tensor_b = graph_b.tensors[other.tensor];
    if (captured.value->numel() != other.value->numel()) {
      report.shape_mismatches.push_back({tensor_a.name, tensor_b.name, shapeOf(*captured.value), shapeOf(*other.value)});
      continue;
    }
    Row row;
    row.name = tensor_a.name;
    row.name_b = tensor_b.name;
    row.match = matches[i]->second;
    row.op = captured.producer;
    row.op_name = operatorLabel(a, request.subgraph, captured.producer);
    row.op_b = other.producer;
    row.op_name_b = operatorLabel(b, request.subgraph, other.producer);
    row.shape_a = shapeOf(*captured.value);
    row.shape_b = shapeOf(*other.value);
    row.type_a = describeTensorType(tensor_a);
    row.type_b = describeTensorType(tensor_b);
    row.metrics = measure(realValues(tensor_a, *captured.value), realValues(tensor_b, *other.value));
    report.rows.push_back(std::move(row));
    // Compared once: the raw values are not needed any more (a large model holds many of them).
    captured.value.reset();
    other.value.reset();
  }
  report.only_in_b = run_b.tensors.size() - used_b.size();
  if (report.rows.empty())
    throw Error("A '" + report.model_a + "' and B '" + report.model_b + "' have no tensor names in common" +
                (report.shape_mismatches.empty() ? std::string()
                                                 : " with equal element counts (" +
                                                       std::to_string(report.shape_mismatches.size()) +
                                                       " names match with other sizes)") +
                " in subgraph " + std::to_string(request.subgraph) + "; nothing to compare");

  for (std::size_t r = 0; r < report.rows.size(); ++r) {
    if (!(report.rows[r].metrics.sqnr_db < request.threshold_db))
      continue;
    Divergence divergence;
    divergence.row = r;
    if (report.rows[r].op >= 0) {
      std::map<std::string, double> row_sqnr;
      for (const Row &row : report.rows)
        row_sqnr.emplace(row.name, row.metrics.sqnr_db);
      for (int32_t t : graph_a.operators[static_cast<std::size_t>(report.rows[r].op)].inputs) {
        if (t < 0)
          continue;
        const CircleTensor &input = graph_a.tensors[static_cast<std::size_t>(t)];
        DivergenceInput entry;
        entry.name = input.name;
        entry.constant = isConstantTensor(a, input);
        if (const auto it = row_sqnr.find(input.name); it != row_sqnr.end())
          entry.sqnr_db = it->second;
        else if (entry.constant)
          entry.sqnr_db = constantSqnr(a, b, request.subgraph, input);
        divergence.inputs.push_back(std::move(entry));
      }
    }
    report.divergence = std::move(divergence);
    break;
  }
  return report;
}

std::vector<std::string> resolveInputs(const CompareRequest &request, const CircleModel &a) {
  if (!request.inputs_dir.empty() && !request.inputs.empty())
    throw Error("give the inputs either with --input or with --inputs-dir, not both");
  if (!request.inputs_dir.empty()) {
    if (request.subgraph >= a.subgraphs.size())
      throw Error("--subgraph " + std::to_string(request.subgraph) + " out of range (A has " +
                  std::to_string(a.subgraphs.size()) + " subgraphs)");
    return inputsFromDirectory(request.inputs_dir, a.subgraphs[request.subgraph]);
  }
  return request.inputs;
}

int runCompare(const CompareRequest &request) {
  const bool comparing = request.models.size() == 2;
  if (request.encodings.empty() && !comparing)
    throw Error("compare needs two models (A.circle B.circle) and their --input data, or --encodings FILE");
  if (!comparing && !request.json.empty())
    throw Error("--json writes the comparison of two models; give A.circle and B.circle");
  if (!(request.threshold_db == request.threshold_db))
    throw Error("--threshold-db must be a number");

  // Read everything and check every output target before the first run.
  std::vector<CircleModel> models;
  for (const std::string &path : request.models)
    models.push_back(loadModel(path));
  std::vector<std::string> input_paths;
  if (comparing)
    input_paths = resolveInputs(request, models[0]);
  std::vector<std::string> protected_files = input_paths;
  protected_files.insert(protected_files.end(), request.models.begin(), request.models.end());
  protected_files.push_back(request.encodings);
  checkDistinctOutputs({{"--json", request.json}, {"--html", request.html}});
  for (const std::string &output : {request.json, request.html})
    if (!output.empty())
      checkOutputTarget(output, protected_files, request.force);
  std::vector<std::shared_ptr<const TensorData>> inputs;
  for (const std::string &path : input_paths) {
    requireRegularFile(path, "input");
    inputs.push_back(readNpy(path));
  }
  nlohmann::json encodings;
  if (!request.encodings.empty()) {
    encodings = readEncodings(request.encodings);
    if (!models.empty())
      checkEncodingsMatch(encodings, models.back(), request.models.back(), request.encodings);
  }

  std::string text, html_body;
  std::optional<Report> report;
  if (comparing) {
    report = compareModels(request, models[0], models[1], inputs);
    text += textReport(*report, request.top);
    html_body += compareHtmlSection(*report);
  }
  if (!request.encodings.empty()) {
    text += encodingsTextSummary(encodings, request.encodings);
    html_body += encodingsHtmlSection(encodings, request.encodings);
  }

  // Both report files, or neither.
  OutputBatch batch;
  if (report && !request.json.empty())
    batch.addText(request.json, "comparison report", jsonReport(*report).dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
  if (!request.html.empty())
    batch.addText(request.html, "HTML report",
                  htmlPage(comparing ? "tico-circle compare: " + request.models[0] + " vs " + request.models[1]
                                     : "tico-circle compare: " + request.encodings,
                           html_body));
  batch.commit();
  std::cout << text;
  return report && report->divergence && request.fail_on_divergence ? kWarnings : kOk;
}

} // namespace

Action addCompare(CLI::App &app) {
  auto request = std::make_shared<CompareRequest>();
  app.add_option("models", request->models, "A.circle (the reference) and B.circle (the model under test)")
      ->expected(0, 2);
  app.add_option("--input", request->inputs, "an input .npy file (repeat in the models' input order)")
      ->allow_extra_args(false);
  app.add_option("--inputs-dir", request->inputs_dir,
                 "a directory with the inputs: <input name>.npy each, or as many .npy files as inputs (name order)");
  app.add_option("--subgraph", request->subgraph, "compare this subgraph instead of subgraph 0");
  app.add_option("--threshold-db", request->threshold_db,
                 "SQNR below which a tensor has diverged (default 20 dB: an error at 10 % of the signal's RMS)");
  app.add_option("--tensors", request->globs,
                 "capture only tensors whose names match this shell pattern (repeatable; saves memory)")
      ->allow_extra_args(false);
  app.add_option("--top", request->top, "list only the N tensors with the lowest SQNR (default: every tensor, in order)");
  app.add_option("--json", request->json, "write every row and the summary to this JSON file");
  app.add_option("--html", request->html, "write a self-contained HTML report (SQNR chart, table) to this file");
  app.add_option("--encodings", request->encodings,
                 "tico-run --encodings JSON: add error ratios and scale histograms to the report");
  app.add_flag("--fail-on-divergence", request->fail_on_divergence, "exit 1 when a tensor falls below the threshold");
  app.add_flag("--force", request->force, "replace outputs even when they are read-only files");
  return [request] { return runCompare(*request); };
}

} // namespace tico::circle_tool
