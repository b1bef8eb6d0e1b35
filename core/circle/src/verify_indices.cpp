// Model-level structure and index-range rules. The index rules are what the reader runs on
// every file: after them, every index in the model may be used to subscript its target.

#include "verify_detail.h"

#include "tico/circle/query.h"
#include "tico/support/error.h"

namespace tico::circle_verify {
namespace {

std::string outOfRange(const char *what, int64_t index, std::size_t count, const char *plural) {
  return std::string(what) + " index " + std::to_string(index) + " out of range (" + std::to_string(count) + " " +
         plural + ")";
}

void checkTensorIndex(Findings &f, std::size_t s, int64_t index, const std::string &path, bool may_be_omitted) {
  const std::size_t count = f.model.subgraphs[s].tensors.size();
  if (may_be_omitted && index == -1)
    return;
  if (index < 0 || static_cast<uint64_t>(index) >= count)
    f.error("TENSOR_INDEX", path, outOfRange("tensor", index, count, "tensors"));
}

void checkSubgraphIndex(Findings &f, int64_t index, const std::string &path) {
  const std::size_t count = f.model.subgraphs.size();
  if (index < 0 || static_cast<uint64_t>(index) >= count)
    f.error("SUBGRAPH_INDEX", path, outOfRange("subgraph", index, count, "subgraphs"));
}

// The option field names of each subgraph reference, in calledSubgraphs() order.
std::vector<const char *> subgraphReferenceFields(const CircleOperator &op) {
  switch (op.builtin_options.type) {
  case circle::BuiltinOptions::IfOptions: return {"then_subgraph_index", "else_subgraph_index"};
  case circle::BuiltinOptions::WhileOptions: return {"cond_subgraph_index", "body_subgraph_index"};
  case circle::BuiltinOptions::CallOptions: return {"subgraph"};
  case circle::BuiltinOptions::CallOnceOptions: return {"init_subgraph_index"};
  default: return {};
  }
}

void checkOperator(Findings &f, std::size_t s, std::size_t o) {
  const CircleOperator &op = f.model.subgraphs[s].operators[o];
  const std::string path = operatorPath(s, o);
  // An empty operator-code list is reported once, as MISSING_OPERATOR_CODES.
  if (op.opcode_index >= f.model.operator_codes.size() && !f.model.operator_codes.empty())
    f.error("OPCODE_INDEX", path + ".opcode_index",
            outOfRange("operator code", op.opcode_index, f.model.operator_codes.size(), "operator codes"));
  for (std::size_t i = 0; i < op.inputs.size(); ++i)
    checkTensorIndex(f, s, op.inputs[i], item(path + ".inputs", i), true);
  for (std::size_t i = 0; i < op.outputs.size(); ++i)
    checkTensorIndex(f, s, op.outputs[i], item(path + ".outputs", i), false);

  const auto &options = op.builtin_options;
  const char *type_name = circle::EnumNameBuiltinOptions(options.type);
  if (options.type != circle::BuiltinOptions::NONE) {
    if (!type_name || !*type_name) {
      f.error("BAD_OPTIONS", path + ".builtin_options_type",
              "options type " + std::to_string(static_cast<int>(options.type)) +
                  " is not a member of the Circle BuiltinOptions union");
      return;
    }
    if (!options.value) {
      f.error("BAD_OPTIONS", path + ".builtin_options",
              std::string("options type is ") + type_name + " but the options table is missing");
      return;
    }
  }
  const auto fields = subgraphReferenceFields(op);
  const auto callees = calledSubgraphs(op);
  for (std::size_t i = 0; i < callees.size() && i < fields.size(); ++i)
    checkSubgraphIndex(f, callees[i], path + ".builtin_options." + fields[i]);
}

} // namespace

void checkModelStructure(Findings &f) {
  const CircleModel &model = f.model;
  if (model.subgraphs.empty())
    f.error("NO_SUBGRAPHS", "model.subgraphs", "the model has no subgraphs");
  if (model.buffers.empty())
    f.error("MISSING_EMPTY_BUFFER", "model.buffers",
            "the model has no buffers; buffer 0 must exist as the empty sentinel");
  else if (model.buffers[0].data && model.buffers[0].data->nbytes() > 0)
    f.error("BUFFER0_NOT_EMPTY", "model.buffers[0]",
            "buffer 0 is the empty sentinel but holds " + std::to_string(model.buffers[0].data->nbytes()) + " bytes");
  bool has_operators = false;
  for (const auto &sg : model.subgraphs)
    has_operators = has_operators || !sg.operators.empty();
  if (has_operators && model.operator_codes.empty())
    f.error("MISSING_OPERATOR_CODES", "model.operator_codes", "the model has operators but no operator codes");
  for (std::size_t b = 0; b < model.buffers.size(); ++b) {
    const auto &data = model.buffers[b].data;
    if (!data)
      continue;
    try {
      if (!data->storage && data->numel() != 0)
        throw Error("it has no storage");
      data->checkBounds();
    } catch (const Error &e) {
      f.error("BAD_PAYLOAD", item("model.buffers", b), std::string("payload is unusable: ") + e.what());
    }
  }
}

void checkIndices(Findings &f) {
  const CircleModel &model = f.model;
  // Without the structure rules (indices_only), an empty operator-code list would otherwise go
  // unreported: checkOperator leaves it to MISSING_OPERATOR_CODES.
  if (f.options.indices_only && model.operator_codes.empty())
    for (const auto &sg : model.subgraphs)
      if (!sg.operators.empty()) {
        f.error("MISSING_OPERATOR_CODES", "model.operator_codes", "the model has operators but no operator codes");
        break;
      }
  for (std::size_t s = 0; s < model.subgraphs.size(); ++s) {
    const CircleSubGraph &sg = model.subgraphs[s];
    const std::string path = subgraphPath(s);
    for (std::size_t i = 0; i < sg.inputs.size(); ++i)
      checkTensorIndex(f, s, sg.inputs[i], item(path + ".inputs", i), false);
    for (std::size_t i = 0; i < sg.outputs.size(); ++i)
      checkTensorIndex(f, s, sg.outputs[i], item(path + ".outputs", i), false);
    for (std::size_t t = 0; t < sg.tensors.size(); ++t) {
      const CircleTensor &tensor = sg.tensors[t];
      if (tensor.buffer >= model.buffers.size())
        f.error("BUFFER_INDEX", tensorPath(s, t) + ".buffer",
                outOfRange("buffer", tensor.buffer, model.buffers.size(), "buffers"));
      if (tensor.quantization)
        if (const auto *block = tensor.quantization->details.AsBlockwiseQuantization()) {
          const std::string qpath = tensorPath(s, t) + ".quantization.details";
          checkTensorIndex(f, s, block->scales, qpath + ".scales", false);
          // A block-wise record without zero points stores a negative index.
          if (block->zero_points >= 0)
            checkTensorIndex(f, s, block->zero_points, qpath + ".zero_points", false);
        }
    }
    for (std::size_t o = 0; o < sg.operators.size(); ++o)
      checkOperator(f, s, o);
  }
  for (std::size_t k = 0; k < model.signatures.size(); ++k) {
    const CircleSignature &signature = model.signatures[k];
    const std::string path = item("model.signature_defs", k);
    if (signature.subgraph_index >= model.subgraphs.size()) {
      checkSubgraphIndex(f, signature.subgraph_index, path + ".subgraph_index");
      continue;
    }
    for (const auto &[list, maps] : {std::pair{".inputs", &signature.inputs}, std::pair{".outputs", &signature.outputs}})
      for (std::size_t i = 0; i < maps->size(); ++i)
        checkTensorIndex(f, signature.subgraph_index, (*maps)[i].tensor_index,
                         item(path + list, i) + ".tensor_index", false);
  }
  for (std::size_t m = 0; m < model.metadata.size(); ++m)
    if (model.metadata[m].second >= model.buffers.size())
      f.error("BUFFER_INDEX", item("model.metadata", m) + ".buffer",
              outOfRange("buffer", model.metadata[m].second, model.buffers.size(), "buffers"));
}

} // namespace tico::circle_verify
