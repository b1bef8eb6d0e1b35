// Runs an ordered list of passes over one IR with a scheduling strategy. The same scheduler
// serves every kind of stage: ATen-level passes and quantizers rewrite the Graph, Circle passes
// the CircleModel; only the pass interface and the verifier differ (PassIR below).
#pragma once

#include "tico/pass/pass.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tico {

class CircleModel;
class CirclePass;

enum class PassStrategy : uint8_t {
  Once,          // run each pass once, in order
  Restart,       // after a pass changes the IR, start again from the first pass
  UntilNoChange, // run the whole list, repeat while any pass changed the IR
};

const char *strategyName(PassStrategy strategy);

// What the scheduler needs to know about an IR: the interface of the passes that rewrite it,
// what such a pass is called in messages, and how the IR is checked after each pass when
// verify-each is on. A Graph checks itself (Graph::verify). The Circle verifier is not in the
// core (it is libtico-circle, a layer above), so a CircleModel is checked by the verifier the
// host hands to setVerifier(); without one, verify-each does not check Circle models.
template <class IR> struct PassIR;
template <> struct PassIR<Graph> {
  using PassType = Pass;
  static constexpr const char *kNoun = "pass";
  static constexpr const char *kIRName = "graph";
  static void verify(const Graph &graph);
};
template <> struct PassIR<CircleModel> {
  using PassType = CirclePass;
  static constexpr const char *kNoun = "Circle pass";
  static constexpr const char *kIRName = "Circle model";
};

// Observes pass execution (IR dumps, timing, verification).
template <class IR> class BasicPassInstrumentation {
public:
  virtual ~BasicPassInstrumentation() = default;
  virtual void beforePass(const std::string & /*name*/, const IR & /*ir*/) {}
  virtual void afterPass(const std::string & /*name*/, const IR & /*ir*/, bool /*changed*/,
                         std::chrono::nanoseconds /*elapsed*/) {}
};

template <class IR> class BasicPassManager {
public:
  using PassType = typename PassIR<IR>::PassType;

  // Changing iterations allowed before the manager declares a rewrite cycle.
  static constexpr int kMaxIterations = 1000;

  explicit BasicPassManager(PassStrategy strategy = PassStrategy::Restart);
  ~BasicPassManager();
  BasicPassManager(BasicPassManager &&) noexcept;
  BasicPassManager &operator=(BasicPassManager &&) noexcept;

  void add(std::string name, std::unique_ptr<PassType> pass);
  void setVerifyEach(bool verify) { verify_each_ = verify; }
  // The check verify-each runs after each pass (throws tico::Error on a broken IR). Replaces
  // the default: Graph::verify for a Graph, nothing for a CircleModel.
  void setVerifier(std::function<void(const IR &)> verifier) { verifier_ = std::move(verifier); }
  // What a pass is called in error messages ("pass", "Circle pass"; "quantizer" for the
  // quantizers a quantize stage adapts to passes).
  void setPassNoun(std::string noun) { noun_ = std::move(noun); }
  // Instrumentations are not owned; they must outlive run().
  void addInstrumentation(BasicPassInstrumentation<IR> *instrumentation) {
    instrumentations_.push_back(instrumentation);
  }
  std::size_t size() const { return passes_.size(); }

  // Runs to completion. Throws tico::Error when the iteration guard trips (naming the passes
  // that kept changing the IR), when verification fails after a pass (naming the pass), or
  // when a pass throws (the message is prefixed with the pass name).
  // Returns true when any pass changed the IR.
  bool run(IR &ir, PassContext &context);

private:
  struct Scheduled {
    std::string name;
    std::unique_ptr<PassType> pass;
  };
  bool runOne(Scheduled &scheduled, IR &ir, PassContext &context);

  PassStrategy strategy_;
  bool verify_each_ = false;
  std::function<void(const IR &)> verifier_;
  std::string noun_ = PassIR<IR>::kNoun;
  std::vector<Scheduled> passes_;
  std::vector<BasicPassInstrumentation<IR> *> instrumentations_;
};

// Instantiated once, in the core, for each IR.
extern template class BasicPassManager<Graph>;
extern template class BasicPassManager<CircleModel>;

using PassInstrumentation = BasicPassInstrumentation<Graph>;
using CirclePassInstrumentation = BasicPassInstrumentation<CircleModel>;
using PassManager = BasicPassManager<Graph>;
using CirclePassManager = BasicPassManager<CircleModel>;

} // namespace tico
