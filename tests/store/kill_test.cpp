// A writer killed at any moment leaves a file that opens and holds every
// committed chunk: fork a writer, SIGKILL it at a random point, open the file
// and check every chunk against the generator, and that none the writer
// reported committed is missing. With WriterOptions::sync and without it (no
// fdatasync at all: a killed process must lose nothing either way).
#include "store_test.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <thread>

#include "hmtt/store/store.h"
#include "hmtt/stream.h"

using namespace hmtt;
using namespace hmtt::store;
using hmtt::store::test::synthetic_reference;
using hmtt::store::test::TempDir;

namespace {

constexpr std::uint32_t kChunkRefs = 4096;

// The child: writes the synthetic stream (plus a side-table row now and then) until killed,
// reporting committed_chunks() on the pipe after every batch.
[[noreturn]] void run_writer(const std::string& path, int fd, bool sync) {
  WriterOptions opt;
  opt.chunk_refs = kChunkRefs;
  opt.sync = sync;
  CaptureInfo info;
  info.source = "kill-test";
  auto w = StoreWriter::create(path, info, opt);
  if (!w) _exit(2);
  std::vector<Reference> batch(1000);
  std::uint64_t next = 0;
  for (int round = 0; round < 200000; ++round) {
    for (auto& r : batch) r = synthetic_reference(next++);
    if (!(*w)->write(batch).ok()) _exit(3);
    if (round % 50 == 0) {
      Event e{batch.back().time, EventType::Tag, 0, 0, static_cast<std::uint64_t>(round), false, "tick"};
      if (!(*w)->add_events({&e, 1}).ok()) _exit(4);
    }
    std::uint64_t committed = (*w)->committed_chunks();
    if (write(fd, &committed, sizeof committed) != sizeof committed) _exit(5);
  }
  _exit(0);
}

// `trials` writers, each SIGKILLed at a random point (the first during creation); returns how many
// were killed (the rest finished or failed before the signal).
int kill_writers(bool sync, int trials, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  int kills = 0;
  for (int trial = 0; trial < trials; ++trial) {
    TempDir dir;
    const auto path = dir.file("killed.hmtt");
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    std::fflush(nullptr);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      close(fds[0]);
      run_writer(path, fds[1], sync);
    }
    close(fds[1]);
    // Trial 0 kills during creation; the rest at random points up to ~0.4 s in.
    const auto delay = std::chrono::microseconds(trial == 0 ? 200 : 1000 + rng() % 400000);
    std::this_thread::sleep_for(delay);
    kill(pid, SIGKILL);
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    if (WIFSIGNALED(status)) ++kills;
    std::uint64_t reported = 0, v = 0;
    while (read(fds[0], &v, sizeof v) == sizeof v) reported = v;
    close(fds[0]);
    INFO("sync " << sync << ", trial " << trial << ", killed after " << delay.count() << " us, writer reported " << reported << " chunks");

    MESSAGE(std::string(sync ? "sync" : "no sync") << ", trial " << trial << ": killed after " << delay.count() << " us, " << reported << " chunks reported committed");
    if (!std::filesystem::exists(path)) {
      CHECK(reported == 0);  // killed before the empty store was renamed into place
      continue;
    }
    auto r = StoreReader::open(path);
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    auto s = (*r)->summary();
    REQUIRE(s.ok());
    CHECK(s->chunks >= reported);
    CHECK(s->references == s->chunks * kChunkRefs);
    auto src = (*r)->references();
    REQUIRE(src.ok());
    auto all = collect(**src);
    REQUIRE_MESSAGE(all.ok(), (all.ok() ? "" : all.error().message));
    REQUIRE(all->size() == s->references);
    std::uint64_t bad = 0;
    for (std::uint64_t i = 0; i < all->size(); ++i) bad += !((*all)[i] == synthetic_reference(i));
    CHECK(bad == 0);
    auto ev = (*r)->events();
    REQUIRE(ev.ok());
    CHECK(*(*r)->meta("finished") == "0");
    if (!sync) CHECK(*(*r)->meta("sync") == "off");  // the file says it was written without fdatasync
  }
  return kills;
}

}  // namespace

TEST_CASE("a writer killed at random points leaves every committed chunk intact") {
  CHECK(kill_writers(true, 8, 2026) >= 7);
}

TEST_CASE("without fdatasync (WriterOptions::sync off) a killed writer still keeps every committed chunk") {
  CHECK(kill_writers(false, 6, 2027) >= 5);
}

// A full disk (here: RLIMIT_FSIZE, so that writes past 6 MiB fail with EFBIG): the writer stops
// with an error that names the file, never crashes or hangs, and the file keeps every chunk the
// writer reported committed. The WAL is checkpointed every 1 MiB here and held under 2 MiB, so the
// database file reaches 6 MiB first: the failing writes are the checkpoints' into it (on the
// checkpointer's thread and connection, through the hmtt-batch VFS, which buffers them).
TEST_CASE("a writer that runs out of room stops with an error naming the file and keeps its committed chunks") {
  for (const bool sync : {true, false}) {
    TempDir dir;
    const auto path = dir.file("full.hmtt");
    const auto err_path = dir.file("full.err");
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    std::fflush(nullptr);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      close(fds[0]);
      alarm(120);  // a hang fails the test (killed by SIGALRM) instead of stalling the suite
      signal(SIGXFSZ, SIG_IGN);
      const rlimit lim{6u << 20, 6u << 20};
      if (setrlimit(RLIMIT_FSIZE, &lim) != 0) _exit(2);
      WriterOptions opt;
      opt.chunk_refs = kChunkRefs;
      opt.sync = sync;
      opt.checkpoint_bytes = 1u << 20;
      auto w = StoreWriter::create(path, {}, opt);
      if (!w) _exit(3);
      std::vector<Reference> batch(1000);
      std::uint64_t next = 0;
      Status st = Status::success();
      while (st && next < 50'000'000) {
        for (auto& r : batch) r = synthetic_reference(next++);
        st = (*w)->write(batch);
        const std::uint64_t committed = (*w)->committed_chunks();
        if (write(fds[1], &committed, sizeof committed) != sizeof committed) _exit(5);
      }
      if (st) _exit(6);  // 50 M references fit in 6 MiB: the limit did not bite
      Status fin = (*w)->finish();  // after the error: must return, not hang
      std::ofstream(err_path) << st.error().message << "\n" << (fin ? std::string("finish ok") : fin.error().message);
      _exit(10);
    }
    close(fds[1]);
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    std::uint64_t reported = 0, v = 0;
    while (read(fds[0], &v, sizeof v) == sizeof v) reported = v;
    close(fds[0]);
    INFO("sync " << sync << ", writer reported " << reported << " chunks");
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 10);
    std::ifstream in(err_path);
    std::string message;
    std::getline(in, message);
    MESSAGE(std::string(sync ? "sync" : "no sync") << ": " << reported << " chunks committed, then: " << message);
    CHECK(message.find(path) != std::string::npos);
    CHECK(reported > 0);
    // The first failed write into the file stops the writer: its WAL never grew past the 2 MiB
    // under which it is held (with the failure dropped, commits went on until the WAL too ran
    // into the limit), and the error says it was a checkpoint's.
    const auto wal_bytes = std::filesystem::file_size(path + "-wal");
    MESSAGE("WAL left: " << wal_bytes << " bytes");
    CHECK(wal_bytes < (3u << 20));
    CHECK(message.find("checkpoint") != std::string::npos);
    auto r = StoreReader::open(path);
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    auto s = (*r)->summary();
    REQUIRE(s.ok());
    CHECK(s->chunks >= reported);
    auto src = (*r)->references();
    REQUIRE(src.ok());
    auto all = collect(**src);
    REQUIRE_MESSAGE(all.ok(), (all.ok() ? "" : all.error().message));
    REQUIRE(all->size() == s->chunks * kChunkRefs);
    std::uint64_t bad = 0;
    for (std::uint64_t i = 0; i < all->size(); ++i) bad += !((*all)[i] == synthetic_reference(i));
    CHECK(bad == 0);
  }
}
