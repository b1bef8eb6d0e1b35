#include "smoothing_groups.h"

#include <tico/ops/torch_ops.h>

namespace tico::smoothquant {
namespace {

namespace aten = ops::aten;

bool floatConstant(const Value *v) { return v != nullptr && v->isConstant() && v->dtype() == DType::Float32; }

// A constant that scales only along the last dimension of a rank-r activation: all sizes 1 but the
// last, which is C.
bool perChannelConstant(const Value *v, int64_t channels) {
  if (!floatConstant(v))
    return false;
  const std::vector<int64_t> &sizes = v->constant()->sizes;
  if (sizes.empty() || sizes.back() != channels)
    return false;
  for (std::size_t i = 0; i + 1 < sizes.size(); ++i)
    if (sizes[i] != 1)
      return false;
  return true;
}

bool isSmoothableLinear(const Node &node, const Value &x, int64_t channels) {
  if (node.opId() != aten::linear_default || node.input(0) != &x)
    return false;
  const Value *w = node.input(1);
  if (!floatConstant(w) || w->constant()->sizes.size() != 2 || w->constant()->sizes[1] != channels)
    return false;
  // X must not also be the weight or bias (it is not a constant, so it cannot be; checked for
  // clarity when the graph is unusual).
  for (std::size_t i = 1; i < node.numArgs(); ++i)
    if (node.arg(i).isValue() && node.arg(i).asValue() == &x)
      return false;
  return true;
}

} // namespace

std::vector<SmoothingGroup> findSmoothingGroups(const Graph &graph, std::vector<std::string> &skipped) {
  std::vector<SmoothingGroup> groups;
  for (const auto &node : graph.nodes()) {
    for (std::size_t o = 0; o < node->numOutputs(); ++o) {
      const Value *x = node->output(o);
      if (x->dtype() != DType::Float32 || x->rank() < 1 || !x->shape().back().isStatic() || !x->hasUsers())
        continue;
      const int64_t channels = x->shape().back().value();
      std::size_t linear_readers = 0;
      bool all_linear = true;
      for (const Node *user : x->users()) {
        if (isSmoothableLinear(*user, *x, channels))
          ++linear_readers;
        else
          all_linear = false;
      }
      if (linear_readers == 0)
        continue;
      const auto skip = [&](const std::string &why) {
        for (const Node *user : x->users())
          if (user->opId() == aten::linear_default)
            skipped.push_back(user->name() + ": " + why);
      };
      if (!all_linear) {
        skip("its input '" + x->name() + "' is also read by operators other than smoothable linear layers");
        continue;
      }
      if (graph.isGraphOutput(x)) {
        skip("its input '" + x->name() + "' is a graph output");
        continue;
      }
      SmoothingGroup group;
      group.activation = x;
      group.producer = node.get();
      group.channels = channels;
      if (node->opId() == aten::mul_Tensor && node->numOutputs() == 1) {
        const Value *a = node->input(0);
        const Value *b = node->arg(1).isValue() ? node->arg(1).asValue() : nullptr;
        if (perChannelConstant(b, channels) && !perChannelConstant(a, channels))
          group.scale_args = {"other"};
        else if (perChannelConstant(a, channels) && !perChannelConstant(b, channels))
          group.scale_args = {"self"};
      } else if (node->opId() == aten::layer_norm_default) {
        const Argument *w = node->findArg("weight");
        const Argument *b = node->findArg("bias");
        const bool has_w = w && w->isValue() && perChannelConstant(w->asValue(), channels);
        const bool has_b = b && b->isValue() && perChannelConstant(b->asValue(), channels);
        const bool no_b = !b || b->isNone();
        if (has_w && (has_b || no_b)) {
          group.scale_args = {"weight"};
          if (has_b)
            group.scale_args.push_back("bias");
        }
      }
      if (group.scale_args.empty()) {
        skip("its input '" + x->name() + "' comes from " + node->op().str() +
             ", which cannot absorb a per-channel division (a mul by a per-channel constant or a layer_norm "
             "with constant weight can)");
        continue;
      }
      for (const Node *user : x->users())
        group.linears.push_back(user);
      groups.push_back(std::move(group));
    }
  }
  return groups;
}

} // namespace tico::smoothquant
