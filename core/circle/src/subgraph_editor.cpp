// SubgraphEditor of tico/circle/edit.h: live producer/consumer tables, marked removals,
// anchored appends and the stable topological finish().

#include "tico/circle/edit.h"

#include "tico/support/error.h"

#include <algorithm>
#include <functional>
#include <queue>

namespace tico {

SubgraphEditor::SubgraphEditor(CircleModel &model, uint32_t subgraph) : model_(model), subgraph_(subgraph) {
  const CircleSubGraph &g = graph();
  original_count_ = static_cast<int>(g.operators.size());
  removed_.assign(g.operators.size(), 0);
  anchors_.assign(g.operators.size(), -2);
  producer_ = tensorProducers(g);
  growTensorTables();
  for (int i = 0; i < original_count_; ++i)
    for (int32_t t : g.operators[i].inputs)
      if (validTensor(t))
        readers_[t].push_back(i);
  for (int32_t t : g.outputs)
    if (validTensor(t))
      ++output_count_[t];
  for (int32_t t : g.inputs)
    if (validTensor(t))
      is_input_[t] = 1;
}

void SubgraphEditor::growTensorTables() {
  std::size_t n = graph().tensors.size();
  producer_.resize(n, -1);
  readers_.resize(n);
  output_count_.resize(n, 0);
  is_input_.resize(n, 0);
}

int SubgraphEditor::producer(int32_t t) const { return validTensor(t) ? producer_[t] : -1; }

std::vector<int> SubgraphEditor::consumers(int32_t t) const {
  if (!validTensor(t))
    return {};
  std::vector<int> out = readers_[t];
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int SubgraphEditor::useCount(int32_t t) const {
  return validTensor(t) ? static_cast<int>(readers_[t].size()) + output_count_[t] : 0;
}

bool SubgraphEditor::onlyUseIs(int32_t t, int op) const {
  if (!validTensor(t) || output_count_[t] != 0 || readers_[t].empty())
    return false;
  return std::all_of(readers_[t].begin(), readers_[t].end(), [&](int r) { return r == op; });
}

bool SubgraphEditor::isGraphOutput(int32_t t) const { return validTensor(t) && output_count_[t] > 0; }
bool SubgraphEditor::isGraphInput(int32_t t) const { return validTensor(t) && is_input_[t] != 0; }
bool SubgraphEditor::isConstantTensor(int32_t t) const {
  return validTensor(t) && !is_input_[t] && producer_[t] < 0 && hasTypedPayload(model_, graph().tensors[t]);
}

void SubgraphEditor::addUse(int32_t t, int op) {
  if (validTensor(t))
    readers_[t].push_back(op);
}

void SubgraphEditor::dropUse(int32_t t, int op) {
  if (!validTensor(t))
    return;
  auto &r = readers_[t];
  auto it = std::find(r.begin(), r.end(), op);
  if (it != r.end())
    r.erase(it);
}

void SubgraphEditor::setInput(int op, std::size_t slot, int32_t t) {
  int32_t &current = graph().operators[op].inputs[slot];
  if (current == t)
    return;
  dropUse(current, op);
  current = t;
  addUse(t, op);
  changed_ = true;
}

void SubgraphEditor::setOutput(int op, std::size_t slot, int32_t t) {
  int32_t &current = graph().operators[op].outputs[slot];
  if (current == t)
    return;
  if (validTensor(current) && producer_[current] == op)
    producer_[current] = -1;
  current = t;
  if (validTensor(t))
    producer_[t] = op;
  changed_ = true;
}

void SubgraphEditor::setGraphOutput(std::size_t position, int32_t t) {
  int32_t &current = graph().outputs.at(position);
  if (current == t)
    return;
  if (validTensor(current))
    --output_count_[current];
  // The SignatureDefs of this subgraph name the same output: they follow it.
  for (CircleSignature &signature : model_.signatures)
    if (signature.subgraph_index == subgraph_)
      for (CircleTensorMap &entry : signature.outputs)
        if (static_cast<int32_t>(entry.tensor_index) == current)
          entry.tensor_index = static_cast<uint32_t>(t);
  current = t;
  if (validTensor(t))
    ++output_count_[t];
  changed_ = true;
}

int SubgraphEditor::replaceUses(int32_t from, int32_t to) {
  if (from == to || !validTensor(from))
    return 0;
  std::vector<int> readers = consumers(from);
  int count = 0;
  for (int op : readers) {
    auto &inputs = graph().operators[op].inputs;
    for (std::size_t s = 0; s < inputs.size(); ++s)
      if (inputs[s] == from) {
        setInput(op, s, to);
        ++count;
      }
  }
  return count;
}

void SubgraphEditor::replaceUsesIn(int op, int32_t from, int32_t to) {
  auto &inputs = graph().operators[op].inputs;
  for (std::size_t s = 0; s < inputs.size(); ++s)
    if (inputs[s] == from)
      setInput(op, s, to);
}

void SubgraphEditor::removeOp(int op) {
  if (removed_[op])
    return;
  removed_[op] = 1;
  const CircleOperator &o = graph().operators[op];
  for (int32_t t : o.inputs)
    dropUse(t, op);
  for (int32_t t : o.outputs)
    if (validTensor(t) && producer_[t] == op)
      producer_[t] = -1;
  changed_ = true;
}

int SubgraphEditor::addOp(CircleOperator op, int anchor) {
  int index = static_cast<int>(graph().operators.size());
  graph().operators.push_back(std::move(op));
  removed_.push_back(0);
  anchors_.push_back(anchor);
  const CircleOperator &o = graph().operators.back();
  for (int32_t t : o.inputs)
    addUse(t, index);
  for (int32_t t : o.outputs)
    if (validTensor(t))
      producer_[t] = index;
  changed_ = true;
  return index;
}

int SubgraphEditor::addOp(circle::BuiltinOperator code, std::vector<int32_t> inputs, std::vector<int32_t> outputs,
                          circle::BuiltinOptionsUnion options, int anchor) {
  CircleOperator op;
  op.opcode_index = model_.operatorCodeIndex(code);
  op.inputs = std::move(inputs);
  op.outputs = std::move(outputs);
  op.builtin_options = std::move(options);
  return addOp(std::move(op), anchor);
}

int32_t SubgraphEditor::addTensor(CircleTensor tensor) {
  graph().tensors.push_back(std::move(tensor));
  growTensorTables();
  changed_ = true;
  return static_cast<int32_t>(graph().tensors.size() - 1);
}

int32_t SubgraphEditor::addConstant(circle::TensorType type, std::vector<int32_t> shape,
                                    std::shared_ptr<const TensorData> data, std::string name) {
  CircleTensor t;
  t.type = type;
  t.shape = std::move(shape);
  t.name = std::move(name);
  t.buffer = model_.addBuffer(std::move(data));
  return addTensor(std::move(t));
}

int32_t SubgraphEditor::addInt32Constant(const std::vector<int32_t> &values, std::vector<int32_t> shape,
                                         std::string name) {
  auto data = std::make_shared<TensorData>(
      TensorData::fromVector(DType::Int32, std::vector<int64_t>(shape.begin(), shape.end()), values));
  return addConstant(circle::TensorType::INT32, std::move(shape), std::move(data), std::move(name));
}

int32_t SubgraphEditor::addTensorLike(int32_t like, std::vector<int32_t> shape, std::string name) {
  const CircleTensor &src = graph().tensors[like];
  CircleTensor t;
  t.type = src.type;
  t.quantization = src.quantization;
  // A dynamic dim of the source keeps its -1 only when the rank is unchanged and the caller
  // passes a permutation of it; callers working on dynamic shapes set shape_signature
  // themselves.
  t.shape = std::move(shape);
  t.name = std::move(name);
  return addTensor(std::move(t));
}

bool SubgraphEditor::finish() {
  if (!changed_)
    return false;
  CircleSubGraph &g = graph();
  const int total = static_cast<int>(g.operators.size());

  // Provisional order: every original operator preceded by the operators anchored before it
  // (recursively), then the operators anchored at the end.
  std::vector<std::vector<int>> before(total);
  std::vector<int> at_end;
  for (int i = original_count_; i < total; ++i) {
    if (anchors_[i] >= 0 && anchors_[i] < total)
      before[anchors_[i]].push_back(i);
    else
      at_end.push_back(i);
  }
  std::vector<int> provisional;
  provisional.reserve(total);
  std::function<void(int)> emit = [&](int i) {
    for (int b : before[i])
      emit(b);
    if (!removed_[i])
      provisional.push_back(i);
  };
  for (int i = 0; i < original_count_; ++i)
    emit(i);
  for (int i : at_end)
    emit(i);

  // Stable topological sort: among the ready operators, always the earliest provisional one.
  std::vector<int> rank(total, -1);
  for (std::size_t r = 0; r < provisional.size(); ++r)
    rank[provisional[r]] = static_cast<int>(r);
  std::vector<int> pending(total, 0);
  std::vector<std::vector<int>> dependents(total);
  for (int op : provisional) {
    std::vector<int> deps;
    for (int32_t t : g.operators[op].inputs) {
      int p = producer(t);
      if (p >= 0 && p != op && !removed_[p])
        deps.push_back(p);
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    pending[op] = static_cast<int>(deps.size());
    for (int d : deps)
      dependents[d].push_back(op);
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready; // by rank
  for (int op : provisional)
    if (pending[op] == 0)
      ready.push(rank[op]);
  std::vector<CircleOperator> ordered;
  ordered.reserve(provisional.size());
  while (!ready.empty()) {
    int op = provisional[ready.top()];
    ready.pop();
    ordered.push_back(std::move(g.operators[op]));
    for (int d : dependents[op])
      if (--pending[d] == 0)
        ready.push(rank[d]);
  }
  if (ordered.size() != provisional.size())
    throw Error("internal error: a Circle rewrite in subgraph " + std::to_string(subgraph_) +
                " created a dataflow cycle");
  g.operators = std::move(ordered);
  return true;
}

} // namespace tico
