// first_touch_bench: what this machine charges for memory a process touches for the first time,
// against a copy into memory already touched (the baseline, measured in the same run).
//
// The store's writer and the receiver copy references into buffers that are fresh at the start of
// every capture (chunk buffers, the merge's frame rooms, packed BLOBs). On a paravirtualised VM a
// page fault costs microseconds, so a first copy can be tens of times slower than a warm one, and
// a short benchmark's figures move with it. This program measures that cost on the machine at
// hand, for the ways the store allocates: plain 4 KiB pages, and store::scratch_allocate's
// 2 MiB blocks advised for transparent huge pages, faulted in on first touch or populated when
// allocated (MADV_POPULATE_WRITE). Each fresh copy is timed with its allocation, and each kind is
// measured in a child process of its own, so "first alloc" is a fresh process's first. docs/benchmarks.md ("Trace store", stop 44)
// has the figures and why they matter when reading the others.
//
//   first_touch_bench [--mib N] [--repeat N] [--json]
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "hmtt/reference.h"
#include "hmtt/store/scratch.h"
#include "json_figures.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Fresh anonymous memory in 4 KiB pages (advised against huge pages, whatever the system's THP mode).
struct SmallPages {
  explicit SmallPages(std::size_t n) : bytes(n) {
    void* m = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw std::bad_alloc();
    p = m;
#ifdef MADV_NOHUGEPAGE
    (void)::madvise(p, n, MADV_NOHUGEPAGE);
#endif
  }
  ~SmallPages() { ::munmap(p, bytes); }
  SmallPages(const SmallPages&) = delete;
  SmallPages& operator=(const SmallPages&) = delete;
  void* p = nullptr;
  std::size_t bytes;
};

// Fresh memory as the store allocates its large buffers (huge pages advised), its pages faulted in
// as the copy touches them, or (`populate`) all at once as it is allocated: MADV_POPULATE_WRITE,
// one system call instead of a fault per page (tried in stop 48 for the store's buffers: no faster
// in an ingest, and no cheaper here; not used by the store).
template <bool populate>
struct ScratchBlock {
  explicit ScratchBlock(std::size_t n) : p(hmtt::store::scratch_allocate(n)) {
#ifdef MADV_POPULATE_WRITE
    // scratch_allocate's blocks are whole 2 MiB pages, 2 MiB aligned.
    constexpr std::size_t kHuge = std::size_t{2} << 20;
    if (populate) (void)::madvise(p, (n + kHuge - 1) / kHuge * kHuge, MADV_POPULATE_WRITE);
#endif
  }
  ~ScratchBlock() { std::free(p); }
  ScratchBlock(const ScratchBlock&) = delete;
  ScratchBlock& operator=(const ScratchBlock&) = delete;
  void* p;
};

struct Times {
  double once = 0;      // the first copy into the process's first allocation of this kind, s
  double first = 1e30;  // fastest first copy into fresh memory, s
  double warm = 1e30;   // fastest second copy into the same memory, s
};

template <typename Block>
Times measure(const std::vector<hmtt::Reference>& src, int repeat) {
  const std::size_t bytes = src.size() * sizeof(hmtt::Reference);
  Times t;
  for (int k = 0; k < repeat; ++k) {
    auto t0 = Clock::now();  // the allocation is timed too: populating is part of its cost
    Block b(bytes);
    std::memcpy(b.p, src.data(), bytes);
    const double s = seconds_since(t0);
    if (k == 0) t.once = s;
    t.first = std::min(t.first, s);
    t0 = Clock::now();
    std::memcpy(b.p, src.data(), bytes);
    t.warm = std::min(t.warm, seconds_since(t0));
    // Outside the timing: the copy is read back (so it cannot be optimised away) and must be exact.
    if (std::memcmp(b.p, src.data(), bytes) != 0) {
      std::fprintf(stderr, "first_touch_bench: allocation %d: the copy differs from its source\n", k + 1);
      std::exit(1);
    }
  }
  return t;
}

// measure<Block> in a child process of its own, so that "first alloc" is the first allocation of
// a process that has not yet had any fresh memory of any kind (the kinds do not warm each other).
template <typename Block>
Times measure_apart(const std::vector<hmtt::Reference>& src, int repeat) {
  int fd[2];
  if (::pipe(fd) != 0) {
    std::perror("first_touch_bench: pipe");
    std::exit(1);
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    std::perror("first_touch_bench: fork");
    std::exit(1);
  }
  if (pid == 0) {
    ::close(fd[0]);
    const Times t = measure<Block>(src, repeat);
    const bool ok = ::write(fd[1], &t, sizeof t) == static_cast<ssize_t>(sizeof t);
    ::_exit(ok ? 0 : 1);
  }
  ::close(fd[1]);
  Times t;
  const bool got = ::read(fd[0], &t, sizeof t) == static_cast<ssize_t>(sizeof t);
  ::close(fd[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "first_touch_bench: the measuring process failed\n");
    std::exit(1);
  }
  return t;
}

std::string thp_mode() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(f, line)) return "unknown";
  const auto a = line.find('['), b = line.find(']');
  return a != std::string::npos && b != std::string::npos && b > a ? line.substr(a + 1, b - a - 1) : line;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "First touch of fresh memory against a warm copy (the baseline), in 4 KiB pages and in the store's "
      "huge-page scratch blocks: nanoseconds per 24-byte reference copied, and the ratio to the warm copy. "
      "For each kind: the process's first allocation (as a fresh capture sees it) and the fastest of --repeat."};
  std::size_t mib = 36;
  int repeat = 3;
  bool json = false;
  app.add_option("--mib", mib, "size of each buffer in MiB (36: a 3 MB chunk buffer's worth twelve times)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{4096}));
  app.add_option("--repeat", repeat, "fresh allocations per kind; the fastest is printed")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app.add_flag("--json", json, "print one JSON object (the text goes to stderr)");
  CLI11_PARSE(app, argc, argv);
  std::FILE* out = json ? stderr : stdout;

  const std::size_t n = (mib << 20) / sizeof(hmtt::Reference);
  std::vector<hmtt::Reference> src(n);
  for (std::size_t i = 0; i < n; ++i) src[i].time = i;  // touched and warm before any timing
  const Times small = measure_apart<SmallPages>(src, repeat);
  const Times huge = measure_apart<ScratchBlock<false>>(src, repeat);
  const Times populated = measure_apart<ScratchBlock<true>>(src, repeat);
  const double warm = std::min({small.warm, huge.warm, populated.warm});
  auto ns = [&](double s) { return s / static_cast<double>(n) * 1e9; };

  std::fprintf(out, "first_touch_bench: %zu MiB (%zu references), fastest of %d, THP mode %s\n", mib, n, repeat,
               thp_mode().c_str());
  std::fprintf(out, "  %-34s %18s %18s\n", "copy into", "first alloc", "fastest alloc");
  std::fprintf(out, "  %-34s %18s %18s\n", "", "ns/ref (x warm)", "ns/ref (x warm)");
  std::fprintf(out, "  %-34s %18.2f %11.2f (1.00)\n", "memory already touched (baseline)", ns(warm), ns(warm));
  std::fprintf(out, "  %-34s %10.2f (%5.1f) %10.2f (%5.1f)\n", "fresh 4 KiB pages", ns(small.once),
               small.once / warm, ns(small.first), small.first / warm);
  std::fprintf(out, "  %-34s %10.2f (%5.1f) %10.2f (%5.1f)\n", "fresh scratch block (huge pages)", ns(huge.once),
               huge.once / warm, ns(huge.first), huge.first / warm);
  std::fprintf(out, "  %-34s %10.2f (%5.1f) %10.2f (%5.1f)\n", "  the same, populated when allocated", ns(populated.once),
               populated.once / warm, ns(populated.first), populated.first / warm);
  if (json) {
    hmtt::bench::JsonFigures j;
    j.text("bench", "first_touch");
    j.integer("mib", mib);
    j.integer("refs", n);
    j.integer("repeat", static_cast<unsigned long long>(repeat));
    j.text("thp", thp_mode());
    j.number("warm_ns_per_ref", ns(warm));
    j.number("small_once_ns_per_ref", ns(small.once));
    j.number("huge_once_ns_per_ref", ns(huge.once));
    j.number("small_first_ns_per_ref", ns(small.first));
    j.number("huge_first_ns_per_ref", ns(huge.first));
    j.number("small_first_over_warm", small.first / warm);
    j.number("huge_first_over_warm", huge.first / warm);
    j.number("populated_once_ns_per_ref", ns(populated.once));
    j.number("populated_first_ns_per_ref", ns(populated.first));
    j.number("populated_first_over_warm", populated.first / warm);
    j.print();
  }
  return 0;
}
