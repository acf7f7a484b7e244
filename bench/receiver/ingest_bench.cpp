// Receiver benchmark: pcap-file ingest (read, classify, check, decode, merge,
// store) in references/s, beside plain LZ4 compression of the same file bytes
// as the baseline, measured in the same run (docs/benchmarks.md, "Receiver").
//
//   receiver_ingest_bench FILE.pcap [--store OUT.hmtt] [--repeat N]
// Without --store the references go to a counting sink (the receiver alone).
#include <lz4.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "hmtt/host/capture.h"
#include "counting_sink.h"
#include "hmtt/host/pcap_source.h"
#if HMTT_HOST_HAS_STORE
#include "hmtt/host/store_sink.h"
#endif

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
  if (argc < 2) {
    std::fprintf(stderr, "usage: receiver_ingest_bench FILE.pcap [--store OUT.hmtt] [--repeat N]\n");
    return 2;
  }
  const std::string path = argv[1];
  std::string store_path;
  int repeat = 3;
  bool threads = true;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--store") store_path = argv[i + 1];
    else if (k == "--repeat") repeat = std::stoi(argv[i + 1]);
    else if (k == "--threads") threads = std::stoi(argv[i + 1]) != 0;
  }
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

  // Baseline: LZ4 (default level) over the same bytes, 64 KiB blocks.
  double best_lz4 = 1e30, best_lz4_cpu = 1e30;
  std::size_t lz4_out = 0;
  std::vector<char> out(static_cast<std::size_t>(LZ4_compressBound(65536)));
  for (int r = 0; r < repeat; ++r) {
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
    bench::CountingSink counting;
    host::CaptureSink* sink = &counting;
#if HMTT_HOST_HAS_STORE
    std::unique_ptr<host::StoreCaptureSink> store_sink;
    if (!store_path.empty()) {
      store::CaptureInfo info;
      info.tick_ps = 5000;
      info.source = "board";
      store::WriterOptions wo;
      wo.overwrite = true;
      auto s = host::StoreCaptureSink::create(store_path, info, wo);
      if (!s) {
        std::fprintf(stderr, "%s\n", s.error().message.c_str());
        return 1;
      }
      store_sink = std::move(*s);
      sink = store_sink.get();
    }
#endif
    host::Receiver rx(*sink, {});
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
  const double mb = static_cast<double>(bytes.size()) / 1e6;
  std::printf("{\"file\": \"%s\", \"file_mb\": %.1f, \"references\": %.0f, \"sink\": \"%s\",\n", path.c_str(), mb, refs,
              store_path.empty() ? "counting" : "store");
  std::printf(" \"reader_thread\": %s, \"ingest_s\": %.3f, \"ingest_cpu_s\": %.3f, \"ingest_refs_per_s\": %.0f, "
              "\"ingest_refs_per_cpu_s\": %.0f, \"ingest_mb_per_s\": %.1f,\n",
              threads ? "true" : "false", best, best_cpu, refs / best, refs / best_cpu, mb / best);
  std::printf(" \"lz4_s\": %.3f, \"lz4_cpu_s\": %.3f, \"lz4_mb_per_s\": %.1f, \"lz4_ratio\": %.3f, "
              "\"ingest_time_over_lz4_time\": %.2f, \"ingest_cpu_over_lz4_cpu\": %.2f,\n",
              best_lz4, best_lz4_cpu, mb / best_lz4, static_cast<double>(lz4_out) / static_cast<double>(bytes.size()),
              best / best_lz4, best_cpu / best_lz4_cpu);
  std::printf(" \"gap_frames\": %llu, \"bad_frames\": %llu}\n", static_cast<unsigned long long>(last.totals.gap_frames),
              static_cast<unsigned long long>(last.totals.bad_frames));
  return 0;
}
