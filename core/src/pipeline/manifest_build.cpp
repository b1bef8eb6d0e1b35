// Building and combining manifests in code. The tools used to write YAML text and parse it;
// these methods keep the same rules (unique names, stage order) without the text round trip.
#include "tico/pipeline/manifest.h"

#include "pipeline/manifest_syntax.h"

#include <algorithm>

namespace tico {

namespace {

constexpr const char *kLowerStageName = "lower";

// Where lowering happens: the explicit lower stage, else right before the first Circle stage,
// else at the end.
std::size_t lowerPosition(const std::vector<Stage> &stages) {
  for (std::size_t i = 0; i < stages.size(); ++i)
    if (stages[i].kind == StageKind::Lower || stages[i].kind == StageKind::Circle)
      return i;
  return stages.size();
}

void checkNameIsFree(const std::vector<Stage> &stages, const Stage &stage) {
  for (const auto &existing : stages)
    if (existing.name == stage.name)
      throw LocatedError(stage.where, "duplicate stage name '" + stage.name + "' (first defined at " +
                                          existing.where.str() + ")");
}

Stage &lowerStageOf(Manifest &manifest) {
  for (auto &stage : manifest.stages)
    if (stage.kind == StageKind::Lower)
      return stage;
  Stage lower;
  lower.name = kLowerStageName;
  lower.kind = StageKind::Lower;
  lower.where = SourceLocation{manifest.path.empty() ? "<manifest>" : manifest.path, 0, 0};
  checkNameIsFree(manifest.stages, lower);
  auto at = manifest.stages.begin() + static_cast<std::ptrdiff_t>(lowerPosition(manifest.stages));
  return *manifest.stages.insert(at, std::move(lower));
}

} // namespace

Stage Stage::fromPassList(std::string name, StageKind kind, const std::string &passes, const std::string &source,
                          PassStrategy strategy) {
  Stage stage;
  stage.name = std::move(name);
  stage.kind = kind;
  stage.strategy = strategy;
  stage.where = SourceLocation{source, 1, 1};
  if (kind == StageKind::Lower)
    throw LocatedError(stage.where, "a lower stage runs no passes; set its options instead");
  stage.passes = manifest::parseCompactPasses(passes, stage.where, /*columns_exact=*/true);
  return stage;
}

Stage &Manifest::addStage(Stage stage) {
  checkNameIsFree(stages, stage);
  manifest::checkStageCanFollow(stages, stage);
  stages.push_back(std::move(stage));
  return stages.back();
}

void Manifest::append(const Manifest &other) {
  for (const auto &stage : other.stages)
    if (stage.kind != StageKind::Lower) // lower stages merge, whatever their names
      checkNameIsFree(stages, stage);
  std::size_t insert_at = lowerPosition(stages);
  for (const auto &stage : other.stages) {
    if (isAtenStage(stage.kind)) {
      stages.insert(stages.begin() + static_cast<std::ptrdiff_t>(insert_at++), stage);
    } else if (stage.kind == StageKind::Lower) {
      if (lowerStage() == nullptr) {
        stages.insert(stages.begin() + static_cast<std::ptrdiff_t>(insert_at), stage);
      } else {
        Stage &lower = lowerStageOf(*this);
        for (const auto &[key, value] : stage.options) {
          lower.options[key] = value;
          lower.option_locations[key] = stage.option_locations.count(key) ? stage.option_locations.at(key) : stage.where;
        }
      }
    } else {
      stages.push_back(stage);
    }
  }
  config.merge(other.config);
  calibration.merge(other.calibration);
  verify_each = verify_each || other.verify_each;
}

void Manifest::insertQuantization(const Manifest &recipe) {
  for (const auto &stage : recipe.stages) {
    if (stage.kind != StageKind::Quantize)
      throw LocatedError(stage.where, "stage '" + stage.name + "' of quantization recipe '" + recipe.path +
                                          "' is of kind " + manifest::kindText(stage.kind) +
                                          "; a recipe holds quantize stages only");
    checkNameIsFree(stages, stage);
  }
  auto at = std::find_if(stages.begin(), stages.end(), [](const Stage &s) { return s.name == "quantize"; });
  std::size_t insert_at = at != stages.end() ? static_cast<std::size_t>(at - stages.begin()) : lowerPosition(stages);
  for (const auto &stage : recipe.stages)
    stages.insert(stages.begin() + static_cast<std::ptrdiff_t>(insert_at++), stage);
  config.merge(recipe.config);
  calibration.merge(recipe.calibration);
  verify_each = verify_each || recipe.verify_each;
}

std::size_t Manifest::setPassOption(StageKind kind, const std::string &pass, const std::string &key,
                                    const OptionValue &value) {
  std::size_t changed = 0;
  for (auto &stage : stages) {
    if (stage.kind != kind)
      continue;
    for (auto &invocation : stage.passes)
      if (invocation.name == pass) {
        invocation.options[key] = value;
        ++changed;
      }
  }
  return changed;
}

void Manifest::setLowerOption(const std::string &key, const OptionValue &value) {
  lowerStageOf(*this).options[key] = value;
}

const Stage *Manifest::lowerStage() const {
  for (const auto &stage : stages)
    if (stage.kind == StageKind::Lower)
      return &stage;
  return nullptr;
}

Manifest Manifest::resolved() const {
  Manifest out = *this;
  Stage &lower = lowerStageOf(out);
  for (const auto &alias : configAliases()) {
    const std::optional<bool> value = config.find(alias.field);
    if (!value)
      continue;
    for (const auto &target : alias.targets) {
      if (target.pass.empty()) {
        lower.options.emplace(target.option, *value); // emplace: an explicit option stays
        continue;
      }
      for (auto &stage : out.stages)
        if (target.circle_pass ? stage.kind == StageKind::Circle : isAtenStage(stage.kind))
          for (auto &invocation : stage.passes)
            if (invocation.name == target.pass)
              invocation.options.emplace(target.option, *value);
    }
  }
  out.config = CompileConfig();
  return out;
}

} // namespace tico
