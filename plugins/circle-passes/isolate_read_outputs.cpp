// isolate-read-outputs: a subgraph output that an operator also reads gets a tensor of its
// own, written by an identity copy.
//
// onert 0.2, with the output buffers it allocates itself (the Python API's `infer`), plans a
// model output like an intermediate tensor: once its last reader has run, its memory goes to
// a tensor computed later, and the output comes back holding that tensor's values
// (y = x + 1; u = y + 1; v = u + 1; returning y and v gives v twice). An output nothing reads
// keeps its memory. The copy is such an output; the original tensor keeps its readers, and the
// values are unchanged on every runtime. This also covers isolate-activated-outputs' case (an
// activation reading an output is a reader: with the copy, onert no longer fuses it into the
// output's producer).
//
// Found with tests/onert/first_divergence.py on the swin, wav2vec2 and bart models of the
// real-model suite (their last hidden state is returned and read by the pooler / decoder).
#include "pass_registration.h"
#include "passes.h"
#include "rewrite_utils.h"

namespace tico::circle_passes {
namespace {

class IsolateReadOutputs final : public CirclePass {
public:
  explicit IsolateReadOutputs(const Options &) {}

  bool run(CircleModel &model, PassContext &) override {
    return forEachSubgraph(model, [&](SubgraphEditor &editor) {
      for (std::size_t position = 0; position < editor.graph().outputs.size(); ++position) {
        const int32_t t = editor.graph().outputs[position];
        if (!editor.validTensor(t) || editor.producer(t) < 0 || editor.consumers(t).empty())
          continue;
        copyGraphOutput(editor, position);
      }
    });
  }
};

} // namespace

void registerIsolateReadOutputs(Registrar &r) {
  registerCirclePass<IsolateReadOutputs>(
      r, "isolate-read-outputs",
      "give a subgraph output that an operator also reads its own tensor (an identity copy), so runtimes that reuse an "
      "output's memory after its last reader (onert 0.2) keep the output's values");
}

} // namespace tico::circle_passes
