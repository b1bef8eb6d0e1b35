// permute / transpose.int / t -> TRANSPOSE with an int32 permutation; flip -> REVERSE_V2.
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"

namespace tico::lowering {
namespace {

std::vector<int64_t> permutationOf(const Node &node) {
  const Value *in = node.input(0);
  int64_t rank = in->rank();
  const std::string &name = node.op().name;
  if (name == "permute" || name == "permute_copy") {
    std::vector<int64_t> perm;
    for (int64_t d : node.arg(1).asInts())
      perm.push_back(normalizeDim(d, rank));
    auto sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    if (static_cast<int64_t>(perm.size()) != rank || sorted != identityPermutation(rank))
      throw Error("dims do not form a permutation of the input's " + std::to_string(rank) + " dims");
    return perm;
  }
  auto perm = identityPermutation(rank);
  if (rank < 2)
    return perm; // t() of a 0-D or 1-D tensor is the tensor itself
  int64_t a = 0, b = 1;
  if (name == "transpose" || name == "transpose_copy") {
    a = normalizeDim(node.arg(1).asInt(), rank);
    b = normalizeDim(node.arg(2).asInt(), rank);
  }
  std::swap(perm[static_cast<std::size_t>(a)], perm[static_cast<std::size_t>(b)]);
  return perm;
}

class Transpose final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    permutationOf(node);
    return {};
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    int32_t out = emit.tensor(node.output());
    if (in->rank() == 0) {
      emitIdentity(emit, emit.tensor(in), 0, out, node.name());
      return;
    }
    emitTransposeInto(emit, emit.tensor(in), permutationOf(node), out, node.name());
  }
};

class Flip final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    dims(node);
    return {};
  }
  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    auto d = dims(node);
    if (d.empty()) {
      emitIdentity(emit, emit.tensor(in), in->rank(), emit.tensor(node.output()), node.name());
      return;
    }
    emitOp(emit, circle::BuiltinOperator::REVERSE_V2,
           {emit.tensor(in), emit.constInt32(toInt32(d, "dim"), node.name() + "_axes")}, node.output());
  }

private:
  static std::vector<int64_t> dims(const Node &node) {
    const Value *in = node.input(0);
    std::vector<int64_t> out;
    for (int64_t d : node.arg(1).asInts()) {
      if (in->rank() == 0)
        continue;
      int64_t n = normalizeDim(d, in->rank());
      if (std::find(out.begin(), out.end(), n) != out.end())
        throw Error("dim " + std::to_string(d) + " appears twice");
      out.push_back(n);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
};

} // namespace

void registerTranspose(Registrar &r) {
  registerFor(r, {ops::aten::flip_default}, "REVERSE_V2", std::make_shared<Flip>());
  registerFor(r, {ops::aten::permute_default, ops::aten::permute_copy_default, ops::aten::transpose_int,
                  ops::aten::transpose_copy_int, ops::aten::t_default, ops::aten::t_copy_default},
              "TRANSPOSE", std::make_shared<Transpose>());
}

} // namespace tico::lowering
