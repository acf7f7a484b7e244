#include "hmtt/tracefmt/reader.h"

#include <utility>

#include "line_input.h"
#include "parsers.h"
#include "store_bridge.h"

namespace hmtt::tracefmt {
namespace {

using detail::LineInput;
using detail::LineKind;

// A TraceReader for one text format: lines from a LineInput, one Parser call
// per line, no virtual call and no allocation per reference.
template <class Parser>
class TextReader final : public TraceReader {
 public:
  TextReader(std::unique_ptr<LineInput> input, std::string name)
      : input_(std::move(input)), name_(std::move(name)) {}

  Format format() const override { return Parser::kFormat; }
  const ReaderCounts& counts() const override { return counts_; }
  std::uint64_t bytes_read() const override { return input_->bytes_read(); }
  std::uint64_t total_bytes() const override { return input_->total_bytes(); }

  Result<std::size_t> read(std::span<Reference> out) override {
    if (error_) return *error_;
    std::size_t n = 0;
    std::string_view line;
    while (n < out.size() && !done_) {
      if (!input_->next(line)) {
        done_ = true;
        if (input_->failed()) set_error(counts_.lines + 1, input_->error());
        break;
      }
      ++counts_.lines;
      Reference& r = out[n];
      switch (parser_.parse(line, r, why_)) {
        case LineKind::Reference:
          if constexpr (!carries_time(Parser::kFormat)) {
            r.time = records_;
          } else {
            if (r.time < last_time_) {
              set_error(counts_.lines, "time " + std::to_string(r.time) + " is before the previous reference's " +
                                           std::to_string(last_time_) + " (hmtt needs references in time order)");
              done_ = true;
              break;
            }
            last_time_ = r.time;
          }
          ++records_;
          ++counts_.by_kind[static_cast<int>(r.kind)];
          ++n;
          break;
        case LineKind::Ignored:
          ++counts_.ignored_lines;
          break;
        case LineKind::SkippedRecord:
          ++records_;
          ++counts_.skipped_records;
          break;
        case LineKind::Error:
          set_error(counts_.lines, why_);
          done_ = true;
          break;
      }
    }
    counts_.references += n;
    // References before a bad line are delivered first; the error comes on the next call.
    if (n == 0 && error_) return *error_;
    return n;
  }

 private:
  void set_error(std::uint64_t line, const std::string& why) {
    error_ = std::make_unique<Error>(make_error(name_ + ":" + std::to_string(line) + ": " + why));
  }

  std::unique_ptr<LineInput> input_;
  std::string name_;
  Parser parser_;
  ReaderCounts counts_;
  std::uint64_t records_ = 0;
  std::uint64_t last_time_ = 0;
  bool done_ = false;
  std::unique_ptr<Error> error_;
  std::string why_;
};

std::unique_ptr<TraceReader> make_reader(std::unique_ptr<LineInput> input, std::string name, Format format) {
  switch (format) {
    case Format::Din: return std::make_unique<TextReader<detail::DinParser>>(std::move(input), std::move(name));
    case Format::XDin: return std::make_unique<TextReader<detail::XDinParser>>(std::move(input), std::move(name));
    case Format::Lackey:
      return std::make_unique<TextReader<detail::LackeyParser>>(std::move(input), std::move(name));
    case Format::DramSim3:
      return std::make_unique<TextReader<detail::DramSim3Parser>>(std::move(input), std::move(name));
    case Format::Stl: return std::make_unique<TextReader<detail::StlParser>>(std::move(input), std::move(name));
    case Format::Rstl: return std::make_unique<TextReader<detail::RstlParser>>(std::move(input), std::move(name));
    case Format::Csv: return std::make_unique<TextReader<detail::CsvParser>>(std::move(input), std::move(name));
    case Format::Auto:
    case Format::Store: break;
  }
  return nullptr;
}

}  // namespace

Result<std::unique_ptr<TraceReader>> open_reader(const std::string& path, Format format,
                                                 const ReaderOptions& options) {
  if (format == Format::Auto) {
    auto detected = detect_format(path);
    if (!detected) return detected.error();
    format = *detected;
  }
  if (format == Format::Store)
    return make_error(path + ": is an hmtt store, not a trace file (open it with open_trace)");
  auto input = LineInput::open(path, options.buffer_bytes);
  if (!input) return input.error();
  return make_reader(std::move(*input), path, format);
}

std::unique_ptr<TraceReader> reader_from_memory(std::string_view bytes, std::string name, Format format) {
  return make_reader(LineInput::memory(bytes), std::move(name), format);
}

Result<std::unique_ptr<ReferenceSource>> open_trace(const std::string& path, Format format) {
  if (format == Format::Auto) {
    auto detected = detect_format(path);
    if (!detected) return detected.error();
    format = *detected;
  }
  if (format == Format::Store) return detail::open_store_references(path);
  auto reader = open_reader(path, format);
  if (!reader) return reader.error();
  return std::unique_ptr<ReferenceSource>(std::move(*reader));
}

bool store_supported() { return detail::kStoreSupported; }

}  // namespace hmtt::tracefmt
