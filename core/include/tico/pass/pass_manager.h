// Runs an ordered list of passes with a scheduling strategy.
#pragma once

#include "tico/pass/pass.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tico {

enum class PassStrategy : uint8_t {
  Once,          // run each pass once, in order
  Restart,       // after a pass changes the graph, start again from the first pass
  UntilNoChange, // run the whole list, repeat while any pass changed the graph
};

const char *strategyName(PassStrategy strategy);

struct ScheduledPass {
  std::string name;
  std::unique_ptr<Pass> pass;
};

// Observes pass execution (IR dumps, timing, verification).
class PassInstrumentation {
public:
  virtual ~PassInstrumentation() = default;
  virtual void beforePass(const std::string & /*name*/, const Graph & /*graph*/) {}
  virtual void afterPass(const std::string & /*name*/, const Graph & /*graph*/, bool /*changed*/,
                         std::chrono::nanoseconds /*elapsed*/) {}
};

class PassManager {
public:
  // Changing iterations allowed before the manager declares a rewrite cycle.
  static constexpr int kMaxIterations = 1000;

  explicit PassManager(PassStrategy strategy = PassStrategy::Restart) : strategy_(strategy) {}
  void add(std::string name, std::unique_ptr<Pass> pass);
  void setVerifyEach(bool verify) { verify_each_ = verify; }
  void addInstrumentation(PassInstrumentation *instrumentation) {
    instrumentations_.push_back(instrumentation);
  }
  std::size_t size() const { return passes_.size(); }

  // Runs to completion. Throws tico::Error when the iteration guard trips (naming the passes
  // that kept changing the graph), when verification fails after a pass (naming the pass), or
  // when a pass throws (the message is prefixed with the pass name).
  // Returns true when any pass changed the graph.
  bool run(Graph &graph, PassContext &context);

private:
  bool runOne(ScheduledPass &scheduled, Graph &graph, PassContext &context);

  PassStrategy strategy_;
  bool verify_each_ = false;
  std::vector<ScheduledPass> passes_;
  std::vector<PassInstrumentation *> instrumentations_;
};

} // namespace tico
