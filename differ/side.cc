#include "differ/side.h"

#include "analysis/moments.h"

namespace profdiff::differ {

Side::Side(const v1::RunDigest& digest, v1::Normalization normalize,
           std::string label, const analysis::ModuleNodeTables* node_tables)
    : digest_(&digest),
      label_(std::move(label)),
      node_tables_(node_tables),
      per_step_(normalize != v1::NORMALIZATION_TOTAL) {}

const v1::DigestModuleNode& Side::WithTables(
    const v1::DigestModuleNode& node) const {
  return node_tables_ != nullptr ? node_tables_->Of(node) : node;
}

double Side::Mean(double sum) const {
  return workers() == 0 ? 0 : sum / static_cast<double>(workers());
}

double Side::Value(const v1::ReducedMetric& metric) const {
  return Mean(per_step_ ? metric.per_step() : metric.total());
}

v1::Moments Side::Samples(const v1::ReducedMetric& metric) const {
  v1::Moments samples = metric.samples();
  analysis::AddZeros(digest_->slots() - samples.count(), samples);
  return samples;
}

double Side::Value(
    const google::protobuf::RepeatedPtrField<v1::ReducedMetric>* metrics,
    int m) const {
  if (metrics == nullptr || m >= metrics->size()) return 0;
  return Value((*metrics)[m]);
}

v1::Moments Side::Samples(
    const google::protobuf::RepeatedPtrField<v1::ReducedMetric>* metrics,
    int m) const {
  if (metrics == nullptr || m >= metrics->size())
    return Samples(v1::ReducedMetric());
  return Samples((*metrics)[m]);
}

double DeltaPct(double a, double b) { return a == 0 ? 0 : (b - a) / a * 100.0; }

}  // namespace profdiff::differ
