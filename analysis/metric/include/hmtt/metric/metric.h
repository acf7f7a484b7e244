// METRIC in one include: the calls a front end (`hmtt metric`, `hmtt profile
// --method metric`) needs. Compress a reference stream into a compressed trace,
// expand it back, analyse it.
//
//   auto stats = compress_to_file(source, map, "out.mtrc");          // ReferenceSource
//   auto stats = compress_to_file(pointed, "out.mtrc");              // PointedSource (kernels)
//   auto trace = CompressedTrace::load("out.mtrc");                  // validate
//   ExpandedSource ex(std::make_shared<const CompressedTrace>(*trace));  // ReferenceSource
//   auto ca = analyse_file("out.mtrc", CacheGeometry{});             // per-reference report
#pragma once

#include <string>

#include "hmtt/metric/cache_analysis.h"
#include "hmtt/metric/compressor.h"
#include "hmtt/metric/expander.h"
#include "hmtt/metric/format.h"
#include "hmtt/metric/kernels.h"
#include "hmtt/metric/lackey_source.h"
#include "hmtt/metric/point_map.h"

namespace hmtt::metric {

// Compresses a PointedSource into `path`.
Result<CompressionStats> compress_to_file(PointedSource& source, const std::string& path, CompressorOptions options = {});
// Compresses a plain ReferenceSource, attributing references to points with `map`.
Result<CompressionStats> compress_to_file(ReferenceSource& source, const ReferencePointMap& map, const std::string& path,
                                          CompressorOptions options = {});
// Loads a compressed trace and runs the cache analysis over its expansion.
Result<ReferenceCacheAnalysis> analyse_file(const std::string& path, CacheGeometry geometry);

}  // namespace hmtt::metric
