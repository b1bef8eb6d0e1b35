// resolve-legacy-custom-ops: turns custom operators that old TensorFlow-based exports left in
// a model into the Circle builtins that now exist for them.
//
//   AddV2                       -> ADD
//   BatchMatMulV2 (adj_x/adj_y) -> BATCH_MATMUL (adjoint_lhs/adjoint_rhs)
//   MatMul (transpose_a/_b)     -> BATCH_MATMUL
//   SplitV                      -> SPLIT_V (int64 sizes/axis narrowed to int32 constants)
//   MaxPoolWithArgmax, 1x1 window and stride: the values are the input (MAX_POOL_2D 1x1) and
//                               the argmax output becomes the constant index it must be
// Custom options are FlexBuffers maps; they are verified before being read, and an operator
// whose options cannot be read or whose attributes are not representable is left unchanged.
// The builtin writes the custom operator's output tensors.
#include "pass_registration.h"
#include "passes.h"
#include "rewrite_utils.h"

#include <flatbuffers/flexbuffers.h>

#include <limits>

namespace tico::circle_passes {
namespace {

// The FlexBuffers map of the custom options (null when absent, malformed or not a map).
flexbuffers::Map optionsMap(const std::vector<uint8_t> &bytes, bool &ok) {
  ok = false;
  if (bytes.empty() || !flexbuffers::VerifyBuffer(bytes.data(), bytes.size()))
    return flexbuffers::Map::EmptyMap();
  flexbuffers::Reference root = flexbuffers::GetRoot(bytes.data(), bytes.size());
  if (!root.IsMap())
    return flexbuffers::Map::EmptyMap();
  ok = true;
  return root.AsMap();
}

bool boolOption(const flexbuffers::Map &map, std::initializer_list<const char *> keys, bool fallback) {
  for (const char *key : keys) {
    flexbuffers::Reference r = map[key];
    if (r.IsBool() || r.IsNumeric())
      return r.AsBool();
  }
  return fallback;
}

std::vector<int64_t> intsOption(const flexbuffers::Map &map, const char *key) {
  std::vector<int64_t> out;
  flexbuffers::Reference r = map[key];
  if (r.IsAnyVector()) {
    auto v = r.AsVector();
    for (std::size_t i = 0; i < v.size(); ++i)
      out.push_back(v[i].AsInt64());
  } else if (r.IsTypedVector()) {
    auto v = r.AsTypedVector();
    for (std::size_t i = 0; i < v.size(); ++i)
      out.push_back(v[i].AsInt64());
  }
  return out;
}

struct Policy {
  bool add_v2 = true, batch_matmul_v2 = true, matmul = true, split_v = true, max_pool_with_argmax = true;
};

bool toBatchMatMul(SubgraphEditor &e, int i, bool adj_lhs, bool adj_rhs) {
  if (e.op(i).inputs.size() != 2 || e.op(i).outputs.size() != 1)
    return false;
  circle::BatchMatMulOptionsT options;
  options.adjoint_lhs = adj_lhs;
  options.adjoint_rhs = adj_rhs;
  replaceOp(e, i, BuiltinOperator::BATCH_MATMUL, e.op(i).inputs, makeOptions(std::move(options)));
  return true;
}

// An int32 constant with the values of int constant `t`, or `t` itself when already int32.
int32_t int32Constant(SubgraphEditor &e, int32_t t) {
  if (e.tensor(t).type == circle::TensorType::INT32)
    return e.isConstantTensor(t) ? t : -1;
  auto values = constantInts(e, t);
  if (!values)
    return -1;
  std::vector<int32_t> narrow;
  for (int64_t v : *values) {
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
      return -1;
    narrow.push_back(static_cast<int32_t>(v));
  }
  std::vector<int32_t> shape = e.tensor(t).shape;
  return e.addInt32Constant(narrow, shape, derivedName(e, t, "int32"));
}

bool splitV(SubgraphEditor &e, int i) {
  const std::vector<int32_t> in = e.op(i).inputs, outs = e.op(i).outputs;
  if (in.size() != 3 || outs.empty() || !e.validTensor(in[1]) || !e.validTensor(in[2]))
    return false;
  if (e.tensor(in[1]).shape != std::vector<int32_t>{static_cast<int32_t>(outs.size())} ||
      elementCount(e.tensor(in[2]).shape) != 1)
    return false;
  int32_t sizes = int32Constant(e, in[1]);
  int32_t axis = sizes >= 0 ? int32Constant(e, in[2]) : -1;
  if (sizes < 0 || axis < 0)
    return false;
  circle::SplitVOptionsT options;
  options.num_splits = static_cast<int32_t>(outs.size());
  replaceOp(e, i, BuiltinOperator::SPLIT_V, {in[0], sizes, axis}, makeOptions(std::move(options)));
  return true;
}

bool unitMaxPoolWithArgmax(SubgraphEditor &e, int i, const flexbuffers::Map &map) {
  const std::vector<int32_t> in = e.op(i).inputs, outs = e.op(i).outputs;
  if (in.size() != 1 || outs.size() != 2 || !e.validTensor(in[0]) || !e.validTensor(outs[0]) || !e.validTensor(outs[1]))
    return false;
  if (intsOption(map, "ksize") != std::vector<int64_t>{1, 1, 1, 1} ||
      intsOption(map, "strides") != std::vector<int64_t>{1, 1, 1, 1})
    return false;
  std::string padding = map["padding"].IsString() ? map["padding"].AsString().str() : "VALID";
  if (padding != "SAME" && padding != "VALID")
    return false;
  const CircleTensor &x = e.tensor(in[0]), &values = e.tensor(outs[0]), &index = e.tensor(outs[1]);
  if (x.shape.size() != 4 || !sameContract(x, values) || isDynamic(index) || index.shape != x.shape ||
      isQuantized(index) || e.isGraphOutput(outs[1]) ||
      (index.type != circle::TensorType::INT32 && index.type != circle::TensorType::INT64))
    return false;
  const bool include_batch = boolOption(map, {"include_batch_in_index", "includeBatchInIndex"}, false);
  const int64_t per_batch = static_cast<int64_t>(x.shape[1]) * x.shape[2] * x.shape[3];
  std::vector<int64_t> positions(elementCount(x.shape));
  for (std::size_t n = 0; n < positions.size(); ++n)
    positions[n] = include_batch ? static_cast<int64_t>(n) : static_cast<int64_t>(n) % per_batch;
  circle::Pool2DOptionsT pool;
  pool.padding = padding == "SAME" ? circle::Padding::SAME : circle::Padding::VALID;
  pool.stride_h = pool.stride_w = pool.filter_height = pool.filter_width = 1;
  const circle::TensorType index_type = index.type;
  const std::vector<int32_t> index_shape = index.shape;
  e.removeOp(i);
  e.addOp(BuiltinOperator::MAX_POOL_2D, {in[0]}, {outs[0]}, makeOptions(std::move(pool)), i);
  e.tensor(outs[1]).buffer = e.model().addBuffer(payloadFromInts(index_type, index_shape, positions));
  return true;
}

bool resolve(SubgraphEditor &e, int i, const Policy &p) {
  if (e.code(i) != BuiltinOperator::CUSTOM)
    return false;
  const std::string name = customCodeOf(e.model(), e.op(i));
  bool ok = false;
  flexbuffers::Map map = optionsMap(e.op(i).custom_options, ok);
  if (name == "AddV2" && p.add_v2) {
    if (e.op(i).inputs.size() != 2 || e.op(i).outputs.size() != 1)
      return false;
    replaceOp(e, i, BuiltinOperator::ADD, e.op(i).inputs, makeOptions(circle::AddOptionsT{}));
    return true;
  }
  if (name == "BatchMatMulV2" && p.batch_matmul_v2)
    return toBatchMatMul(e, i, ok && boolOption(map, {"adj_x", "adjoint_a"}, false),
                         ok && boolOption(map, {"adj_y", "adjoint_b"}, false));
  if (name == "MatMul" && p.matmul)
    return toBatchMatMul(e, i, ok && boolOption(map, {"transpose_a"}, false),
                         ok && boolOption(map, {"transpose_b"}, false));
  if (name == "SplitV" && p.split_v)
    return splitV(e, i);
  if (name == "MaxPoolWithArgmax" && p.max_pool_with_argmax && ok)
    return unitMaxPoolWithArgmax(e, i, map);
  return false;
}

class ResolveLegacyCustomOps final : public CirclePass {
public:
  explicit ResolveLegacyCustomOps(const Options &o) {
    policy_.add_v2 = o.getBool("add_v2");
    policy_.batch_matmul_v2 = o.getBool("batch_matmul_v2");
    policy_.matmul = o.getBool("matmul");
    policy_.split_v = o.getBool("split_v");
    policy_.max_pool_with_argmax = o.getBool("max_pool_with_argmax");
  }
  bool run(CircleModel &model, PassContext &) override {
    return sweepToFixedPoint(model, [&](SubgraphEditor &e, int i) { return resolve(e, i, policy_); });
  }

private:
  Policy policy_;
};

} // namespace

void registerResolveLegacyCustomOps(Registrar &r) {
  registerCirclePass<ResolveLegacyCustomOps>(
      r, "resolve-legacy-custom-ops",
      "custom AddV2 / BatchMatMulV2 / MatMul / SplitV / 1x1 MaxPoolWithArgmax -> Circle builtins",
      {{"add_v2", OptionType::Bool, true, "resolve AddV2 -> ADD"},
       {"batch_matmul_v2", OptionType::Bool, true, "resolve BatchMatMulV2 -> BATCH_MATMUL"},
       {"matmul", OptionType::Bool, true, "resolve MatMul -> BATCH_MATMUL"},
       {"split_v", OptionType::Bool, true, "resolve SplitV -> SPLIT_V"},
       {"max_pool_with_argmax", OptionType::Bool, true, "resolve 1x1 MaxPoolWithArgmax -> MAX_POOL_2D + constant"}});
}

} // namespace tico::circle_passes
