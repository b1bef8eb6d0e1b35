// isolate-activated-outputs: a subgraph output that an activation operator also reads gets a
// tensor of its own, written by an identity copy.
//
// onert 0.2 fuses a RELU / RELU6 / RELU_N1_TO_1 / TANH / LOGISTIC into the operator producing
// its input (FULLY_CONNECTED, CONV_2D, ADD, ...) when that input has no other operator
// reading it, without checking whether the input is also a model output: the output then
// holds the activated values (y = fc(x); return y, relu(y) gives relu(y) twice). The
// original converter's files hit the same bug. Writing the output through an identity copy
// gives the producer's result a second reader, which keeps onert from fusing, and leaves the
// computed values unchanged on every runtime.
#include "pass_registration.h"
#include "passes.h"
#include "rewrite_utils.h"

namespace tico::circle_passes {
namespace {

bool isActivation(BuiltinOperator code) {
  switch (code) {
  case BuiltinOperator::RELU:
  case BuiltinOperator::RELU6:
  case BuiltinOperator::RELU_N1_TO_1:
  case BuiltinOperator::TANH:
  case BuiltinOperator::LOGISTIC:
    return true;
  default:
    return false;
  }
}

class IsolateActivatedOutputs final : public CirclePass {
public:
  explicit IsolateActivatedOutputs(const Options &) {}

  bool run(CircleModel &model, PassContext &) override {
    return forEachSubgraph(model, [&](SubgraphEditor &editor) {
      for (std::size_t position = 0; position < editor.graph().outputs.size(); ++position) {
        const int32_t t = editor.graph().outputs[position];
        if (!editor.validTensor(t) || editor.producer(t) < 0)
          continue;
        bool read_by_activation = false;
        for (int reader : editor.consumers(t))
          read_by_activation |= isActivation(editor.code(reader));
        if (!read_by_activation)
          continue;
        copyGraphOutput(editor, position);
      }
    });
  }
};

} // namespace

void registerIsolateActivatedOutputs(Registrar &r) {
  registerCirclePass<IsolateActivatedOutputs>(
      r, "isolate-activated-outputs",
      "give a subgraph output that an activation also reads its own tensor (an identity copy), so runtimes that "
      "fuse the activation into the output's producer (onert 0.2) keep the output's values");
}

} // namespace tico::circle_passes
