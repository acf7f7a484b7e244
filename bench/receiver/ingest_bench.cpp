// Receiver benchmark: pcap-file ingest (read, classify, check, decode, merge,
// store) in references/s, beside plain LZ4 compression of the same file bytes
// as the baseline, measured in the same run (docs/benchmarks.md, "Receiver").
//
//   receiver_ingest_bench FILE.pcap [--store OUT.hmtt] [--repeat N]
// Without --store the references go to a counting sink (the receiver alone).
#include <lz4.h>
#include <sys/resource.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "hmtt/host/capture.h"
#include "counting_sink.h"
#include "hmtt/host/pcap_source.h"

using namespace hmtt;

namespace {


double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage =
      "usage: receiver_ingest_bench FILE.pcap [--store OUT.hmtt] [--repeat N] [--threads 0|1] [--ingest-only]\n"
      "                             [--horizon REFS] [--no-sync] [--json]\n"
      "pcap-file ingest (read, check, decode, merge, and with --store write the trace store) in references/s,\n"
      "beside plain LZ4 compression of the same file bytes measured in the same run (docs/benchmarks.md,\n"
      "\"Receiver\"). Each is run --repeat times (default 3) and the fastest run is printed, as JSON\n"
      "(with or without --json).\n"
      "--threads 0: no reader thread. --ingest-only: skip the LZ4 baseline (to profile the ingest alone).\n"
      "--horizon: references the merge may hold (the receiver's default when not given).\n"
      "--no-sync: the store is written without fdatasync (`hmtt capture --no-sync`).\n";
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string path = argv[1];
  if (path.size() > 1 && path[0] == '-') {
    std::fprintf(stderr, "receiver_ingest_bench: unknown option %s (the capture file comes first)\n%s", path.c_str(), usage);
    return 2;
  }
  std::string store_path;
  int repeat = 3;
  host::ReceiverOptions ro;
  bool threads = true, ingest_only = false, sync = true;
  for (int i = 2; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--ingest-only") {
      ingest_only = true;
      continue;
    }
    if (k == "--no-sync") {
      sync = false;
      continue;
    }
    if (k == "--json") continue;  // the output is JSON already (every bench program takes --json)
    if (k == "--help" || k == "-h") {
      std::fputs(usage, stdout);
      return 0;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "receiver_ingest_bench: %s needs a value\n%s", k.c_str(), usage);
      return 2;
    }
    const std::string v = argv[++i];
    auto number = [&]() -> int {
      int x = 0;
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
      if (ec != std::errc() || end != v.data() + v.size() || v.empty() || x < 0) {
        std::fprintf(stderr, "receiver_ingest_bench: %s: '%s' is not a whole number\n", k.c_str(), v.c_str());
        std::exit(2);
      }
      return x;
    };
    if (k == "--store") store_path = v;
    else if (k == "--repeat") repeat = std::max(1, number());
    else if (k == "--threads") threads = number() != 0;
    else if (k == "--horizon") ro.horizon_refs = static_cast<std::size_t>(std::max(1, number()));
    else {
      std::fprintf(stderr, "receiver_ingest_bench: unknown option %s\n%s", k.c_str(), usage);
      return 2;
    }
  }
  std::vector<char> bytes;
  {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) {
      std::fprintf(stderr, "receiver_ingest_bench: %s: cannot open\n", path.c_str());
      return 1;
    }
    if (!ingest_only) {
      bytes.resize(static_cast<std::size_t>(in.tellg()));
      in.seekg(0);
      in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
  }

  // Baseline: LZ4 (default level) over the same bytes, 64 KiB blocks.
  double best_lz4 = 1e30, best_lz4_cpu = 1e30;
  std::size_t lz4_out = 0;
  std::vector<char> out(static_cast<std::size_t>(LZ4_compressBound(65536)));
  for (int r = 0; r < (ingest_only ? 0 : repeat); ++r) {
    const auto t = std::chrono::steady_clock::now();
    const double c0 = cpu_seconds();
    std::size_t total = 0;
    for (std::size_t at = 0; at < bytes.size(); at += 65536) {
      const int n = static_cast<int>(std::min<std::size_t>(65536, bytes.size() - at));
      total += static_cast<std::size_t>(LZ4_compress_default(bytes.data() + at, out.data(), n, static_cast<int>(out.size())));
    }
    best_lz4 = std::min(best_lz4, seconds_since(t));
    best_lz4_cpu = std::min(best_lz4_cpu, cpu_seconds() - c0);
    lz4_out = total;
  }

  double best = 1e30, best_cpu = 0;
  host::CaptureStatus last;
  for (int r = 0; r < repeat; ++r) {
    auto src = host::PcapSource::open_file(path);
    if (!src) {
      std::fprintf(stderr, "%s\n", src.error().message.c_str());
      return 1;
    }
    std::vector<std::unique_ptr<host::LinkSource>> sources;
    sources.push_back(std::move(*src));
    bench::BenchSink sink;
    if (Status st = sink.open(store_path, sync); !st) {
      std::fprintf(stderr, "%s\n", st.error().message.c_str());
      return 1;
    }
    host::Receiver rx(sink.get(), ro);
    host::CaptureOptions co;
    co.reader_threads = threads;
    const double c0 = cpu_seconds();
    const auto t = std::chrono::steady_clock::now();
    auto st = host::run_capture(sources, rx, co, nullptr, {});
    const double s = seconds_since(t);
    const double cpu = cpu_seconds() - c0;
    if (!st) {
      std::fprintf(stderr, "%s\n", st.error().message.c_str());
      return 1;
    }
    if (s < best) {
      best = s;
      best_cpu = cpu;
      last = *st;
    }
  }
  const double refs = static_cast<double>(last.totals.references_out);
  const double mb = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  std::printf("{\"file\": \"%s\", \"file_mb\": %.1f, \"references\": %.0f, \"sink\": \"%s\", \"sync\": %s,\n",
              path.c_str(), mb, refs, store_path.empty() ? "counting" : "store", sync ? "true" : "false");
  std::printf(" \"reader_thread\": %s, \"ingest_s\": %.3f, \"ingest_cpu_s\": %.3f, \"ingest_refs_per_s\": %.0f, "
              "\"ingest_refs_per_cpu_s\": %.0f, \"ingest_mb_per_s\": %.1f,\n",
              threads ? "true" : "false", best, best_cpu, refs / best, refs / best_cpu, mb / best);
  if (ingest_only) {
    std::printf(" \"lz4_s\": null, \"lz4_cpu_s\": null, \"lz4_mb_per_s\": null, \"lz4_ratio\": null, "
                "\"ingest_time_over_lz4_time\": null, \"ingest_cpu_over_lz4_cpu\": null,\n");
  } else {
    std::printf(" \"lz4_s\": %.3f, \"lz4_cpu_s\": %.3f, \"lz4_mb_per_s\": %.1f, \"lz4_ratio\": %.3f, "
                "\"ingest_time_over_lz4_time\": %.2f, \"ingest_cpu_over_lz4_cpu\": %.2f,\n",
                best_lz4, best_lz4_cpu, mb / best_lz4, static_cast<double>(lz4_out) / static_cast<double>(bytes.size()),
                best / best_lz4, best_cpu / best_lz4_cpu);
  }
  std::printf(" \"gap_frames\": %llu, \"bad_frames\": %llu}\n", static_cast<unsigned long long>(last.totals.gap_frames),
              static_cast<unsigned long long>(last.totals.bad_frames));
  return 0;
}
