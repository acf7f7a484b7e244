// Receiver benchmark, live side: listens on UDP ports for a fixed time and
// prints what arrived and what was lost, as JSON (bench/receiver/loopback.sh
// runs it against hmtt_link_sender in another process).
//
//   receiver_live_bench --udp 7400-7402 --duration 120 [--idle-stop 2] [--store OUT.hmtt] [--rcvbuf-mb 256]
// --idle-stop S ends the capture S seconds after the last frame (the socket buffers drained).
#include <sys/resource.h>

#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "counting_sink.h"
#include "hmtt/host/capture.h"
#include "hmtt/host/udp_source.h"

using namespace hmtt;

int main(int argc, char** argv) {
  CLI::App app{
      "Receiver benchmark, live side: listens on UDP ports on 127.0.0.1 for a fixed time (against "
      "hmtt_link_sender; bench/receiver/loopback.sh runs both) and prints what arrived and what was lost as "
      "one JSON object; per-link lines go to stderr."};
  std::string ports_text = "7400-7402", store_path;
  double duration = 10;
  int rcvbuf_mb = 256;
  double idle_stop = 0;
  app.add_option("--udp", ports_text, "UDP ports, one per link (P, P-Q or P,Q,...)")->capture_default_str();
  app.add_option("--duration", duration, "seconds to listen")->capture_default_str()->check(CLI::Range(0.0, 86400.0));
  app.add_option("--idle-stop", idle_stop, "end S seconds after the last frame (0: never)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 86400.0));
  app.add_option("--store", store_path, "write the capture to this trace store (default: count only)");
  app.add_option("--rcvbuf-mb", rcvbuf_mb, "socket receive buffer per link, MiB")
      ->capture_default_str()
      ->check(CLI::Range(1, 2047));
  CLI11_PARSE(app, argc, argv);
  auto ports = host::parse_ports(ports_text);
  if (!ports) {
    std::fprintf(stderr, "%s\n", ports.error().message.c_str());
    return 2;
  }
  host::UdpOptions uo;
  uo.address = "127.0.0.1";
  uo.receive_buffer_bytes = rcvbuf_mb << 20;
  auto src = host::UdpSource::open(*ports, uo);
  if (!src) {
    std::fprintf(stderr, "%s\n", src.error().message.c_str());
    return 1;
  }
  const int granted = (*src)->receive_buffer_bytes();
  std::vector<std::unique_ptr<host::LinkSource>> sources;
  sources.push_back(std::move(*src));
  bench::BenchSink sink;
  if (Status st = sink.open(store_path); !st) {
    std::fprintf(stderr, "%s\n", st.error().message.c_str());
    return 1;
  }
  host::ReceiverOptions ro;
  ro.live = true;
  ro.ports.base = (*ports)[0];
  host::Receiver rx(sink.get(), ro);
  host::StopSignal stop;
  host::CaptureOptions co;
  co.duration_s = duration;
  co.idle_stop_s = idle_stop;
  auto st = host::run_capture(sources, rx, co, &stop, {});
  if (!st) {
    std::fprintf(stderr, "%s\n", st.error().message.c_str());
    return 1;
  }
  std::uint64_t late = 0, dup = 0;
  for (const auto& l : st->links) {
    late += l.late_frames;
    dup += l.duplicate_frames;
  }
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  const double cpu = static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
                     static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
  std::printf("{\"cpu_s\": %.2f, \"ns_cpu_per_ref\": %.2f, ", cpu,
              cpu * 1e9 / static_cast<double>(st->totals.references_out ? st->totals.references_out : 1));
  std::printf("\"sink\": \"%s\", \"seconds\": %.2f, \"rcvbuf_bytes\": %d, \"packets\": %llu, \"frames\": %llu, "
              "\"references\": %llu, \"gap_frames\": %llu, \"late_frames\": %llu, \"duplicate_frames\": %llu, "
              "\"bad_frames\": %llu, \"kernel_drops\": %llu, \"too_late_references\": %llu}\n",
              store_path.empty() ? "counting" : "store", st->elapsed_s, granted,
              static_cast<unsigned long long>(st->packets), static_cast<unsigned long long>(st->totals.frames),
              static_cast<unsigned long long>(st->totals.references_out),
              static_cast<unsigned long long>(st->totals.gap_frames), static_cast<unsigned long long>(late),
              static_cast<unsigned long long>(dup), static_cast<unsigned long long>(st->totals.bad_frames),
              static_cast<unsigned long long>(st->kernel_drops),
              static_cast<unsigned long long>(st->totals.too_late_refs));
  for (const auto& l : st->links)
    std::fprintf(stderr, "link %u/%u: frames %llu gap %llu late %llu too-late %llu\n", l.board, l.link,
                 static_cast<unsigned long long>(l.frames), static_cast<unsigned long long>(l.gap_frames),
                 static_cast<unsigned long long>(l.late_frames), static_cast<unsigned long long>(l.too_late_frames));
  return 0;
}
