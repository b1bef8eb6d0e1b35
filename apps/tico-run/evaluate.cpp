// --evaluate: run the graph with the evaluator plugin on .npy inputs.
#include "tool.h"

#include "tico/eval/evaluator.h"
#include "tico/io/npy.h"
#include "tico/support/error.h"
#include "tico/support/file.h"

#include <cstring>
#include <filesystem>

namespace tico::run {

void evaluate(const Registry &registry, const Graph &graph, const EvaluateRequest &request) {
  const auto *entry = registry.evaluator();
  if (!entry)
    throw Error("--evaluate needs an evaluator plugin (libtico-aten-eval.so); none is loaded");
  if (request.output_dir.empty())
    throw Error("--evaluate needs --output-dir");
  // The evaluator computes ATen ops on plain tensors; after the quantization stage values hold
  // integer codes whose meaning is in their quantization parameters, which it does not apply.
  for (const auto &node : graph.nodes())
    for (const Value *v : node->outputs())
      if (v->isQuantized())
        throw Error("--evaluate: the graph holds quantized tensors ('" + v->name() + "', made by '" + node->name() +
                    "'); the evaluator runs the graph before the quantization stage: evaluate with a pipeline "
                    "without the 'quantize' stage, or run the converted Circle model (tico-circle run)");
  std::vector<std::shared_ptr<const TensorData>> inputs;
  for (const auto &path : request.inputs)
    inputs.push_back(readNpy(path));
  auto evaluator = entry->spec.create();
  std::vector<EvalValue> outputs = runGraph(graph, *evaluator, inputs);
  std::filesystem::create_directories(request.output_dir);
  auto pathOf = [&](std::size_t i) {
    return (std::filesystem::path(request.output_dir) / ("out" + std::to_string(i) + ".npy")).string();
  };
  // Every target is checked before the first one is written.
  for (std::size_t i = 0; i < outputs.size(); ++i)
    checkOutputTarget(pathOf(i), request.protected_files, request.force);
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const std::string path = pathOf(i);
    if (outputs[i].tensor && outputs[i].tensor->dtype == DType::BFloat16) {
      // .npy has no bfloat16: written as float32, which holds every bfloat16 value exactly.
      const TensorData &t = *outputs[i].tensor;
      TensorData wide{Storage::widenedToFloat32(t.storage, DType::BFloat16), DType::Float32, t.sizes, t.strides,
                      t.storage_offset};
      writeNpy(path, wide);
    } else if (outputs[i].tensor) {
      writeNpy(path, *outputs[i].tensor);
    } else if (outputs[i].scalar) {
      // Scalar outputs (SymInt results) are written as 0-d int64/float64 arrays.
      double v = *outputs[i].scalar;
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
      throw Error("output " + std::to_string(i) + " has no value");
    }
  }
}

} // namespace tico::run
