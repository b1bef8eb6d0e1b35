// onert-type-carriers: an operator onert 0.2 cannot compute in its tensors' type runs in a
// "carrier" type onert has, between CASTs, when that gives the same values.
//
//   bool          -> int32   (0 / 1 survive both CASTs)
//   uint8         -> int32   (every uint8 is an int32)
//   int32         -> int64   (every int32 is an int64)
//   int64         -> int32   only with assume_int64_in_int32_range (on by default)
//
// Only operators whose results are values of their inputs (data movement: GATHER, TRANSPOSE,
// STRIDED_SLICE, CONCATENATION, PACK, UNPACK, SPLIT, BROADCAST_TO, PAD, ...), order-preserving
// selections (REDUCE_MAX, MINIMUM, ARG_MAX, ARG_MIN), constant producers (ZEROS_LIKE, FILL)
// and integer arithmetic onert has in the carrier (SUM, REDUCE_PROD, FLOOR_DIV, FLOOR_MOD,
// RANGE) are carried. Widening and the bool / uint8 carriers are exact for every value. Narrowing
// int64 to int32 is exact when every int64 tensor the operator reads or writes holds values in
// int32's range: data movement and selections then see the same values, and integer sums and
// products computed modulo 2^32 equal the int64 result whenever that result fits. Models whose
// int64 tensors are ids, positions, masks, lengths and shapes satisfy this; a model that moves
// int64 values beyond ±2^31 through these operators must turn the option off (its int64
// operators are then left as they are, and onert refuses them). A constant operand is checked:
// one with a value outside int32 keeps its operator in int64 whatever the option says.
//
// Reads of a tensor that an earlier rewrite already has in the carrier use that carrier tensor
// (so a chain of carried operators stays in the carrier, with CASTs only at its ends), and
// CASTs left without readers are removed.
#include "onert_support.h"
#include "pass_registration.h"
#include "passes.h"
#include "rewrite_utils.h"

#include <limits>
#include <map>
#include <set>

namespace tico::circle_passes {
namespace {

using T = circle::TensorType;

// Which operands carry the values the operator moves or computes with.
struct DataSlots {
  std::vector<std::size_t> inputs; // empty with all_inputs
  bool all_inputs = false;
  bool outputs = true; // every output is data of the same type
};

std::optional<DataSlots> dataSlotsOf(BuiltinOperator code) {
  using B = BuiltinOperator;
  switch (code) {
  case B::GATHER:
  case B::TRANSPOSE:
  case B::SLICE:
  case B::STRIDED_SLICE:
  case B::BROADCAST_TO:
  case B::TILE:
  case B::REVERSE_V2:
  case B::PAD:
  case B::UNPACK:
  case B::ZEROS_LIKE:
  case B::REDUCE_MAX:
  case B::SUM:
  case B::REDUCE_PROD:
    return DataSlots{{0}, false, true};
  case B::PADV2:
    return DataSlots{{0, 2}, false, true};
  case B::SPLIT:
  case B::FILL:
    return DataSlots{{1}, false, true};
  case B::CONCATENATION:
  case B::PACK:
  case B::RANGE:
    return DataSlots{{}, true, true};
  case B::MINIMUM:
  case B::MAXIMUM:
  case B::FLOOR_DIV:
  case B::FLOOR_MOD:
    return DataSlots{{0, 1}, false, true};
  case B::ARG_MAX:
  case B::ARG_MIN:
    return DataSlots{{0}, false, false};
  default:
    return std::nullopt;
  }
}

// Operators whose carried result is exact only if the carrier holds every value (narrowing
// is allowed for them under the int64 assumption, widening always).
bool isArithmetic(BuiltinOperator code) {
  return code == BuiltinOperator::SUM || code == BuiltinOperator::REDUCE_PROD || code == BuiltinOperator::FLOOR_DIV ||
         code == BuiltinOperator::FLOOR_MOD || code == BuiltinOperator::RANGE;
}

// Carrier candidates of a type, in order of preference.
std::vector<T> carriersOf(T type, bool narrow_int64) {
  switch (type) {
  // Not uint8 for bool: onert's PAD takes a uint8 model input but refuses a uint8 CAST
  // result ("Pad: unsupported data type"), so uint8 is no reliable carrier.
  case T::BOOL:
  case T::UINT8:
    return {T::INT32};
  case T::INT32:
    return {T::INT64};
  case T::INT64:
    return narrow_int64 ? std::vector<T>{T::INT32} : std::vector<T>{};
  default:
    return {};
  }
}

bool fitsIn(T type, int64_t v) {
  switch (type) {
  case T::INT32:
    return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
  case T::INT64:
    return true;
  case T::UINT8:
    return v >= 0 && v <= 255;
  default:
    return false;
  }
}

circle::BuiltinOptionsUnion castOptions(T from, T to) {
  circle::CastOptionsT cast;
  cast.in_data_type = from;
  cast.out_data_type = to;
  return makeOptions(std::move(cast));
}

std::string suffixOf(T type) { return std::string("as_") + circle::EnumNameTensorType(type); }

class Carrier {
public:
  Carrier(SubgraphEditor &e, bool narrow_int64) : e_(e), narrow_int64_(narrow_int64) {}

  bool rewrite(int i) {
    if (!e_.alive(i) || e_.sideEffects(i))
      return false;
    const BuiltinOperator code = e_.code(i);
    auto slots = dataSlotsOf(code);
    if (!slots)
      return false;
    // A copy: adding operators below may move the operator table.
    const std::vector<int32_t> in = e_.op(i).inputs, out = e_.op(i).outputs;
    std::vector<std::size_t> inputs = slots->inputs;
    if (slots->all_inputs)
      for (std::size_t s = 0; s < in.size(); ++s)
        inputs.push_back(s);
    if (inputs.empty())
      return false;
    // Every data operand has one plain type.
    std::optional<T> type;
    auto plain = [&](int32_t t) {
      if (!e_.validTensor(t) || isQuantized(e_.tensor(t)) || e_.tensor(t).is_variable)
        return false;
      if (!type)
        type = e_.tensor(t).type;
      return e_.tensor(t).type == *type;
    };
    for (std::size_t s : inputs)
      if (s >= in.size() || !plain(in[s]))
        return false;
    if (slots->outputs)
      for (int32_t t : out)
        if (!plain(t))
          return false;
    if (onertSupports(code, *type))
      return false;
    if (isArithmetic(code) && *type != T::INT64 && *type != T::INT32)
      return false;
    std::optional<T> carrier;
    for (T candidate : carriersOf(*type, narrow_int64_))
      if (onertSupports(code, candidate) && onertCasts(*type, candidate) && onertCasts(candidate, *type)) {
        carrier = candidate;
        break;
      }
    if (!carrier)
      return false;
    // A constant operand must hold values the carrier represents.
    for (std::size_t s : inputs) {
      if (!e_.isConstantTensor(in[s]))
        continue;
      auto values = constantAsInts(e_.model(), e_.tensor(in[s]));
      if (!values)
        return false;
      for (int64_t v : *values)
        if (!fitsIn(*carrier, v))
          return false;
    }

    for (std::size_t s : inputs)
      e_.setInput(i, s, carried(in[s], *carrier, i));
    if (slots->outputs)
      for (std::size_t s = 0; s < out.size(); ++s) {
        const int32_t inner = retyped(out[s], *carrier);
        e_.setOutput(i, s, inner);
        e_.addOp(BuiltinOperator::CAST, {inner}, {out[s]}, castOptions(*carrier, *type), i);
        known_[{out[s], *carrier}] = inner;
      }
    return true;
  }

  // CASTs that lost their last reader to a carried read.
  void removeDeadCasts() {
    for (int op : maybe_dead_)
      if (e_.alive(op) && e_.code(op) == BuiltinOperator::CAST && e_.useCount(e_.op(op).outputs[0]) == 0)
        e_.removeOp(op);
  }

private:
  int32_t retyped(int32_t like, T type) {
    const CircleTensor &src = e_.tensor(like);
    CircleTensor t;
    t.type = type;
    t.shape = src.shape;
    t.shape_signature = src.shape_signature;
    t.name = derivedName(e_, like, suffixOf(type));
    return e_.addTensor(std::move(t));
  }

  // `t` in the carrier type: a tensor an earlier rewrite made, the int32 source of a widening
  // CAST, a converted constant or a new CAST before operator `anchor`.
  int32_t carried(int32_t t, T carrier, int anchor) {
    if (auto it = known_.find({t, carrier}); it != known_.end()) {
      if (int p = e_.producer(t); p >= 0)
        maybe_dead_.insert(p);
      return it->second;
    }
    const T type = e_.tensor(t).type;
    int32_t result = -1;
    if (e_.isConstantTensor(t)) {
      auto values = constantAsInts(e_.model(), e_.tensor(t));
      result = e_.addConstant(carrier, e_.tensor(t).shape, payloadFromInts(carrier, e_.tensor(t).shape, *values),
                              derivedName(e_, t, suffixOf(carrier)));
    } else if (int p = e_.producer(t); p >= 0 && e_.code(p) == BuiltinOperator::CAST && carrier == T::INT32 &&
                                       type == T::INT64 && e_.tensor(e_.op(p).inputs[0]).type == T::INT32) {
      // int32 -> int64 -> int32 is the identity.
      result = e_.op(p).inputs[0];
      maybe_dead_.insert(p);
    } else {
      result = retyped(t, carrier);
      e_.addOp(BuiltinOperator::CAST, {t}, {result}, castOptions(type, carrier), anchor);
    }
    known_[{t, carrier}] = result;
    return result;
  }

  SubgraphEditor &e_;
  bool narrow_int64_;
  std::map<std::pair<int32_t, T>, int32_t> known_;
  std::set<int> maybe_dead_;
};

class OnertTypeCarriers final : public CirclePass {
public:
  explicit OnertTypeCarriers(const Options &options)
      : narrow_int64_(options.getBool("assume_int64_in_int32_range")) {}

  bool run(CircleModel &model, PassContext &) override {
    // One sweep in execution order reaches the fixed point: producers are carried before
    // their readers, and the operators a rewrite adds (CASTs) are never carried themselves.
    return forEachSubgraph(model, [&](SubgraphEditor &editor) {
      Carrier carrier(editor, narrow_int64_);
      for (int i = 0; i < editor.operatorCount(); ++i)
        carrier.rewrite(i);
      carrier.removeDeadCasts();
    });
  }

private:
  bool narrow_int64_;
};

} // namespace

void registerOnertTypeCarriers(Registrar &r) {
  registerCirclePass<OnertTypeCarriers>(
      r, "onert-type-carriers",
      "run operators onert 0.2 lacks for their tensor type in a type it has, between CASTs (bool/uint8 via int32, int32 "
      "via int64, int64 via int32 under assume_int64_in_int32_range)",
      {OptionSpec{"assume_int64_in_int32_range", OptionType::Bool, true,
                  "int64 tensors hold values in int32's range, so int64 data movement, selections and integer "
                  "arithmetic may run in int32 (exact under that assumption; off: int64 operators are left alone)"}});
}

} // namespace tico::circle_passes
