// A run's workers by rank and name: a worker's key within its run, and which
// workers a request's WorkerSelector picks.
#ifndef PROFDIFF_AGGREGATOR_STORE_WORKER_SELECTOR_H_
#define PROFDIFF_AGGREGATOR_STORE_WORKER_SELECTOR_H_

#include <cstdint>
#include <string>

#include "profdiff/v1/run_store.pb.h"
#include "profdiff/v1/trace.pb.h"

namespace profdiff::aggregator {

// "<rank>.<worker name>": a worker's key within its run.
std::string WorkerKey(int32_t rank, const std::string& name);

// Whether `selector` picks the worker `info`, and the selector in words for
// messages.
bool Selected(const v1::WorkerSelector& selector, const v1::WorkerInfo& info);
std::string DescribeSelector(const v1::WorkerSelector& selector);

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_STORE_WORKER_SELECTOR_H_
