#include "model_check.h"

#include "kernel.h"
#include "quant/qparams.h"

#include "tico/support/error.h"

#include <algorithm>
#include <exception>
#include <map>

namespace tico::interp {

bool isConstant(const CircleModel &model, const CircleTensor &tensor) {
  if (tensor.buffer == 0 || tensor.buffer >= model.buffers.size())
    return false;
  const auto &data = model.buffers[tensor.buffer].data;
  if (data != nullptr && data->nbytes() > 0)
    return true;
  // A constant with no elements (the shape [0] operand of a RESHAPE to a scalar) has no bytes to
  // store, so its buffer is empty: the static zero-size shape makes it a constant all the same.
  const bool dynamic = std::any_of(tensor.shape_signature.begin(), tensor.shape_signature.end(), [](int32_t d) { return d < 0; });
  return !dynamic && std::find(tensor.shape.begin(), tensor.shape.end(), 0) != tensor.shape.end();
}

namespace {

std::string subgraphLabel(const CircleModel &model, std::size_t s) {
  const std::string &name = model.subgraphs[s].name;
  return "subgraph " + std::to_string(s) + (name.empty() ? "" : " '" + name + "'");
}

std::string tensorName(const CircleSubGraph &graph, int32_t t) {
  const std::string &name = graph.tensors[static_cast<std::size_t>(t)].name;
  return name.empty() ? "tensor #" + std::to_string(t) : "tensor " + std::to_string(t) + " '" + name + "'";
}

// "operator #3: no quantized kernel for ADD: inputs INT16 (scale 0.1, zero point 0), ... ->
// outputs ...": what the user needs to see to requantize or dequantize around it.
std::string noQuantizedKernel(const CircleSubGraph &graph, const CircleOperator &op, std::size_t index,
                              const std::string &label) {
  auto types = [&](const std::vector<int32_t> &tensors) {
    std::string out;
    for (int32_t t : tensors)
      out += (out.empty() ? "" : ", ") +
             (t < 0 ? std::string("(omitted)") : quant::describeType(graph.tensors[static_cast<std::size_t>(t)]));
    return out;
  };
  return "operator #" + std::to_string(index) + ": no quantized kernel for " + label + " with inputs " +
         types(op.inputs) + " -> outputs " + types(op.outputs);
}

} // namespace

void checkModelStructure(const CircleModel &model) {
  if (model.subgraphs.empty())
    throw Error("the model has no subgraphs");
  for (std::size_t s = 0; s < model.subgraphs.size(); ++s) {
    const CircleSubGraph &graph = model.subgraphs[s];
    const std::string where = subgraphLabel(model, s);
    const auto tensor_count = static_cast<int32_t>(graph.tensors.size());
    for (std::size_t t = 0; t < graph.tensors.size(); ++t) {
      const CircleTensor &tensor = graph.tensors[t];
      if (tensor.buffer >= model.buffers.size())
        throw Error(where + ": " + tensorName(graph, static_cast<int32_t>(t)) + " refers to buffer " +
                    std::to_string(tensor.buffer) + " of " + std::to_string(model.buffers.size()));
      if (quant::isPackedFourBit(tensor.type) && !isConstant(model, tensor))
        throw Error(where + ": " + tensorName(graph, static_cast<int32_t>(t)) +
                    " is a 4-bit tensor that is not a constant (the interpreter holds 4-bit values only as "
                    "constant weights)");
      try {
        (void)quant::elementTypeOf(tensor.type);
      } catch (const Error &) {
        const char *type = circle::EnumNameTensorType(tensor.type);
        throw Error(where + ": " + tensorName(graph, static_cast<int32_t>(t)) + " has Circle type " +
                    (type && *type ? type : std::to_string(static_cast<int>(tensor.type))) +
                    ", which the interpreter cannot hold");
      }
      for (int32_t d : tensor.shape)
        if (d < 0)
          throw Error(where + ": " + tensorName(graph, static_cast<int32_t>(t)) + " has a negative static dimension");
    }

    // available[t]: t holds a value at this point of the execution order.
    std::vector<bool> available(graph.tensors.size(), false);
    for (std::size_t t = 0; t < graph.tensors.size(); ++t)
      available[t] = isConstant(model, graph.tensors[t]);
    for (int32_t input : graph.inputs) {
      if (input < 0 || input >= tensor_count)
        throw Error(where + ": input tensor index " + std::to_string(input) + " is out of range (" +
                    std::to_string(tensor_count) + " tensors)");
      available[static_cast<std::size_t>(input)] = true;
    }
    for (int32_t output : graph.outputs)
      if (output < 0 || output >= tensor_count)
        throw Error(where + ": output tensor index " + std::to_string(output) + " is out of range (" +
                    std::to_string(tensor_count) + " tensors)");

    for (std::size_t o = 0; o < graph.operators.size(); ++o) {
      const CircleOperator &op = graph.operators[o];
      if (op.opcode_index >= model.operator_codes.size())
        throw Error(where + ": operator #" + std::to_string(o) + " uses opcode " + std::to_string(op.opcode_index) +
                    " of " + std::to_string(model.operator_codes.size()));
      const std::string what =
          where + ": operator #" + std::to_string(o) + " (" + builtinName(model.operator_codes[op.opcode_index].builtin_code) + ")";
      for (int32_t input : op.inputs) {
        if (input == -1)
          continue;
        if (input < 0 || input >= tensor_count)
          throw Error(what + " reads tensor index " + std::to_string(input) + ", out of range (" +
                      std::to_string(tensor_count) + " tensors)");
        if (!available[static_cast<std::size_t>(input)])
          throw Error(what + " reads " + tensorName(graph, input) +
                      " before anything produces it (not an input, constant or earlier output)");
      }
      for (int32_t output : op.outputs) {
        if (output < 0 || output >= tensor_count)
          throw Error(what + " writes tensor index " + std::to_string(output) + ", out of range (" +
                      std::to_string(tensor_count) + " tensors)");
        if (available[static_cast<std::size_t>(output)])
          throw Error(what + " writes " + tensorName(graph, output) +
                      ", which already holds a value (an input, constant or earlier output)");
        available[static_cast<std::size_t>(output)] = true;
      }
    }
    for (int32_t output : graph.outputs)
      if (!available[static_cast<std::size_t>(output)])
        throw Error(where + ": output " + tensorName(graph, output) + " is never produced");
  }
}

void checkOperatorSupport(const CircleModel &model) {
  const KernelTable &kernels = kernelTable();
  // op label -> (count, reasons); std::map keeps the report sorted and deterministic.
  std::map<std::string, std::pair<std::size_t, std::vector<std::string>>> unsupported;
  std::size_t total = 0;
  for (const CircleSubGraph &graph : model.subgraphs) {
    for (std::size_t index = 0; index < graph.operators.size(); ++index) {
      const CircleOperator &op = graph.operators[index];
      const CircleOperatorCode &code = model.operator_codes[op.opcode_index];
      std::string label = builtinName(code.builtin_code);
      if (code.builtin_code == static_cast<int32_t>(circle::BuiltinOperator::CUSTOM))
        label += " '" + code.custom_code + "'";
      std::string reason;
      const KernelInfo *kernel = selectKernel(kernels, model, graph, op);
      OpSignature signature(model, graph, op);
      if (kernel == nullptr) {
        reason = touchesQuantizedTensors(graph, op) && kernels.find(code.builtin_code) != nullptr
                     ? noQuantizedKernel(graph, op, index, label)
                     : "no kernel";
      } else {
        if (kernel->check != nullptr) {
          try {
            reason = kernel->check(signature);
          } catch (const Error &error) {
            reason = error.what();
          } catch (const std::exception &error) {
            // A malformed operator (say, one without outputs) must be reported, not crash.
            reason = std::string("malformed operator: ") + error.what();
          }
          // Quantized checks depend on each operator's own tensors: say which operator it is.
          if (!reason.empty() && touchesQuantizedTensors(graph, op))
            reason = "operator #" + std::to_string(index) + ": " + reason;
        }
      }
      if (reason.empty())
        continue;
      ++total;
      auto &entry = unsupported[label];
      ++entry.first;
      if (entry.second.size() < 3 &&
          std::find(entry.second.begin(), entry.second.end(), reason) == entry.second.end())
        entry.second.push_back(reason);
    }
  }
  if (unsupported.empty())
    return;
  std::string message = "the interpreter cannot run " + std::to_string(total) + " operator" +
                        (total == 1 ? "" : "s") + " of this model:";
  for (const auto &[label, entry] : unsupported) {
    message += "\n  " + label + " x" + std::to_string(entry.first) + ": ";
    for (std::size_t i = 0; i < entry.second.size(); ++i)
      message += (i ? "; " : "") + entry.second[i];
  }
  throw Error(message);
}

} // namespace tico::interp
