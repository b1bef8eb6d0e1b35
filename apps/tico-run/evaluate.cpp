// --evaluate: run the graph with the evaluator plugin on .npy inputs, at the end of the
// ATen-level stages or at several points of the pipeline (--evaluate-after).
#include "tool.h"

#include "tico/eval/evaluator.h"
#include "tico/io/npy.h"
#include "tico/support/error.h"
#include "tico/support/file.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

namespace tico::run {

namespace {

constexpr const char *kFrontend = "frontend";
constexpr const char *kEnd = "end";

// Refuses a graph the evaluator cannot run.
void requireUnquantized(const Graph &graph, const std::string &point) {
  // The evaluator computes ATen ops on plain tensors; after the quantization stage values hold
  // integer codes whose meaning is in their quantization parameters, which it does not apply.
  for (const auto &node : graph.nodes())
    for (const Value *v : node->outputs())
      if (v->isQuantized())
        throw Error("--evaluate" + point + ": the graph holds quantized tensors ('" + v->name() + "', made by '" +
                    node->name() +
                    "'); the evaluator runs the graph before the quantization stage: evaluate with a pipeline "
                    "without the 'quantize' stage (or --evaluate-after an earlier stage), or run the converted "
                    "Circle model (tico-circle run)");
}

void writeOutput(const std::string &path, const EvalValue &value, std::size_t index) {
  if (value.tensor && value.tensor->dtype == DType::BFloat16) {
    // .npy has no bfloat16: written as float32, which holds every bfloat16 value exactly.
    const TensorData &t = *value.tensor;
    TensorData wide{Storage::widenedToFloat32(t.storage, DType::BFloat16), DType::Float32, t.sizes, t.strides,
                    t.storage_offset};
    writeNpy(path, wide);
  } else if (value.tensor) {
    writeNpy(path, *value.tensor);
  } else if (value.scalar) {
    // Scalar outputs (SymInt results) are written as 0-d int64/float64 arrays.
    double v = *value.scalar;
    bool integral = v == static_cast<double>(static_cast<int64_t>(v));
    std::vector<std::byte> bytes(8);
    if (integral) {
      int64_t iv = static_cast<int64_t>(v);
      std::memcpy(bytes.data(), &iv, 8);
    } else {
      std::memcpy(bytes.data(), &v, 8);
    }
    writeNpy(path, TensorData::fromBytes(integral ? DType::Int64 : DType::Float64, {}, std::move(bytes)));
  } else {
    throw Error("output " + std::to_string(index) + " has no value");
  }
}

} // namespace

Evaluation::Evaluation(const Registry &registry, const Manifest &pipeline, EvaluateRequest request)
    : request_(std::move(request)) {
  entry_ = registry.evaluator();
  if (!entry_)
    throw Error("--evaluate needs an evaluator plugin (libtico-aten-eval.so); none is loaded");
  if (request_.output_dir.empty())
    throw Error("--evaluate needs --output-dir");
  // The points a run can stop at: the frontend, each ATen-level stage (in pipeline order), the end.
  std::vector<std::string> known{kFrontend};
  for (const Stage &stage : pipeline.resolved().stages)
    if (isAtenStage(stage.kind))
      known.push_back(stage.name);
  known.push_back(kEnd);
  for (const std::string &point : request_.points) {
    if (std::find(known.begin(), known.end(), point) == known.end()) {
      std::string list;
      for (const auto &k : known)
        list += (list.empty() ? "" : ", ") + k;
      throw Error("--evaluate-after '" + point + "': no such point in the pipeline" + didYouMean(point, known) +
                  "; the points are " + list);
    }
    if (std::count(known.begin(), known.end(), point) > 1)
      throw Error("--evaluate-after '" + point + "' is ambiguous: the pipeline has a stage of that name");
    // A point is also a folder name under --output-dir.
    if (point.find('/') != std::string::npos || point == "." || point == "..")
      throw Error("--evaluate-after '" + point + "': the stage name is not usable as a folder name");
    if (std::count(request_.points.begin(), request_.points.end(), point) > 1)
      throw Error("--evaluate-after '" + point + "' is given twice");
  }
  // Inputs are read now, before the pipeline runs (mapped, read-only: every point sees them as
  // they are on disk).
  for (const auto &path : request_.inputs) {
    requireRegularFile(path, "--input file");
    inputs_.push_back(readNpy(path));
  }
}

bool Evaluation::frontendOnly() const {
  return !request_.points.empty() &&
         std::all_of(request_.points.begin(), request_.points.end(), [](const auto &p) { return p == kFrontend; });
}

bool Evaluation::wants(const std::string &point) const {
  return std::find(request_.points.begin(), request_.points.end(), point) != request_.points.end() &&
         results_.count(point) == 0;
}

void Evaluation::afterStage(const std::string &title, const Graph &graph) {
  // on_stage titles: "frontend", "stage NAME".
  const std::string point = title.rfind("stage ", 0) == 0 ? title.substr(6) : title;
  if (wants(point))
    results_[point] = run(graph, " after '" + point + "'");
}

void Evaluation::finish(const Graph &graph) {
  if (request_.points.empty())
    results_[""] = run(graph, "");
  else if (wants(kEnd))
    results_[kEnd] = run(graph, " after 'end'");
  for (const std::string &point : request_.points)
    if (results_.count(point) == 0)
      throw Error("--evaluate-after '" + point + "': the pipeline stopped before it");

  namespace fs = std::filesystem;
  auto dirOf = [&](const std::string &point) {
    return point.empty() ? fs::path(request_.output_dir) : fs::path(request_.output_dir) / point;
  };
  auto pathOf = [&](const std::string &point, std::size_t i) {
    return (dirOf(point) / ("out" + std::to_string(i) + ".npy")).string();
  };
  // Every target is checked before the first one is written.
  for (const auto &[point, outputs] : results_)
    for (std::size_t i = 0; i < outputs.size(); ++i)
      checkOutputTarget(pathOf(point, i), request_.protected_files, request_.force);
  for (const auto &[point, outputs] : results_) {
    fs::create_directories(dirOf(point));
    for (std::size_t i = 0; i < outputs.size(); ++i)
      writeOutput(pathOf(point, i), outputs[i], i);
  }
}

std::vector<EvalValue> Evaluation::run(const Graph &graph, const std::string &where) const {
  requireUnquantized(graph, where);
  auto evaluator = entry_->spec.create();
  return runGraph(graph, *evaluator, inputs_);
}

} // namespace tico::run
