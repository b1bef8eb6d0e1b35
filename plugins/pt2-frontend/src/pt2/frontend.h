// The .pt2 frontend: archive (a mapped file or an image in memory) -> JSON -> graph whose
// weights are views of the archive bytes.
#pragma once

#include "tico/frontend/frontend.h"

namespace tico::pt2 {

class Pt2Frontend : public Frontend {
public:
  std::unique_ptr<Graph> load(const std::string &path, const OpSchemaRegistry &schemas) override;
  std::unique_ptr<Graph> loadBytes(std::shared_ptr<const Storage> image, const std::string &name,
                                   const OpSchemaRegistry &schemas) override;
};

// The registration record for this frontend (name "pt2", extension ".pt2").
FrontendSpec pt2FrontendSpec();

} // namespace tico::pt2
