// libtico-pt2: registers the .pt2 (torch.export archive) frontend and the PyTorch op table
// (schemas for default filling and argument checks, for every plugin and tool).
#include "pt2/frontend.h"
#include "pt2/torch_op_table.h"

#include "tico/plugin/plugin.h"

namespace {
void registerPt2(tico::Registrar &registrar) {
  tico::pt2::registerTorchOpTable(registrar);
  registrar.addFrontend(tico::pt2::pt2FrontendSpec());
}
} // namespace

TICO_PLUGIN("pt2-frontend", "0.1.0", "Apache-2.0", registerPt2)
