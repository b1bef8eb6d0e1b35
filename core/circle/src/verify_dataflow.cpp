// Dataflow rules of one subgraph: who writes each tensor, and whether every value read exists
// by the time an operator runs (operators execute in the order they are stored).

#include "verify_detail.h"

#include "tico/circle/query.h"

#include <set>

namespace tico::circle_verify {
namespace {

bool validTensor(const CircleSubGraph &sg, int64_t t) { return t >= 0 && static_cast<uint64_t>(t) < sg.tensors.size(); }

// Tensors that hold a value before any operator runs.
std::vector<bool> definedAtEntry(const CircleModel &model, const CircleSubGraph &sg) {
  std::vector<bool> defined(sg.tensors.size(), false);
  for (int32_t t : sg.inputs)
    if (validTensor(sg, t))
      defined[t] = true;
  for (std::size_t t = 0; t < sg.tensors.size(); ++t) {
    const CircleTensor &tensor = sg.tensors[t];
    bool empty = false; // a static shape with a zero dimension needs no data to be complete
    for (int32_t d : tensor.shape)
      empty = empty || d == 0;
    if (tensor.is_variable || isConstantTensor(model, tensor) || (empty && tensor.shape_signature.empty()))
      defined[t] = true;
  }
  return defined;
}

void checkDuplicates(Findings &f, std::size_t s, const std::vector<int32_t> &list, const char *name) {
  std::set<int32_t> seen;
  for (std::size_t i = 0; i < list.size(); ++i)
    if (!seen.insert(list[i]).second)
      f.warning("DUPLICATE_IO", item(subgraphPath(s) + "." + name, i),
                tensorLabel(f.model.subgraphs[s], list[i]) + " is listed more than once in the subgraph's " + name);
}

} // namespace

void checkDataflow(Findings &f, std::size_t s) {
  const CircleModel &model = f.model;
  const CircleSubGraph &sg = model.subgraphs[s];
  const std::vector<bool> at_entry = definedAtEntry(model, sg);
  std::vector<bool> is_input(sg.tensors.size(), false);
  for (int32_t t : sg.inputs)
    if (validTensor(sg, t))
      is_input[t] = true;
  const std::vector<int32_t> producers = tensorProducers(sg);

  std::vector<bool> defined = at_entry;
  std::vector<int32_t> writer(sg.tensors.size(), -1);
  for (std::size_t o = 0; o < sg.operators.size(); ++o) {
    const CircleOperator &op = sg.operators[o];
    const std::string path = operatorPath(s, o);
    for (std::size_t i = 0; i < op.inputs.size(); ++i) {
      const int32_t t = op.inputs[i];
      if (!validTensor(sg, t) || defined[t])
        continue;
      const std::string label = tensorLabel(sg, t);
      if (producers[t] >= 0 && static_cast<std::size_t>(producers[t]) >= o)
        f.error("USE_BEFORE_DEFINITION", item(path + ".inputs", i),
                label + " is read before operator " + std::to_string(producers[t]) + " writes it");
      else
        f.error("UNDEFINED_INPUT", item(path + ".inputs", i),
                label + " is read but never written, and is not a subgraph input, a constant or a variable");
    }
    for (std::size_t i = 0; i < op.outputs.size(); ++i) {
      const int32_t t = op.outputs[i];
      if (!validTensor(sg, t))
        continue;
      const std::string where = item(path + ".outputs", i);
      if (writer[t] >= 0)
        f.error("MULTIPLE_PRODUCERS", where,
                tensorLabel(sg, t) + " is already written by operator " + std::to_string(writer[t]));
      else if (isConstantTensor(model, sg.tensors[t]))
        f.error("CONSTANT_OVERWRITTEN", where,
                tensorLabel(sg, t) + " holds constant data (buffer " + std::to_string(sg.tensors[t].buffer) +
                    ") but this operator writes it");
      else if (is_input[t])
        f.warning("INPUT_HAS_PRODUCER", where, tensorLabel(sg, t) + " is a subgraph input but this operator writes it");
      writer[t] = static_cast<int32_t>(o);
      defined[t] = true;
    }
  }
  for (std::size_t i = 0; i < sg.outputs.size(); ++i) {
    const int32_t t = sg.outputs[i];
    if (validTensor(sg, t) && !defined[t])
      f.error("UNDEFINED_OUTPUT", item(subgraphPath(s) + ".outputs", i),
              tensorLabel(sg, t) + " is a subgraph output but is never written, and is not an input, a constant or a "
                                   "variable");
  }
  checkDuplicates(f, s, sg.inputs, "inputs");
  checkDuplicates(f, s, sg.outputs, "outputs");
}

} // namespace tico::circle_verify
