// constant_pad_nd / pad -> PAD (zero), PADV2 (another value) or MIRROR_PAD (reflect);
// repeat / tile -> TILE with int32 multiples (RESHAPE first when repeats adds leading dims).
//
// PyTorch lists paddings from the last dim backwards ([last_before, last_after, ...]);
// Circle wants an int32 [rank, 2] table in dim order. Negative (cropping) paddings are not
// supported. Runtimes implement the pad operators up to rank 4 only (onert 0.2: "Padding for
// rank > 4 NYI"), so a higher-rank pad whose unpadded dims sit next to each other runs on a
// view that merges each run of unpadded dims into one: RESHAPE, pad, RESHAPE back (a 5-D
// video or conv3d input padded in D, H and W pads as [N*C, D, H, W]).
#include "lowerings.h"
#include "support.h"
#include "tico/ops/torch_ops.h"

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

// A pad of rank > 4 as a pad of a lower-rank view: the view's input and output shapes and its
// [rank, 2] table. nullopt when no unpadded dims are adjacent, or when the RESHAPEs would need
// more than one symbolic dim (a runtime shape computation a pad is not worth).
struct PadView {
  Shape input, output;
  std::vector<int32_t> table;
};

Dim mergedDim(const Shape &shape, std::size_t begin, std::size_t end) {
  int64_t hint = 1;
  bool symbolic = false;
  std::string expr;
  for (std::size_t d = begin; d < end; ++d) {
    hint *= shape[d].value();
    symbolic |= shape[d].isSymbolic();
    const std::string factor = shape[d].isSymbolic() ? shape[d].expr() : std::to_string(shape[d].value());
    expr += (expr.empty() ? "(" : "*(") + factor + ")";
  }
  return symbolic ? Dim::symbolic(expr, hint) : Dim(hint);
}

std::optional<PadView> lowerRankView(const Shape &in, const Shape &out, const std::vector<int32_t> &table) {
  if (in.size() <= 4)
    return std::nullopt;
  PadView view;
  for (std::size_t d = 0; d < in.size();) {
    std::size_t end = d + 1;
    const bool padded = table[2 * d] != 0 || table[2 * d + 1] != 0;
    if (!padded)
      while (end < in.size() && table[2 * end] == 0 && table[2 * end + 1] == 0)
        ++end;
    view.input.push_back(mergedDim(in, d, end));
    view.output.push_back(mergedDim(out, d, end));
    view.table.push_back(table[2 * d]);
    view.table.push_back(padded ? table[2 * d + 1] : 0);
    d = end;
  }
  if (view.input.size() == in.size() || countSymbolic(view.input) > 1 || countSymbolic(out) > 1)
    return std::nullopt;
  return view;
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
    const Value *out = node.output();
    const std::string base = node.name();
    auto table = paddingTable(node);
    std::optional<PadView> view = lowerRankView(in->shape(), out->shape(), table);
    if (!view) {
      emitPad(emit, node, emit.tensor(in), in->rank(), table, emit.tensor(out));
      return;
    }
    int32_t x = emit.newTensor(in->dtype(), view->input, base + "_merged_input");
    emitReshapeInto(emit, emit.tensor(in), view->input, nullptr, nullptr, x, base + "_merge");
    int32_t y = emit.newTensor(out->dtype(), view->output, base + "_merged_output");
    emitPad(emit, node, x, static_cast<int64_t>(view->input.size()), view->table, y);
    emitReshapeInto(emit, y, out->shape(), nullptr, nullptr, emit.tensor(out), base + "_split");
  }

private:
  static void emitPad(CircleEmitter &emit, const Node &node, int32_t x, int64_t rank, const std::vector<int32_t> &table,
                      int32_t y) {
    const std::string base = node.name();
    int32_t paddings = emit.constant(
        std::make_shared<TensorData>(TensorData::fromVector<int32_t>(DType::Int32, {rank, 2}, table)),
        base + "_paddings");
    if (mode(node) == "reflect") {
      circle::MirrorPadOptionsT mirror;
      mirror.mode = circle::MirrorPadMode::REFLECT;
      emit.addOperator(circle::BuiltinOperator::MIRROR_PAD, {x, paddings}, {y}, options(std::move(mirror)));
      return;
    }
    double value = fillValue(node);
    if (value == 0.0) {
      emit.addOperator(circle::BuiltinOperator::PAD, {x, paddings}, {y}, options(circle::PadOptionsT{}));
      return;
    }
    emit.addOperator(circle::BuiltinOperator::PADV2,
                     {x, paddings, scalarConstant(emit, node.input(0)->dtype(), value, base + "_value")}, {y},
                     options(circle::PadV2OptionsT{}));
  }

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
  registerFor(r, {ops::aten::constant_pad_nd_default, ops::aten::pad_default},
              "PAD, PADV2 for a non-zero value, MIRROR_PAD for reflect (int32 [rank, 2] paddings)",
              std::make_shared<Pad>());
  registerFor(r, {ops::aten::repeat_default, ops::aten::tile_default}, "TILE (RESHAPE first for new leading dims)",
              std::make_shared<Tile>());
}

} // namespace tico::lowering
