// The one pass scheduler: strategies, the iteration guard, instrumentation, verify-each and
// error attribution, written once and instantiated for the ATen-level Graph and for the
// CircleModel.
#include "tico/pass/pass_manager.h"

#include "tico/circle/circle_pass.h"
#include "tico/support/error.h"
#include "tico/support/log.h"

#include <map>
#include <type_traits>
#include <vector>

namespace tico {

const char *strategyName(PassStrategy strategy) {
  switch (strategy) {
  case PassStrategy::Once:
    return "once";
  case PassStrategy::Restart:
    return "restart";
  case PassStrategy::UntilNoChange:
    return "until_no_change";
  }
  return "?";
}

void PassIR<Graph>::verify(const Graph &graph) { graph.verify(); }

template <class IR> BasicPassManager<IR>::BasicPassManager(PassStrategy strategy) : strategy_(strategy) {}
template <class IR> BasicPassManager<IR>::~BasicPassManager() = default;
template <class IR> BasicPassManager<IR>::BasicPassManager(BasicPassManager &&) noexcept = default;
template <class IR> BasicPassManager<IR> &BasicPassManager<IR>::operator=(BasicPassManager &&) noexcept = default;

template <class IR> void BasicPassManager<IR>::add(std::string name, std::unique_ptr<PassType> pass) {
  passes_.push_back(Scheduled{std::move(name), std::move(pass)});
}

template <class IR> bool BasicPassManager<IR>::runOne(Scheduled &scheduled, IR &ir, PassContext &context) {
  for (auto *i : instrumentations_)
    i->beforePass(scheduled.name, ir);
  auto start = std::chrono::steady_clock::now();
  bool changed;
  try {
    changed = scheduled.pass->run(ir, context);
  } catch (const Error &e) {
    throw Error(noun_ + " '" + scheduled.name + "' failed: " + e.what());
  } catch (const std::exception &e) {
    throw Error(noun_ + " '" + scheduled.name + "' failed with an unexpected exception: " + e.what());
  }
  auto elapsed = std::chrono::steady_clock::now() - start;
  // Instrumentations run in reverse order after the pass, like a stack.
  for (auto it = instrumentations_.rbegin(); it != instrumentations_.rend(); ++it)
    (*it)->afterPass(scheduled.name, ir, changed, std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed));
  if (verify_each_) {
    try {
      if (verifier_)
        verifier_(ir);
      else if constexpr (std::is_same_v<IR, Graph>)
        PassIR<Graph>::verify(ir);
    } catch (const Error &e) {
      throw Error(std::string("the ") + PassIR<IR>::kIRName + " is invalid after " + noun_ + " '" + scheduled.name + "': " + e.what());
    }
  }
  TICO_DEBUG << noun_ << " " << scheduled.name << (changed ? " changed the IR" : " made no change");
  return changed;
}

template <class IR> bool BasicPassManager<IR>::run(IR &ir, PassContext &context) {
  bool any_change = false;
  int iterations = 0;
  // Which passes changed the IR during the most recent iterations, for the cycle report.
  std::map<std::string, int> recent_changes;
  // One changing iteration: a pass that changed the IR (restart) or a sweep in which some
  // passes did (until_no_change).
  auto noteChange = [&](const std::vector<std::string> &changed_passes) {
    any_change = true;
    ++iterations;
    if (iterations > kMaxIterations - 50)
      for (const auto &name : changed_passes)
        ++recent_changes[name];
    if (iterations >= kMaxIterations) {
      std::string names;
      for (const auto &[n, count] : recent_changes)
        names += (names.empty() ? "" : ", ") + n + " (" + std::to_string(count) + "x)";
      throw Error("pass pipeline did not converge after " + std::to_string(kMaxIterations) +
                  " changing iterations (strategy " + strategyName(strategy_) + "); passes that kept changing the " +
                  PassIR<IR>::kIRName + " in the last iterations: " + names);
    }
  };

  switch (strategy_) {
  case PassStrategy::Once:
    for (auto &p : passes_)
      if (runOne(p, ir, context))
        any_change = true;
    return any_change;
  case PassStrategy::Restart: {
    std::size_t i = 0;
    while (i < passes_.size()) {
      if (runOne(passes_[i], ir, context)) {
        noteChange({passes_[i].name});
        i = 0; // after a change, start again from the first pass
      } else {
        ++i;
      }
    }
    return any_change;
  }
  case PassStrategy::UntilNoChange: {
    for (;;) {
      std::vector<std::string> changed_passes;
      for (auto &p : passes_)
        if (runOne(p, ir, context))
          changed_passes.push_back(p.name);
      if (changed_passes.empty())
        break;
      noteChange(changed_passes);
    }
    return any_change;
  }
  }
  return any_change;
}

template class BasicPassManager<Graph>;
template class BasicPassManager<CircleModel>;

} // namespace tico
