#include "hmtt/host/store_sink.h"

namespace hmtt::host {

Result<std::unique_ptr<StoreCaptureSink>> StoreCaptureSink::create(const std::string& path,
                                                                   const store::CaptureInfo& info,
                                                                   const store::WriterOptions& options) {
  auto w = store::StoreWriter::create(path, info, options);
  if (!w) return w.error();
  return std::unique_ptr<StoreCaptureSink>(new StoreCaptureSink(std::move(*w)));
}

}  // namespace hmtt::host
