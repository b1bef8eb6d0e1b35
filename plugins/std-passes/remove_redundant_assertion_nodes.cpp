// remove-redundant-assertion-nodes (RemoveRedundantAssertionNodes): deletes the runtime checks
// torch.export records for symbolic shapes (_assert_scalar, _assert_tensor_metadata,
// sym_constrain_range(_for_size), _assert_async). They have no Circle counterpart; the ranges
// they guard are kept in the graph's symbol table. The symbolic comparisons feeding them
// become dead and go with remove-dead-code.
#include "pass_support.h"
#include "passes.h"

namespace tico::passes {
namespace {

bool removeAssertion(Node &matched, rewrite::Rewriter &rewriter) {
  Node *node = &matched;
  Graph &graph = rewriter.graph();
  // Assertions return nothing (or, for _assert_async, nothing anyone reads).
  for (const Value *out : node->outputs())
    if (out->hasUsers() || graph.isGraphOutput(out))
      throw Error("assertion node '" + node->name() + "' has a used result");
  rewriter.eraseNode(node);
  return true;
}

} // namespace

void registerRemoveRedundantAssertionNodes(Registrar &r) {
  r.addPass(sweepPass("remove-redundant-assertion-nodes",
                      "Remove torch.export's runtime shape assertions (_assert_scalar, sym_constrain_range, ...)",
                      {"aten::_assert_scalar.default", "aten::_assert_tensor_metadata.default",
                       "aten::sym_constrain_range.default", "aten::sym_constrain_range_for_size.default",
                       "aten::_assert_async.default", "aten::_assert_async.msg"},
                      removeAssertion));
}

} // namespace tico::passes
