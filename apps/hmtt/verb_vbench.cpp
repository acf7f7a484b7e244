// hmtt vbench: the virtual bench. A real Linux guest (Debian's kernel under
// QEMU/TCG, hmtt.ko, busybox, the workloads of sim/qemu/guest) drives the
// whole pipeline: the hmtt_llc plugin filters the guest's physical accesses
// through an LLC model, the memory controller and the board model turn them
// into link frames, the receiver merges them into a store, and the kernel
// module's page-map log is aligned into the same store by its sync tags
// (sim/qemu/vbench.sh does those steps). Then the checks of
// hmtt::vbench::check_vbench run on the result (docs/vbench.md).
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

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
  bool check_only = false;
  bool json = false;
};

std::string self_exe() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("hmtt") : p.string();
}

// Runs vbench.sh with the options as its environment; returns its exit code.
hmtt::Result<int> run_script(const VbenchOptions& o) {
  const std::string script = std::string(HMTT_SOURCE_DIR) + "/sim/qemu/vbench.sh";
  std::vector<std::string> args = {"/bin/bash", script, HMTT_SOURCE_DIR, o.workdir, self_exe()};
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) env.emplace_back(*e);
  if (!o.workloads.empty()) env.push_back("VBENCH_WORKLOADS=" + o.workloads);
  env.push_back("VBENCH_LLC=" + std::to_string(o.llc));
  env.push_back("VBENCH_WAYS=" + std::to_string(o.ways));
  env.push_back("VBENCH_CACHE=" + o.cache);
  if (!o.kernel_cache.empty()) env.push_back("HMTT_KERNEL_CACHE=" + o.kernel_cache);
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::fflush(stdout);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (o.json) posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);  // stdout stays JSON
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return hmtt::make_error("cannot start " + script + ": " + std::strerror(rc));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

int run_vbench(const VbenchOptions& o) {
  const std::string verb = "vbench";
  if (o.cache != "on" && o.cache != "off")
    return hmtt::app::fail(verb, hmtt::make_error("--cache '" + o.cache + "': must be on or off"));
  if (o.ways == 0 || o.llc % (64ull * o.ways) != 0)
    return hmtt::app::fail(verb, hmtt::make_error("--llc must be a multiple of 64 x --ways"));
  if (!o.check_only) {
    auto rc = run_script(o);
    if (!rc.ok()) return hmtt::app::fail(verb, rc.error());
    if (*rc != 0)
      return hmtt::app::fail(verb, hmtt::make_error("the virtual bench failed (exit " + std::to_string(*rc) +
                                                    "); its files are in " + o.workdir));
  }
  const std::string d = o.workdir + "/";
  auto rep = hmtt::vbench::check_vbench({d + "vbench.hmtt", d + "llc.csv", d + "llc.json", d + "console.txt"});
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
                  "random-read BYTES COUNT, quicksort N, matmul N (default: the micro-benchmarks and quicksort)");
  cmd->add_option("--llc", o->llc, "last-level cache model: bytes")->capture_default_str();
  cmd->add_option("--ways", o->ways, "last-level cache model: ways")->capture_default_str();
  cmd->add_option("--cache", o->cache, "on, or off to pass every access (CR0.CD in the paper)")->capture_default_str();
  cmd->add_option("--kernel-cache", o->kernel_cache, "directory with (or for) the downloaded linux-image");
  cmd->add_flag("--check-only", o->check_only, "only check an earlier run's --workdir");
  cmd->add_flag("--json", o->json, "print the figures and checks as JSON");
  cmd->callback([o, &exit_code] { exit_code = run_vbench(*o); });
}
