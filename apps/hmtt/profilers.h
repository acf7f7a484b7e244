// The profiling methods of `hmtt profile` and `hmtt synth`, from profilers.def.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "hmtt/analysis/profiler.h"

namespace hmtt::analysis {
#define HMTT_PROFILER(name) std::unique_ptr<Profiler> make_##name##_profiler();
#include "profilers.def"
#undef HMTT_PROFILER
}  // namespace hmtt::analysis

namespace hmtt::app {

// One instance of every method, in profilers.def order.
inline std::vector<std::unique_ptr<hmtt::analysis::Profiler>> all_profilers() {
  std::vector<std::unique_ptr<hmtt::analysis::Profiler>> v;
#define HMTT_PROFILER(name) v.push_back(hmtt::analysis::make_##name##_profiler());
#include "profilers.def"
#undef HMTT_PROFILER
  return v;
}

}  // namespace hmtt::app
