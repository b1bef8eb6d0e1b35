// tico-circle bench: where the built-in interpreter spends its time on a model.
//
// Loads the model once, runs it --warmup times untimed and --runs times with every operator
// timed, and prints the run time (median, min, mean), the time per operator type and the
// slowest operators (median over the runs). This measures the built-in interpreter itself
// (linked here, like tico-interp-timer), not a runtime plugin: `run --runtime` executes on
// others. Without --input, float inputs are seeded standard-normal data and integer or bool
// inputs are zeros (always valid indices); dynamic dimensions need real inputs.
#include "tool.h"

#include "tico/circle/verify.h"
#include "tico/interpreter/interpreter.h"
#include "tico/io/npy.h"
#include "tico/support/error.h"
#include "tico/support/file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>

namespace tico::circle_tool {
namespace {

struct BenchRequest {
  std::string input, json;
  std::vector<std::string> inputs;
  uint32_t subgraph = 0, runs = 10, warmup = 2, top = 15, threads = 0;
  uint64_t max_iterations = 0; // 0: the interpreter's default
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::shared_ptr<const TensorData> syntheticInput(const CircleTensorInfo &info, std::mt19937_64 &rng) {
  for (int64_t d : info.shape)
    if (d < 0)
      throw Error("input '" + info.name + "' has a dynamic dimension; give its data with --input");
  TensorData t;
  t.dtype = info.dtype;
  t.sizes = info.shape;
  t.strides = TensorData::contiguousStrides(info.shape);
  std::vector<std::byte> bytes(static_cast<std::size_t>(t.numel()) * elementSize(info.dtype));
  if (info.dtype == DType::Float32) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    auto *f = reinterpret_cast<float *>(bytes.data());
    for (int64_t i = 0; i < t.numel(); ++i)
      f[i] = normal(rng);
  }
  t.storage = Storage::fromBytes(std::move(bytes));
  return std::make_shared<const TensorData>(std::move(t));
}

std::string milliseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", seconds * 1e3);
  return text;
}

std::string mebibytes(std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

std::string percent(double part, double whole) {
  char text[16];
  std::snprintf(text, sizeof text, "%.1f", whole > 0 ? 100.0 * part / whole : 0.0);
  return text;
}

int bench(const BenchRequest &request) {
  if (request.runs == 0)
    throw Error("--runs must be at least 1");
  if (request.threads > 0) // read by the interpreter when it first splits work
    ::setenv("TICO_INTERPRETER_THREADS", std::to_string(request.threads).c_str(), 1);
  auto model = std::make_shared<CircleModel>(loadModel(request.input));
  checkCircleModel(*model, "'" + request.input + "'");
  if (request.subgraph >= model->subgraphs.size())
    throw Error("--subgraph " + std::to_string(request.subgraph) + " out of range (the model has " +
                std::to_string(model->subgraphs.size()) + " subgraphs)");
  CircleInterpreter interpreter(model);
  if (request.max_iterations > 0)
    interpreter.setMaxLoopIterations(request.max_iterations);
  const auto expected = interpreter.inputs(request.subgraph);
  std::vector<std::shared_ptr<const TensorData>> inputs;
  if (!request.inputs.empty()) {
    if (request.inputs.size() != expected.size())
      throw Error("the model takes " + std::to_string(expected.size()) + " inputs but " +
                  std::to_string(request.inputs.size()) + " --input files were given");
    for (const auto &path : request.inputs)
      inputs.push_back(readNpy(path));
  } else {
    std::mt19937_64 rng(0);
    for (const auto &info : expected)
      inputs.push_back(syntheticInput(info, rng));
  }
  for (uint32_t i = 0; i < request.warmup; ++i)
    (void)interpreter.run(inputs, request.subgraph);

  std::vector<double> totals;
  // Per (subgraph, operator): its op and the time of each run (summed when a body runs it more than once).
  std::map<std::pair<uint32_t, uint32_t>, std::pair<std::string, std::vector<double>>> per_op;
  for (uint32_t r = 0; r < request.runs; ++r) {
    std::vector<OperatorTime> times;
    const auto start = std::chrono::steady_clock::now();
    (void)interpreter.run(inputs, request.subgraph, times);
    totals.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    std::map<std::pair<uint32_t, uint32_t>, double> this_run;
    for (const OperatorTime &t : times) {
      this_run[{t.subgraph, t.index}] += t.seconds;
      per_op[{t.subgraph, t.index}].first = t.op;
    }
    for (auto &[key, entry] : per_op)
      entry.second.push_back(this_run.count(key) ? this_run[key] : 0.0);
  }
  const double total = median(totals);
  struct Row {
    uint32_t subgraph, index;
    std::string op;
    double seconds;
  };
  std::vector<Row> rows;
  std::map<std::string, std::pair<int, double>> by_type;
  double in_operators = 0;
  for (const auto &[key, entry] : per_op) {
    const double t = median(entry.second);
    rows.push_back({key.first, key.second, entry.first, t});
    if (key.first == request.subgraph) { // bodies' time is already inside their IF/WHILE
      by_type[entry.first].first += 1;
      by_type[entry.first].second += t;
      in_operators += t;
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) { return a.seconds > b.seconds; });
  std::vector<std::pair<std::string, std::pair<int, double>>> types(by_type.begin(), by_type.end());
  std::stable_sort(types.begin(), types.end(),
                   [](const auto &a, const auto &b) { return a.second.second > b.second.second; });

  const CircleSubGraph &graph = model->subgraphs[request.subgraph];
  std::ostringstream out;
  out << request.input << ", subgraph " << request.subgraph << ": " << graph.operators.size() << " operators; "
      << request.runs << " timed runs after " << request.warmup << " warm-up runs"
      << (request.threads ? ", " + std::to_string(request.threads) + " threads" : std::string()) << "\n";
  out << "run time: median " << milliseconds(total) << " ms, min "
      << milliseconds(*std::min_element(totals.begin(), totals.end())) << " ms, mean "
      << milliseconds(std::accumulate(totals.begin(), totals.end(), 0.0) / static_cast<double>(totals.size()))
      << " ms; operators " << percent(in_operators, total) << " % of it\n";
  const MemoryPlanSummary plan = interpreter.memoryPlan(request.subgraph);
  out << "memory plan: " << plan.planned << " intermediates in an arena of " << mebibytes(plan.arena_bytes)
      << " MiB (" << mebibytes(plan.tensor_bytes) << " MiB without reuse), " << plan.in_place
      << " operators in place\n\nby operator type (median per operator):\n";
  char line[160];
  std::snprintf(line, sizeof line, "  %-24s %6s %12s %7s\n", "op", "count", "ms", "%");
  out << line;
  for (const auto &[op, entry] : types) {
    std::snprintf(line, sizeof line, "  %-24s %6d %12s %7s\n", op.c_str(), entry.first, milliseconds(entry.second).c_str(),
                  percent(entry.second, total).c_str());
    out << line;
  }
  out << "\nslowest operators:\n";
  for (std::size_t i = 0; i < std::min<std::size_t>(request.top, rows.size()); ++i) {
    const Row &row = rows[i];
    const CircleSubGraph &g = model->subgraphs[row.subgraph];
    const CircleOperator &op = g.operators[row.index];
    std::string output = op.outputs.empty() || op.outputs[0] < 0 ? "" : g.tensors[static_cast<std::size_t>(op.outputs[0])].name;
    if (output.size() > 48)
      output = output.substr(0, 45) + "...";
    std::snprintf(line, sizeof line, "  %s#%-5u %-20s %12s ms %6s %%  -> %s\n",
                  row.subgraph == request.subgraph ? "" : ("sg" + std::to_string(row.subgraph) + " ").c_str(), row.index,
                  row.op.c_str(), milliseconds(row.seconds).c_str(), percent(row.seconds, total).c_str(), output.c_str());
    out << line;
  }
  std::cout << out.str();

  if (!request.json.empty()) {
    nlohmann::ordered_json doc;
    doc["model"] = request.input;
    doc["subgraph"] = request.subgraph;
    doc["runs"] = request.runs;
    doc["warmup"] = request.warmup;
    doc["run_seconds"] = totals;
    doc["median_seconds"] = total;
    doc["memory_plan"] = {{"planned", plan.planned},
                          {"arena_bytes", plan.arena_bytes},
                          {"tensor_bytes", plan.tensor_bytes},
                          {"in_place", plan.in_place}};
    nlohmann::ordered_json ops = nlohmann::ordered_json::array();
    for (const Row &row : rows)
      ops.push_back({{"subgraph", row.subgraph}, {"index", row.index}, {"op", row.op}, {"median_seconds", row.seconds}});
    doc["operators"] = ops;
    writeTextFile(request.json, "benchmark report", doc.dump(1) + "\n");
  }
  return kOk;
}

} // namespace

Action addBench(CLI::App &app) {
  auto request = std::make_shared<BenchRequest>();
  app.add_option("model", request->input, "Circle file")->required();
  app.add_option("--input", request->inputs, "an input .npy file (repeat in the model's input order; default: seeded data)")
      ->allow_extra_args(false);
  app.add_option("--subgraph", request->subgraph, "time this subgraph instead of subgraph 0");
  app.add_option("--runs", request->runs, "timed runs (default 10; medians are reported)");
  app.add_option("--warmup", request->warmup, "untimed runs first (default 2)");
  app.add_option("--threads", request->threads, "interpreter threads (default: TICO_INTERPRETER_THREADS or the CPU's)");
  app.add_option("--max-iterations", request->max_iterations,
                 "iterations one WHILE operator may run before the run fails (default 1000000)")
      ->check(CLI::PositiveNumber);
  app.add_option("--top", request->top, "how many of the slowest operators to list (default 15)");
  app.add_option("--json", request->json, "also write every run time and operator median to this JSON file");
  return [request] { return bench(*request); };
}

} // namespace tico::circle_tool
