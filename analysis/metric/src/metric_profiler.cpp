// METRIC behind the common profiling contract (profiler.h): the "profile" is
// METRIC's compressed partial data trace (the binary .mtrc format of
// docs/metric.md) and "synthesis" is its exact expansion. Unlike the
// statistical methods, METRIC is lossless: the synthetic trace equals the
// original reference for reference (address, kind, size; time = index). A
// longer --length repeats the expansion; a shorter one truncates it.
#include <algorithm>
#include <memory>

#include "hmtt/analysis/profiler.h"
#include "hmtt/metric/metric.h"

namespace hmtt::analysis {
namespace {

// Stops a source after `limit` references (0 = never).
class LimitedSource final : public ReferenceSource {
 public:
  LimitedSource(ReferenceSource& inner, std::uint64_t limit) : inner_(inner), limit_(limit) {}
  Result<std::size_t> read(std::span<Reference> out) override {
    if (limit_ && done_ >= limit_) return std::size_t{0};
    if (limit_) out = out.first(static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), limit_ - done_)));
    auto n = inner_.read(out);
    if (n) done_ += *n;
    return n;
  }

 private:
  ReferenceSource& inner_;
  std::uint64_t limit_;
  std::uint64_t done_ = 0;
};

// Expands the compressed trace, as many times as it takes to give `length` references.
class RepeatedExpansion final : public ReferenceSource {
 public:
  RepeatedExpansion(std::shared_ptr<const metric::CompressedTrace> trace, std::uint64_t length)
      : trace_(std::move(trace)), length_(length), source_(std::make_unique<metric::ExpandedSource>(trace_)) {}
  Result<std::size_t> read(std::span<Reference> out) override {
    std::size_t n = 0;
    while (n < out.size() && done_ < length_) {
      const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(out.size() - n, length_ - done_));
      auto got = source_->read(out.subspan(n, want));
      if (!got) return got.error();
      if (*got == 0) {
        if (pass_refs_ == 0) break;  // an empty trace never fills anything
        source_ = std::make_unique<metric::ExpandedSource>(trace_);
        pass_refs_ = 0;
        continue;
      }
      for (std::size_t i = 0; i < *got; ++i) out[n + i].time = done_ + i;
      n += *got;
      done_ += *got;
      pass_refs_ += *got;
    }
    return n;
  }

 private:
  std::shared_ptr<const metric::CompressedTrace> trace_;
  std::uint64_t length_;
  std::unique_ptr<metric::ExpandedSource> source_;
  std::uint64_t done_ = 0;
  std::uint64_t pass_refs_ = 0;
};

class MetricProfiler final : public Profiler {
 public:
  std::string_view name() const override { return "metric"; }
  std::string_view summary() const override {
    return "METRIC: lossless compressed partial data trace (RSD/PRSD/IAD); synthesis = exact expansion";
  }
  std::vector<ProfileParam> params() const override {
    return {{"window", "64", "w: RSD sequence-id strides 1..w-1 (2..4096)"},
            {"fold_levels", "8", "PRSD nesting levels tried per key (0..15)"},
            {"points", "", "reference-point map file (docs/metric.md); empty = one point per access kind"}};
  }

  Result<ProfileOutput> profile(ReferenceSource& trace, const ProfileParams& params, const RunOptions& run) override {
    metric::CompressorOptions co;
    auto w = params.u64("window");
    if (!w) return w.error();
    auto f = params.u64("fold_levels");
    if (!f) return f.error();
    if (*w < 2 || *w > 4096) return make_error("parameter 'window': must be 2..4096");
    if (*f > 15) return make_error("parameter 'fold_levels': must be 0..15");
    co.window = static_cast<std::uint32_t>(*w);
    co.fold_levels = static_cast<std::uint32_t>(*f);
    auto points = params.text("points");
    if (!points) return points.error();
    metric::ReferencePointMap map;
    if (!points->empty()) {
      auto m = metric::ReferencePointMap::load(*points);
      if (!m) return m.error();
      map = std::move(*m);
    }
    LimitedSource limited(trace, run.limit);
    metric::ClassifiedSource classified(limited, std::move(map));
    metric::MemoryByteSink sink;
    auto stats = metric::compress(classified, sink, co);
    if (!stats) return stats.error();
    ProfileOutput out;
    out.format = "binary";
    const auto& bytes = sink.bytes();
    out.data.assign(bytes.begin(), bytes.end());
    out.summary["references"] = stats->events;
    out.summary["iads"] = stats->iads;
    out.summary["rsds"] = stats->rsds;
    out.summary["prsds"] = stats->prsds;
    out.summary["descriptor_references"] = stats->descriptor_events;
    out.summary["compression"] =
        out.data.empty() ? 0.0 : static_cast<double>(stats->events) * 24.0 / static_cast<double>(out.data.size());
    return out;
  }

  bool recognizes(std::string_view data) const override {
    return data.size() >= metric::kMagic.size() &&
           std::equal(metric::kMagic.begin(), metric::kMagic.end(), data.begin(),
                      [](std::uint8_t a, char b) { return a == static_cast<std::uint8_t>(b); });
  }

  Result<std::unique_ptr<ReferenceSource>> synthesize(std::string_view data, const SynthOptions& options) override {
    std::vector<std::uint8_t> bytes(data.begin(), data.end());
    auto trace = metric::CompressedTrace::parse(std::move(bytes), "profile");
    if (!trace) return trace.error();
    auto shared = std::make_shared<const metric::CompressedTrace>(std::move(*trace));
    const std::uint64_t length = options.length ? options.length : shared->events();
    return std::unique_ptr<ReferenceSource>(std::make_unique<RepeatedExpansion>(std::move(shared), length));
  }
};

}  // namespace

std::unique_ptr<Profiler> make_metric_profiler() { return std::make_unique<MetricProfiler>(); }

}  // namespace hmtt::analysis
