// libtico-pt2: registers the .pt2 (torch.export archive) frontend.
#include "pt2/frontend.h"

#include "tico/plugin/plugin.h"

namespace {
void registerPt2(tico::Registrar &registrar) { registrar.addFrontend(tico::pt2::pt2FrontendSpec()); }
} // namespace

TICO_PLUGIN("pt2-frontend", "0.1.0", "Apache-2.0", registerPt2)
