// split_with_sizes / split.Tensor / split.sizes (and the unsafe_ variants) -> SPLIT or SLICEs;
// unbind -> UNPACK. The node's outputs are the pieces (torch.export's Tensor[] results are
// flattened into consecutive outputs); pieces nobody reads still get a tensor, because the
// operator writes all of them.
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"

namespace tico::lowering {
namespace {

class Split final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    if (in->rank() == 0)
      return "split of a 0-D tensor";
    int64_t dim = normalizeDim(node.arg("dim").asInt(), in->rank());
    const Dim &size = in->shape()[static_cast<std::size_t>(dim)];
    int symbolic_pieces = 0;
    for (std::size_t i = 0; i < node.numOutputs(); ++i)
      symbolic_pieces += node.output(i)->shape()[static_cast<std::size_t>(dim)].isSymbolic() ? 1 : 0;
    if (size.isSymbolic() && symbolic_pieces > 1)
      return "splitting a symbolic dim into several pieces of symbolic size is not supported";
    if (symbolic_pieces == 1 && !node.output(node.numOutputs() - 1)->shape()[static_cast<std::size_t>(dim)].isSymbolic())
      return "only the last piece of a split may have a symbolic size";
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    int64_t dim = normalizeDim(node.arg("dim").asInt(), in->rank());
    std::vector<int32_t> sizes;
    std::vector<int32_t> outputs;
    for (std::size_t i = 0; i < node.numOutputs(); ++i) {
      const Dim &d = node.output(i)->shape()[static_cast<std::size_t>(dim)];
      sizes.push_back(d.isSymbolic() ? -1 : toInt32(d.value(), "split size")); // -1: the rest
      outputs.push_back(emit.tensor(node.output(i)));
    }
    if (outputs.size() == 1) {
      emitIdentity(emit, emit.tensor(in), in->rank(), outputs.front(), node.name());
      return;
    }
    // onert 0.2 computes SPLIT_V wrongly (every piece comes out as zeros or shifted), so equal
    // pieces use SPLIT and unequal ones one SLICE each; both run correctly there.
    bool equal = sizes.front() >= 0;
    for (int32_t s : sizes)
      equal = equal && s == sizes.front();
    if (equal && !in->shape()[static_cast<std::size_t>(dim)].isSymbolic()) {
      int32_t axis = emit.constant(
          std::make_shared<TensorData>(TensorData::fromVector<int32_t>(DType::Int32, {}, {toInt32(dim, "dim")})),
          node.name() + "_axis");
      circle::SplitOptionsT split;
      split.num_splits = static_cast<int32_t>(outputs.size());
      emit.addOperator(circle::BuiltinOperator::SPLIT, {axis, emit.tensor(in)}, outputs, options(std::move(split)));
      return;
    }
    // SLICE: begin 0 and size -1 (to the end) in every other dim; -1 also for a symbolic piece,
    // which is the last one (check() allows one symbolic piece only when it takes the rest).
    int32_t offset = 0;
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      std::vector<int32_t> begin(static_cast<std::size_t>(in->rank()), 0);
      std::vector<int32_t> size(static_cast<std::size_t>(in->rank()), -1);
      begin[static_cast<std::size_t>(dim)] = offset;
      size[static_cast<std::size_t>(dim)] = sizes[i];
      const std::string hint = node.name() + "_piece" + std::to_string(i);
      emit.addOperator(circle::BuiltinOperator::SLICE,
                       {emit.tensor(in), emit.constInt32(begin, hint + "_begin"), emit.constInt32(size, hint + "_size")},
                       {outputs[i]}, options(circle::SliceOptionsT{}));
      if (sizes[i] >= 0)
        offset += sizes[i];
    }
  }
};

class Unbind final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    if (in->rank() == 0)
      return "unbind of a 0-D tensor";
    int64_t dim = normalizeDim(node.arg("dim").asInt(), in->rank());
    if (in->shape()[static_cast<std::size_t>(dim)].isSymbolic())
      return "unbind along a symbolic dim";
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    int64_t dim = normalizeDim(node.arg("dim").asInt(), in->rank());
    std::vector<int32_t> outputs;
    for (std::size_t i = 0; i < node.numOutputs(); ++i)
      outputs.push_back(emit.tensor(node.output(i)));
    circle::UnpackOptionsT unpack;
    unpack.num = static_cast<int32_t>(outputs.size());
    unpack.axis = toInt32(dim, "dim");
    emit.addOperator(circle::BuiltinOperator::UNPACK, {emit.tensor(in)}, outputs, options(std::move(unpack)));
  }
};

} // namespace

void registerSplit(Registrar &r) {
  registerFor(r,
              {ops::aten::split_with_sizes_default, ops::aten::split_Tensor, ops::aten::split_sizes, ops::aten::unsafe_split_Tensor,
               ops::aten::unsafe_split_with_sizes_default, ops::aten::split_with_sizes_copy_default,
               ops::aten::split_copy_Tensor, ops::aten::chunk_default, ops::aten::unsafe_chunk_default},
              "SPLIT for equal pieces, else one SLICE per piece", std::make_shared<Split>());
  registerFor(r, {ops::aten::unbind_int, ops::aten::unbind_copy_int}, "UNPACK", std::make_shared<Unbind>());
}

} // namespace tico::lowering
