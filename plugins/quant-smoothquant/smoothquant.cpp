#include "smoothquant.h"

#include "layers.h"

#include <tico/support/error.h>
#include <tico/support/log.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tico::smoothquant {
namespace {

using gptq_plugin::floatsOf;

Eigen::MatrixXf weightOf(const Node &linear) {
  const TensorData &w = *linear.input(1)->constant();
  const std::vector<float> v = floatsOf(w);
  return Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(v.data(), w.sizes[0],
                                                                                               w.sizes[1]);
}

// s_j = max|X_j|^alpha / max|W_:j|^(1 - alpha), over every linear of the group; channels that never
// saw a non-zero input or whose weights are all zero keep 1. Clamped to [1e-5, 1e5] so neither
// side's constants over- or underflow.
Eigen::VectorXf scalesFor(double alpha, const std::vector<float> &xmin, const std::vector<float> &xmax,
                          const std::vector<Eigen::MatrixXf> &weights) {
  const Eigen::Index c = static_cast<Eigen::Index>(xmin.size());
  Eigen::VectorXf s = Eigen::VectorXf::Ones(c);
  for (Eigen::Index j = 0; j < c; ++j) {
    const double x = std::max(std::fabs(xmin[j]), std::fabs(xmax[j]));
    double w = 0.0;
    for (const Eigen::MatrixXf &W : weights)
      w = std::max(w, static_cast<double>(W.col(j).cwiseAbs().maxCoeff()));
    if (x > 0.0 && w > 0.0)
      s(j) = static_cast<float>(std::clamp(std::pow(x, alpha) / std::pow(w, 1.0 - alpha), 1e-5, 1e5));
  }
  return s;
}

// The error the group's linears would see with X / s on a per-tensor grid and W diag(s) on
// per-channel grids (smoothquant.h).
double predictedError(const Eigen::VectorXf &s, const std::vector<float> &xmin, const std::vector<float> &xmax,
                      const std::vector<Eigen::MatrixXf> &weights, const Eigen::MatrixXd &H, double samples,
                      const Settings &settings) {
  double lo = 0.0, hi = 0.0;
  for (std::size_t j = 0; j < xmin.size(); ++j) {
    lo = std::min(lo, static_cast<double>(xmin[j]) / s(j));
    hi = std::max(hi, static_cast<double>(xmax[j]) / s(j));
  }
  const double step = (hi - lo) / static_cast<double>((1 << settings.activation_bits) - 1);
  const Eigen::VectorXd inverse = s.cast<double>().cwiseInverse();
  const Eigen::MatrixXd Hs = inverse.asDiagonal() * H * inverse.asDiagonal();
  gptq::GridOptions grid_options;
  grid_options.bits = settings.weight_bits;
  double error = 0.0;
  for (const Eigen::MatrixXf &W : weights) {
    const Eigen::MatrixXf Ws = W * s.asDiagonal();
    const gptq::Grid grid = gptq::fitGrid(Ws, grid_options);
    Eigen::MatrixXf q(Ws.rows(), Ws.cols());
    for (Eigen::Index r = 0; r < Ws.rows(); ++r)
      for (Eigen::Index k = 0; k < Ws.cols(); ++k)
        q(r, k) = grid.fakeQuantize(r, Ws(r, k));
    error += gptq::layerError(Ws, q, Hs);
    error += samples * step * step / 12.0 * static_cast<double>(Ws.squaredNorm());
  }
  return error;
}

std::shared_ptr<TensorData> scaledCopy(const TensorData &original, const Eigen::VectorXf &s, bool divide) {
  std::vector<float> v = floatsOf(original);
  const std::size_t c = static_cast<std::size_t>(s.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = divide ? v[i] / s(static_cast<Eigen::Index>(i % c)) : v[i] * s(static_cast<Eigen::Index>(i % c));
  return std::make_shared<TensorData>(TensorData::fromVector(DType::Float32, original.sizes, v));
}

} // namespace

std::vector<OptionSpec> Settings::specs() {
  return {
      {"alpha", OptionType::Float, 0.5, "migration strength in [0, 1] when alpha_search is off"},
      {"alpha_search", OptionType::Bool, true,
       "per group, the alpha in {0, alpha_step, ..., 1} (or no smoothing) with the least predicted quantization "
       "error on the calibration data"},
      {"alpha_step", OptionType::Float, 0.05, "grid step of the alpha search, in (0, 1]"},
      {"activation_bits", OptionType::Int, int64_t{8}, "bits of the activation grid the search assumes (8 or 16)"},
      {"weight_bits", OptionType::Int, int64_t{8}, "bits of the weight grid the search assumes (4 or 8)"},
      {"exclude", OptionType::StringList, std::vector<std::string>{},
       "linear node-name globs: a group holding one of them is left alone"},
  };
}

Settings Settings::from(const Options &o) {
  Settings s;
  s.alpha = o.getFloat("alpha");
  if (!(s.alpha >= 0.0 && s.alpha <= 1.0))
    throw Error("smoothquant: alpha must be in [0, 1], got " + std::to_string(s.alpha));
  s.alpha_search = o.getBool("alpha_search");
  s.alpha_step = o.getFloat("alpha_step");
  if (!(s.alpha_step > 0.0 && s.alpha_step <= 1.0))
    throw Error("smoothquant: alpha_step must be in (0, 1], got " + std::to_string(s.alpha_step));
  const int64_t abits = o.getInt("activation_bits"), wbits = o.getInt("weight_bits");
  if (abits != 8 && abits != 16)
    throw Error("smoothquant: activation_bits must be 8 or 16, got " + std::to_string(abits));
  if (wbits != 4 && wbits != 8)
    throw Error("smoothquant: weight_bits must be 4 or 8, got " + std::to_string(wbits));
  s.activation_bits = static_cast<int>(abits);
  s.weight_bits = static_cast<int>(wbits);
  s.exclude = o.getStringList("exclude");
  return s;
}

void SmoothQuant::prepare(const Graph &graph, CalibrationPlan &plan, QuantizeContext &) {
  std::vector<std::string> skipped;
  for (SmoothingGroup &group : findSmoothingGroups(graph, skipped)) {
    if (std::any_of(group.linears.begin(), group.linears.end(),
                    [&](const Node *linear) { return gptq_plugin::globMatch(settings_.exclude, linear->name()); }))
      continue;
    Stats stats;
    stats.min.assign(static_cast<std::size_t>(group.channels), std::numeric_limits<float>::infinity());
    stats.max.assign(static_cast<std::size_t>(group.channels), -std::numeric_limits<float>::infinity());
    stats.hessian = std::make_unique<gptq::HessianAccumulator>(group.channels);
    plan.observe(*group.activation);
    by_value_[group.activation] = stats_.size();
    stats.group = std::move(group);
    stats_.push_back(std::move(stats));
  }
  for (const std::string &line : skipped)
    TICO_DEBUG << "smoothquant: not smoothed: " << line;
}

void SmoothQuant::observe(const Observation &o) {
  auto it = by_value_.find(&o.value);
  if (it == by_value_.end())
    return;
  Stats &stats = stats_[it->second];
  const std::vector<float> x = floatsOf(o.data);
  const std::size_t c = stats.min.size();
  for (std::size_t i = 0; i < x.size(); ++i) {
    stats.min[i % c] = std::min(stats.min[i % c], x[i]);
    stats.max[i % c] = std::max(stats.max[i % c], x[i]);
  }
  stats.hessian->addBatch(x.data(), static_cast<Eigen::Index>(x.size() / c));
}

bool SmoothQuant::convert(Graph &graph, QuantizeContext &context) {
  bool changed = false;
  for (Stats &stats : stats_) {
    const SmoothingGroup &group = stats.group;
    const std::string &subject = group.activation->name();
    if (stats.hessian->sampleRows() == 0)
      throw Error("smoothquant: no calibration data reached '" + subject + "'");
    for (std::size_t j = 0; j < stats.min.size(); ++j)
      if (stats.min[j] > stats.max[j])
        stats.min[j] = stats.max[j] = 0.0f;
    std::vector<Eigen::MatrixXf> weights;
    for (const Node *linear : group.linears)
      weights.push_back(weightOf(*linear));
    const Eigen::MatrixXd H = stats.hessian->hessian();
    const double samples = static_cast<double>(stats.hessian->sampleRows());
    const Eigen::VectorXf ones = Eigen::VectorXf::Ones(group.channels);
    const double unsmoothed = predictedError(ones, stats.min, stats.max, weights, H, samples, settings_);
    double best_alpha = settings_.alpha, best_error = std::numeric_limits<double>::infinity();
    Eigen::VectorXf best_scales = ones;
    if (settings_.alpha_search) {
      best_alpha = -1.0;  // no smoothing
      best_error = unsmoothed;
      const int steps = static_cast<int>(std::lround(1.0 / settings_.alpha_step));
      for (int k = 0; k <= steps; ++k) {
        const double alpha = std::min(1.0, k * settings_.alpha_step);
        const Eigen::VectorXf s = scalesFor(alpha, stats.min, stats.max, weights);
        const double error = predictedError(s, stats.min, stats.max, weights, H, samples, settings_);
        if (error < best_error) {
          best_error = error;
          best_alpha = alpha;
          best_scales = s;
        }
      }
    } else {
      best_scales = scalesFor(best_alpha, stats.min, stats.max, weights);
      best_error = predictedError(best_scales, stats.min, stats.max, weights, H, samples, settings_);
    }
    stats.hessian.reset();
    context.report(subject, "smoothquant_alpha", best_alpha);
    context.report(subject, "smoothquant_predicted_error", best_error);
    context.report(subject, "smoothquant_predicted_error_unsmoothed", unsmoothed);
    context.report(subject, "smoothquant_max_scale", static_cast<double>(best_scales.maxCoeff()));
    if (best_alpha < 0.0)
      continue;
    // Rewrite: the producer's constants divided, every reader's weight columns multiplied. New
    // constants, so a weight or scale shared with another reader (tied embeddings) stays as it is.
    Node *producer = graph.findNode(group.producer->name());
    if (producer == nullptr)
      throw Error("smoothquant: node '" + group.producer->name() + "' is gone before convert");
    for (const std::string &arg : group.scale_args) {
      Value *old = producer->input(arg);
      Value *scaled = graph.addConstant(old->name() + "_smoothed", scaledCopy(*old->constant(), best_scales, true));
      producer->replaceInput(old, scaled);
    }
    for (const Node *reader : group.linears) {
      Node *linear = graph.findNode(reader->name());
      if (linear == nullptr)
        throw Error("smoothquant: node '" + reader->name() + "' is gone before convert");
      Value *old = linear->input(1);
      Value *scaled = graph.addConstant(old->name() + "_smoothed", scaledCopy(*old->constant(), best_scales, false));
      linear->replaceInput(old, scaled);
    }
    changed = true;
  }
  graph.removeUnusedConstants();
  return changed;
}

} // namespace tico::smoothquant
