// constant_pad_nd / pad -> PAD (zero), PADV2 (another value) or MIRROR_PAD (reflect);
// repeat / tile -> TILE with int32 multiples (RESHAPE first when repeats adds leading dims).
//
// PyTorch lists paddings from the last dim backwards ([last_before, last_after, ...]);
// Circle wants an int32 [rank, 2] table in dim order. Negative (cropping) paddings are not
// supported.
#include "lowerings.h"
#include "support.h"

namespace tico::lowering {
namespace {

std::vector<int32_t> paddingTable(const Node &node) {
  int64_t rank = node.input(0)->rank();
  const Argument &pad = node.arg(1);
  if (pad.kind() == Argument::Kind::SymIntList)
    throw Error("symbolic paddings are not supported");
  const auto &p = pad.asInts();
  if (p.size() % 2 != 0 || static_cast<int64_t>(p.size()) > 2 * rank)
    throw Error("padding list of " + std::to_string(p.size()) + " values for a tensor of rank " + std::to_string(rank));
  std::vector<int32_t> table(static_cast<std::size_t>(2 * rank), 0);
  for (std::size_t i = 0; i < p.size() / 2; ++i) {
    std::size_t dim = static_cast<std::size_t>(rank) - 1 - i;
    table[2 * dim] = toInt32(p[2 * i], "padding");
    table[2 * dim + 1] = toInt32(p[2 * i + 1], "padding");
  }
  return table;
}

class Pad final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    if (in->rank() == 0)
      return "padding a 0-D tensor";
    if (!isNumericDType(in->dtype()))
      return "padding " + std::string(torchDTypeName(in->dtype())) + " tensors is not supported";
    for (int32_t v : paddingTable(node))
      if (v < 0)
        return "negative (cropping) padding is not supported";
    std::string mode = this->mode(node);
    // decompose-composite-ops rewrites replicate and circular padding of static dims into
    // slices and cat (window_pad.cpp); what reaches here pads a symbolic dim.
    if (mode != "constant" && mode != "reflect")
      return "padding mode '" + mode + "' has no Circle counterpart (constant and reflect are supported; replicate "
             "and circular only along static dims)";
    if (mode == "reflect") {
      auto table = paddingTable(node);
      for (int64_t d = 0; d < in->rank(); ++d) {
        const Dim &size = in->shape()[static_cast<std::size_t>(d)];
        int32_t widest = std::max(table[2 * d], table[2 * d + 1]);
        if (widest > 0 && (size.isSymbolic() || widest >= size.value()))
          return "reflect padding must be smaller than a static input size";
      }
    }
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    const std::string base = node.name();
    auto table = paddingTable(node);
    int32_t paddings = emit.constant(std::make_shared<TensorData>(TensorData::fromVector<int32_t>(
                                         DType::Int32, {in->rank(), 2}, table)),
                                     base + "_paddings");
    if (mode(node) == "reflect") {
      circle::MirrorPadOptionsT mirror;
      mirror.mode = circle::MirrorPadMode::REFLECT;
      emitOp(emit, circle::BuiltinOperator::MIRROR_PAD, {emit.tensor(in), paddings}, node.output(),
             options(std::move(mirror)));
      return;
    }
    double value = fillValue(node);
    if (value == 0.0) {
      emitOp(emit, circle::BuiltinOperator::PAD, {emit.tensor(in), paddings}, node.output(),
             options(circle::PadOptionsT{}));
      return;
    }
    emitOp(emit, circle::BuiltinOperator::PADV2,
           {emit.tensor(in), paddings, scalarConstant(emit, in->dtype(), value, base + "_value")}, node.output(),
           options(circle::PadV2OptionsT{}));
  }

private:
  static std::string mode(const Node &node) {
    const Argument *m = node.findArg("mode");
    return m ? m->asString() : "constant";
  }
  static double fillValue(const Node &node) {
    const Argument &v = node.arg("value");
    return v.isNone() ? 0.0 : v.asDouble();
  }
};

class Tile final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    if (node.arg(1).kind() == Argument::Kind::SymIntList)
      return "symbolic repeat counts are not supported";
    const auto &repeats = node.arg(1).asInts();
    if (node.op().name == "repeat" && static_cast<int64_t>(repeats.size()) < node.input(0)->rank())
      return "repeat needs at least one count per dim";
    for (int64_t r : repeats)
      if (r < 0)
        return "negative repeat count";
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    const Value *out = node.output();
    const std::string base = node.name();
    std::vector<int64_t> multiples = node.arg(1).asInts();
    int64_t rank = std::max<int64_t>(in->rank(), static_cast<int64_t>(multiples.size()));
    // tile pads missing counts with leading 1s; repeat adds leading dims of size 1 to the input.
    multiples.insert(multiples.begin(), static_cast<std::size_t>(rank) - multiples.size(), 1);
    int32_t x = emit.tensor(in);
    if (in->rank() < rank) {
      Shape expanded(static_cast<std::size_t>(rank - in->rank()), Dim(1));
      expanded.insert(expanded.end(), in->shape().begin(), in->shape().end());
      int32_t reshaped = emit.newTensor(in->dtype(), expanded, base + "_expanded");
      emitReshapeInto(emit, x, expanded, nullptr, in, reshaped, base + "_expanded");
      x = reshaped;
    }
    emitOp(emit, circle::BuiltinOperator::TILE, {x, emit.constInt32(toInt32(multiples, "repeat count"), base + "_multiples")},
           out, options(circle::TileOptionsT{}));
  }
};

} // namespace

void registerPadTile(Registrar &r) {
  registerFor(r, {"aten::constant_pad_nd.default", "aten::pad.default"},
              "PAD, PADV2 for a non-zero value, MIRROR_PAD for reflect (int32 [rank, 2] paddings)",
              std::make_shared<Pad>());
  registerFor(r, {"aten::repeat.default", "aten::tile.default"}, "TILE (RESHAPE first for new leading dims)",
              std::make_shared<Tile>());
}

} // namespace tico::lowering
