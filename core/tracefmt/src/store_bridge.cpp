// tracefmt over hmtt::store: a store's references as a ReferenceSource, and a
// trace file into a new store.
#include "store_bridge.h"

#include <unistd.h>

#include <vector>

#include "hmtt/progress.h"
#include "hmtt/store/store.h"

namespace hmtt::tracefmt::detail {

const bool kStoreSupported = true;

namespace {

// Keeps the StoreReader alive for as long as its reference stream is read.
class StoreSource final : public ReferenceSource {
 public:
  StoreSource(std::unique_ptr<store::StoreReader> reader, std::unique_ptr<ReferenceSource> refs)
      : reader_(std::move(reader)), refs_(std::move(refs)) {}
  Result<std::size_t> read(std::span<Reference> out) override { return refs_->read(out); }

 private:
  std::unique_ptr<store::StoreReader> reader_;
  std::unique_ptr<ReferenceSource> refs_;
};

}  // namespace

Result<std::unique_ptr<ReferenceSource>> open_store_references(const std::string& path) {
  auto reader = store::StoreReader::open(path);
  if (!reader) return reader.error();
  auto refs = (*reader)->references();
  if (!refs) return refs.error();
  return std::unique_ptr<ReferenceSource>(std::make_unique<StoreSource>(std::move(*reader), std::move(*refs)));
}

namespace {

Status pull_into(TraceReader& reader, store::StoreWriter& writer, const std::string& input, bool progress_on) {
  ProgressLine progress("import", reader.total_bytes(), progress_on && ProgressLine::stderr_is_terminal());
  std::vector<Reference> buf(1u << 16);
  for (;;) {
    auto n = reader.read(buf);
    if (!n) return n.error();
    if (*n == 0) break;
    HMTT_TRY(writer.write(std::span<const Reference>(buf.data(), *n)));
    progress.update(reader.bytes_read(), std::to_string(reader.counts().references) + " refs");
  }
  HMTT_TRY(writer.set_meta("import.file", input));
  HMTT_TRY(writer.set_meta("import.format", std::string(format_name(reader.format()))));
  HMTT_TRY(writer.finish());
  progress.finish();
  return Status::success();
}

}  // namespace

Result<ImportSummary> write_store(TraceReader& reader, const std::string& input, const std::string& output,
                                  const ImportOptions& options) {
  store::CaptureInfo info;
  info.tick_ps = carries_time(reader.format()) ? options.tick_ps : 0;
  info.source = "import:" + std::string(format_name(reader.format()));
  info.description = "imported from " + input;
  store::WriterOptions wopts;
  wopts.overwrite = options.overwrite;
  auto writer = store::StoreWriter::create(output, info, wopts);
  if (!writer) return writer.error();
  Status st = pull_into(reader, **writer, input, options.progress);
  if (!st) {
    // A store holding only the references before a malformed line would pass for a good import.
    writer->reset();
    for (const char* suffix : {"", "-wal", "-shm"}) ::unlink((output + suffix).c_str());
    return st.error();
  }
  ImportSummary s;
  s.format = reader.format();
  s.counts = reader.counts();
  s.bytes = reader.bytes_read();
  return s;
}

}  // namespace hmtt::tracefmt::detail
