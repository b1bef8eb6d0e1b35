// Several one-subgraph models as one model with a signature each (prefill and decode of an LLM,
// one program lowered at several static sizes).
#pragma once

#include "tico/circle/model.h"

#include <string>
#include <vector>

namespace tico {

struct SignaturePart {
  std::string signature; // the SignatureDef key ("prefill", "decode")
  CircleModel model;     // exactly one subgraph
};

// One model whose subgraph i is parts[i]'s only subgraph, named and keyed parts[i].signature,
// its SignatureDef mapping every input and output by its tensor name. Operator codes are
// unified. A buffer is stored once however many parts hold it: equal views of one storage
// (the specializations of one graph share their weights) are matched without reading them, the
// rest by dtype, shape and bytes. Metadata entries are taken from every part; two parts with
// one name must hold equal bytes. Throws tico::Error for no parts, an empty or repeated
// signature name, a part without exactly one subgraph (control flow is not merged).
CircleModel mergeAsSignatures(std::vector<SignaturePart> parts);

} // namespace tico
