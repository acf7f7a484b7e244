// Built when the store library is not part of the build: stores cannot be
// opened or written, and say so.
#include "store_bridge.h"

namespace hmtt::tracefmt::detail {

const bool kStoreSupported = false;

Result<std::unique_ptr<ReferenceSource>> open_store_references(const std::string& path) {
  return make_error(path + ": this build of hmtt has no trace-store support");
}

Result<ImportSummary> write_store(TraceReader&, const std::string&, const std::string& output,
                                  const ImportOptions&) {
  return make_error(output + ": this build of hmtt has no trace-store support");
}

}  // namespace hmtt::tracefmt::detail
