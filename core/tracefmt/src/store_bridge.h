// The trace store as seen from tracefmt. store_bridge.cpp implements it over
// hmtt::store when the store library is part of the build;
// store_bridge_absent.cpp says that stores are not available otherwise.
#pragma once

#include <memory>
#include <string>

#include "hmtt/result.h"
#include "hmtt/stream.h"
#include "hmtt/tracefmt/convert.h"

namespace hmtt::tracefmt::detail {

extern const bool kStoreSupported;

// A pull stream over every reference of the store at `path`.
Result<std::unique_ptr<ReferenceSource>> open_store_references(const std::string& path);

// Pulls `reader` dry into a new store at `output`.
Result<ImportSummary> write_store(TraceReader& reader, const std::string& input, const std::string& output,
                                  const ImportOptions& options);

}  // namespace hmtt::tracefmt::detail
