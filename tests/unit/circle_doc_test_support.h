// Models for the Circle document tests (reader, editor, verifier) and the tico-circle CLI tests
// (tests/circle-tools/make_circle_test_models.cpp includes this header too).
//
// packUnchecked() turns any CircleModel into FlatBuffer bytes through the generated object API,
// without the writer's validation, so deliberately broken models can become files.
// brokenModelCases() has one case per verifier rule: a small model that breaks exactly that rule.
#pragma once

#include "tico/circle/model.h"
#include "tico/circle/quantization.h"

#include <flatbuffers/flatbuffers.h>

#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tico::circle_doc_test {

inline std::shared_ptr<const TensorData> floatData(std::vector<int64_t> sizes, const std::vector<float> &values) {
  return std::make_shared<TensorData>(TensorData::fromVector(DType::Float32, std::move(sizes), values));
}

inline std::vector<uint8_t> packUnchecked(const CircleModel &model, const char *identifier = "CIR0") {
  circle::ModelT out;
  out.version = model.version;
  out.description = model.description;
  for (const auto &code : model.operator_codes) {
    auto c = std::make_unique<circle::OperatorCodeT>();
    c->builtin_code = static_cast<circle::BuiltinOperator>(code.builtin_code);
    c->deprecated_builtin_code = static_cast<int8_t>(code.builtin_code < 127 ? code.builtin_code : 127);
    c->custom_code = code.custom_code;
    c->version = code.version;
    out.operator_codes.push_back(std::move(c));
  }
  for (const auto &sg : model.subgraphs) {
    auto s = std::make_unique<circle::SubGraphT>();
    s->name = sg.name;
    s->inputs = sg.inputs;
    s->outputs = sg.outputs;
    for (const auto &t : sg.tensors) {
      auto tensor = std::make_unique<circle::TensorT>();
      tensor->shape = t.shape;
      tensor->shape_signature = t.shape_signature;
      tensor->type = t.type;
      tensor->buffer = t.buffer;
      tensor->name = t.name;
      tensor->is_variable = t.is_variable;
      if (t.quantization)
        tensor->quantization = std::make_unique<circle::QuantizationParametersT>(*t.quantization);
      s->tensors.push_back(std::move(tensor));
    }
    for (const auto &op : sg.operators) {
      auto o = std::make_unique<circle::OperatorT>();
      o->opcode_index = op.opcode_index;
      o->inputs = op.inputs;
      o->outputs = op.outputs;
      o->builtin_options = op.builtin_options;
      o->custom_options = op.custom_options;
      s->operators.push_back(std::move(o));
    }
    out.subgraphs.push_back(std::move(s));
  }
  for (const auto &buffer : model.buffers) {
    auto b = std::make_unique<circle::BufferT>();
    if (buffer.data) {
      const auto bytes = buffer.data->contiguousBytes();
      b->data.resize(bytes.size());
      if (!bytes.empty())
        std::memcpy(b->data.data(), bytes.data(), bytes.size());
    }
    out.buffers.push_back(std::move(b));
  }
  for (const auto &signature : model.signatures) {
    auto s = std::make_unique<circle::SignatureDefT>();
    s->signature_key = signature.key;
    s->subgraph_index = signature.subgraph_index;
    for (const auto &[maps, target] : {std::pair{&signature.inputs, &s->inputs}, std::pair{&signature.outputs, &s->outputs}})
      for (const auto &m : *maps) {
        auto map = std::make_unique<circle::TensorMapT>();
        map->name = m.name;
        map->tensor_index = m.tensor_index;
        target->push_back(std::move(map));
      }
    out.signature_defs.push_back(std::move(s));
  }
  for (const auto &[name, buffer] : model.metadata) {
    auto m = std::make_unique<circle::MetadataT>();
    m->name = name;
    m->buffer = buffer;
    out.metadata.push_back(std::move(m));
  }
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(circle::Model::Pack(builder, &out), identifier);
  return std::vector<uint8_t>(builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize());
}

inline CircleTensor tensor(std::string name, std::vector<int32_t> shape, uint32_t buffer = 0) {
  CircleTensor t;
  t.name = std::move(name);
  t.shape = std::move(shape);
  t.buffer = buffer;
  return t;
}

inline CircleOperator op(uint32_t opcode, std::vector<int32_t> inputs, std::vector<int32_t> outputs) {
  CircleOperator o;
  o.opcode_index = opcode;
  o.inputs = std::move(inputs);
  o.outputs = std::move(outputs);
  return o;
}

inline CircleOperator addOp(uint32_t opcode, std::vector<int32_t> inputs, std::vector<int32_t> outputs) {
  CircleOperator o = op(opcode, std::move(inputs), std::move(outputs));
  o.builtin_options.Set(circle::AddOptionsT{});
  return o;
}

inline CircleOperator mulOp(uint32_t opcode, std::vector<int32_t> inputs, std::vector<int32_t> outputs) {
  CircleOperator o = op(opcode, std::move(inputs), std::move(outputs));
  o.builtin_options.Set(circle::MulOptionsT{});
  return o;
}

// x[1,4] -> t = x + w (w a constant) -> y = t * x -> z = y + t; inputs x, outputs z.
// Operator codes ADD (0) and MUL (1); tensors x 0, w 1, t 2, y 3, z 4; buffer 1 holds w.
inline CircleModel linearModel() {
  CircleModel m;
  m.description = "circle-doc test";
  m.operator_codes = {{static_cast<int32_t>(circle::BuiltinOperator::ADD)},
                      {static_cast<int32_t>(circle::BuiltinOperator::MUL)}};
  const uint32_t w = m.addBuffer(floatData({4}, {0.5f, -1.0f, 2.0f, 0.25f}));
  CircleSubGraph sg;
  sg.name = "main";
  sg.tensors = {tensor("x", {1, 4}), tensor("w", {4}, w), tensor("t", {1, 4}), tensor("y", {1, 4}), tensor("z", {1, 4})};
  sg.inputs = {0};
  sg.outputs = {4};
  sg.operators = {addOp(0, {0, 1}, {2}), mulOp(1, {2, 0}, {3}), addOp(0, {3, 2}, {4})};
  m.subgraphs.push_back(std::move(sg));
  m.signatures.push_back({"serving_default", 0, {{"x", 0}}, {{"z", 4}}});
  return m;
}

// Subgraph 0: y = IF(c, x) with then = subgraph 1 (x + x) and else = subgraph 2 (x * x).
// Inputs c (bool[1]) and x (float32[2]); operator codes IF (0), ADD (1), MUL (2).
inline CircleModel controlFlowModel() {
  CircleModel m;
  m.operator_codes = {{static_cast<int32_t>(circle::BuiltinOperator::IF)},
                      {static_cast<int32_t>(circle::BuiltinOperator::ADD)},
                      {static_cast<int32_t>(circle::BuiltinOperator::MUL)}};
  CircleSubGraph main;
  main.name = "main";
  main.tensors = {tensor("c", {1}), tensor("x", {2}), tensor("y", {2})};
  main.tensors[0].type = circle::TensorType::BOOL;
  main.inputs = {0, 1};
  main.outputs = {2};
  CircleOperator if_op = op(0, {0, 1}, {2});
  circle::IfOptionsT options;
  options.then_subgraph_index = 1;
  options.else_subgraph_index = 2;
  if_op.builtin_options.Set(options);
  main.operators = {if_op};
  auto branch = [](const char *name, CircleOperator body) {
    CircleSubGraph sg;
    sg.name = name;
    sg.tensors = {tensor("a", {2}), tensor("b", {2})};
    sg.inputs = {0};
    sg.outputs = {1};
    sg.operators = {std::move(body)};
    return sg;
  };
  m.subgraphs = {main, branch("then", addOp(1, {0, 0}, {1})), branch("else", mulOp(2, {0, 0}, {1}))};
  return m;
}

inline std::shared_ptr<const circle::QuantizationParametersT> quantRecord(std::vector<float> scale,
                                                                         std::vector<int64_t> zero_point,
                                                                         int32_t dimension = 0) {
  auto q = std::make_shared<circle::QuantizationParametersT>();
  q->scale = std::move(scale);
  q->zero_point = std::move(zero_point);
  q->quantized_dimension = dimension;
  return q;
}

// y = FULLY_CONNECTED(x, w, b): x uint8[1,3] per-tensor (scale 0.5, zp 128), w int4[3,3] per
// output channel (packed into 5 bytes), b int32[3] per channel, y uint8[1,3] with min/max.
// Operator code FULLY_CONNECTED (0); tensors x 0, w 1, b 2, y 3; buffers 1 (w) and 2 (b).
inline CircleModel quantizedModel() {
  CircleModel m;
  m.description = "circle-doc quantized test";
  m.operator_codes = {{static_cast<int32_t>(circle::BuiltinOperator::FULLY_CONNECTED)}};
  const auto w = TensorData::fromVector<int8_t>(DType::Int4, {3, 3}, {-8, -1, 0, 1, 7, 3, -4, 5, 2});
  const uint32_t w_buffer = m.addBuffer(
      std::make_shared<TensorData>(TensorData::fromBytes(DType::UInt8, {5}, packInt4(w, "w"))));
  const uint32_t b_buffer =
      m.addBuffer(std::make_shared<TensorData>(TensorData::fromVector<int32_t>(DType::Int32, {3}, {10, -20, 30})));
  CircleSubGraph sg;
  sg.name = "main";
  sg.tensors = {tensor("x", {1, 3}), tensor("w", {3, 3}, w_buffer), tensor("b", {3}, b_buffer), tensor("y", {1, 3})};
  sg.tensors[0].type = circle::TensorType::UINT8;
  sg.tensors[0].quantization = quantRecord({0.5f}, {128});
  sg.tensors[1].type = circle::TensorType::INT4;
  sg.tensors[1].quantization = quantRecord({0.25f, 0.125f, 0.0625f}, {0, 0, 0}, 0);
  sg.tensors[2].type = circle::TensorType::INT32;
  sg.tensors[2].quantization = quantRecord({0.125f, 0.0625f, 0.03125f}, {0, 0, 0}, 0);
  sg.tensors[3].type = circle::TensorType::UINT8;
  auto y = std::make_shared<circle::QuantizationParametersT>(*quantRecord({0.75f}, {100}));
  y->min = {-75.0f};
  y->max = {116.25f};
  sg.tensors[3].quantization = y;
  sg.inputs = {0};
  sg.outputs = {3};
  CircleOperator fc = op(0, {0, 1, 2}, {3});
  fc.builtin_options.Set(circle::FullyConnectedOptionsT{});
  sg.operators = {fc};
  m.subgraphs.push_back(std::move(sg));
  return m;
}

struct BrokenCase {
  std::function<CircleModel()> make;
  // False for breakage the reader itself refuses or repairs, so it exists only in memory.
  bool representable_in_file = true;
};

// One model per verifier rule, breaking that rule (and as few others as possible).
inline std::map<std::string, BrokenCase> brokenModelCases() {
  using Op = circle::BuiltinOperator;
  std::map<std::string, BrokenCase> cases;
  auto linear = [](std::function<void(CircleModel &)> edit) {
    return [edit] {
      CircleModel m = linearModel();
      edit(m);
      return m;
    };
  };
  auto flow = [](std::function<void(CircleModel &)> edit) {
    return [edit] {
      CircleModel m = controlFlowModel();
      edit(m);
      return m;
    };
  };
  cases["NO_SUBGRAPHS"] = {linear([](CircleModel &m) {
    m.subgraphs.clear();
    m.signatures.clear();
  })};
  cases["MISSING_EMPTY_BUFFER"] = {[] {
    CircleModel m;
    m.buffers.clear();
    CircleSubGraph sg;
    sg.tensors = {tensor("x", {1})};
    sg.inputs = sg.outputs = {0};
    m.subgraphs.push_back(sg);
    return m;
  }};
  cases["BUFFER0_NOT_EMPTY"] = {linear([](CircleModel &m) { m.buffers[0].data = floatData({1}, {1.0f}); })};
  cases["BAD_PAYLOAD"] = {linear([](CircleModel &m) {
                            auto view = std::make_shared<TensorData>(*m.buffers[1].data);
                            view->storage_offset = 1000; // past the end of its storage
                            m.buffers[1].data = view;
                          }),
                          false};
  cases["MISSING_OPERATOR_CODES"] = {linear([](CircleModel &m) { m.operator_codes.clear(); })};
  cases["OPCODE_INDEX"] = {linear([](CircleModel &m) { m.subgraphs[0].operators[1].opcode_index = 7; })};
  cases["TENSOR_INDEX"] = {linear([](CircleModel &m) { m.subgraphs[0].operators[1].inputs[1] = 42; })};
  cases["BUFFER_INDEX"] = {linear([](CircleModel &m) { m.subgraphs[0].tensors[1].buffer = 9; })};
  cases["SUBGRAPH_INDEX"] = {flow([](CircleModel &m) {
    m.subgraphs[0].operators[0].builtin_options.AsIfOptions()->else_subgraph_index = 5;
  })};
  cases["BAD_OPTIONS"] = {linear([](CircleModel &m) {
                            // A type tag without its table (Reset frees the old one first).
                            m.subgraphs[0].operators[0].builtin_options.Reset();
                            m.subgraphs[0].operators[0].builtin_options.type = circle::BuiltinOptions::AddOptions;
                          }),
                          false};
  cases["NEGATIVE_DIMENSION"] = {linear([](CircleModel &m) { m.subgraphs[0].tensors[2].shape = {-1, 4}; })};
  cases["SHAPE_SIGNATURE_RANK"] = {linear([](CircleModel &m) { m.subgraphs[0].tensors[0].shape_signature = {-1}; })};
  cases["SHAPE_SIGNATURE_MISMATCH"] = {
      linear([](CircleModel &m) { m.subgraphs[0].tensors[0].shape_signature = {-1, 5}; })};
  cases["BUFFER_SIZE_MISMATCH"] = {linear([](CircleModel &m) { m.subgraphs[0].tensors[1].shape = {5}; })};
  // The weight's shape overwritten with int32 maxima: 2^62 elements, whose byte count wraps.
  cases["TENSOR_TOO_LARGE"] = {
      linear([](CircleModel &m) { m.subgraphs[0].tensors[1].shape = {2147483647, 2147483647}; })};
  auto quantized = [](std::function<void(CircleModel &)> edit) {
    return [edit] {
      CircleModel m = quantizedModel();
      edit(m);
      return m;
    };
  };
  cases["QUANT_SCALE"] = {quantized([](CircleModel &m) { m.subgraphs[0].tensors[0].quantization = quantRecord({0.0f}, {128}); })};
  cases["QUANT_ZERO_POINT_RANGE"] = {
      quantized([](CircleModel &m) { m.subgraphs[0].tensors[0].quantization = quantRecord({0.5f}, {256}); })};
  cases["QUANT_LENGTH_MISMATCH"] = {quantized(
      [](CircleModel &m) { m.subgraphs[0].tensors[1].quantization = quantRecord({0.25f, 0.125f, 0.0625f}, {0, 0}, 0); })};
  cases["QUANT_DIMENSION"] = {quantized(
      [](CircleModel &m) { m.subgraphs[0].tensors[1].quantization = quantRecord({0.25f, 0.125f, 0.0625f}, {0, 0, 0}, 2); })};
  cases["QUANT_CHANNEL_COUNT"] = {
      quantized([](CircleModel &m) { m.subgraphs[0].tensors[1].quantization = quantRecord({0.25f, 0.125f}, {0, 0}, 0); })};
  // An MX output (MXINT8) whose record carries a scale and a zero point.
  cases["QUANT_MX_RECORD"] = {quantized([](CircleModel &m) { m.subgraphs[0].tensors[3].type = circle::TensorType::MXINT8; })};
  cases["MULTIPLE_PRODUCERS"] = {linear([](CircleModel &m) { m.subgraphs[0].operators[2].outputs = {3}; })};
  cases["CONSTANT_OVERWRITTEN"] = {linear([](CircleModel &m) { m.subgraphs[0].operators[2].outputs = {1}; })};
  cases["UNDEFINED_INPUT"] = {linear([](CircleModel &m) {
    m.subgraphs[0].tensors.push_back(tensor("ghost", {1, 4}));
    m.subgraphs[0].operators[2].inputs[1] = 5;
  })};
  cases["USE_BEFORE_DEFINITION"] = {linear([](CircleModel &m) { m.subgraphs[0].operators[0].inputs[1] = 3; })};
  cases["UNDEFINED_OUTPUT"] = {linear([](CircleModel &m) {
    m.subgraphs[0].tensors.push_back(tensor("ghost", {1, 4}));
    m.subgraphs[0].outputs.push_back(5);
  })};
  cases["CONTROL_FLOW_OPTIONS"] = {flow([](CircleModel &m) { m.subgraphs[0].operators[0].builtin_options.Reset(); })};
  cases["CONTROL_FLOW_ARITY"] = {flow([](CircleModel &m) {
    m.subgraphs[2].tensors.push_back(tensor("extra", {2}));
    m.subgraphs[2].inputs.push_back(2);
  })};
  cases["CONTROL_FLOW_CYCLE"] = {flow([](CircleModel &m) {
    // The then-branch calls itself.
    m.operator_codes.push_back({static_cast<int32_t>(Op::CALL)});
    CircleSubGraph &then = m.subgraphs[1];
    then.tensors.push_back(tensor("again", {2}));
    CircleOperator call = op(3, {0}, {2});
    circle::CallOptionsT options;
    options.subgraph = 1;
    call.builtin_options.Set(options);
    then.operators.push_back(call);
    then.outputs = {2};
  })};
  cases["DUPLICATE_IO"] = {linear([](CircleModel &m) { m.subgraphs[0].outputs = {4, 4}; })};
  cases["INPUT_HAS_PRODUCER"] = {linear([](CircleModel &m) { m.subgraphs[0].inputs = {0, 3}; })};
  cases["DUPLICATE_TENSOR_NAME"] = {linear([](CircleModel &m) { m.subgraphs[0].tensors[3].name = "t"; })};
  cases["DUPLICATE_SIGNATURE_KEY"] = {linear([](CircleModel &m) { m.signatures.push_back(m.signatures[0]); })};
  cases["SIGNATURE_NOT_IO"] = {linear([](CircleModel &m) { m.signatures[0].outputs[0].tensor_index = 3; })};
  cases["QUANT_ON_FLOAT"] = {linear([](CircleModel &m) { m.subgraphs[0].tensors[0].quantization = quantRecord({0.5f}, {0}); })};
  cases["STATIC_SHAPE_SIGNATURE"] = {linear([](CircleModel &m) { m.subgraphs[0].tensors[0].shape_signature = {1, 4}; })};
  cases["UNUSED_TENSOR"] = {linear([](CircleModel &m) { m.subgraphs[0].tensors.push_back(tensor("orphan", {1})); })};
  cases["UNUSED_BUFFER"] = {linear([](CircleModel &m) { m.addBuffer(floatData({1}, {3.0f})); })};
  cases["UNUSED_OPERATOR_CODE"] = {
      linear([](CircleModel &m) { m.operator_codes.push_back({static_cast<int32_t>(Op::SUB)}); })};
  return cases;
}

} // namespace tico::circle_doc_test
