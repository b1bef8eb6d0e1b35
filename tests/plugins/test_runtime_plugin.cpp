// A test runtime, `test-elementwise`: runs float32 models made of same-shape ADD, MUL and NEG
// only, in double precision, so the tests can tell that `tico-circle run --runtime` really
// selected a plugin runtime (it refuses every other operator, naming itself) and that its
// results come back through the runtime ABI. Not a runtime anyone should use.
#include "tico/plugin/plugin.h"
#include "tico/runtime/runtime.h"
#include "tico/support/error.h"

#include <cstring>
#include <map>

namespace {

using Op = circle::BuiltinOperator;
using TensorPtr = std::shared_ptr<const tico::TensorData>;

std::vector<double> valuesOf(const tico::TensorData &t) {
  if (t.dtype != tico::DType::Float32)
    throw tico::Error("test-elementwise runs float32 tensors only");
  const auto bytes = t.contiguousBytes();
  std::vector<double> out(bytes.size() / sizeof(float));
  for (std::size_t i = 0; i < out.size(); ++i) {
    float v;
    std::memcpy(&v, bytes.data() + i * sizeof(float), sizeof v);
    out[i] = v;
  }
  return out;
}

TensorPtr tensorOf(const std::vector<int64_t> &shape, const std::vector<double> &values) {
  std::vector<float> narrowed(values.begin(), values.end());
  return std::make_shared<tico::TensorData>(tico::TensorData::fromVector(tico::DType::Float32, shape, narrowed));
}

class PreparedElementwise final : public tico::PreparedModel {
public:
  explicit PreparedElementwise(std::shared_ptr<const tico::CircleModel> model) : model_(std::move(model)) {
    for (const auto &op : model_->subgraphs.at(0).operators) {
      const auto code = static_cast<Op>(model_->operator_codes.at(op.opcode_index).builtin_code);
      if (code != Op::ADD && code != Op::MUL && code != Op::NEG)
        throw tico::Error(std::string("the test runtime test-elementwise cannot run ") +
                          circle::EnumNameBuiltinOperator(code) + " (it runs ADD, MUL and NEG only)");
    }
  }

  std::vector<tico::CircleTensorInfo> inputs(uint32_t subgraph) const override {
    return infos(model_->subgraphs.at(subgraph).inputs, subgraph);
  }
  std::vector<tico::CircleTensorInfo> outputs(uint32_t subgraph) const override {
    return infos(model_->subgraphs.at(subgraph).outputs, subgraph);
  }

  std::vector<TensorPtr> run(const std::vector<TensorPtr> &inputs, uint32_t subgraph) override {
    if (subgraph != 0)
      throw tico::Error("test-elementwise runs subgraph 0 only");
    const auto &g = model_->subgraphs[0];
    if (inputs.size() != g.inputs.size())
      throw tico::Error("test-elementwise: expected " + std::to_string(g.inputs.size()) + " inputs");
    std::map<int32_t, TensorPtr> values;
    for (std::size_t i = 0; i < inputs.size(); ++i)
      values[g.inputs[i]] = inputs[i];
    auto read = [&](int32_t index) -> TensorPtr {
      if (auto it = values.find(index); it != values.end())
        return it->second;
      // A buffer only carries bytes (a model read from a file holds flat uint8 views): the
      // tensor gives their type and shape.
      const auto &tensor = g.tensors.at(index);
      const auto &data = model_->buffers.at(tensor.buffer).data;
      if (!data)
        throw tico::Error("test-elementwise: tensor " + std::to_string(index) + " has no value");
      return std::make_shared<tico::TensorData>(tico::TensorData::fromBytes(
          tico::fromCircleType(tensor.type), std::vector<int64_t>(tensor.shape.begin(), tensor.shape.end()),
          data->contiguousBytes()));
    };
    for (const auto &op : g.operators) {
      const auto code = static_cast<Op>(model_->operator_codes[op.opcode_index].builtin_code);
      const TensorPtr a = read(op.inputs.at(0));
      std::vector<double> x = valuesOf(*a);
      if (code != Op::NEG) {
        const TensorPtr b = read(op.inputs.at(1));
        if (b->sizes != a->sizes)
          throw tico::Error("test-elementwise does not broadcast");
        const std::vector<double> y = valuesOf(*b);
        for (std::size_t i = 0; i < x.size(); ++i)
          x[i] = code == Op::ADD ? x[i] + y[i] : x[i] * y[i];
      } else {
        for (double &v : x)
          v = -v;
      }
      values[op.outputs.at(0)] = tensorOf(a->sizes, x);
    }
    std::vector<TensorPtr> out;
    for (int32_t index : g.outputs)
      out.push_back(read(index));
    return out;
  }

private:
  std::vector<tico::CircleTensorInfo> infos(const std::vector<int32_t> &indices, uint32_t subgraph) const {
    std::vector<tico::CircleTensorInfo> out;
    for (int32_t index : indices) {
      const auto &t = model_->subgraphs.at(subgraph).tensors.at(index);
      out.push_back({t.name, tico::fromCircleType(t.type), std::vector<int64_t>(t.shape.begin(), t.shape.end())});
    }
    return out;
  }

  std::shared_ptr<const tico::CircleModel> model_;
};

class ElementwiseRuntime final : public tico::Runtime {
public:
  std::unique_ptr<tico::PreparedModel> prepare(std::shared_ptr<const tico::CircleModel> model) override {
    return std::make_unique<PreparedElementwise>(std::move(model));
  }
};

void registerAll(tico::Registrar &registrar) {
  registrar.addRuntime({"test-elementwise",
                        "test runtime: same-shape float32 ADD, MUL and NEG",
                        {},
                        [](const tico::Options &) { return std::make_unique<ElementwiseRuntime>(); }});
}

} // namespace

TICO_PLUGIN("test-runtime", "1.0", "Apache-2.0", registerAll)
