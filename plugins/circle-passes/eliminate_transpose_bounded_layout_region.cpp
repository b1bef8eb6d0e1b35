// eliminate-transpose-bounded-layout-region: moves layout-agnostic operators across the
// TRANSPOSEs that surround them, so that the TRANSPOSEs disappear.
//
// The converter keeps PyTorch's NCHW layout and wraps every NHWC operator (convolutions,
// pooling) in TRANSPOSE [0,2,3,1] ... TRANSPOSE [0,3,1,2]. Elementwise operators between two
// convolutions therefore sit in a region whose inputs all come out of TRANSPOSE(x, P) and
// whose results all go into TRANSPOSE(., P⁻¹). Computing the region directly on the
// pre-transpose tensors makes both kinds of TRANSPOSE unnecessary.
//
// For one permutation P the pass finds the tensors "in the target layout": outputs of
// TRANSPOSE(x, P) ("entries") and outputs of region operators, i.e. operators whose every
// non-constant input is in the target layout and whose meaning does not depend on the layout
// (unary and binary elementwise, SELECT_V2, PRELU, ADD_N, CONCATENATION with its axis
// remapped, reductions with keep_dims and remapped axes, PAD/PADV2/MIRROR_PAD with remapped
// paddings). Constant operands are permuted (after broadcasting them to full rank). Each
// connected region is rewritten to compute in the source layout; TRANSPOSE(., P⁻¹) readers
// ("exits") read the new results directly, and a TRANSPOSE(., P) is added only for results
// that something else still needs in the target layout (a subgraph output keeps its tensor
// that way). A region is rewritten only when this strictly lowers the number of TRANSPOSE
// operators, so the pass always terminates and never makes a model slower.
#include "pass_registration.h"
#include "passes.h"
#include "rewrite_utils.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <set>

namespace tico::circle_passes {
namespace {

bool isReduction(BuiltinOperator code) {
  switch (code) {
  case BuiltinOperator::MEAN:
  case BuiltinOperator::SUM:
  case BuiltinOperator::REDUCE_MAX:
  case BuiltinOperator::REDUCE_MIN:
  case BuiltinOperator::REDUCE_PROD:
  case BuiltinOperator::REDUCE_ANY:
  case BuiltinOperator::REDUCE_ALL:
    return true;
  default:
    return false;
  }
}

bool isPad(BuiltinOperator code) {
  return code == BuiltinOperator::PAD || code == BuiltinOperator::PADV2 || code == BuiltinOperator::MIRROR_PAD;
}

// Per-axis quantization has an axis of its own; such tensors stay out of regions.
bool perAxisQuantized(const CircleTensor &t) {
  return t.quantization && (t.quantization->scale.size() > 1 || t.quantization->zero_point.size() > 1);
}

class LayoutRegions {
public:
  LayoutRegions(SubgraphEditor &e, std::vector<int64_t> perm)
      : e_(e), perm_(std::move(perm)), inverse_(inversePermutation(perm_)), rank_(static_cast<int64_t>(perm_.size())) {}

  // Finds the regions of this permutation and rewrites the first profitable one.
  bool rewriteOne() {
    discover();
    for (const auto &component : components())
      if (profitable(component)) {
        apply(component);
        return true;
      }
    return false;
  }

private:
  struct Component {
    std::vector<int> entries; // TRANSPOSE(x, P) operators
    std::vector<int> ops;     // region operators, in execution order
  };

  bool isEntry(int i) const {
    auto p = transposePermutation(e_, i);
    if (!p || *p != perm_ || !e_.validTensor(e_.op(i).outputs[0]))
      return false;
    const CircleTensor &x = e_.tensor(e_.op(i).inputs[0]), &t = e_.tensor(e_.op(i).outputs[0]);
    return x.type == t.type && sameQuantization(x, t);
  }
  bool isExitOf(int i, int32_t v) const {
    auto p = transposePermutation(e_, i);
    return p && *p == inverse_ && e_.op(i).inputs[0] == v;
  }
  bool inTarget(int32_t t) const { return target_.count(t) != 0; }

  // Operand roles of a candidate region operator: data operands (must be in the target
  // layout or broadcastable constants) and attribute operands rewritten by kind.
  enum class Role { Data, FullRankData, Axes, Paddings, Keep };

  std::optional<std::vector<Role>> roles(int i) const {
    const CircleOperator &op = e_.op(i);
    const BuiltinOperator code = e_.code(i);
    const std::size_t n = op.inputs.size();
    if (isUnaryElementwise(code) && n == 1)
      return std::vector<Role>{Role::Data};
    if ((isBinaryElementwise(code) || code == BuiltinOperator::PRELU) && n == 2)
      return std::vector<Role>{Role::Data, Role::Data};
    if (code == BuiltinOperator::SELECT_V2 && n == 3)
      return std::vector<Role>{Role::Data, Role::Data, Role::Data};
    if (code == BuiltinOperator::ADD_N && n >= 1)
      return std::vector<Role>(n, Role::FullRankData);
    if (code == BuiltinOperator::CONCATENATION && n >= 1 && op.builtin_options.AsConcatenationOptions())
      return std::vector<Role>(n, Role::FullRankData);
    if (isReduction(code) && n == 2) {
      const auto *o = op.builtin_options.AsReducerOptions();
      if (o && o->keep_dims)
        return std::vector<Role>{Role::FullRankData, Role::Axes};
      return std::nullopt;
    }
    if (isPad(code) && (n == 2 || (n == 3 && code == BuiltinOperator::PADV2)))
      return n == 2 ? std::vector<Role>{Role::FullRankData, Role::Paddings}
                    : std::vector<Role>{Role::FullRankData, Role::Paddings, Role::Keep};
    return std::nullopt;
  }

  bool joinable(int i) const {
    if (e_.sideEffects(i))
      return false;
    const CircleOperator &op = e_.op(i);
    auto r = roles(i);
    if (!r || op.outputs.empty())
      return false;
    for (int32_t out : op.outputs)
      if (!e_.validTensor(out) || static_cast<int64_t>(e_.tensor(out).shape.size()) != rank_ ||
          perAxisQuantized(e_.tensor(out)))
        return false;
    bool touches_target = false;
    for (std::size_t s = 0; s < op.inputs.size(); ++s) {
      const int32_t t = op.inputs[s];
      if (!e_.validTensor(t))
        return false;
      const CircleTensor &tensor = e_.tensor(t);
      switch ((*r)[s]) {
      case Role::Data:
      case Role::FullRankData:
        if (inTarget(t)) {
          touches_target = true;
          break;
        }
        if (!e_.isConstantTensor(t) || perAxisQuantized(tensor))
          return false;
        if ((*r)[s] == Role::FullRankData ? static_cast<int64_t>(tensor.shape.size()) != rank_
                                          : static_cast<int64_t>(tensor.shape.size()) > rank_)
          return false;
        break;
      case Role::Axes: {
        auto axes = constantInts(e_, t);
        if (!axes)
          return false;
        for (int64_t a : *axes)
          if (!normalizeAxis(a, rank_))
            return false;
        break;
      }
      case Role::Paddings: {
        auto pads = constantInts(e_, t);
        if (!pads || static_cast<int64_t>(pads->size()) != 2 * rank_)
          return false;
        break;
      }
      case Role::Keep:
        if (inTarget(t))
          return false;
        break;
      }
    }
    if (const auto *c = op.builtin_options.AsConcatenationOptions(); c && !normalizeAxis(c->axis, rank_))
      return false;
    return touches_target;
  }

  void discover() {
    target_.clear();
    entries_.clear();
    region_.clear();
    for (int i = 0; i < e_.operatorCount(); ++i) {
      if (!e_.alive(i))
        continue;
      if (isEntry(i)) {
        entries_.push_back(i);
        target_.insert(e_.op(i).outputs[0]);
      } else if (joinable(i)) {
        region_.push_back(i);
        for (int32_t t : e_.op(i).outputs)
          target_.insert(t);
      }
    }
  }

  // Connected groups of entries and region operators (linked through target-layout tensors).
  std::vector<Component> components() const {
    std::vector<int> members = entries_;
    members.insert(members.end(), region_.begin(), region_.end());
    std::sort(members.begin(), members.end());
    std::map<int, int> parent;
    for (int m : members)
      parent[m] = m;
    std::function<int(int)> find = [&](int x) { return parent[x] == x ? x : parent[x] = find(parent[x]); };
    std::set<int> in_region(region_.begin(), region_.end());
    for (int r : region_)
      for (int32_t t : e_.op(r).inputs)
        if (inTarget(t)) {
          int p = e_.producer(t);
          if (p >= 0 && parent.count(p)) {
            int a = find(p), b = find(r);
            if (a != b)
              parent[std::max(a, b)] = std::min(a, b);
          }
        }
    std::map<int, Component> groups;
    for (int m : members) {
      Component &c = groups[find(m)];
      (in_region.count(m) ? c.ops : c.entries).push_back(m);
    }
    std::vector<Component> out;
    for (auto &[root, c] : groups)
      if (!c.ops.empty())
        out.push_back(std::move(c));
    return out;
  }

  struct TensorPlan {
    std::vector<int> exits;           // TRANSPOSE(v, P⁻¹) readers
    int reused_exit = -1;             // an exit writing a subgraph output, whose tensor becomes the twin
    std::vector<int> kept_exits;      // exits that must stay (their output is part of the interface)
    bool needs_target = false;        // something else still reads v in the target layout
  };

  TensorPlan plan(int32_t v, const std::set<int> &ops, bool is_entry_output) const {
    TensorPlan p;
    for (int reader : e_.consumers(v)) {
      if (ops.count(reader))
        continue;
      if (isExitOf(reader, v)) {
        p.exits.push_back(reader);
        if (e_.isGraphOutput(e_.op(reader).outputs[0])) {
          const CircleTensor &u = e_.tensor(e_.op(reader).outputs[0]);
          const CircleTensor &vt = e_.tensor(v);
          bool fits = !is_entry_output && u.type == vt.type && u.shape == permuted(vt.shape, inverse_) &&
                      sameQuantization(u, vt) && e_.producer(e_.op(reader).outputs[0]) == reader;
          if (fits && p.reused_exit < 0)
            p.reused_exit = reader;
          else
            p.kept_exits.push_back(reader);
        }
        continue;
      }
      p.needs_target = true;
    }
    if (e_.isGraphOutput(v) || !p.kept_exits.empty())
      p.needs_target = true;
    return p;
  }

  bool profitable(const Component &c) const {
    std::set<int> ops(c.ops.begin(), c.ops.end());
    int before = static_cast<int>(c.entries.size()), after = 0;
    for (int entry : c.entries) {
      TensorPlan p = plan(e_.op(entry).outputs[0], ops, true);
      before += static_cast<int>(p.exits.size());
      after += static_cast<int>(p.kept_exits.size()) + (p.needs_target ? 1 : 0);
    }
    for (int r : c.ops)
      for (int32_t v : e_.op(r).outputs) {
        TensorPlan p = plan(v, ops, false);
        before += static_cast<int>(p.exits.size());
        after += static_cast<int>(p.kept_exits.size()) + (p.needs_target ? 1 : 0);
      }
    return after < before;
  }

  // The constant `t` as seen in the source layout: broadcast to full rank, then permuted.
  int32_t permuteConstant(int32_t t) {
    const CircleTensor &c = e_.tensor(t);
    std::vector<int64_t> full(rank_ - static_cast<int64_t>(c.shape.size()), 1);
    full.insert(full.end(), c.shape.begin(), c.shape.end());
    bool all_ones = std::all_of(full.begin(), full.end(), [](int64_t d) { return d == 1; });
    if (all_ones)
      return t; // a broadcast scalar does not care about the layout
    auto key = cache_.find(t);
    if (key != cache_.end())
      return key->second;
    std::vector<std::byte> bytes = *constantBytes(e_.model(), c);
    std::vector<std::byte> moved = permuteBytes(bytes, full, inverse_, circleElementSize(c.type));
    std::vector<int32_t> shape;
    for (int64_t a : inverse_)
      shape.push_back(static_cast<int32_t>(full[a]));
    CircleTensor copy;
    copy.type = c.type;
    copy.quantization = c.quantization;
    copy.shape = shape;
    copy.name = derivedName(e_, t, "layout");
    copy.buffer = e_.model().addBuffer(payloadFromBytes(c.type, shape, std::move(moved)));
    int32_t index = e_.addTensor(std::move(copy));
    cache_[t] = index;
    return index;
  }

  int32_t remappedAxes(int32_t t) {
    auto axes = *constantInts(e_, t);
    std::vector<int32_t> values;
    for (int64_t a : axes)
      values.push_back(static_cast<int32_t>(perm_[*normalizeAxis(a, rank_)]));
    std::vector<int32_t> shape = e_.tensor(t).shape;
    return e_.addInt32Constant(values, shape, derivedName(e_, t, "layout"));
  }

  int32_t remappedPaddings(int32_t t) {
    auto pads = *constantInts(e_, t);
    // Row j of the source layout is row Q[j] of the target layout.
    std::vector<int64_t> values;
    for (int64_t j = 0; j < rank_; ++j) {
      values.push_back(pads[2 * inverse_[j]]);
      values.push_back(pads[2 * inverse_[j] + 1]);
    }
    const CircleTensor &c = e_.tensor(t);
    return e_.addConstant(c.type, c.shape, payloadFromInts(c.type, c.shape, values), derivedName(e_, t, "layout"));
  }

  void apply(const Component &c) {
    std::set<int> ops(c.ops.begin(), c.ops.end());
    std::map<int32_t, int32_t> twin;
    std::map<int32_t, TensorPlan> plans;
    for (int entry : c.entries) {
      int32_t t = e_.op(entry).outputs[0];
      twin[t] = e_.op(entry).inputs[0];
      plans[t] = plan(t, ops, true);
    }
    for (int r : c.ops)
      for (int32_t v : e_.op(r).outputs) {
        TensorPlan p = plan(v, ops, false);
        if (p.reused_exit >= 0) {
          twin[v] = e_.op(p.reused_exit).outputs[0];
        } else {
          const CircleTensor &vt = e_.tensor(v);
          CircleTensor t;
          t.type = vt.type;
          t.quantization = vt.quantization;
          t.shape = permuted(vt.shape, inverse_);
          if (!vt.shape_signature.empty())
            t.shape_signature = permuted(vt.shape_signature, inverse_);
          t.name = derivedName(e_, v, "layout");
          twin[v] = e_.addTensor(std::move(t));
        }
        plans[v] = std::move(p);
      }

    // Region operators compute in the source layout.
    for (int r : c.ops) {
      std::vector<Role> role = *roles(r);
      for (std::size_t s = 0; s < role.size(); ++s) {
        const int32_t t = e_.op(r).inputs[s];
        switch (role[s]) {
        case Role::Data:
        case Role::FullRankData:
          e_.setInput(r, s, inTarget(t) ? twin.at(t) : permuteConstant(t));
          break;
        case Role::Axes: e_.setInput(r, s, remappedAxes(t)); break;
        case Role::Paddings: e_.setInput(r, s, remappedPaddings(t)); break;
        case Role::Keep: break;
        }
      }
      if (auto *concat = e_.op(r).builtin_options.AsConcatenationOptions()) {
        concat->axis = static_cast<int32_t>(perm_[*normalizeAxis(concat->axis, rank_)]);
        e_.markChanged();
      }
      for (std::size_t s = 0; s < e_.op(r).outputs.size(); ++s) {
        const int32_t v = e_.op(r).outputs[s];
        const TensorPlan &p = plans.at(v);
        if (p.reused_exit >= 0)
          e_.removeOp(p.reused_exit);
        e_.setOutput(r, s, twin.at(v));
      }
    }

    // Exits read the source-layout results; results still needed as they were get a
    // TRANSPOSE(., P) writing the original tensor (which keeps its index and name).
    for (auto &[v, p] : plans) {
      for (int exit : p.exits) {
        if (exit == p.reused_exit ||
            std::find(p.kept_exits.begin(), p.kept_exits.end(), exit) != p.kept_exits.end())
          continue;
        int32_t u = e_.op(exit).outputs[0];
        e_.replaceUses(u, twin.at(v));
        e_.removeOp(exit);
      }
      const bool is_region_output = e_.producer(v) < 0;
      if (p.needs_target && is_region_output) {
        std::vector<int32_t> values(perm_.begin(), perm_.end());
        int32_t perm_tensor = e_.addInt32Constant(values, {static_cast<int32_t>(rank_)}, derivedName(e_, v, "perm"));
        e_.addOp(BuiltinOperator::TRANSPOSE, {twin.at(v), perm_tensor}, {v}, makeOptions(circle::TransposeOptionsT{}),
                 -1);
      }
    }
    for (int entry : c.entries)
      if (e_.useCount(e_.op(entry).outputs[0]) == 0)
        e_.removeOp(entry);
  }

  SubgraphEditor &e_;
  std::vector<int64_t> perm_, inverse_;
  int64_t rank_;
  std::set<int32_t> target_;
  std::vector<int> entries_, region_;
  std::map<int32_t, int32_t> cache_;
};

bool rewriteSubgraph(SubgraphEditor &e) {
  // Permutations in order of first appearance.
  std::vector<std::vector<int64_t>> perms;
  for (int i = 0; i < e.operatorCount(); ++i) {
    if (!e.alive(i))
      continue;
    auto p = transposePermutation(e, i);
    if (p && !isIdentityPermutation(*p) && std::find(perms.begin(), perms.end(), *p) == perms.end())
      perms.push_back(*p);
  }
  for (const auto &p : perms)
    if (LayoutRegions(e, p).rewriteOne())
      return true;
  return false;
}

class EliminateTransposeBoundedLayoutRegion final : public CirclePass {
public:
  explicit EliminateTransposeBoundedLayoutRegion(const Options &) {}

  bool run(CircleModel &model, PassContext &) override {
    bool changed = false;
    // One region per round: a rewrite changes the transposes other regions were found with.
    for (int round = 0; round < 10000; ++round) {
      bool this_round = false;
      for (uint32_t s = 0; s < model.subgraphs.size() && !this_round; ++s) {
        SubgraphEditor editor(model, s);
        this_round = rewriteSubgraph(editor);
        editor.finish();
      }
      if (!this_round)
        break;
      changed = true;
    }
    return changed;
  }
};

} // namespace

void registerEliminateTransposeBoundedLayoutRegion(Registrar &r) {
  registerCirclePass<EliminateTransposeBoundedLayoutRegion>(
      r, "eliminate-transpose-bounded-layout-region",
      "compute layout-agnostic operators between TRANSPOSE(P) and TRANSPOSE(P^-1) in the source layout and drop "
      "the TRANSPOSEs (only when the TRANSPOSE count strictly drops)");
}

} // namespace tico::circle_passes
