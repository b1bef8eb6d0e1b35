// tico-incremental-replay: the G1 parity check of docs/incremental.md, driven by the manifest
// alone (what a runtime layer will have): seeded random change sequences over the input
// groups, each step served by the cheapest strategy whose retained inputs are cached (the
// monolith or the full region chain when none is), retained tensors carried between steps, and
// every step's public outputs compared bit for bit with subgraph 0 run on the same inputs.
//
// Inputs come from a small pool per group (a "change" picks another pool entry), so the
// monolith's reference outputs are computed once per combination. Float inputs are uniform in
// [-1, 1); integer inputs in [0, bound) with --int-bound NAME=N (default 2).
//
// Prints one JSON object: sequences, steps, mismatches, per-strategy step counts.
#include "seeded_inputs.h"

#include "tico/circle/reader.h"
#include "tico/interpreter/interpreter.h"
#include "tico/support/error.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <map>
#include <random>
#include <set>

namespace {

using json = nlohmann::json;
using Value = std::shared_ptr<const tico::TensorData>;

struct Args {
  std::string model;
  int sequences = 1000;
  int steps = 4;
  int pool = 3;
  bool fused = false; // run a strategy's fused callable instead of its steps when it has one
  uint64_t seed = 1;
  std::map<std::string, int64_t> int_bound;
};

int run(const Args &args) {
  auto model = std::make_shared<const tico::CircleModel>(tico::readCircleFile(args.model));
  json manifest;
  for (const auto &[name, buffer] : model->metadata)
    if (name == "incremental.manifest.v1") {
      auto bytes = model->buffers.at(buffer).data->contiguousBytes();
      manifest = json::parse(std::string(reinterpret_cast<const char *>(bytes.data()), bytes.size()));
    }
  if (manifest.is_null())
    throw tico::Error(args.model + ": no incremental manifest");
  tico::CircleInterpreter interp(model);

  // Groups and the public inputs of each.
  std::vector<std::string> groups;
  std::map<std::string, std::size_t> group_index;
  for (const auto &g : manifest["groups"]) {
    group_index[g["name"]] = groups.size();
    groups.push_back(g["name"]);
  }
  const json &inputs = manifest["inputs"];
  const std::size_t G = groups.size();
  std::mt19937_64 rng(args.seed);
  // pool[input][k]
  std::vector<std::vector<Value>> pool(inputs.size());
  const auto infos = interp.inputs(0);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = inputs[i]["name"];
    const int64_t bound = args.int_bound.count(name) ? args.int_bound.at(name) : 2;
    for (int k = 0; k < args.pool; ++k)
      pool[i].push_back(tico::incremental::runtime::seededInput(infos.at(i), rng, bound));
  }
  std::vector<std::string> public_outputs;
  for (const auto &o : manifest["outputs"])
    public_outputs.push_back(o["name"]);

  std::map<std::string, const json *> callables;
  for (const auto &c : manifest["callables"])
    callables[c["signature"]] = &c;
  auto groupMask = [&](const json &names) {
    uint32_t m = 0;
    for (const auto &n : names)
      m |= 1u << group_index.at(n.get<std::string>());
    return m;
  };
  const uint32_t all = (1u << G) - 1;

  std::map<std::vector<int>, std::vector<Value>> reference; // pool choice per group -> outputs
  auto feeds = [&](const std::vector<int> &choice) {
    std::vector<Value> x;
    for (std::size_t i = 0; i < inputs.size(); ++i)
      x.push_back(pool[i][choice[group_index.at(inputs[i]["group"].get<std::string>())]]);
    return x;
  };
  auto monolith = [&](const std::vector<int> &choice) -> const std::vector<Value> & {
    auto it = reference.find(choice);
    if (it == reference.end())
      it = reference.emplace(choice, interp.run(feeds(choice), 0)).first;
    return it->second;
  };

  std::map<std::string, uint64_t> used;
  uint64_t steps = 0, mismatches = 0;
  std::uniform_int_distribution<uint32_t> mask_dist(0, all);
  std::uniform_int_distribution<int> pick(0, args.pool - 1);
  std::uniform_int_distribution<int> coin(0, 1);
  for (int s = 0; s < args.sequences; ++s) {
    std::vector<int> choice(G);
    for (auto &c : choice)
      c = pick(rng);
    std::map<std::string, Value> cache; // retained name -> value (for the current inputs)
    std::vector<Value> last;
    for (int t = 0; t < args.steps; ++t) {
      uint32_t changed = t == 0 ? all : mask_dist(rng);
      for (std::size_t g = 0; g < G; ++g)
        if (changed & (1u << g)) {
          int next = pick(rng);
          if (next == choice[g])
            next = (next + 1) % args.pool; // a change is a change
          choice[g] = next;
        }
      const auto &expected = monolith(choice);
      std::vector<Value> got;
      std::string name;
      if (changed == 0) {
        name = "none";
        got = last;
      } else {
        // The cheapest strategy that serves `changed` with its retained inputs cached; with all
        // groups changed, the monolith or the full chain at random (both must be exact).
        const json *best = nullptr;
        for (const auto &st : manifest["strategies"]) {
          if (st["kind"] == "monolith")
            continue;
          if ((changed & ~groupMask(st["changed"])) != 0)
            continue;
          bool cached = true;
          for (const auto &r : st["reads_retained"])
            cached &= cache.count(r.get<std::string>()) != 0;
          if (!cached)
            continue;
          if (!best || st["est_macs"].get<uint64_t>() < (*best)["est_macs"].get<uint64_t>())
            best = &st;
        }
        const json *mono = &manifest["strategies"][0];
        const json *chosen = (changed == all && coin(rng)) || !best ? mono : best;
        name = (*chosen)["name"];
        std::map<std::string, Value> env;
        const auto x = feeds(choice);
        for (std::size_t i = 0; i < inputs.size(); ++i)
          env[inputs[i]["name"]] = x[i];
        if ((*chosen)["kind"] == "monolith") {
          auto outs = interp.run(x, 0);
          for (std::size_t o = 0; o < public_outputs.size(); ++o)
            env[public_outputs[o]] = outs[o];
          cache.clear(); // only what the monolith outputs survives
        } else {
          for (const auto &r : (*chosen)["reads_retained"])
            env[r] = cache.at(r);
          json steps = (*chosen)["steps"];
          if (args.fused && (*chosen).value("fused", json()).is_string()) {
            steps = json::array({(*chosen)["fused"]});
            name += " (fused)";
          }
          for (const auto &step : steps) {
            const json &c = *callables.at(step);
            std::vector<Value> in;
            for (const auto &p : c["inputs"])
              in.push_back(env.at(p["name"]));
            auto outs = interp.run(in, c["subgraph"].get<uint32_t>());
            for (std::size_t o = 0; o < c["outputs"].size(); ++o)
              env[c["outputs"][o]["name"]] = outs.at(o);
          }
          // Values whose support changed are stale now.
          for (const auto &r : manifest["retained"])
            if (groupMask(r["support"]) & changed)
              cache.erase(r["name"]);
        }
        for (const auto &w : (*chosen)["writes_retained"])
          cache[w] = env.at(w);
        for (const auto &o : public_outputs)
          got.push_back(env.at(o));
      }
      ++steps;
      ++used[name];
      bool same = got.size() == expected.size();
      for (std::size_t o = 0; same && o < got.size(); ++o)
        same = got[o]->dtype == expected[o]->dtype && got[o]->sizes == expected[o]->sizes &&
               got[o]->contiguousBytes() == expected[o]->contiguousBytes();
      if (!same) {
        ++mismatches;
        if (mismatches <= 5)
          std::cerr << "sequence " << s << " step " << t << " (" << name << "): outputs differ from the monolith\n";
      }
      last = got;
    }
  }
  json out{{"sequences", args.sequences}, {"steps", steps}, {"mismatches", mismatches}, {"strategies", used},
           {"reference_runs", reference.size()}};
  std::cout << out.dump() << "\n";
  return mismatches == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  try {
    Args args;
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      auto next = [&]() -> std::string {
        if (i + 1 >= argc)
          throw tico::Error(a + " needs a value");
        return argv[++i];
      };
      if (a == "--sequences")
        args.sequences = std::stoi(next());
      else if (a == "--steps")
        args.steps = std::stoi(next());
      else if (a == "--pool")
        args.pool = std::stoi(next());
      else if (a == "--fused")
        args.fused = true;
      else if (a == "--seed")
        args.seed = std::stoull(next());
      else if (a == "--int-bound") {
        std::string v = next();
        auto eq = v.find('=');
        if (eq == std::string::npos)
          throw tico::Error("--int-bound takes NAME=N");
        args.int_bound[v.substr(0, eq)] = std::stoll(v.substr(eq + 1));
      } else if (args.model.empty())
        args.model = a;
      else
        throw tico::Error("unexpected argument '" + a + "'");
    }
    if (args.model.empty() || args.pool < 2)
      throw tico::Error("usage: tico-incremental-replay MODEL.circle [--sequences N] [--steps N] [--pool N>=2] "
                        "[--seed S] [--int-bound NAME=N] [--fused]");
    return run(args);
  } catch (const std::exception &e) {
    std::cerr << "tico-incremental-replay: " << e.what() << "\n";
    return 2;
  }
}
