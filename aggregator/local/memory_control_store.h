// The ControlStore of one aggregator replica (the local store): in memory,
// gone with the aggregator; a capture outlives neither its agents' streams nor
// the command that waits on it.
#ifndef PROFDIFF_AGGREGATOR_LOCAL_MEMORY_CONTROL_STORE_H_
#define PROFDIFF_AGGREGATOR_LOCAL_MEMORY_CONTROL_STORE_H_

#include <memory>

#include "aggregator/store/control_store.h"

namespace profdiff::aggregator {

std::unique_ptr<ControlStore> NewMemoryControlStore();

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_LOCAL_MEMORY_CONTROL_STORE_H_
