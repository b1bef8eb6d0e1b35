#include "rewrite_utils.h"

#include <algorithm>
#include <numeric>

namespace tico::circle_passes {

bool redirect(SubgraphEditor &editor, int32_t from, int32_t to, int dying_op) {
  if (from == to)
    return false;
  if (!editor.isGraphOutput(from)) {
    editor.replaceUses(from, to);
    return true;
  }
  // `from` is part of the interface: let the producer of `to` write it instead.
  int producer = editor.producer(to);
  if (producer < 0 || producer == dying_op || editor.isGraphInput(to) || editor.isGraphOutput(to))
    return false;
  for (int reader : editor.consumers(to))
    if (reader != dying_op)
      return false;
  if (!sameContract(editor.tensor(from), editor.tensor(to)))
    return false;
  if (editor.producer(from) >= 0 && editor.producer(from) != dying_op)
    return false;
  const auto &outputs = editor.op(producer).outputs;
  for (std::size_t s = 0; s < outputs.size(); ++s)
    if (outputs[s] == to) {
      // The dying operator wrote `from`; it loses it first so the producer table stays exact.
      if (dying_op >= 0) {
        const auto &dying_outputs = editor.op(dying_op).outputs;
        for (std::size_t d = 0; d < dying_outputs.size(); ++d)
          if (dying_outputs[d] == from)
            editor.setOutput(dying_op, d, -1);
      }
      editor.setOutput(producer, s, from);
      return true;
    }
  return false;
}

bool bypassOp(SubgraphEditor &editor, int op, int32_t replacement) {
  if (editor.op(op).outputs.size() != 1)
    return false;
  int32_t out = editor.op(op).outputs[0];
  if (!editor.validTensor(out) || !editor.validTensor(replacement))
    return false;
  if (!sameContract(editor.tensor(out), editor.tensor(replacement)))
    return false;
  if (!redirect(editor, out, replacement, op))
    return false;
  editor.removeOp(op);
  return true;
}

std::string derivedName(const SubgraphEditor &editor, int32_t tensor, const std::string &suffix) {
  std::string base = editor.validTensor(tensor) ? editor.tensor(tensor).name : std::string();
  if (base.empty())
    base = "t" + std::to_string(tensor);
  return base + "/" + suffix;
}

std::optional<std::vector<int64_t>> constantInts(const SubgraphEditor &editor, int32_t t) {
  if (!editor.isConstantTensor(t))
    return std::nullopt;
  const CircleTensor &tensor = editor.tensor(t);
  if (tensor.type != circle::TensorType::INT32 && tensor.type != circle::TensorType::INT64)
    return std::nullopt;
  return constantAsInts(editor.model(), tensor);
}

std::optional<double> constantScalar(const SubgraphEditor &editor, int32_t t) {
  if (!editor.isConstantTensor(t))
    return std::nullopt;
  auto values = constantAsDoubles(editor.model(), editor.tensor(t));
  if (!values || values->size() != 1)
    return std::nullopt;
  return (*values)[0];
}

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> inversePermutation(const std::vector<int64_t> &perm) {
  std::vector<int64_t> inv(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i)
    inv[perm[i]] = static_cast<int64_t>(i);
  return inv;
}

bool isPermutation(const std::vector<int64_t> &perm) {
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != static_cast<int64_t>(i))
      return false;
  return true;
}

bool isIdentityPermutation(const std::vector<int64_t> &perm) {
  for (std::size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i))
      return false;
  return true;
}

std::vector<int64_t> composeTransposes(const std::vector<int64_t> &first, const std::vector<int64_t> &second) {
  // z = T(T(x, first), second): z dim i is dim second[i] of the middle, i.e. x dim first[second[i]].
  std::vector<int64_t> out(second.size());
  for (std::size_t i = 0; i < second.size(); ++i)
    out[i] = first[second[i]];
  return out;
}

std::optional<std::vector<int64_t>> transposePermutation(const SubgraphEditor &editor, int op) {
  const CircleOperator &o = editor.op(op);
  if (editor.code(op) != BuiltinOperator::TRANSPOSE || o.inputs.size() != 2 || o.outputs.size() != 1)
    return std::nullopt;
  auto perm = constantInts(editor, o.inputs[1]);
  if (!perm || !editor.validTensor(o.inputs[0]) || perm->size() != editor.tensor(o.inputs[0]).shape.size() ||
      !isPermutation(*perm))
    return std::nullopt;
  return perm;
}

int replaceOp(SubgraphEditor &editor, int op, BuiltinOperator code, std::vector<int32_t> inputs,
              circle::BuiltinOptionsUnion options) {
  std::vector<int32_t> outputs = editor.op(op).outputs;
  editor.removeOp(op);
  return editor.addOp(code, std::move(inputs), std::move(outputs), std::move(options), op);
}

int32_t copyGraphOutput(SubgraphEditor &editor, std::size_t position) {
  const int32_t t = editor.graph().outputs[position];
  const std::vector<int32_t> shape = editor.tensor(t).shape;
  int32_t copy = editor.addTensorLike(t, shape, editor.tensor(t).name + "_output");
  editor.tensor(copy).shape_signature = editor.tensor(t).shape_signature;
  std::swap(editor.tensor(copy).name, editor.tensor(t).name);
  if (shape.empty()) {
    int32_t target = editor.addInt32Constant({}, {0}, editor.tensor(copy).name + "_shape");
    editor.addOp(BuiltinOperator::RESHAPE, {t, target}, {copy}, makeOptions(circle::ReshapeOptionsT{}), -1);
  } else {
    std::vector<int32_t> identity(shape.size());
    for (std::size_t i = 0; i < identity.size(); ++i)
      identity[i] = static_cast<int32_t>(i);
    int32_t perm = editor.addInt32Constant(identity, {static_cast<int32_t>(identity.size())},
                                           editor.tensor(copy).name + "_perm");
    editor.addOp(BuiltinOperator::TRANSPOSE, {t, perm}, {copy}, makeOptions(circle::TransposeOptionsT{}), -1);
  }
  editor.setGraphOutput(position, copy);
  return copy;
}

int addReshape(SubgraphEditor &editor, int32_t input, int32_t output, const std::vector<int32_t> &shape, int anchor) {
  int32_t shape_tensor = editor.addInt32Constant(shape, {static_cast<int32_t>(shape.size())},
                                                 derivedName(editor, output, "shape"));
  circle::ReshapeOptionsT options;
  if (!shape.empty()) // onert 0.2 crashes on a present but empty new_shape
    options.new_shape = shape;
  return editor.addOp(BuiltinOperator::RESHAPE, {input, shape_tensor}, {output}, makeOptions(std::move(options)),
                      anchor);
}

} // namespace tico::circle_passes
