#include "hmtt/metric/metric.h"

namespace hmtt::metric {

Result<CompressionStats> compress_to_file(PointedSource& source, const std::string& path, CompressorOptions options) {
  auto sink = FileByteSink::create(path);
  if (!sink) return sink.error();
  auto st = compress(source, **sink, options);
  if (!st) return st.error();
  HMTT_TRY((*sink)->close());
  return st;
}

Result<CompressionStats> compress_to_file(ReferenceSource& source, const ReferencePointMap& map, const std::string& path,
                                          CompressorOptions options) {
  ClassifiedSource classified(source, map);
  return compress_to_file(classified, path, options);
}

Result<ReferenceCacheAnalysis> analyse_file(const std::string& path, CacheGeometry geometry) {
  auto trace = CompressedTrace::load(path);
  if (!trace) return trace.error();
  auto ca = ReferenceCacheAnalysis::create(geometry);
  if (!ca) return ca.error();
  ExpandedSource ex(std::make_shared<const CompressedTrace>(std::move(*trace)));
  HMTT_TRY(ca->run(ex));
  return ca;
}

}  // namespace hmtt::metric
