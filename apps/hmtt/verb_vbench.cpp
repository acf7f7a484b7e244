// hmtt vbench: the virtual bench. A real Linux guest (Debian's kernel under
// QEMU/TCG, hmtt.ko, busybox, the workloads of sim/qemu/guest) drives the
// whole pipeline: the hmtt_llc plugin filters the guest's physical accesses
// through an LLC model, the memory controller and the board model turn them
// into link frames, the receiver merges them into a store, and the kernel
// module's page-map log is aligned into the same store by its sync tags
// (sim/qemu/vbench.sh does those steps). Then the checks of
// hmtt::vbench::check_vbench run on the result (docs/vbench.md).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "hmtt/driver/kernel_log.h"
#include "hmtt/vbench/dma_model.h"
#include "hmtt/vbench/vbench_check.h"
#include "verb.h"

extern char** environ;

namespace {

struct VbenchOptions {
  std::string workdir = "hmtt-vbench";
  std::string workloads;  // "" = the script's default
  std::uint64_t llc = 512 * 1024;
  unsigned ways = 16;
  std::string cache = "on";
  std::string kernel_cache;
  bool rtl = false;
  bool reuse_guest = false;
  bool check_only = false;
  bool json = false;
};

std::string self_exe() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("hmtt") : p.string();
}

// Runs argv with extra environment; stdout to `out_file` (if not empty) or, with
// `stdout_to_stderr`, to stderr. Returns the exit code.
hmtt::Result<int> spawn(std::vector<std::string> args, const std::vector<std::string>& extra_env,
                        const std::string& out_file, bool stdout_to_stderr) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) env.emplace_back(*e);
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::fflush(stdout);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (!out_file.empty())
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  else if (stdout_to_stderr)
    posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return hmtt::make_error("cannot start " + args[0] + ": " + std::strerror(rc));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// The guest half: vbench.sh with the options as its environment.
hmtt::Result<int> run_script(const VbenchOptions& o) {
  const std::string script = std::string(HMTT_SOURCE_DIR) + "/sim/qemu/vbench.sh";
  std::vector<std::string> env;
  if (!o.workloads.empty()) env.push_back("VBENCH_WORKLOADS=" + o.workloads);
  env.push_back("VBENCH_LLC=" + std::to_string(o.llc));
  env.push_back("VBENCH_WAYS=" + std::to_string(o.ways));
  env.push_back("VBENCH_CACHE=" + o.cache);
  if (!o.kernel_cache.empty()) env.push_back("HMTT_KERNEL_CACHE=" + o.kernel_cache);
  return spawn({"/bin/bash", script, HMTT_SOURCE_DIR, o.workdir, self_exe()}, env, "", o.json);
}

hmtt::Result<std::string> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return hmtt::make_error(path + ": cannot open");
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The host half: modelled device DMA into the trace, then controller + board,
// receiver and kernel log into one store, each step an `hmtt` command.
hmtt::Status run_host(const VbenchOptions& o, hmtt::vbench::DmaModelStats& dma) {
  const std::string d = o.workdir + "/";
  auto nsync_text = slurp(d + "nsync");
  if (!nsync_text.ok()) return nsync_text.error();
  auto base_text = slurp(d + "config_base");
  if (!base_text.ok()) return base_text.error();
  std::uint32_t nsync = 0;
  std::uint64_t base = 0;
  try {
    nsync = static_cast<std::uint32_t>(std::stoul(*nsync_text));
    base = std::stoull(*base_text, nullptr, 0);
  } catch (const std::exception&) {
    return hmtt::make_error(d + "nsync or config_base: not a number");
  }
  auto raw = slurp(d + "guest.hlog");
  if (!raw.ok()) return raw.error();
  auto log = hmtt::driver::KernelLogDecoder{}.decode(
      {reinterpret_cast<const std::byte*>(raw->data()), raw->size()});
  if (!log.ok()) return hmtt::make_error(d + "guest.hlog: " + log.error().message);
  auto st = hmtt::vbench::model_dma(d + "llc.csv", *log, nsync, base, 8u << 20, d + "llc-dma.csv");
  if (!st.ok()) return st.error();
  dma = *st;
  std::error_code ec;
  for (const char* f : {"vbench.hmtt", "vb-b0-l0.pcap", "vb-b0-l1.pcap", "vb-b0-l2.pcap"})
    std::filesystem::remove(d + f, ec);
  std::vector<std::string> sim = {"sim", "--replay", d + "llc-dma.csv", "--standard", "ddr2-400", "--links", "3",
                                  "--events-every", "0", "--no-begin-end", "--config-base", std::to_string(base),
                                  "--replay-config-space", "--cycles-per-tick", "1/16", "-o", d + "vb"};
  // The RTL is built for the two-rank maps (2 GiB: the guest's 1 GiB fits) and its
  // links carry one byte per cycle each: pace them at Gigabit line rate.
  if (o.rtl) sim.insert(sim.end(), {"--rtl", "--ranks", "2", "--link-mbps", "1000"});
  const std::vector<std::pair<std::string, std::vector<std::string>>> steps = {
      {"sim.txt", sim},
      {"capture.txt", {"capture", "--pcap", d + "vb-b0-l0.pcap", d + "vb-b0-l1.pcap", d + "vb-b0-l2.pcap", "-o",
                       d + "vbench.hmtt"}},
      {"logs.txt", {"logs", d + "guest.hlog", "--nsync", std::to_string(nsync), "--store", d + "vbench.hmtt"}},
  };
  for (const auto& [out, args] : steps) {
    std::vector<std::string> argv = {self_exe()};
    argv.insert(argv.end(), args.begin(), args.end());
    if (!o.json) {
      std::string line = "$ hmtt";
      for (const auto& a : args) line += " " + a;
      std::printf("%s   > %s%s\n", line.c_str(), d.c_str(), out.c_str());
    }
    auto rc = spawn(argv, {}, d + out, false);
    if (!rc.ok()) return rc.error();
    if (*rc != 0) return hmtt::make_error("hmtt " + args[0] + " failed (exit " + std::to_string(*rc) + "), see " + d + out);
  }
  return hmtt::Status::success();
}

int run_vbench(const VbenchOptions& o) {
  const std::string verb = "vbench";
  if (o.cache != "on" && o.cache != "off")
    return hmtt::app::fail(verb, hmtt::make_error("--cache '" + o.cache + "': must be on or off"));
  if (o.ways == 0 || o.llc % (64ull * o.ways) != 0)
    return hmtt::app::fail(verb, hmtt::make_error("--llc must be a multiple of 64 x --ways"));
  hmtt::vbench::DmaModelStats dma;
  if (!o.check_only) {
    if (!o.reuse_guest) {
      auto rc = run_script(o);
      if (!rc.ok()) return hmtt::app::fail(verb, rc.error());
      if (*rc != 0)
        return hmtt::app::fail(verb, hmtt::make_error("the guest half failed (exit " + std::to_string(*rc) +
                                                      "); its files are in " + o.workdir));
    }
    auto st = run_host(o, dma);
    if (!st.ok()) return hmtt::app::fail(verb, st.error());
    if (!o.json)
      std::printf("DMA: modelled from the kernel's DMA log (QEMU device DMA bypasses TCG): %llu maps, %llu unmaps, "
                  "%llu device reads, %llu device writes (64-byte lines), %llu records without their sync load\n",
                  static_cast<unsigned long long>(dma.maps), static_cast<unsigned long long>(dma.unmaps),
                  static_cast<unsigned long long>(dma.reads), static_cast<unsigned long long>(dma.writes),
                  static_cast<unsigned long long>(dma.unmatched));
    if (!o.json)
      for (std::size_t i = 0; i < dma.devices.size(); ++i)
        std::printf("  device %zu = %s\n", i + 1, dma.devices[i].c_str());
  }
  const std::string d = o.workdir + "/";
  auto rep = hmtt::vbench::check_vbench({d + "vbench.hmtt", d + "llc-dma.csv", d + "llc.json", d + "console.txt"});
  if (!rep.ok()) return hmtt::app::fail(verb, rep.error());
  if (o.json) {
    std::printf("%s\n", rep->json.c_str());
  } else {
    std::printf("virtual bench: store %svbench.hmtt (`hmtt info` / `hmtt analyze` it)\n", d.c_str());
    for (const auto& c : rep->checks)
      std::printf("  %-26s %s  %s\n", c.name.c_str(), c.pass ? "PASS" : "FAIL", c.detail.c_str());
  }
  return rep->all_pass() ? hmtt::app::kExitOk : hmtt::app::kExitMismatch;
}

}  // namespace

void setup_vbench(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<VbenchOptions>();
  auto* cmd = app.add_subcommand(
      "vbench", "Boot a Linux guest under QEMU whose memory traffic (through an LLC model) drives the controller, "
                "the board and the receiver into one store with the kernel's page-map log; check the result");
  cmd->add_option("--workdir,-d", o->workdir, "directory for the guest, the trace and the store")->capture_default_str();
  cmd->add_option("--workloads", o->workloads,
                  "NAME:ARG[:ARG],... of seq-read BYTES, seq-write BYTES, read-after-write BYTES, "
                  "random-read BYTES COUNT, quicksort N, matmul N, filecopy BYTES (default: all of them)");
  cmd->add_option("--llc", o->llc, "last-level cache model: bytes")->capture_default_str();
  cmd->add_option("--ways", o->ways, "last-level cache model: ways")->capture_default_str();
  cmd->add_option("--cache", o->cache, "on, or off to pass every access (CR0.CD in the paper)")->capture_default_str();
  cmd->add_option("--kernel-cache", o->kernel_cache, "directory with (or for) the downloaded linux-image");
  cmd->add_flag("--rtl", o->rtl, "the board's RTL under Verilator instead of the C++ board model");
  cmd->add_flag("--reuse-guest", o->reuse_guest,
                "keep an earlier run's guest trace and log in --workdir; redo the board, receiver and checks");
  cmd->add_flag("--check-only", o->check_only, "only check an earlier run's --workdir");
  cmd->add_flag("--json", o->json, "print the figures and checks as JSON");
  cmd->callback([o, &exit_code] { exit_code = run_vbench(*o); });
}
