// Trace-file writers: a ReferenceSink that writes one text format to a file
// (or a string) through a fixed-size buffer. What each format cannot hold is
// normalised as docs/trace-formats.md says (e.g. Kind::Modify is written as a
// write to Dinero and DRAM-simulator formats); counts() says how often.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "hmtt/reference.h"
#include "hmtt/result.h"
#include "hmtt/stream.h"
#include "hmtt/tracefmt/format.h"

namespace hmtt::tracefmt {

struct WriterCounts {
  std::uint64_t references = 0;            // references written
  std::uint64_t by_kind[kKindCount] = {};  // references written, by their Kind before normalisation
  std::uint64_t kind_normalised = 0;       // written as another kind (modify -> write, ifetch -> read)
  std::uint64_t bytes = 0;                 // bytes written
};

class TraceWriter : public ReferenceSink {
 public:
  virtual Format format() const = 0;
  virtual const WriterCounts& counts() const = 0;
};

struct WriterOptions {
  bool overwrite = false;  // replace an existing file
};

// Writes `format` (a text format, not Auto or Store) to `path`.
Result<std::unique_ptr<TraceWriter>> open_writer(const std::string& path, Format format,
                                                 const WriterOptions& options = {});

// What `r` reads back as after a trip through a file of `format`: the fields
// the format cannot hold are normalised (docs/trace-formats.md). Time is kept
// as is; formats without time give time = record index on reading.
Reference round_trip_of(Format format, Reference r);

// Writes `format` into `*out` (appending); `out` must outlive the writer.
std::unique_ptr<TraceWriter> writer_to_string(std::string* out, Format format);

}  // namespace hmtt::tracefmt
