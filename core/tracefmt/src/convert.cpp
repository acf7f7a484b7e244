#include "hmtt/tracefmt/convert.h"

#include <unistd.h>

#include <vector>

#include "hmtt/progress.h"
#include "store_bridge.h"

namespace hmtt::tracefmt {

namespace {
Status pump_to(ReferenceSource& source, TraceWriter& writer, const TraceReader* file_reader, bool show_progress);
}  // namespace

Result<ImportSummary> import_trace(const std::string& input, const std::string& output,
                                   const ImportOptions& options) {
  Format format = options.format;
  if (format == Format::Auto) {
    auto detected = detect_format(input);
    if (!detected) return detected.error();
    format = *detected;
  }
  if (format == Format::Store) return make_error(input + ": is already an hmtt store");
  auto reader = open_reader(input, format);
  if (!reader) return reader.error();
  return detail::write_store(**reader, input, output, options);
}

Result<ExportSummary> export_trace(const std::string& input, const std::string& output,
                                   const ExportOptions& options) {
  Format in_format = options.input_format;
  if (in_format == Format::Auto) {
    auto detected = detect_format(input);
    if (!detected) return detected.error();
    in_format = *detected;
  }
  std::unique_ptr<ReferenceSource> source;
  TraceReader* file_reader = nullptr;  // for progress, when the input is a file
  if (in_format == Format::Store) {
    auto s = detail::open_store_references(input);
    if (!s) return s.error();
    source = std::move(*s);
  } else {
    auto r = open_reader(input, in_format);
    if (!r) return r.error();
    file_reader = r->get();
    source = std::move(*r);
  }
  WriterOptions wopts;
  wopts.overwrite = options.overwrite;
  auto writer = open_writer(output, options.format, wopts);
  if (!writer) return writer.error();
  auto st = pump_to(*source, **writer, file_reader, options.progress);
  if (!st) {
    if (output != "-") ::unlink(output.c_str());  // a partial file would pass for a complete export
    return st.error();
  }
  ExportSummary s;
  s.input_format = in_format;
  s.counts = (*writer)->counts();
  return s;
}

namespace {
Status pump_to(ReferenceSource& source, TraceWriter& writer, const TraceReader* file_reader, bool show_progress) {
  bool show = show_progress && ProgressLine::stderr_is_terminal();
  ProgressLine progress("export", file_reader != nullptr ? file_reader->total_bytes() : 0, show);
  std::vector<Reference> buf(1u << 16);
  for (;;) {
    auto n = source.read(buf);
    if (!n) return n.error();
    if (*n == 0) break;
    HMTT_TRY(writer.write(std::span<const Reference>(buf.data(), *n)));
    progress.update(file_reader != nullptr ? file_reader->bytes_read() : writer.counts().references,
                    std::to_string(writer.counts().references) + " refs");
  }
  HMTT_TRY(writer.finish());
  progress.finish();
  return Status::success();
}
}  // namespace

}  // namespace hmtt::tracefmt
