// Whole-file conversions behind `hmtt import` and `hmtt export`: a trace file
// into an hmtt store, and any trace (store or file) into a trace file.
#pragma once

#include <cstdint>
#include <string>

#include "hmtt/result.h"
#include "hmtt/tracefmt/format.h"
#include "hmtt/tracefmt/reader.h"
#include "hmtt/tracefmt/writer.h"

namespace hmtt::tracefmt {

struct ImportOptions {
  Format format = Format::Auto;  // of the input file
  bool overwrite = false;        // replace an existing store
  std::uint64_t tick_ps = 0;     // picoseconds per time tick of the input; 0 = time is a record index
  bool progress = true;          // progress line on a terminal
};

struct ImportSummary {
  Format format = Format::Auto;  // the input's format (as detected)
  ReaderCounts counts;
  std::uint64_t bytes = 0;       // input bytes
};

// Reads the trace file `input` into a new store `output`.
Result<ImportSummary> import_trace(const std::string& input, const std::string& output,
                                   const ImportOptions& options = {});

struct ExportOptions {
  Format input_format = Format::Auto;  // of the input (a store or a trace file)
  Format format = Format::Csv;         // of the output file
  bool overwrite = false;
  bool progress = true;
};

struct ExportSummary {
  Format input_format = Format::Auto;
  WriterCounts counts;
};

// Writes every reference of `input` (a store, or any trace file) to `output` in `options.format`.
Result<ExportSummary> export_trace(const std::string& input, const std::string& output,
                                   const ExportOptions& options = {});

}  // namespace hmtt::tracefmt
