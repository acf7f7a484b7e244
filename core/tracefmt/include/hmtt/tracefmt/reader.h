// Trace-file readers: each is a ReferenceSource over one file that streams it
// through a fixed-size buffer (bounded memory whatever the file size), and
// stops at the first malformed line with "file:line: reason".
//
// open_trace() is the one call analyses use to open any trace: a trace file in
// any format of format.h, or an hmtt store.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "hmtt/reference.h"
#include "hmtt/result.h"
#include "hmtt/stream.h"
#include "hmtt/tracefmt/format.h"

namespace hmtt::tracefmt {

// What a reader has seen so far.
struct ReaderCounts {
  std::uint64_t lines = 0;                   // lines read (1-based number of the last line)
  std::uint64_t references = 0;              // references produced
  std::uint64_t by_kind[kKindCount] = {};    // references produced, by Kind
  std::uint64_t skipped_records = 0;         // records that are not references (Dinero flush/invalidate)
  std::uint64_t ignored_lines = 0;           // blank, comment, header and valgrind "==pid==" lines
};

class TraceReader : public ReferenceSource {
 public:
  virtual Format format() const = 0;
  virtual const ReaderCounts& counts() const = 0;
  virtual std::uint64_t bytes_read() const = 0;   // bytes consumed so far
  virtual std::uint64_t total_bytes() const = 0;  // file size; 0 when not known
};

struct ReaderOptions {
  std::size_t buffer_bytes = 4u << 20;  // read buffer; also the longest line accepted
};

// Opens a trace file in a text format (not Format::Store). Format::Auto detects it.
Result<std::unique_ptr<TraceReader>> open_reader(const std::string& path, Format format = Format::Auto,
                                                 const ReaderOptions& options = {});

// A reader over bytes in memory (tests, fuzzing); `name` is used in error messages.
// The bytes must outlive the reader. `format` must be a text format, not Auto.
std::unique_ptr<TraceReader> reader_from_memory(std::string_view bytes, std::string name, Format format);

// Opens any trace: a text trace file or an hmtt store (Format::Store, or Auto on a store file).
Result<std::unique_ptr<ReferenceSource>> open_trace(const std::string& path, Format format = Format::Auto);

// True when this build can open and write hmtt stores (the store library is linked).
bool store_supported();

}  // namespace hmtt::tracefmt
