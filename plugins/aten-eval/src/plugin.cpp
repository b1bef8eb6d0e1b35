// The aten-eval plugin: the "aten" evaluator (LibTorch, loaded on first use) and the
// fold-constants pass built on it. Nothing here includes torch headers.
#include "backend_loader.h"
#include "fold_constants.h"

#include "tico/plugin/plugin.h"

namespace {

void registerAtenEval(tico::Registrar &registrar) {
  registrar.addEvaluator(tico::EvaluatorSpec{
      "aten",
      "runs aten/prims ops on the CPU through LibTorch's dispatcher (LibTorch loads on first use)",
      &tico::aten_eval::loadAtenEvaluator});
  registrar.addPass(tico::aten_eval::foldConstantsSpec());
}

} // namespace

TICO_PLUGIN("aten-eval", "0.1.0", "Apache-2.0", registerAtenEval)
