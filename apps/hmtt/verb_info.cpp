// hmtt info FILE [--json] [--verify] [--planes]: a trace store's summary (docs/store.md).
#include <nlohmann/json.hpp>

#include <cinttypes>
#include <iterator>
#include <map>
#include <memory>
#include <vector>

#include "hmtt/progress.h"
#include "hmtt/store/store.h"
#include "verb.h"

namespace {

struct InfoOptions {
  std::string file;
  bool json = false;
  bool verify = false;
  bool planes = false;
};

// Column names of the chunk format (docs/store.md, "Column table"), as `--planes` prints them.
constexpr const char* kColumnNames[] = {"time-delta", "residual", "kind-origin", "size", "source"};
static_assert(std::size(kColumnNames) == std::size(hmtt::store::PlaneCensus{}.columns), "a name per column");

std::string event_type_name(hmtt::store::EventType t) {
  switch (t) {
    case hmtt::store::EventType::ConfigSpace: return "config-space";
    case hmtt::store::EventType::FifoLoss: return "fifo-loss";
    case hmtt::store::EventType::SequenceGap: return "sequence-gap";
    case hmtt::store::EventType::Tag: return "tag";
  }
  return "?";
}

std::string human_seconds(double s) {
  char buf[64];
  if (s >= 1.0 || s == 0.0) {
    std::snprintf(buf, sizeof buf, "%.6f s", s);
  } else if (s >= 1e-3) {
    std::snprintf(buf, sizeof buf, "%.6f ms", s * 1e3);
  } else if (s >= 1e-6) {
    std::snprintf(buf, sizeof buf, "%.6f us", s * 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f ns", s * 1e9);
  }
  return buf;
}

int run_info(const InfoOptions& opt) {
  using namespace hmtt;
  auto reader = store::StoreReader::open(opt.file);
  if (!reader) return app::fail("info", reader.error());
  const store::StoreReader& r = **reader;
  auto summary = r.summary();
  if (!summary) return app::fail("info", summary.error());
  auto links = r.links();
  if (!links) return app::fail("info", links.error());
  auto events = r.events();
  if (!events) return app::fail("info", events.error());
  const store::Summary& s = *summary;
  // Written without fdatasync (`hmtt capture --no-sync`, WriterOptions::sync off): meta sync = off.
  const auto sync_mode = r.meta("sync");
  const bool synced = !(sync_mode && *sync_mode == "off");
  const store::CaptureInfo& info = r.info();

  struct EventCount {
    std::uint64_t events = 0;
    std::uint64_t value_sum = 0;
  };
  std::map<std::string, EventCount> by_type;
  for (const auto& e : *events) {
    auto& c = by_type[event_type_name(e.type)];
    c.events++;
    c.value_sum += e.value;
  }
  // --verify: decode every chunk (checksums, tables, index rows) and count what comes out.
  std::uint64_t verified = 0;
  if (opt.verify) {
    auto src = r.references();
    if (!src) return app::fail("info", src.error());
    std::vector<Reference> buf(1u << 16);
    ProgressLine progress("verifying", s.references);
    for (;;) {
      auto n = (*src)->read(buf);
      if (!n) return app::fail("info", n.error());
      if (*n == 0) break;
      verified += *n;
      progress.update(verified);
    }
    progress.finish();
    if (verified != s.references) {
      return app::fail("info", make_error(opt.file + ": the chunks hold " + std::to_string(verified) +
                                              " references, the index says " + std::to_string(s.references)));
    }
  }
  // --planes: every BLOB's plane table, summed per column.
  store::PlaneCensus census;
  if (opt.planes) {
    ProgressLine progress("reading planes", s.references);
    auto c = r.planes([&](const store::PlaneCensus& so_far) { progress.update(so_far.references); });
    if (!c) return app::fail("info", c.error());
    progress.finish();
    census = *c;
  }
  std::uint64_t column_bytes = 0;
  for (const auto& c : census.columns) column_bytes += c.stored_bytes;
  const auto per_ref = [&](std::uint64_t bytes) {
    return census.references ? static_cast<double>(bytes) / static_cast<double>(census.references) : 0.0;
  };
  const std::uint64_t span = s.references ? s.last_time - s.first_time : 0;
  const double seconds = static_cast<double>(span) * static_cast<double>(info.tick_ps) * 1e-12;
  const double bytes_per_ref =
      s.references ? static_cast<double>(s.compressed_bytes) / static_cast<double>(s.references) : 0.0;

  if (opt.json) {
    nlohmann::ordered_json j;
    j["file"] = opt.file;
    j["source"] = info.source;
    j["ddr_standard"] = info.ddr_standard;
    j["tick_ps"] = info.tick_ps;
    j["finished"] = s.finished;
    j["synced"] = synced;
    j["references"] = s.references;
    nlohmann::ordered_json kinds;
    for (int k = 0; k < kKindCount; ++k) kinds[std::string(kind_name(static_cast<Kind>(k)))] = s.by_kind[k];
    j["by_kind"] = kinds;
    j["first_time"] = s.first_time;
    j["last_time"] = s.last_time;
    j["span_ticks"] = span;
    if (info.tick_ps) j["span_seconds"] = seconds;
    j["min_address"] = s.min_address;
    j["max_address"] = s.max_address;
    nlohmann::ordered_json ls = nlohmann::ordered_json::array();
    for (const auto& l : *links) {
      ls.push_back({{"board", l.board}, {"link", l.link}, {"frames", l.frames}, {"records", l.records},
                    {"gap_frames", l.gap_frames}, {"late_frames", l.late_frames},
                    {"duplicate_frames", l.duplicate_frames}, {"bad_frames", l.bad_frames},
                    {"fifo_lost_records", l.fifo_lost_records}});
    }
    j["links"] = ls;
    nlohmann::ordered_json ev;
    for (const auto& [name, c] : by_type) ev[name] = {{"events", c.events}, {"value_sum", c.value_sum}};
    j["events"] = ev;
    j["page_map_entries"] = s.page_map_entries;
    j["dma_entries"] = s.dma_entries;
    j["processes"] = s.processes;
    j["reports"] = s.reports;
    j["profiles"] = s.profiles;
    j["chunks"] = s.chunks;
    j["compressed_bytes"] = s.compressed_bytes;
    j["bytes_per_reference"] = bytes_per_ref;
    if (opt.verify) j["verified_references"] = verified;
    if (opt.planes) {
      nlohmann::ordered_json cols = nlohmann::ordered_json::array();
      for (std::size_t c = 0; c < std::size(census.columns); ++c) {
        const store::ColumnBytes& b = census.columns[c];
        cols.push_back({{"column", kColumnNames[c]}, {"planes", b.planes}, {"raw_bytes", b.raw_bytes},
                        {"stored_bytes", b.stored_bytes}, {"stored_bytes_per_reference", per_ref(b.stored_bytes)},
                        {"raw_planes", b.by_encoding[0]}, {"lz4_planes", b.by_encoding[1]},
                        {"packed_planes", b.by_encoding[2]}});
      }
      j["planes"] = {{"chunks", census.chunks}, {"references", census.references}, {"blob_bytes", census.blob_bytes},
                     {"columns", cols}, {"table_bytes", census.blob_bytes - column_bytes}};
    }
    std::printf("%s\n", j.dump(2).c_str());
    return app::kExitOk;
  }

  std::printf("file         %s\n", opt.file.c_str());
  std::printf("source       %s%s%s\n", info.source.empty() ? "-" : info.source.c_str(),
              info.ddr_standard.empty() ? "" : ", ", info.ddr_standard.c_str());
  std::printf("state        %s%s\n", s.finished ? "finished" : "interrupted (writer did not finish; committed chunks only)",
              synced ? "" : ", written without fdatasync (--no-sync)");
  std::printf("references   %" PRIu64 "\n", s.references);
  for (int k = 0; k < kKindCount; ++k) {
    std::printf("  %-10s %" PRIu64 "\n", std::string(kind_name(static_cast<Kind>(k))).c_str(), s.by_kind[k]);
  }
  if (info.tick_ps) {
    std::printf("span         %" PRIu64 " ticks (%" PRIu64 " .. %" PRIu64 "), %s at %" PRIu64 " ps/tick\n", span,
                s.first_time, s.last_time, human_seconds(seconds).c_str(), info.tick_ps);
  } else {
    std::printf("span         %" PRIu64 " ticks (%" PRIu64 " .. %" PRIu64 "), tick length unknown\n", span,
                s.first_time, s.last_time);
  }
  std::printf("addresses    0x%" PRIx64 " .. 0x%" PRIx64 "\n", s.min_address, s.max_address);
  std::printf("links        %zu\n", links->size());
  for (const auto& l : *links) {
    std::printf("  board %u link %u: %" PRIu64 " frames, %" PRIu64 " records, %" PRIu64 " gap frames, %" PRIu64
                " late, %" PRIu64 " duplicate, %" PRIu64 " bad, %" PRIu64 " records lost in the FIFO\n",
                l.board, l.link, l.frames, l.records, l.gap_frames, l.late_frames, l.duplicate_frames, l.bad_frames,
                l.fifo_lost_records);
  }
  std::printf("events       %" PRIu64 "\n", s.events);
  for (const auto& [name, c] : by_type) {
    std::printf("  %-13s %" PRIu64 " (values sum %" PRIu64 ")\n", name.c_str(), c.events, c.value_sum);
  }
  std::printf("page map     %" PRIu64 " entries\n", s.page_map_entries);
  std::printf("DMA          %" PRIu64 " entries\n", s.dma_entries);
  std::printf("processes    %" PRIu64 "\n", s.processes);
  std::printf("reports      %" PRIu64 "\n", s.reports);
  std::printf("profiles     %" PRIu64 "\n", s.profiles);
  std::printf("chunks       %" PRIu64 ", %" PRIu64 " bytes compressed (%.3f bytes/reference)\n", s.chunks,
              s.compressed_bytes, bytes_per_ref);
  if (opt.verify) std::printf("verified     %" PRIu64 " references decoded, every chunk checksum and table intact\n", verified);
  if (opt.planes) {
    std::printf("planes       bytes a reference stored (uncompressed); planes raw / LZ4 / packed\n");
    for (std::size_t c = 0; c < std::size(census.columns); ++c) {
      const store::ColumnBytes& b = census.columns[c];
      std::printf("  %-11s %.4f (%.4f); %" PRIu64 " / %" PRIu64 " / %" PRIu64 "\n", kColumnNames[c],
                  per_ref(b.stored_bytes), per_ref(b.raw_bytes), b.by_encoding[0], b.by_encoding[1], b.by_encoding[2]);
    }
    std::printf("  %-11s %.4f (headers, tables, checksums of %" PRIu64 " chunks)\n", "tables",
                per_ref(census.blob_bytes - column_bytes), census.chunks);
  }
  return app::kExitOk;
}

}  // namespace

void setup_info(CLI::App& app, int& exit_code) {
  auto opt = std::make_shared<InfoOptions>();
  CLI::App* sub = app.add_subcommand(
      "info", "A trace store's summary: span, references by kind, links and losses, events by type, side tables, chunks");
  sub->add_option("FILE", opt->file, "the trace store (one SQLite file per capture)")->required();
  sub->add_flag("--json", opt->json, "print the summary as JSON");
  sub->add_flag("--verify", opt->verify, "also decode every chunk, checking checksums and tables (reads the whole file)");
  sub->add_flag("--planes", opt->planes,
                "also sum every chunk's planes per column: bytes a reference, and planes stored raw, LZ4 or packed "
                "(reads every chunk)");
  sub->callback([opt, &exit_code] { exit_code = run_info(*opt); });
}
