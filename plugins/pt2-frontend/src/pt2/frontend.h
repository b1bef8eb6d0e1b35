// The .pt2 frontend: archive -> JSON -> graph with mapped weights.
#pragma once

#include "tico/frontend/frontend.h"

namespace tico::pt2 {

class Pt2Frontend : public Frontend {
public:
  std::unique_ptr<Graph> load(const std::string &path, const OpSchemaRegistry &schemas) override;
};

// The registration record for this frontend (name "pt2", extension ".pt2").
FrontendSpec pt2FrontendSpec();

} // namespace tico::pt2
