// hmtt logs: the kernel module's log (bytes read from /dev/hmtt, e.g.
// `hmttctl logs --raw > run.hlog`) decoded into tables. Prints a summary,
// --json for figures, -o DIR for page_map/dma/events/sched/syscalls CSV files
// with each record's sync-tag index, --store CAPTURE.hmtt to add the page-map,
// DMA, tag and process tables to the capture, each row at the trace time of
// its sync tag (docs/kernel-tracing.md).
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#include "hmtt/driver/kernel_log.h"
#include "hmtt/driver/log_alignment.h"
#include "hmtt/store/store.h"
#include "verb.h"

namespace {

struct LogsOptions {
  std::string input;
  std::string out_dir;
  std::string store;
  std::uint64_t region_bytes = 8u << 20;
  std::uint32_t nsync = 0;
  bool json = false;
};

// Reads the capture's config-space events, aligns the log by its sync tags and
// adds the tables to the capture (one transaction per table).
hmtt::Status add_to_store(const hmtt::driver::KernelLog& log, const std::string& path, std::uint32_t nsync,
                          hmtt::driver::KernelLogTables& tables) {
  if (log.records == 0) return hmtt::make_error("the log holds no records: nothing to add to " + path);
  std::vector<hmtt::store::Event> events;
  {
    auto reader = hmtt::store::StoreReader::open(path);
    if (!reader.ok()) return reader.error();
    if ((*reader)->meta("kernel_log.rows").ok())
      return hmtt::make_error(path + ": already holds a kernel log (meta kernel_log.rows); add each log once");
    auto ev = (*reader)->events();
    if (!ev.ok()) return ev.error();
    events = std::move(*ev);
  }
  tables = hmtt::driver::kernel_log_tables(log, events, nsync);
  auto w = hmtt::store::StoreWriter::annotate(path);
  if (!w.ok()) return w.error();
  HMTT_TRY((*w)->add_page_map(tables.page_map));
  HMTT_TRY((*w)->add_dma(tables.dma));
  HMTT_TRY((*w)->add_events(tables.tags));
  HMTT_TRY((*w)->add_processes(tables.processes));
  HMTT_TRY((*w)->set_meta("kernel_log.rows", std::to_string(tables.records)));
  HMTT_TRY((*w)->set_meta("kernel_log.aligned", std::to_string(tables.aligned)));
  HMTT_TRY((*w)->set_meta("kernel_log.missing_seq", std::to_string(log.missing_seq)));
  return (*w)->set_meta("kernel_log.nsync", std::to_string(nsync));
}

int run_logs(const LogsOptions& o) {
  std::ifstream in(o.input, std::ios::binary);
  if (!in) return hmtt::app::fail("logs", hmtt::make_error(o.input + ": cannot open"));
  std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(raw.data()), raw.size());
  auto log = hmtt::driver::KernelLogDecoder{}.decode(bytes);
  if (!log.ok()) return hmtt::app::fail("logs", hmtt::make_error(o.input + ": " + log.error().message));
  const std::uint32_t nsync = o.nsync ? o.nsync : hmtt::driver::nsync_for_region(o.region_bytes);
  if (!o.out_dir.empty()) {
    auto st = hmtt::driver::write_kernel_log_csv(*log, o.out_dir, nsync);
    if (!st.ok()) return hmtt::app::fail("logs", st.error());
  }
  hmtt::driver::KernelLogTables tables;
  if (!o.store.empty()) {
    auto st = add_to_store(*log, o.store, nsync, tables);
    if (!st.ok()) return hmtt::app::fail("logs", st.error());
  }
  const auto& l = *log;
  if (o.json) {
    std::printf(
        "{\"records\": %llu, \"first_seq\": %llu, \"last_seq\": %llu, \"missing_seq\": %llu, "
        "\"page_map\": %zu, \"dma\": %zu, \"events\": %zu, \"sched\": %zu, \"syscalls\": %zu, \"user\": %zu, "
        "\"nsync\": %u",
        static_cast<unsigned long long>(l.records), static_cast<unsigned long long>(l.first_seq),
        static_cast<unsigned long long>(l.last_seq), static_cast<unsigned long long>(l.missing_seq),
        l.page_map.size(), l.dma.size(), l.tags.size(), l.sched.size(), l.syscalls.size(), l.user.size(), nsync);
    if (!o.store.empty())
      std::printf(", \"store\": {\"rows\": %llu, \"aligned\": %llu, \"processes\": %zu}",
                  static_cast<unsigned long long>(tables.records), static_cast<unsigned long long>(tables.aligned),
                  tables.processes.size());
    std::printf("}\n");
  } else {
    std::printf("%s: %llu records, seq %llu..%llu, %llu dropped by the module\n", o.input.c_str(),
                static_cast<unsigned long long>(l.records), static_cast<unsigned long long>(l.first_seq),
                static_cast<unsigned long long>(l.last_seq), static_cast<unsigned long long>(l.missing_seq));
    std::printf("  page map %zu, dma %zu, events %zu, sched %zu, syscalls %zu, user %zu\n", l.page_map.size(),
                l.dma.size(), l.tags.size(), l.sched.size(), l.syscalls.size(), l.user.size());
    if (!o.out_dir.empty()) std::printf("  tables written to %s/ (sync ids: %u)\n", o.out_dir.c_str(), nsync);
    if (!o.store.empty())
      std::printf("  added to %s: %llu rows (page map, dma, tags), %llu aligned to trace time by their sync tags, "
                  "%llu unaligned (time 0); %zu processes\n",
                  o.store.c_str(), static_cast<unsigned long long>(tables.records),
                  static_cast<unsigned long long>(tables.aligned),
                  static_cast<unsigned long long>(tables.records - tables.aligned), tables.processes.size());
  }
  return hmtt::app::kExitOk;
}

}  // namespace

void setup_logs(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<LogsOptions>();
  auto* cmd = app.add_subcommand("logs", "Decode the kernel module's log (page map, DMA, events) into tables");
  cmd->add_option("log", opts->input, "raw log bytes (hmttctl logs --raw > FILE)")->required();
  cmd->add_option("-o,--output", opts->out_dir, "write CSV tables into this directory");
  cmd->add_option("--store", opts->store,
                  "add the page-map, DMA, tag and process tables to this capture (an hmtt store), "
                  "each row at the trace time of its sync tag");
  cmd->add_option("--region-bytes", opts->region_bytes, "configuration-space size, for the sync-tag index")
      ->capture_default_str();
  cmd->add_option("--nsync", opts->nsync, "sync ids (hmttctl status); overrides --region-bytes");
  cmd->add_flag("--json", opts->json, "print the figures as JSON");
  cmd->callback([opts, &exit_code] { exit_code = run_logs(*opts); });
}
