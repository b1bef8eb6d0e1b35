// Stage order: the YAML order is the run order, and lowering splits it in two. ATen-level
// stages rewrite the graph, so they must come before the lower stage; Circle stages rewrite
// the lowered model, so they must come after it. The same rules hold for manifests read from
// YAML and for manifests built in code.
#include "pipeline/manifest_syntax.h"

namespace tico::manifest {

namespace {

const Stage *firstOfKind(const std::vector<Stage> &stages, StageKind kind) {
  for (const auto &stage : stages)
    if (stage.kind == kind)
      return &stage;
  return nullptr;
}

} // namespace

void checkStageCanFollow(const std::vector<Stage> &before, const Stage &next) {
  const Stage *lower = firstOfKind(before, StageKind::Lower);
  const Stage *circle = firstOfKind(before, StageKind::Circle);
  if (next.kind == StageKind::Lower) {
    if (lower)
      throw LocatedError(next.where, "second lower stage '" + next.name + "'; a manifest lowers once (lower stage '" +
                                         lower->name + "' at " + lower->where.str() + ")");
    if (circle)
      throw LocatedError(circle->where, "Circle stage '" + circle->name + "' comes before the lower stage '" +
                                            next.name + "' (at " + next.where.str() +
                                            "); Circle stages work on the lowered model, so they must follow it");
  }
  if (isAtenStage(next.kind)) {
    if (lower)
      throw LocatedError(next.where, "ATen-level stage '" + next.name + "' comes after the lower stage '" +
                                         lower->name + "' (at " + lower->where.str() +
                                         "); stages that rewrite the graph must come before it");
    if (circle)
      throw LocatedError(next.where, "ATen-level stage '" + next.name + "' comes after Circle stage '" +
                                         circle->name + "' (at " + circle->where.str() +
                                         "); without a lower stage the model is lowered right before the first "
                                         "Circle stage, so stages that rewrite the graph must come before it");
  }
}

} // namespace tico::manifest
