// HHnHMM behind the profiling contract (profiler.h): `hmtt profile --method
// hhnhmm` learns the model (model.h) from the trace's addresses (all kinds, or
// only instruction fetches / only data with the `kinds` knob), the profile is
// the JSON model file (docs/hhnhmm.md), and `hmtt synth` generates from it
// (generator.h).
#pragma once

#include <memory>

#include "hmtt/analysis/profiler.h"

namespace hmtt::analysis {
std::unique_ptr<Profiler> make_hhnhmm_profiler();
}  // namespace hmtt::analysis
