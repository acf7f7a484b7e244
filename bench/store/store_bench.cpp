// Trace store benchmark (docs/benchmarks.md, "Trace store").
//
// On the same references, in one run: store write and read throughput
// (references/s, file on disk, SQLite included), the chunk codec alone, and
// the baseline: plain LZ4 (LZ4_compress_default / LZ4_decompress_safe) over
// 8-byte packed records in blocks of the same size as a chunk. Figures are
// printed as ratios against that baseline.
//
// Data sets: a synthetic mix (sequential streams, strided streams, random
// accesses, in bursts) and, when valgrind is installed, a Valgrind lackey
// trace of a real program (gzip compressing a generated text), parsed here.
//
// Usage: store_bench [--refs N] [--lackey-refs N] [--lackey-cache FILE] [--skip-mix] [--keep] [--dir DIR]
//                    [--accel A] [--chunk-refs N] [--page-size B] [--no-sync] [--repeat N] [--json]
// --repeat N (default 3) runs every phase, the LZ4 baseline included, N times on the same data and
// prints each phase's fastest run (wall clock) with that run's CPU time: the run least disturbed by
// other work on the machine.
// --no-sync writes the stores with WriterOptions::sync off (no fdatasync: the figure of `hmtt capture
// --no-sync`; see docs/store.md, "Durability").
// --keep leaves the written stores (DIR/bench-NAME.hmtt) for `hmtt info` and sqlite3.
// --lackey-cache keeps the parsed lackey references in FILE (raw 24-byte records) for later runs.
#include <lz4.h>

#include <time.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "hmtt/store/chunk.h"
#include "hmtt/store/store.h"

using namespace hmtt;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// CPU seconds used by the whole process (all threads). Other jobs on the machine slow the wall clock,
// not this: the bench reports both.
double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string load_average() {
  std::FILE* f = std::fopen("/proc/loadavg", "r");
  if (!f) return "?";
  char buf[64] = {};
  if (!std::fgets(buf, sizeof buf, f)) buf[0] = 0;
  std::fclose(f);
  std::string s(buf);
  return s.substr(0, s.find(' '));
}

// Sequential streams, strided streams and random accesses, interleaved in bursts.
std::vector<Reference> synthetic_mix(std::uint64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  struct Stream {
    std::uint64_t addr, stride;
    Kind kind;
  };
  std::vector<Stream> streams = {
      {0x10000000, 64, Kind::Read},    {0x24000000, 64, Kind::Read},  {0x38000000, 64, Kind::Write},
      {0x4C000000, 64, Kind::Read},    {0x60000000, 4096, Kind::Read}, {0x70000000, 256, Kind::Write},
      {0x7C000000, 64 * 9, Kind::Read},
  };
  std::vector<Reference> v;
  v.reserve(n);
  std::uint64_t t = 0;
  while (v.size() < n) {
    const std::uint64_t pick = rng() % 10;
    const std::uint64_t run = 1 + rng() % 16;
    for (std::uint64_t j = 0; j < run && v.size() < n; ++j) {
      t += 1 + (rng() % 8 == 0 ? rng() % 40 : rng() % 4);
      Reference r;
      r.time = t;
      r.size = 64;
      if (pick < streams.size()) {
        Stream& s = streams[pick];
        r.address = s.addr;
        r.kind = s.kind;
        s.addr += s.stride;
      } else {  // random line in 4 GiB, read 3 : write 1
        r.address = (rng() & 0xFFFFFFFFULL) & ~std::uint64_t{63};
        r.kind = rng() % 4 == 0 ? Kind::Write : Kind::Read;
      }
      v.push_back(r);
    }
  }
  return v;
}

// Runs `valgrind --tool=lackey --trace-mem=yes gzip -c FILE` and parses up to n references
// (lines " L addr,size", " S ...", " M ...", "I  ..."); time = record index.
std::vector<Reference> lackey_trace(std::uint64_t n, const std::string& dir, std::string& note) {
  std::vector<Reference> v;
  if (std::system("command -v valgrind >/dev/null 2>&1 && command -v gzip >/dev/null 2>&1") != 0) {
    note = "valgrind or gzip not installed: no real-program trace";
    return v;
  }
  const std::string input = dir + "/lackey-input.txt";
  {
    std::FILE* f = std::fopen(input.c_str(), "w");
    if (!f) {
      note = "cannot write " + input;
      return v;
    }
    std::mt19937_64 rng(3);
    static const char* words[] = {"memory", "trace", "board", "dimm", "ddr", "command", "bank", "row", "column",
                                  "refresh", "precharge", "activate", "read", "write", "burst", "latency"};
    for (int i = 0; i < 60000; ++i) std::fprintf(f, "%s%c", words[rng() % 16], rng() % 9 == 0 ? '\n' : ' ');
    std::fclose(f);
  }
  const std::string cmd = "valgrind --tool=lackey --trace-mem=yes --log-fd=1 gzip -c " + input + " 2>/dev/null";
  std::FILE* p = popen(cmd.c_str(), "r");
  if (!p) {
    note = "cannot run valgrind";
    return v;
  }
  char line[256];
  v.reserve(n);
  while (v.size() < n && std::fgets(line, sizeof line, p)) {
    Kind k;
    const char* s = line;
    if (s[0] == 'I' && s[1] == ' ') {
      k = Kind::IFetch;
    } else if (s[0] == ' ' && (s[1] == 'L' || s[1] == 'S' || s[1] == 'M')) {
      k = s[1] == 'L' ? Kind::Read : s[1] == 'S' ? Kind::Write : Kind::Modify;
    } else {
      continue;  // valgrind's own messages (==pid==) and gzip's output
    }
    char* end = nullptr;
    const std::uint64_t addr = std::strtoull(s + 3, &end, 16);
    if (!end || *end != ',') continue;
    const auto size = static_cast<std::uint32_t>(std::strtoul(end + 1, nullptr, 10));
    Reference r;
    r.time = v.size();
    r.address = addr;
    r.size = size;
    r.kind = k;
    v.push_back(r);
  }
  // Stop valgrind if we left it mid-run.
  pclose(p);
  note = "valgrind --tool=lackey --trace-mem=yes gzip -c <" + std::to_string(std::filesystem::file_size(input)) +
         "-byte generated text>, first " + std::to_string(v.size()) + " references";
  std::filesystem::remove(input);
  return v;
}

// The baseline record: 8 bytes, little-endian: bits 0-47 address, 48-49 kind, 50-63 time delta (saturated).
std::vector<std::uint64_t> pack8(const std::vector<Reference>& refs) {
  std::vector<std::uint64_t> out(refs.size());
  std::uint64_t prev = refs.empty() ? 0 : refs[0].time;
  for (std::size_t i = 0; i < refs.size(); ++i) {
    const std::uint64_t dt = std::min<std::uint64_t>(refs[i].time - prev, (1u << 14) - 1);
    prev = refs[i].time;
    out[i] = (refs[i].address & 0xFFFFFFFFFFFFULL) | (std::uint64_t{static_cast<std::uint8_t>(refs[i].kind)} << 48) |
             (dt << 50);
  }
  return out;
}

struct Figures {
  std::string name;
  std::uint64_t refs = 0;
  bool sync = true;  // the store written with WriterOptions::sync (no --no-sync)
  double write_s = 0, read_s = 0, encode_s = 0, decode_s = 0;
  // Inside the write: create() and finish(); inside the codec's encode and decode: each stage
  // (ChunkColumns::split, pack_chunk; ChunkDecoder::load, next), summed over the chunks.
  double create_s = 0, finish_s = 0, split_s = 0, pack_s = 0, load_s = 0, next_s = 0;
  // The writer's own way to split (after the check-and-copy that collects the chunk's summary).
  double copy_s = 0, writer_split_s = 0;
  double lz4_c_s = 0, lz4_d_s = 0;
  // The same phases in process CPU seconds.
  double write_cpu = 0, read_cpu = 0, encode_cpu = 0, decode_cpu = 0, lz4_c_cpu = 0, lz4_d_cpu = 0;
  std::string load_before, load_after;
  std::uint64_t store_blob_bytes = 0, file_bytes = 0, lz4_bytes = 0;
  int runs = 1;
};

// Each phase's fastest run of a and b (the sizes are the same in every run).
Figures best_of(Figures a, const Figures& b) {
  auto pick = [](double& s, double& cpu, double s2, double cpu2) {
    if (s2 < s) {
      s = s2;
      cpu = cpu2;
    }
  };
  pick(a.write_s, a.write_cpu, b.write_s, b.write_cpu);
  pick(a.read_s, a.read_cpu, b.read_s, b.read_cpu);
  pick(a.encode_s, a.encode_cpu, b.encode_s, b.encode_cpu);
  pick(a.decode_s, a.decode_cpu, b.decode_s, b.decode_cpu);
  pick(a.lz4_c_s, a.lz4_c_cpu, b.lz4_c_s, b.lz4_c_cpu);
  pick(a.lz4_d_s, a.lz4_d_cpu, b.lz4_d_s, b.lz4_d_cpu);
  for (auto [x, y] : {std::pair{&a.create_s, b.create_s}, {&a.finish_s, b.finish_s}, {&a.split_s, b.split_s},
                      {&a.pack_s, b.pack_s}, {&a.load_s, b.load_s}, {&a.next_s, b.next_s},
                      {&a.copy_s, b.copy_s}, {&a.writer_split_s, b.writer_split_s}}) {
    *x = std::min(*x, y);
  }
  a.load_after = b.load_after;
  a.runs += b.runs;
  return a;
}

// What a run writes and how (the command line's options).
struct RunOptions {
  std::string dir = std::filesystem::temp_directory_path().string();
  int accel = 1;                                           // --accel: LZ4 acceleration
  std::uint32_t chunk_refs = store::WriterOptions{}.chunk_refs;
  std::uint32_t page_size = 0;                             // --page-size: SQLite page size (0 = the writer's default)
  bool keep = false;                                       // --keep: leave the written stores in --dir
  bool write_only = false;                                 // --write-only: the store write phase alone (to profile it)
  bool sync = true;                                        // --no-sync: WriterOptions::sync off
};

Figures run(const std::string& name, const std::vector<Reference>& refs, const RunOptions& o) {
  const std::string& dir = o.dir;
  const std::uint32_t chunk_refs = o.chunk_refs;
  Figures f;
  f.name = name;
  f.sync = o.sync;
  f.load_before = load_average();
  f.refs = refs.size();
  const std::string path = dir + "/bench-" + name + ".hmtt";
  // Store write.
  {
    store::WriterOptions opt;
    opt.overwrite = true;
    opt.lz4_acceleration = o.accel;
    opt.chunk_refs = chunk_refs;
    if (o.page_size) opt.page_size = o.page_size;
    opt.sync = o.sync;
    auto t0 = Clock::now();
    const double c0 = cpu_now();
    auto w = store::StoreWriter::create(path, {}, opt);
    f.create_s = seconds_since(t0);
    if (!w) {
      std::fprintf(stderr, "store_bench: %s\n", w.error().message.c_str());
      std::exit(1);
    }
    for (std::size_t at = 0; at < refs.size(); at += 4096) {
      std::size_t n = std::min<std::size_t>(4096, refs.size() - at);
      if (Status ws = (*w)->write({refs.data() + at, n}); !ws) {
        std::fprintf(stderr, "store_bench: %s\n", ws.error().message.c_str());
        std::exit(1);
      }
    }
    const auto t_finish = Clock::now();
    Status st = (*w)->finish();
    f.finish_s = seconds_since(t_finish);
    if (!st) {
      std::fprintf(stderr, "store_bench: %s\n", st.error().message.c_str());
      std::exit(1);
    }
    w->reset();
    f.write_s = seconds_since(t0);
    f.write_cpu = cpu_now() - c0;
    f.file_bytes = std::filesystem::file_size(path);
  }
  if (o.write_only) {
    if (!o.keep) std::filesystem::remove(path);
    f.load_after = load_average();
    return f;
  }
  // Store read (file in the OS cache, as right after a capture).
  {
    auto t0 = Clock::now();
    const double c0 = cpu_now();
    auto r = store::StoreReader::open(path);
    if (!r) std::exit(1);
    auto s = (*r)->summary();
    f.store_blob_bytes = s->compressed_bytes;
    auto src = (*r)->references();
    std::vector<Reference> buf(4096);
    std::uint64_t n = 0, check = 0;
    for (;;) {
      auto got = (*src)->read(buf);
      if (!got) {
        std::fprintf(stderr, "store_bench: %s\n", got.error().message.c_str());
        std::exit(1);
      }
      if (*got == 0) break;
      n += *got;
      check += buf[0].address + buf[*got - 1].time;
    }
    f.read_s = seconds_since(t0);
    f.read_cpu = cpu_now() - c0;
    if (n != refs.size()) {
      std::fprintf(stderr, "store_bench: read %" PRIu64 " references, wrote %zu\n", n, refs.size());
      std::exit(1);
    }
    if (check == 42) std::printf(" ");
  }
  if (!o.keep) std::filesystem::remove(path);
  // Chunk codec alone, one thread.
  {
    store::ChunkColumns cols;
    store::ScratchVector<std::uint8_t> blob;
    std::vector<std::vector<std::uint8_t>> blobs;
    blobs.reserve(refs.size() / chunk_refs + 1);
    auto t0 = Clock::now();
    double c0 = cpu_now();
    for (std::size_t at = 0; at < refs.size(); at += chunk_refs) {
      std::size_t n = std::min<std::size_t>(chunk_refs, refs.size() - at);
      const auto s0 = Clock::now();
      if (!cols.split({refs.data() + at, n}).ok()) std::exit(1);
      const auto s1 = Clock::now();
      std::size_t len = store::pack_chunk(cols, o.accel, blob);
      f.split_s += std::chrono::duration<double>(s1 - s0).count();
      f.pack_s += seconds_since(s1);
      blobs.emplace_back(blob.begin(), blob.begin() + static_cast<std::ptrdiff_t>(len));
    }
    f.encode_s = seconds_since(t0);
    f.encode_cpu = cpu_now() - c0;
    // The same chunks split as the store writer splits them: check_and_copy_references into a chunk
    // buffer (which collects the summary), then split with that summary (not in the encode figures).
    {
      std::vector<Reference> chunk(chunk_refs);
      for (std::size_t at = 0; at < refs.size(); at += chunk_refs) {
        const std::size_t n = std::min<std::size_t>(chunk_refs, refs.size() - at);
        store::ChunkSummary summary;
        const auto s0 = Clock::now();
        if (!store::check_and_copy_references({refs.data() + at, n}, refs[at].time, 0, chunk.data(), summary).ok()) {
          std::exit(1);
        }
        const auto s1 = Clock::now();
        if (!cols.split({chunk.data(), n}, true, &summary).ok()) std::exit(1);
        f.copy_s += std::chrono::duration<double>(s1 - s0).count();
        f.writer_split_s += seconds_since(s1);
      }
    }
    store::ChunkDecoder d;
    std::vector<Reference> buf(4096);
    std::uint64_t check = 0;
    t0 = Clock::now();
    c0 = cpu_now();
    for (const auto& b : blobs) {
      const auto s0 = Clock::now();
      if (!d.load(b).ok()) std::exit(1);
      const auto s1 = Clock::now();
      while (std::size_t got = d.next(buf)) check += buf[got - 1].address;
      f.load_s += std::chrono::duration<double>(s1 - s0).count();
      f.next_s += seconds_since(s1);
    }
    f.decode_s = seconds_since(t0);
    f.decode_cpu = cpu_now() - c0;
    if (check == 42) std::printf(" ");
  }
  // Baseline: plain LZ4 over 8-byte records, blocks of chunk_refs records.
  {
    auto packed = pack8(refs);
    const std::size_t block = chunk_refs * 8;
    std::vector<std::vector<char>> blocks;
    std::vector<char> out(static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(block))));
    blocks.reserve(packed.size() / chunk_refs + 1);
    auto t0 = Clock::now();
    double c0 = cpu_now();
    const char* src = reinterpret_cast<const char*>(packed.data());
    const std::size_t total = packed.size() * 8;
    for (std::size_t at = 0; at < total; at += block) {
      const int n = static_cast<int>(std::min(block, total - at));
      const int got = LZ4_compress_default(src + at, out.data(), n, static_cast<int>(out.size()));
      blocks.emplace_back(out.begin(), out.begin() + got);
      f.lz4_bytes += static_cast<std::uint64_t>(got);
    }
    f.lz4_c_s = seconds_since(t0);
    f.lz4_c_cpu = cpu_now() - c0;
    std::vector<char> back(block);
    std::uint64_t check = 0;
    t0 = Clock::now();
    c0 = cpu_now();
    for (const auto& b : blocks) {
      const int got = LZ4_decompress_safe(b.data(), back.data(), static_cast<int>(b.size()), static_cast<int>(block));
      check += static_cast<std::uint64_t>(got) + static_cast<std::uint8_t>(back[0]);
    }
    f.lz4_d_s = seconds_since(t0);
    f.lz4_d_cpu = cpu_now() - c0;
    if (check == 42) std::printf(" ");
  }
  f.load_after = load_average();
  return f;
}

void print(const Figures& f, bool json, bool write_only) {
  const double n = static_cast<double>(f.refs);
  const double w = n / f.write_s, r = n / f.read_s, e = n / f.encode_s, d = n / f.decode_s;
  const double lc = n / f.lz4_c_s, ld = n / f.lz4_d_s;
  const double wc = n / f.write_cpu, rc = n / f.read_cpu, ec = n / f.encode_cpu, dc = n / f.decode_cpu;
  const double lcc = n / f.lz4_c_cpu, ldc = n / f.lz4_d_cpu;
  const double bpr = static_cast<double>(f.store_blob_bytes) / n, lbpr = static_cast<double>(f.lz4_bytes) / n;
  if (json && write_only) {
    std::printf("{\"trace\":\"%s\",\"references\":%" PRIu64 ",\"load_average\":\"%s/%s\",\"store_write_refs_per_s\":%.0f,"
                "\"store_write_refs_per_cpu_s\":%.0f,\"store_file_bytes\":%" PRIu64
                ",\"store_create_ms\":%.2f,\"store_finish_ms\":%.2f,\"sync\":%s,\"runs\":%d}\n",
                f.name.c_str(), f.refs, f.load_before.c_str(), f.load_after.c_str(), w, wc, f.file_bytes,
                f.create_s * 1e3, f.finish_s * 1e3, f.sync ? "true" : "false", f.runs);
    return;
  }
  if (json) {
    std::printf(
        "{\"trace\":\"%s\",\"references\":%" PRIu64 ",\"load_average\":\"%s/%s\","
        "\"store_write_refs_per_s\":%.0f,\"store_read_refs_per_s\":%.0f,"
        "\"codec_encode_refs_per_s\":%.0f,\"codec_decode_refs_per_s\":%.0f,\"lz4_compress_refs_per_s\":%.0f,"
        "\"lz4_decompress_refs_per_s\":%.0f,\"store_write_refs_per_cpu_s\":%.0f,\"store_read_refs_per_cpu_s\":%.0f,"
        "\"codec_encode_refs_per_cpu_s\":%.0f,\"codec_decode_refs_per_cpu_s\":%.0f,"
        "\"lz4_compress_refs_per_cpu_s\":%.0f,\"lz4_decompress_refs_per_cpu_s\":%.0f,"
        "\"store_chunk_bytes\":%" PRIu64 ",\"store_file_bytes\":%" PRIu64 ",\"lz4_bytes\":%" PRIu64
        ",\"size_vs_lz4\":%.4f,\"store_create_ms\":%.2f,\"store_finish_ms\":%.2f,\"split_ns_per_ref\":%.3f,"
        "\"pack_ns_per_ref\":%.3f,\"load_ns_per_ref\":%.3f,\"next_ns_per_ref\":%.3f,"
        "\"writer_copy_ns_per_ref\":%.3f,\"writer_split_ns_per_ref\":%.3f,\"sync\":%s,\"runs\":%d}\n",
        f.name.c_str(), f.refs, f.load_before.c_str(), f.load_after.c_str(), w, r, e, d, lc, ld, wc, rc, ec, dc, lcc,
        ldc, f.store_blob_bytes, f.file_bytes, f.lz4_bytes,
        static_cast<double>(f.store_blob_bytes) / static_cast<double>(f.lz4_bytes), f.create_s * 1e3, f.finish_s * 1e3,
        f.split_s / n * 1e9, f.pack_s / n * 1e9, f.load_s / n * 1e9, f.next_s / n * 1e9, f.copy_s / n * 1e9,
        f.writer_split_s / n * 1e9, f.sync ? "true" : "false", f.runs);
    return;
  }
  std::printf("%s: %.1f M references, fastest of %d runs per phase (load average %s before, %s after)%s\n",
              f.name.c_str(), n / 1e6, f.runs, f.load_before.c_str(), f.load_after.c_str(),
              f.sync ? "" : ", stores written without fdatasync (--no-sync)");
  std::printf("                 M refs/s wall   M refs/CPU-s   vs plain LZ4 (CPU)   target (wall, idle machine)\n");
  if (write_only) {
    std::printf("  store write    %12.1f   %12.1f   (--write-only: no baseline)    >= 100\n", w / 1e6, wc / 1e6);
    std::printf("    of which create() %.1f ms, finish() %.1f ms (fastest runs)\n", f.create_s * 1e3, f.finish_s * 1e3);
    return;
  }
  std::printf("  store write    %12.1f   %12.1f   %8.2fx compress      >= 100\n", w / 1e6, wc / 1e6, wc / lcc);
  std::printf("  store read     %12.1f   %12.1f   %8.2fx decompress    >= 200\n", r / 1e6, rc / 1e6, rc / ldc);
  std::printf("  codec encode   %12.1f   %12.1f   %8.2fx compress      (one thread, no SQLite)\n", e / 1e6, ec / 1e6,
              ec / lcc);
  std::printf("  codec decode   %12.1f   %12.1f   %8.2fx decompress    (one thread, no SQLite)\n", d / 1e6, dc / 1e6,
              dc / ldc);
  std::printf("    codec stages, ns/ref (fastest runs): split %.2f, pack %.2f; load %.2f, next %.2f\n",
              f.split_s / n * 1e9, f.pack_s / n * 1e9, f.load_s / n * 1e9, f.next_s / n * 1e9);
  std::printf("    as the writer splits, ns/ref: check and copy %.2f, split with its summary %.2f\n",
              f.copy_s / n * 1e9, f.writer_split_s / n * 1e9);
  std::printf("    store write: create() %.1f ms, finish() %.1f ms (fastest runs)\n", f.create_s * 1e3, f.finish_s * 1e3);
  std::printf("  plain LZ4 compress   %6.1f   %12.1f   (8-byte records, LZ4_compress_default)\n", lc / 1e6, lcc / 1e6);
  std::printf("  plain LZ4 decompress %6.1f   %12.1f\n", ld / 1e6, ldc / 1e6);
  std::printf("  size  %.3f bytes/ref in chunks (file %.3f) vs plain LZ4 %.3f bytes/ref: %.3fx   target <= 0.5\n",
              bpr, static_cast<double>(f.file_bytes) / n, lbpr, bpr / lbpr);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t refs = 20'000'000, lackey_refs = 20'000'000;
  RunOptions o;
  bool json = false;
  bool skip_mix = false;
  int repeat = 3;
  std::string lackey_cache;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "store_bench: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    // The next argument as a whole unsigned number, or a clear error naming the option.
    auto number = [&]() -> std::uint64_t {
      const std::string v = next();
      std::uint64_t x = 0;
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
      if (ec != std::errc() || end != v.data() + v.size() || v.empty()) {
        std::fprintf(stderr, "store_bench: %s: '%s' is not an unsigned number\n", a.c_str(), v.c_str());
        std::exit(2);
      }
      return x;
    };
    if (a == "--refs") refs = number();
    else if (a == "--lackey-refs") lackey_refs = number();
    else if (a == "--dir") o.dir = next();
    else if (a == "--accel") o.accel = static_cast<int>(std::clamp<std::uint64_t>(number(), 1, 65537));
    else if (a == "--chunk-refs") o.chunk_refs = static_cast<std::uint32_t>(std::min<std::uint64_t>(number(), UINT32_MAX));
    else if (a == "--json") json = true;
    else if (a == "--lackey-cache") lackey_cache = next();
    else if (a == "--skip-mix") skip_mix = true;
    else if (a == "--keep") o.keep = true;
    else if (a == "--write-only") o.write_only = true;
    else if (a == "--no-sync") o.sync = false;
    else if (a == "--page-size") o.page_size = static_cast<std::uint32_t>(std::min<std::uint64_t>(number(), UINT32_MAX));
    else if (a == "--repeat") repeat = static_cast<int>(std::clamp<std::uint64_t>(number(), 1, 1000));
    else {
      const bool help = a == "--help" || a == "-h";
      if (!help) std::fprintf(stderr, "store_bench: unknown option %s\n", a.c_str());
      std::fprintf(help ? stdout : stderr,
                   "usage: store_bench [--refs N] [--lackey-refs N] [--lackey-cache FILE] [--skip-mix] [--keep] [--dir DIR]\n"
                   "                   [--accel A] [--chunk-refs N] [--page-size B] [--no-sync] [--repeat N] [--write-only]\n"
                   "                   [--json]\n"
                   "Store write/read and chunk codec throughput against plain LZ4 on the same references\n"
                   "(docs/benchmarks.md, \"Trace store\"). Each phase runs --repeat times (default 3); the\n"
                   "fastest run is printed. --write-only times the store write alone (to profile it).\n"
                   "--no-sync: the stores are written without fdatasync (WriterOptions::sync off).\n");
      return help ? 0 : 2;
    }
  }
  auto measure = [&](const std::string& name, const std::vector<Reference>& data) {
    Figures f = run(name, data, o);
    for (int k = 1; k < repeat; ++k) f = best_of(f, run(name, data, o));
    return f;
  };
  if (!skip_mix) {
    auto mix = synthetic_mix(refs, 1);
    print(measure("synthetic-mix", mix), json, o.write_only);
  }
  if (lackey_refs > 0) {
    std::string note;
    std::vector<Reference> lk;
    if (!lackey_cache.empty() && std::filesystem::exists(lackey_cache)) {
      lk.resize(std::filesystem::file_size(lackey_cache) / sizeof(Reference));
      std::FILE* f = std::fopen(lackey_cache.c_str(), "rb");
      if (!f || std::fread(lk.data(), sizeof(Reference), lk.size(), f) != lk.size()) return 1;
      std::fclose(f);
      if (lk.size() > lackey_refs) lk.resize(lackey_refs);
      note = "cached in " + lackey_cache + ", " + std::to_string(lk.size()) + " references";
    } else {
      lk = lackey_trace(lackey_refs, o.dir, note);
      if (!lackey_cache.empty()) {
        std::FILE* f = std::fopen(lackey_cache.c_str(), "wb");
        if (f) {
          std::fwrite(lk.data(), sizeof(Reference), lk.size(), f);
          std::fclose(f);
        }
      }
    }
    if (!json) std::printf("lackey trace: %s\n", note.c_str());
    if (!lk.empty()) print(measure("lackey-gzip", lk), json, o.write_only);
  }
  return 0;
}
