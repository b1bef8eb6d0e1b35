// compact: removes unused tensors, buffers and operator codes, renumbers what is left in order
// of first use, and makes tensor names unique (renumber: false leaves indices and names alone).
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
  explicit Compact(const Options &o) : renumber_(o.getBool("renumber")) {}

  bool run(CircleModel &model, PassContext &) override {
    CompactOptions options;
    // renumber: false only drops what nothing uses, everything else keeps its index and name.
    options.order = renumber_ ? CompactOrder::FirstUse : CompactOrder::Keep;
    options.unique_names = renumber_;
    return compact(model, options).changed();
  }

private:
  bool renumber_;
};

} // namespace

void registerCompact(Registrar &r) {
  registerCirclePass<Compact>(r, "compact",
                              "remove unused tensors, buffers and operator codes; renumber in first-use order; "
                              "make tensor names unique",
                              {{"renumber", OptionType::Bool, true,
                                "renumber in first-use order and make names unique (false: only remove what is "
                                "unused, the rest keeps its index and name)"}});
}

} // namespace tico::circle_passes
