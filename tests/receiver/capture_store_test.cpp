// Captures into the trace store: a pcap file read back reference for reference,
// and `hmtt capture` stopped by SIGINT/SIGTERM while links are live, leaving a
// store that opens and holds everything the capture reported.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "frame_streams.h"
#include "hmtt/host/capture.h"
#include "hmtt/host/pcap_source.h"
#include "hmtt/host/store_sink.h"
#include "hmtt/store/store.h"
#include "hmtt/wire/ethernet.h"

extern char** environ;

using namespace hmtt;
using namespace hmtt::host;
namespace fs = std::filesystem;

TEST_CASE("pcap into the store: references, link statistics and events read back") {
  auto t = test::make_traffic(2, 3, 150000, 41);
  // Drop two frames so the store has gaps to show.
  std::vector<const test::WireFrame*> survivors;
  const fs::path pcap = fs::temp_directory_path() / "hmtt_capture_store.pcap";
  const fs::path out = fs::temp_directory_path() / "hmtt_capture_store.hmtt";
  {
    auto w = wire::PcapWriter::create(pcap.string());
    REQUIRE(w.ok());
    std::uint64_t ns = 0;
    for (std::size_t i = 0; i < t.frames.size(); ++i) {
      if (i == 100 || i == 301) continue;
      survivors.push_back(&t.frames[i]);
      const auto& f = t.frames[i];
      REQUIRE((*w)->write(wire::udp_packet({}, static_cast<std::uint8_t>(f.board), f.link, f.bytes, false), ns += 100)
                  .ok());
    }
    REQUIRE((*w)->flush().ok());
  }
  store::CaptureInfo info;
  info.tick_ps = 5000;
  info.source = "board";
  store::WriterOptions wo;
  wo.overwrite = true;
  auto sink = StoreCaptureSink::create(out.string(), info, wo);
  REQUIRE(sink.ok());
  auto src = PcapSource::open_file(pcap.string());
  REQUIRE(src.ok());
  std::vector<std::unique_ptr<LinkSource>> sources;
  sources.push_back(std::move(*src));
  Receiver rx(**sink, {});
  auto st = run_capture(sources, rx, {}, nullptr, {});
  REQUIRE(st.ok());
  sink->reset();

  auto reader = store::StoreReader::open(out.string());
  REQUIRE(reader.ok());
  auto refs_src = (*reader)->references();
  REQUIRE(refs_src.ok());
  auto refs = collect(**refs_src);
  REQUIRE(refs.ok());
  CHECK(*refs == test::expected_merge(survivors));
  auto links = (*reader)->links();
  REQUIRE(links.ok());
  REQUIRE(links->size() == 6);
  std::uint64_t gaps = 0, frames = 0;
  for (const auto& l : *links) {
    gaps += l.gap_frames;
    frames += l.frames;
  }
  CHECK(gaps == 2);
  CHECK(frames == survivors.size());
  auto events = (*reader)->events();
  REQUIRE(events.ok());
  std::uint64_t gap_events = 0, fifo = 0;
  for (const auto& e : *events) {
    if (e.type == store::EventType::SequenceGap) gap_events += e.value;
    if (e.type == store::EventType::FifoLoss) fifo += e.value;
  }
  CHECK(gap_events == 2);
  CHECK(fifo == st->totals.fifo_lost_records);
  fs::remove(pcap);
  fs::remove(out);
}

#if defined(HMTT_BIN) && defined(HMTT_SENDER_BIN)
namespace {

pid_t spawn(const std::vector<std::string>& args, const std::string& stdout_path) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (!stdout_path.empty()) posix_spawn_file_actions_addopen(&fa, 1, stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ) == 0);
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

}  // namespace

TEST_CASE("hmtt capture stopped by SIGINT or SIGTERM leaves a finished store with everything it reported") {
  const int base = 37400 + (getpid() % 400) * 4;
  int round = 0;
  for (int sig : {SIGINT, SIGTERM}) {
    const fs::path out = fs::temp_directory_path() / ("hmtt_sig_" + std::to_string(round) + ".hmtt");
    const fs::path json = fs::temp_directory_path() / ("hmtt_sig_" + std::to_string(round) + ".json");
    fs::remove(out);
    const std::string ports = std::to_string(base) + "-" + std::to_string(base + 2);
    pid_t cap = spawn({HMTT_BIN, "capture", "--udp", ports, "--bind", "127.0.0.1", "--base-port", std::to_string(base),
                       "-o", out.string(), "--json"},
                      json.string());
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    pid_t snd = spawn({HMTT_SENDER_BIN, "--udp", "127.0.0.1", "--base-port", std::to_string(base), "--links", "3",
                       "--mbps", "40", "--duration", "20", "--pool-refs", "200000"},
                      "/dev/null");
    // Stop at a different moment each round.
    std::this_thread::sleep_for(std::chrono::milliseconds(round == 0 ? 1500 : 2700));
    REQUIRE(kill(cap, sig) == 0);
    int status = 0;
    REQUIRE(waitpid(cap, &status, 0) == cap);
    kill(snd, SIGKILL);
    waitpid(snd, nullptr, 0);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    std::ifstream in(json);
    const auto j = nlohmann::json::parse(in);
    CHECK(j["interrupted"].get<bool>());
    const std::uint64_t reported = j["references"].get<std::uint64_t>();
    CHECK(reported > 0);
    auto reader = store::StoreReader::open(out.string());
    REQUIRE(reader.ok());
    auto sum = (*reader)->summary();
    REQUIRE(sum.ok());
    CHECK(sum->references == reported);
    auto links = (*reader)->links();
    REQUIRE(links.ok());
    CHECK(links->size() == 3);
    auto fin = (*reader)->meta("finished");
    REQUIRE(fin.ok());
    CHECK(*fin == "1");
    fs::remove(out);
    fs::remove(json);
    ++round;
  }
}

TEST_CASE("hmtt capture --no-sync stores the same references and says it ran without fdatasync") {
  auto t = test::make_traffic(1, 3, 60000, 43);
  const fs::path dir = fs::temp_directory_path() / ("hmtt_nosync_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path pcap = dir / "in.pcap";
  {
    auto w = wire::PcapWriter::create(pcap.string());
    REQUIRE(w.ok());
    std::uint64_t ns = 0;
    for (const auto& f : t.frames) {
      REQUIRE((*w)->write(wire::udp_packet({}, static_cast<std::uint8_t>(f.board), f.link, f.bytes, false), ns += 100)
                  .ok());
    }
    REQUIRE((*w)->flush().ok());
  }
  std::vector<const test::WireFrame*> all;
  for (const auto& f : t.frames) all.push_back(&f);
  const auto expected = test::expected_merge(all);
  for (const bool sync : {true, false}) {
    const fs::path out = dir / (sync ? "sync.hmtt" : "nosync.hmtt");
    std::vector<std::string> args = {HMTT_BIN, "capture", "--pcap", pcap.string(), "-o", out.string(), "--json"};
    if (!sync) args.push_back("--no-sync");
    const pid_t cap = spawn(args, (dir / "summary.json").string());
    int status = 0;
    REQUIRE(waitpid(cap, &status, 0) == cap);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    {
      std::ifstream in(dir / "summary.json");
      CHECK(nlohmann::json::parse(in)["sync"].get<bool>() == sync);  // the capture's summary says how it wrote
    }
    // And so does `hmtt info`, from the file alone.
    const pid_t info = spawn({HMTT_BIN, "info", out.string(), "--json"}, (dir / "info.json").string());
    REQUIRE(waitpid(info, &status, 0) == info);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    {
      std::ifstream in(dir / "info.json");
      CHECK(nlohmann::json::parse(in)["synced"].get<bool>() == sync);
    }
    auto reader = store::StoreReader::open(out.string());
    REQUIRE(reader.ok());
    CHECK(*(*reader)->meta("finished") == "1");
    auto refs_src = (*reader)->references();
    REQUIRE(refs_src.ok());
    auto refs = collect(**refs_src);
    REQUIRE(refs.ok());
    CHECK(*refs == expected);
    auto mode = (*reader)->meta("sync");
    if (sync) {
      CHECK((!mode.ok() || mode->empty()));  // no mark on a store written the durable way
    } else {
      REQUIRE(mode.ok());
      CHECK(*mode == "off");
    }
  }
  fs::remove_all(dir);
}
#endif
