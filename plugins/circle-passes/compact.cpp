// compact: removes unused tensors, buffers and operator codes, renumbers what is left in order
// of first use, and makes tensor names unique.
//
// The work is tico::compact (tico/circle/edit.h) with CompactOrder::FirstUse: because the
// numbering then depends only on the final graph and not on the order in which passes created
// objects, differently scheduled pipelines that reach the same graph write the same bytes.
#include "pass_registration.h"
#include "passes.h"

#include "tico/circle/edit.h"

namespace tico::circle_passes {
namespace {

class Compact final : public CirclePass {
public:
  explicit Compact(const Options &) {}

  bool run(CircleModel &model, PassContext &) override {
    CompactOptions options;
    options.order = CompactOrder::FirstUse;
    options.unique_names = true;
    return compact(model, options).changed();
  }
};

} // namespace

void registerCompact(Registrar &r) {
  registerCirclePass<Compact>(r, "compact",
                              "remove unused tensors, buffers and operator codes; renumber in first-use order; "
                              "make tensor names unique");
}

} // namespace tico::circle_passes
