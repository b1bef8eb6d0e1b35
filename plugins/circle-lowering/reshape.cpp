// view / _unsafe_view / reshape / view_copy / flatten / unflatten -> RESHAPE; unsqueeze -> EXPAND_DIMS;
// squeeze (.default / .dim / .dims) -> SQUEEZE.
//
// RESHAPE's target comes from the node's result shape: a static shape, or one symbolic dim
// written as -1, is an int32 constant; several symbolic dims are assembled at runtime from the
// SymInt values the size list holds (or the input's dims with the same expression).
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"

namespace tico::lowering {
namespace {

// view-like ops whose result shape is all that matters. `has_sizes`: argument 1 is the size
// list (view, reshape), whose SymInts can provide runtime dims; flatten has dims instead.
class Reshape final : public CheckedLowering {
public:
  explicit Reshape(bool has_sizes) : has_sizes_(has_sizes) {}

  std::string check(const Node &node) const override {
    return reshapeUnsupported(node.output()->shape(), sizes(node), node.input(0));
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    int32_t x = emit.tensor(node.input(0));
    emitReshapeInto(emit, x, node.output()->shape(), sizes(node), node.input(0), emit.tensor(node.output()),
                    node.name());
  }

private:
  const Argument *sizes(const Node &node) const { return has_sizes_ ? &node.arg(1) : nullptr; }
  bool has_sizes_;
};

class Unsqueeze final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    normalizeDim(node.arg(1).asInt(), node.input(0)->rank() + 1);
    return {};
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    int64_t dim = normalizeDim(node.arg(1).asInt(), node.input(0)->rank() + 1);
    int32_t axis = emit.constInt32({toInt32(dim, "dim")}, node.name() + "_axis");
    emitOp(emit, circle::BuiltinOperator::EXPAND_DIMS, {emit.tensor(node.input(0)), axis}, node.output(),
           options(circle::ExpandDimsOptionsT{}));
  }
};

// PyTorch squeezes only the listed dims that have size 1; SQUEEZE gets exactly those. With no
// dim to squeeze the result is the input unchanged.
class Squeeze final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    squeezedDims(node);
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    auto dims = squeezedDims(node);
    int32_t out = emit.tensor(node.output());
    if (dims.empty()) {
      emitIdentity(emit, emit.tensor(in), in->rank(), out, node.name());
      return;
    }
    circle::SqueezeOptionsT squeeze;
    squeeze.squeeze_dims = toInt32(dims, "dim");
    emit.addOperator(circle::BuiltinOperator::SQUEEZE, {emit.tensor(in)}, {out}, options(std::move(squeeze)));
  }

private:
  static std::vector<int64_t> squeezedDims(const Node &node) {
    const Value *in = node.input(0);
    const Shape &shape = in->shape();
    std::vector<int64_t> requested;
    if (node.numArgs() < 2) {
      requested = identityPermutation(in->rank());
    } else if (node.arg(1).isInt()) {
      requested.push_back(node.arg(1).asInt());
    } else {
      requested = node.arg(1).asInts();
    }
    std::vector<int64_t> dims;
    for (int64_t d : requested) {
      if (in->rank() == 0)
        continue; // squeezing a scalar is a no-op
      int64_t n = normalizeDim(d, in->rank());
      const Dim &size = shape[static_cast<std::size_t>(n)];
      if (size.isStatic() && size.value() == 1 && std::find(dims.begin(), dims.end(), n) == dims.end())
        dims.push_back(n);
    }
    std::sort(dims.begin(), dims.end());
    return dims;
  }
};

} // namespace

void registerReshape(Registrar &r) {
  registerFor(r,
              {ops::aten::view_default, ops::aten::_unsafe_view_default, ops::aten::reshape_default, ops::aten::view_copy_default},
              "RESHAPE (int32 shape; -1 or a runtime shape for symbolic dims)", std::make_shared<Reshape>(true));
  registerFor(r, {ops::aten::flatten_using_ints, ops::aten::unflatten_int}, "RESHAPE to the result shape",
              std::make_shared<Reshape>(false));
  registerFor(r, {ops::aten::unsqueeze_default, ops::aten::unsqueeze_copy_default}, "EXPAND_DIMS",
              std::make_shared<Unsqueeze>());
  registerFor(r, {ops::aten::squeeze_default, ops::aten::squeeze_dim, ops::aten::squeeze_dims, ops::aten::squeeze_copy_default,
                  ops::aten::squeeze_copy_dim, ops::aten::squeeze_copy_dims},
              "SQUEEZE of the listed size-1 dims", std::make_shared<Squeeze>());
}

} // namespace tico::lowering
