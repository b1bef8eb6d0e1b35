#include "tico/pass/pass_manager.h"

#include "tico/support/error.h"
#include "tico/support/log.h"

#include <map>
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

void PassManager::add(std::string name, std::unique_ptr<Pass> pass) {
  passes_.push_back(ScheduledPass{std::move(name), std::move(pass)});
}

bool PassManager::runOne(ScheduledPass &scheduled, Graph &graph, PassContext &context) {
  for (auto *i : instrumentations_)
    i->beforePass(scheduled.name, graph);
  auto start = std::chrono::steady_clock::now();
  bool changed;
  try {
    changed = scheduled.pass->run(graph, context);
  } catch (const Error &e) {
    throw Error("pass '" + scheduled.name + "' failed: " + e.what());
  } catch (const std::exception &e) {
    throw Error("pass '" + scheduled.name + "' failed with an unexpected exception: " + e.what());
  }
  auto elapsed = std::chrono::steady_clock::now() - start;
  // Instrumentations run in reverse order after the pass, like a stack.
  for (auto it = instrumentations_.rbegin(); it != instrumentations_.rend(); ++it)
    (*it)->afterPass(scheduled.name, graph, changed,
                     std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed));
  if (verify_each_) {
    try {
      graph.verify();
    } catch (const Error &e) {
      throw Error("the graph is invalid after pass '" + scheduled.name + "': " + e.what());
    }
  }
  TICO_DEBUG << "pass " << scheduled.name << (changed ? " changed the graph" : " made no change");
  return changed;
}

bool PassManager::run(Graph &graph, PassContext &context) {
  bool any_change = false;
  int iterations = 0;
  // Which passes changed the graph during the most recent iterations, for the cycle report.
  std::map<std::string, int> recent_changes;
  // One changing iteration: a pass that changed the graph (restart) or a sweep in which some
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
                  " changing iterations (strategy " + strategyName(strategy_) +
                  "); passes that kept changing the graph in the last iterations: " + names);
    }
  };

  switch (strategy_) {
  case PassStrategy::Once:
    for (auto &p : passes_)
      if (runOne(p, graph, context))
        any_change = true;
    return any_change;
  case PassStrategy::Restart: {
    std::size_t i = 0;
    while (i < passes_.size()) {
      if (runOne(passes_[i], graph, context)) {
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
        if (runOne(p, graph, context))
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

} // namespace tico
