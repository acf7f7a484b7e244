// hmtt capture: receive a board's links (UDP ports, pcap/pcapng files or a live
// interface) into one merged, loss-accounted trace store (docs/receiver.md).
#include <nlohmann/json.hpp>

#include <cinttypes>
#include <csignal>
#include <memory>

#include "hmtt/host/capture.h"
#include "hmtt/host/pcap_source.h"
#include "hmtt/host/udp_source.h"
#include "hmtt/progress.h"
#include "verb.h"
#if HMTT_HOST_HAS_STORE
#include "hmtt/host/store_sink.h"
#endif

namespace {

using namespace hmtt;

struct CaptureArgs {
  std::string udp;
  std::vector<std::string> pcap;
  std::string iface;
  std::string output;
  double duration = 0;
  double idle_stop = 0;
  bool json = false;
  bool force = false;
  bool no_udp_checksum = false;
  bool no_sync = false;
  std::string bind = "0.0.0.0";
  int rcvbuf_mb = 64;
  std::size_t horizon = std::size_t{1} << 22;
  std::uint64_t tick_ps = 5000;
  unsigned base_port = hmtt::wire::kDefaultBasePort;
};

std::string human_rate(double v) {
  char b[32];
  if (v >= 1e9) std::snprintf(b, sizeof b, "%.2f G ", v / 1e9);
  else if (v >= 1e6) std::snprintf(b, sizeof b, "%.2f M ", v / 1e6);
  else if (v >= 1e3) std::snprintf(b, sizeof b, "%.1f k ", v / 1e3);
  else std::snprintf(b, sizeof b, "%.0f ", v);
  return b;
}

[[maybe_unused]] nlohmann::json to_json(const host::CaptureStatus& s, const std::string& output, bool sync) {
  nlohmann::json j;
  j["output"] = output;
  j["sync"] = sync;  // false: written with --no-sync (no fdatasync)
  j["elapsed_s"] = s.elapsed_s;
  j["interrupted"] = s.interrupted;
  j["packets"] = s.packets;
  j["bytes"] = s.bytes;
  j["non_hmtt_packets"] = s.non_hmtt;
  j["kernel_drops"] = s.kernel_drops;
  j["frames"] = s.totals.frames;
  j["references"] = s.totals.references_out;
  j["references_per_s"] = s.elapsed_s > 0 ? static_cast<double>(s.totals.references_out) / s.elapsed_s : 0.0;
  j["bad_frames"] = s.totals.bad_frames;
  j["unattributed_bad_frames"] = s.totals.unattributed_bad_frames;
  j["gap_frames"] = s.totals.gap_frames;
  j["too_late_references"] = s.totals.too_late_refs;
  j["fifo_loss_markers"] = s.totals.fifo_loss_markers;
  j["fifo_lost_records"] = s.totals.fifo_lost_records;
  auto& links = j["links"] = nlohmann::json::array();
  for (const auto& l : s.links) {
    links.push_back({{"board", l.board},
                     {"link", l.link},
                     {"port", l.port},
                     {"frames", l.frames},
                     {"records", l.records},
                     {"references", l.references},
                     {"gap_frames", l.gap_frames},
                     {"late_frames", l.late_frames},
                     {"too_late_frames", l.too_late_frames},
                     {"too_late_references", l.too_late_refs},
                     {"duplicate_frames", l.duplicate_frames},
                     {"bad_frames", l.bad_frames},
                     {"fifo_loss_markers", l.fifo_loss_markers},
                     {"fifo_lost_records", l.fifo_lost_records},
                     {"sequence_wraps", l.wraps}});
  }
  return j;
}

[[maybe_unused]] void print_summary(const host::CaptureStatus& s, const std::string& output, const std::vector<std::string>& bad,
                                    bool sync) {
  std::printf("capture %s: %.1f s%s%s\n", output.c_str(), s.elapsed_s,
              s.interrupted ? (s.signal_number == SIGTERM ? " (stopped by SIGTERM)" : " (stopped by SIGINT)") : "",
              sync ? "" : " (written without fdatasync: --no-sync)");
  std::printf("  %" PRIu64 " references in %" PRIu64 " frames, %sreferences/s, %" PRIu64 " packets, %" PRIu64
              " not HMTT, %" PRIu64 " dropped by the kernel\n",
              s.totals.references_out, s.totals.frames,
              human_rate(s.elapsed_s > 0 ? static_cast<double>(s.totals.references_out) / s.elapsed_s : 0).c_str(),
              s.packets, s.non_hmtt, s.kernel_drops);
  std::printf("  %-6s %-5s %-5s %10s %12s %6s %6s %8s %6s %6s %10s %6s\n", "board", "link", "port", "frames",
              "references", "gap", "late", "too-late", "dup", "bad", "fifo-lost", "wraps");
  for (const auto& l : s.links)
    std::printf("  %-6u %-5u %-5u %10" PRIu64 " %12" PRIu64 " %6" PRIu64 " %6" PRIu64 " %8" PRIu64 " %6" PRIu64
                " %6" PRIu64 " %10" PRIu64 " %6" PRIu64 "\n",
                l.board, l.link, l.port, l.frames, l.references, l.gap_frames, l.late_frames, l.too_late_frames,
                l.duplicate_frames, l.bad_frames, l.fifo_lost_records, l.wraps);
  if (s.totals.fifo_loss_markers)
    std::printf("  board FIFO overflowed %" PRIu64 " times, %" PRIu64 " records dropped on the board\n",
                s.totals.fifo_loss_markers, s.totals.fifo_lost_records);
  for (const auto& b : bad) std::printf("  rejected: %s\n", b.c_str());
}

int run_capture_verb(const CaptureArgs& a) {
  const int sources_given = (!a.udp.empty()) + (!a.pcap.empty()) + (!a.iface.empty());
  if (sources_given == 0) {
    std::fprintf(stderr, "hmtt capture: give --udp PORTS, --pcap FILES or --iface NAME\n");
    return app::kExitUsage;
  }
  host::PortRange ports;
  ports.base = static_cast<std::uint16_t>(a.base_port);
  std::vector<std::unique_ptr<host::LinkSource>> sources;
  bool live = false;
  if (!a.udp.empty()) {
    auto p = host::parse_ports(a.udp);
    if (!p) return app::fail("capture", p.error());
    host::UdpOptions uo;
    uo.address = a.bind;
    uo.receive_buffer_bytes = a.rcvbuf_mb << 20;
    auto s = host::UdpSource::open(*p, uo);
    if (!s) return app::fail("capture", s.error());
    if ((*s)->receive_buffer_bytes() < (a.rcvbuf_mb << 20) && !a.json)
      std::fprintf(stderr, "hmtt capture: socket receive buffer is %d KiB (asked %d MiB); raise net.core.rmem_max\n",
                   (*s)->receive_buffer_bytes() / 1024, a.rcvbuf_mb);
    sources.push_back(std::move(*s));
    live = true;
  }
  for (const auto& f : a.pcap) {
    auto s = host::PcapSource::open_file(f, ports, !a.no_udp_checksum);
    if (!s) return app::fail("capture", s.error());
    sources.push_back(std::move(*s));
  }
  if (!a.iface.empty()) {
    auto s = host::PcapSource::open_live(a.iface, ports);
    if (!s) return app::fail("capture", s.error());
    sources.push_back(std::move(*s));
    live = true;
  }
#if HMTT_HOST_HAS_STORE
  store::CaptureInfo info;
  info.tick_ps = a.tick_ps;
  info.source = "board";
  info.description = "hmtt capture";
  store::WriterOptions wo;
  wo.overwrite = a.force;
  wo.sync = !a.no_sync;
  auto sink = host::StoreCaptureSink::create(a.output, info, wo);
  if (!sink) return app::fail("capture", sink.error());
  host::ReceiverOptions ro;
  ro.horizon_refs = a.horizon;
  ro.live = live;
  ro.ports = ports;
  host::Receiver rx(**sink, ro);
  host::StopSignal stop;
  host::CaptureOptions co;
  co.duration_s = a.duration;
  co.idle_stop_s = a.idle_stop;
  ProgressLine progress("capture", 0, !a.json && ProgressLine::stderr_is_terminal());
  std::uint64_t last_refs = 0, last_bytes = 0;
  double last_t = 0;
  auto on_status = [&](const host::CaptureStatus& s) {
    const double dt = s.elapsed_s - last_t;
    if (dt <= 0) return;
    std::string loss;
    for (const auto& l : s.links) {
      loss += " b" + std::to_string(l.board) + "l" + std::to_string(l.link) + ":" +
              std::to_string(l.gap_frames + l.open_gap_frames);
    }
    const std::string line = human_rate(static_cast<double>(s.totals.references_out - last_refs) / dt) + "refs/s " +
                             human_rate(static_cast<double>(s.bytes - last_bytes) / dt) + "B/s  lost frames" + loss +
                             "  FIFO-overflow markers " + std::to_string(s.totals.fifo_loss_markers) +
                             (s.kernel_drops ? "  kernel drops " + std::to_string(s.kernel_drops) : "");
    progress.update(s.totals.references_out, line);
    last_refs = s.totals.references_out;
    last_bytes = s.bytes;
    last_t = s.elapsed_s;
  };
  auto result = host::run_capture(sources, rx, co, &stop, on_status);
  progress.finish();
  if (!result) return app::fail("capture", result.error());
  if (a.json)
    std::printf("%s\n", to_json(*result, a.output, !a.no_sync).dump(2).c_str());
  else
    print_summary(*result, a.output, rx.bad_samples(), !a.no_sync);
  return app::kExitOk;
#else
  (void)live;
  std::fprintf(stderr, "hmtt capture: this build has no trace store library (core/store)\n");
  return app::kExitError;
#endif
}

}  // namespace

void setup_capture(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<CaptureArgs>();
  auto* cmd = app.add_subcommand("capture", "Receive board links (UDP, pcap files, a live interface) into a trace store");
  cmd->add_option("--udp", args->udp, "UDP ports to listen on, e.g. 7400-7402 (one port per link)");
  cmd->add_option("--pcap", args->pcap, "pcap or pcapng files holding the links' packets")->check(CLI::ExistingFile);
  cmd->add_option("--iface", args->iface, "capture live from this interface with libpcap");
  cmd->add_option("-o,--output", args->output, "the trace store to write (FILE.hmtt)")->required();
  cmd->add_option("--duration", args->duration, "stop after this many seconds (default: until Ctrl-C or end of files)");
  cmd->add_option("--idle-stop", args->idle_stop, "stop once no frame has come for this many seconds (after the first)");
  cmd->add_flag("--json", args->json, "print the summary as JSON, no status line");
  cmd->add_flag("-f,--force", args->force, "replace an existing output file");
  cmd->add_flag("--no-udp-checksum", args->no_udp_checksum,
                "do not check UDP checksums in --pcap files recorded on the sending host (checksum offload)");
  cmd->add_flag("--no-sync", args->no_sync,
                "do not wait for the disk (no fdatasync; faster): a killed capture still keeps every committed "
                "chunk, but a power cut or a kernel crash may lose or corrupt the file (docs/store.md, \"Durability\")");
  cmd->add_option("--bind", args->bind, "address the UDP sockets bind to")->capture_default_str();
  cmd->add_option("--rcvbuf-mb", args->rcvbuf_mb, "socket receive buffer per link, MiB")->capture_default_str();
  cmd->add_option("--horizon", args->horizon, "references the merge may hold for a slow link (24 bytes each)")
      ->capture_default_str();
  cmd->add_option("--tick-ps", args->tick_ps, "picoseconds per board clock cycle (5000 = DDR2-400's 200 MHz)")
      ->capture_default_str();
  cmd->add_option("--base-port", args->base_port, "UDP port of board 0 link 0 (port = base + 4*board + link)")
      ->capture_default_str();
  cmd->callback([args, &exit_code] { exit_code = run_capture_verb(*args); });
}
