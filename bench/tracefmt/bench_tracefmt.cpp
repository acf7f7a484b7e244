// Trace-file import speed: lines per second through each reader, on files
// generated here, against two baselines measured in the same run on the same
// bytes: (1) splitting lines with memchr only (the floor any line reader pays),
// (2) a plain sscanf-per-line parser (what a quick importer would do).
//
//   bench_tracefmt [LINES [FORMAT]] [--json]   (default 20 M lines, every format; --json: one object per format)
//
// Prints one line per format and writer; figures go to docs/benchmarks.md.
// Times are this thread's CPU time (CLOCK_THREAD_CPUTIME_ID, including the
// read() system calls), so that the figures hold on a machine shared with
// other jobs; wall-clock time is printed alongside for the whole run.
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "hmtt/tracefmt/reader.h"
#include "hmtt/tracefmt/writer.h"
#include "json_figures.h"

using namespace hmtt;
using namespace hmtt::tracefmt;
#include <time.h>

// This thread's CPU time, as a clock for the measurements.
struct Clock {
  using time_point = double;
  static double now() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  }
};

namespace {

double seconds_since(double t0) { return Clock::now() - t0; }

// A realistic stream: instruction fetches walking code, loads and stores on a stack and a heap.
std::vector<Reference> make_stream(std::size_t n) {
  std::mt19937_64 rng(1);
  std::vector<Reference> refs(n);
  std::uint64_t pc = 0x401000, sp = 0x1ffefff000, heap = 0x4a0000;
  for (std::size_t i = 0; i < n; ++i) {
    Reference& r = refs[i];
    r.time = i + (rng() % 4);
    if (i > 0 && r.time < refs[i - 1].time) r.time = refs[i - 1].time;
    switch (rng() % 8) {
      case 0: case 1: case 2: case 3:
        pc += 1 + rng() % 7;
        r = Reference{r.time, pc, static_cast<std::uint32_t>(1 + rng() % 7), Kind::IFetch, Origin::Unknown, 0};
        break;
      case 4: case 5:
        r = Reference{r.time, heap + (rng() % 65536) * 8, 8, Kind::Read, Origin::Unknown, 0};
        break;
      case 6:
        r = Reference{r.time, sp - (rng() % 512) * 8, 8, Kind::Write, Origin::Unknown, 0};
        break;
      default:
        r = Reference{r.time, heap + (rng() % 4096) * 4, 4, Kind::Modify, Origin::Unknown, 0};
        break;
    }
  }
  return refs;
}

std::uint64_t memchr_lines(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  std::vector<char> buf(4u << 20);
  std::uint64_t lines = 0;
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) {
    const char* p = buf.data();
    const char* e = p + n;
    while ((p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(e - p)))) != nullptr) {
      ++lines;
      ++p;
    }
  }
  std::fclose(f);
  return lines;
}

std::uint64_t sscanf_din(const std::string& path, std::uint64_t& checksum) {
  FILE* f = std::fopen(path.c_str(), "rb");
  char line[256];
  std::uint64_t lines = 0;
  while (std::fgets(line, sizeof line, f)) {
    unsigned label = 0;
    unsigned long long addr = 0;
    if (std::sscanf(line, "%x %llx", &label, &addr) == 2) checksum += addr + label;
    ++lines;
  }
  std::fclose(f);
  return lines;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Trace-file import speed of every text format's reader (lines/s) on files generated here, against splitting "
      "the lines with memchr alone and (din) an sscanf-per-line parser, on the same bytes in the same run."};
  std::size_t n = 20'000'000;
  std::string only;
  bool json = false;
  app.add_option("LINES", n, "references per format")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 32));
  std::vector<std::string> names;
  for (Format f : kAllFormats)
    if (f != Format::Store && f != Format::Rstl) names.emplace_back(format_name(f));
  app.add_option("FORMAT", only, "only this format")->check(CLI::IsMember(names));
  app.add_flag("--json", json, "print one JSON object per format (JSON Lines; the text goes to stderr)");
  CLI11_PARSE(app, argc, argv);
  std::FILE* out = json ? stderr : stdout;
  auto dir = std::filesystem::temp_directory_path() / ("hmtt-bench-tracefmt-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::fprintf(out, "bench_tracefmt: %zu references per format, files in %s\n", n, dir.c_str());
  auto refs = make_stream(n);
  auto wall0 = std::chrono::steady_clock::now();
  for (Format f : kAllFormats) {
    if (f == Format::Store || f == Format::Rstl) continue;
    if (!only.empty() && format_name(f) != only) continue;
    std::string path = (dir / ("t." + std::string(format_name(f)))).string();
    auto t0 = Clock::now();
    {
      auto w = open_writer(path, f, WriterOptions{true});
      if (!w || !(*w)->write(refs).ok() || !(*w)->finish().ok()) {
        std::fprintf(stderr, "write failed\n");
        return 1;
      }
    }
    double wsec = seconds_since(t0);
    auto size = std::filesystem::file_size(path);
    // Warm the page cache, and measure the line-splitting floor.
    memchr_lines(path);
    t0 = Clock::now();
    std::uint64_t floor_lines = memchr_lines(path);
    double floor_sec = seconds_since(t0);
    t0 = Clock::now();
    auto reader = open_reader(path, f);
    if (!reader) {
      std::fprintf(stderr, "%s\n", reader.error().message.c_str());
      return 1;
    }
    std::vector<Reference> buf(1u << 14);
    std::uint64_t got = 0, checksum = 0;
    for (;;) {
      auto k = (*reader)->read(buf);
      if (!k) {
        std::fprintf(stderr, "%s\n", k.error().message.c_str());
        return 1;
      }
      if (*k == 0) break;
      got += *k;
      checksum += buf[0].address;
    }
    double rsec = seconds_since(t0);
    double lines = static_cast<double>((*reader)->counts().lines);
    std::fprintf(out, "%-9s %6.1f MB  write %6.1f M refs/s  read %6.1f M lines/s (%5.0f MB/s)  memchr floor %6.1f M lines/s  "
                "read/floor %.2f",
                std::string(format_name(f)).c_str(), static_cast<double>(size) / 1e6, static_cast<double>(n) / wsec / 1e6,
                lines / rsec / 1e6, static_cast<double>(size) / rsec / 1e6,
                static_cast<double>(floor_lines) / floor_sec / 1e6, floor_sec / rsec);
    double sscanf_over_read = 0;
    if (f == Format::Din) {
      std::uint64_t cs = 0;
      t0 = Clock::now();
      std::uint64_t sl = sscanf_din(path, cs);
      double ssec = seconds_since(t0);
      sscanf_over_read = ssec / rsec;
      std::fprintf(out, "  sscanf %5.1f M lines/s  read/sscanf %.1fx", static_cast<double>(sl) / ssec / 1e6, ssec / rsec);
    }
    std::fprintf(out, "%s\n", got == n ? "" : "  COUNT MISMATCH");
    if (json) {
      bench::JsonFigures row;
      row.text("format", std::string(format_name(f)));
      row.integer("references", n);
      row.number("file_mb", static_cast<double>(size) / 1e6);
      row.number("write_refs_per_s", static_cast<double>(n) / wsec);
      row.number("read_lines_per_s", lines / rsec);
      row.number("memchr_lines_per_s", static_cast<double>(floor_lines) / floor_sec);
      row.number("read_over_floor", floor_sec / rsec);
      if (f == Format::Din) row.number("read_over_sscanf", sscanf_over_read);
      row.boolean("count_matches", got == n);
      row.print();
    }
    std::filesystem::remove(path);
  }
  std::filesystem::remove_all(dir);
  std::fprintf(out, "wall time %.1f s (CPU-time figures above)\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count());
  return 0;
}
