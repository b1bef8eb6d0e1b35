// Checking a manifest against what the loaded plugins registered. Every problem is collected
// and reported in one error, so fixing a manifest takes one round trip, not one per typo.
#include "tico/pipeline/manifest.h"

#include "pipeline/manifest_syntax.h"
#include "tico/circle/serializer.h"
#include "tico/plugin/registry.h"
#include "tico/support/clipped.h"

namespace tico {

namespace {

struct Problem {
  SourceLocation where;
  std::string message;
};

const char *stageLevel(StageKind kind) {
  switch (kind) {
  case StageKind::Passes:
    return "ATen IR";
  case StageKind::Quantize:
    return "quantization";
  case StageKind::Lower:
    return "lowering";
  case StageKind::Circle:
    return "Circle IR";
  }
  return "";
}

// What one stage kind runs: a noun for messages, the names it knows and their option specs.
struct KindView {
  StageKind kind;
  const char *noun; // "pass", "Circle pass", "quantizer"
  const char *article_noun; // "an ATen pass", "a Circle pass", "a quantizer"
  std::vector<std::string> names;
  const std::vector<OptionSpec> *(*options)(const Registry &, const std::string &);
};

std::vector<KindView> kindViews(const Registry &registry) {
  return {
      {StageKind::Passes, "pass", "an ATen pass", registry.passNames(),
       [](const Registry &r, const std::string &n) -> const std::vector<OptionSpec> * {
         const auto *entry = r.findPass(n);
         return entry ? &entry->spec.options : nullptr;
       }},
      {StageKind::Quantize, "quantizer", "a quantizer", registry.quantizerNames(),
       [](const Registry &r, const std::string &n) -> const std::vector<OptionSpec> * {
         const auto *entry = r.findQuantizer(n);
         return entry ? &entry->spec.options : nullptr;
       }},
      {StageKind::Circle, "Circle pass", "a Circle pass", registry.circlePassNames(),
       [](const Registry &r, const std::string &n) -> const std::vector<OptionSpec> * {
         const auto *entry = r.findCirclePass(n);
         return entry ? &entry->spec.options : nullptr;
       }},
  };
}

// One option at a time, so each problem points at its own option.
void checkOptions(const std::string &owner, const std::vector<OptionSpec> &specs,
                  const std::map<std::string, OptionValue> &options,
                  const std::map<std::string, SourceLocation> &locations, const SourceLocation &where,
                  std::vector<Problem> &problems) {
  for (const auto &[key, value] : options) {
    try {
      Options::resolve(owner, specs, {{key, value}});
    } catch (const Error &e) {
      auto location = locations.find(key);
      problems.push_back({location == locations.end() ? where : location->second, e.what()});
    }
  }
}

void checkInvocation(const Registry &registry, const std::vector<KindView> &views,
                     const Stage &stage, const PassInvocation &pass,
                     std::vector<Problem> &problems) {
  const KindView *own = nullptr;
  for (const auto &view : views)
    if (view.kind == stage.kind)
      own = &view;
  const std::vector<OptionSpec> *specs = own->options(registry, pass.name);
  if (specs == nullptr) {
    for (const auto &view : views) {
      if (&view == own || view.options(registry, pass.name) == nullptr)
        continue;
      problems.push_back({pass.where, "'" + clipped(pass.name) + "' is " + view.article_noun +
                                          "; it cannot run in stage '" + clipped(stage.name) + "' (" +
                                          stageLevel(stage.kind) + "); use a stage with 'kind: " +
                                          manifest::kindText(view.kind) + "'"});
      return;
    }
    problems.push_back({pass.where, std::string("unknown ") + own->noun + " '" + clipped(pass.name) +
                                        "' in stage '" + clipped(stage.name) + "'" +
                                        didYouMean(pass.name, own->names)});
    return;
  }
  checkOptions(std::string(own->noun) + " '" + clipped(pass.name) + "'", *specs, pass.options, pass.option_locations,
               pass.where, problems);
}

} // namespace

void Manifest::validate(const Registry &registry) const {
  std::vector<KindView> views = kindViews(registry);
  std::vector<Problem> problems;
  for (const auto &stage : stages) {
    if (stage.kind == StageKind::Lower)
      checkOptions("lower stage '" + stage.name + "'", LowerOptions::specs(), stage.options, stage.option_locations,
                   stage.where, problems);
    for (const auto &pass : stage.passes)
      checkInvocation(registry, views, stage, pass, problems);
  }
  if (problems.empty())
    return;
  std::string message = problems.front().message;
  for (std::size_t i = 1; i < problems.size(); ++i)
    message += "\n" + problems[i].where.str() + ": error: " + problems[i].message;
  throw LocatedError(problems.front().where, message);
}

} // namespace tico
