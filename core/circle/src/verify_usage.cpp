// Signature hygiene and the "unused element" warnings.

#include "verify_detail.h"

#include "edit_detail.h"

#include <algorithm>
#include <map>

namespace tico::circle_verify {

void checkSignatures(Findings &f) {
  const CircleModel &model = f.model;
  std::map<std::string, std::size_t> keys;
  for (std::size_t k = 0; k < model.signatures.size(); ++k) {
    const CircleSignature &signature = model.signatures[k];
    const std::string path = item("model.signature_defs", k);
    auto [it, inserted] = keys.emplace(signature.key, k);
    if (!inserted)
      f.warning("DUPLICATE_SIGNATURE_KEY", path + ".signature_key",
                "key '" + signature.key + "' is also the key of signature " + std::to_string(it->second));
    if (signature.subgraph_index >= model.subgraphs.size())
      continue;
    const CircleSubGraph &sg = model.subgraphs[signature.subgraph_index];
    auto check = [&](const std::vector<CircleTensorMap> &maps, const std::vector<int32_t> &io, const char *list,
                     const char *role) {
      for (std::size_t i = 0; i < maps.size(); ++i) {
        const auto t = static_cast<int32_t>(maps[i].tensor_index);
        if (maps[i].tensor_index >= sg.tensors.size() || std::find(io.begin(), io.end(), t) != io.end())
          continue;
        f.warning("SIGNATURE_NOT_IO", item(path + "." + list, i),
                  "entry '" + maps[i].name + "' names " + tensorLabel(sg, t) + ", which is not " + role +
                      " of subgraph " + std::to_string(signature.subgraph_index));
      }
    };
    check(signature.inputs, sg.inputs, "inputs", "an input");
    check(signature.outputs, sg.outputs, "outputs", "an output");
  }
}

void checkUsage(Findings &f) {
  if (!f.options.warnings)
    return;
  const CircleModel &model = f.model;
  std::vector<bool> buffer_used(model.buffers.size(), false), code_used(model.operator_codes.size(), false);
  for (const auto &entry : model.metadata)
    if (entry.second < buffer_used.size())
      buffer_used[entry.second] = true;

  for (std::size_t s = 0; s < model.subgraphs.size(); ++s) {
    const CircleSubGraph &sg = model.subgraphs[s];
    std::vector<bool> used(sg.tensors.size(), false);
    auto use = [&](int64_t t) {
      if (t >= 0 && static_cast<uint64_t>(t) < used.size())
        used[t] = true;
    };
    for (const auto &op : sg.operators) {
      if (op.opcode_index < code_used.size())
        code_used[op.opcode_index] = true;
      std::for_each(op.inputs.begin(), op.inputs.end(), use);
      std::for_each(op.outputs.begin(), op.outputs.end(), use);
    }
    std::for_each(sg.inputs.begin(), sg.inputs.end(), use);
    std::for_each(sg.outputs.begin(), sg.outputs.end(), use);
    for (const auto &signature : model.signatures)
      if (signature.subgraph_index == s)
        for (const auto *maps : {&signature.inputs, &signature.outputs})
          for (const auto &m : *maps)
            use(m.tensor_index);
    for (const auto &tensor : sg.tensors)
      for (int64_t ref : circle_edit::quantizationTensorReferences(tensor))
        use(ref);
    for (std::size_t t = 0; t < sg.tensors.size(); ++t) {
      if (sg.tensors[t].buffer < buffer_used.size())
        buffer_used[sg.tensors[t].buffer] = true;
      if (!used[t])
        f.warning("UNUSED_TENSOR", tensorPath(s, t),
                  tensorLabel(sg, static_cast<int64_t>(t)) + " is not used by any operator, subgraph input/output or "
                                                             "signature");
    }
  }
  for (std::size_t b = 1; b < buffer_used.size(); ++b)
    if (!buffer_used[b])
      f.warning("UNUSED_BUFFER", item("model.buffers", b),
                "no tensor or metadata entry refers to buffer " + std::to_string(b));
  for (std::size_t c = 0; c < code_used.size(); ++c)
    if (!code_used[c]) {
      const auto &code = model.operator_codes[c];
      std::string name = circle::EnumNameBuiltinOperator(static_cast<circle::BuiltinOperator>(code.builtin_code));
      if (name.empty())
        name = std::to_string(code.builtin_code);
      if (!code.custom_code.empty())
        name += "(" + code.custom_code + ")";
      f.warning("UNUSED_OPERATOR_CODE", item("model.operator_codes", c),
                "operator code " + name + " is not used by any operator");
    }
}

} // namespace tico::circle_verify
