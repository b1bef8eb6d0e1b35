// Copies and casts: clone / alias / detach / contiguous / lift_fresh_copy / eval-mode dropout
// and dtype-preserving _to_copy / to are identities; _to_copy / to with another dtype -> CAST.
//
// The remove-nop pass normally deletes the identities before serialization. One that survives
// simply shares its input's tensor, unless that input is itself a graph output: then an
// identity operator gives the result a tensor of its own.
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"

namespace tico::lowering {
namespace {

DType targetDType(const Node &node) { return node.output()->dtype(); }

class CopyOrCast final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    if (node.op().name == "dropout" && node.arg("train").asBool())
      return "dropout in training mode is random; export the model in eval mode";
    if (const Argument *layout = node.findArg("layout");
        layout && !layout->isNone() && layout->asLayout() != Layout::Strided)
      return "conversion to a non-strided layout";
    if (in->dtype() == targetDType(node))
      return {};
    if (!isConstantDType(in->dtype()) || !isConstantDType(targetDType(node)))
      return "CAST from " + std::string(torchDTypeName(in->dtype())) + " to " +
             std::string(torchDTypeName(targetDType(node))) + " is not supported";
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    const Value *out = node.output();
    if (in->dtype() != out->dtype()) {
      int32_t x = emit.tensor(in);
      emitCastInto(emit, x, in->dtype(), out->dtype(), emit.tensor(out));
      return;
    }
    if (!node.graph()->isGraphOutput(in)) {
      emit.alias(out, emit.tensor(in));
      return;
    }
    int32_t x = emit.tensor(in);
    emitIdentity(emit, x, in->rank(), emit.tensor(out), node.name());
  }
};

} // namespace

void registerCopyAndCast(Registrar &r) {
  auto lowering = std::make_shared<CopyOrCast>();
  registerFor(r,
              {ops::aten::clone_default, ops::aten::alias_default, ops::aten::alias_copy_default, ops::aten::detach_default,
               ops::aten::detach_copy_default, ops::aten::detach__default, ops::aten::lift_fresh_copy_default,
               ops::aten::contiguous_default, ops::aten::dropout_default},
              "identity (shares the input tensor)", lowering);
  registerFor(r,
              {ops::aten::_to_copy_default, ops::aten::to_dtype, ops::aten::to_dtype_layout, ops::aten::to_device,
               ops::aten::to_other, ops::aten::to_prim_dtype, ops::aten::to_prim_Device},
              "CAST, or identity when the dtype does not change", lowering);
}

} // namespace tico::lowering
