// hmtt demo: the whole data path on a built-in default, as a user would run it
// by hand. Each step prints the `hmtt` command it runs, so the demo doubles as
// a tutorial:
//   1. a program's references (the built-in demo workload: two processes, two
//      DMA devices) written as a Dinero trace;
//   2. `hmtt sim --replay`: through the memory-controller model onto the DDR
//      bus, snooped by the board model, framed onto two GigE links (pcap);
//   3. `hmtt capture --pcap`: the receiver merges the links into a store;
//   4. `hmtt info`, `hmtt analyze`: the store and the analyses on it;
//   5. `hmtt profile` + `hmtt synth --compare`: a compact profile and the
//      synthetic trace regenerated from it, judged against the capture;
//   6. `hmtt report`: an HTML report of the capture.
// --json prints one object with every step's command, exit code and JSON output.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "hmtt/analysis/demo_workload.h"
#include "hmtt/analysis/tool.h"
#include "hmtt/tracefmt/writer.h"
#include "profilers.h"
#include "verb.h"

extern char** environ;

namespace {

using hmtt::analysis::Json;

struct DemoOptions {
  std::string workdir = "hmtt-demo";
  std::uint64_t references = 200000;
  std::uint64_t seed = 1;
  std::string method;  // profiling method; default: the most capable one built in
  bool json = false;
};

std::string self_exe() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("hmtt") : p.string();
}

struct StepResult {
  int exit_code = -1;
  std::string out;  // captured stdout (JSON mode only)
};

// Runs `hmtt ARGS...` as a child. In text mode its output goes straight to the
// terminal; in JSON mode its stdout is captured (stderr still shows progress).
hmtt::Result<StepResult> run_step(const std::vector<std::string>& args, bool capture) {
  std::vector<std::string> argv_s = {self_exe()};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  int pipefd[2] = {-1, -1};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (capture) {
    if (::pipe2(pipefd, O_CLOEXEC) != 0) return hmtt::make_error(std::string("pipe: ") + std::strerror(errno));
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
  }
  std::fflush(stdout);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv_s[0].c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (capture) ::close(pipefd[1]);
  if (rc != 0) {
    if (capture) ::close(pipefd[0]);
    return hmtt::make_error("cannot start " + argv_s[0] + ": " + std::strerror(rc));
  }
  StepResult r;
  if (capture) {
    char buf[65536];
    for (;;) {
      const ssize_t n = ::read(pipefd[0], buf, sizeof buf);
      if (n > 0) r.out.append(buf, static_cast<std::size_t>(n));
      else if (n == 0 || errno != EINTR) break;
    }
    ::close(pipefd[0]);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return r;
}

std::string quoted(const std::vector<std::string>& args) {
  std::string s = "hmtt";
  for (const auto& a : args) s += " " + a;
  return s;
}

hmtt::Status write_workload(const DemoOptions& o, const std::string& path) {
  hmtt::analysis::DemoWorkloadKnobs k;
  k.references = o.references;
  k.seed = o.seed;
  hmtt::analysis::DemoWorkload w(k);
  hmtt::tracefmt::WriterOptions wo;
  wo.overwrite = true;
  auto out = hmtt::tracefmt::open_writer(path, hmtt::tracefmt::Format::XDin, wo);
  if (!out) return out.error();
  auto n = hmtt::pump(w, **out);
  if (!n) return n.error();
  return (*out)->finish();
}

std::string default_method() {
  std::string best = "irm";
  int rank = 0;
  for (const auto& p : hmtt::app::all_profilers()) {
    const auto n = p->name();
    const int r = n == "chameleon" ? 3 : n == "psnap" ? 2 : n == "hhnhmm" ? 1 : 0;
    if (r > rank) rank = r, best = std::string(n);
  }
  return best;
}

int run_demo(const DemoOptions& o) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(o.workdir, ec);
  if (ec) return hmtt::app::fail("demo", hmtt::make_error(o.workdir + ": " + ec.message()));
  const std::string d = o.workdir + "/";
  // Start from a clean slate: outputs of an earlier run are replaced.
  for (const char* f : {"demo.hmtt", "demo.profile.json", "synthetic.hmtt", "report.html"}) fs::remove(d + f, ec);
  for (const auto& e : fs::directory_iterator(o.workdir, ec))
    if (e.path().extension() == ".pcap") fs::remove(e.path(), ec);

  const std::string method = o.method.empty() ? default_method() : o.method;
  const std::string workload = d + "workload.xdin";
  Json summary;
  summary["workdir"] = o.workdir;
  summary["steps"] = Json::array();

  if (!o.json)
    std::printf("== 1. a program's references: the built-in demo workload (%llu references, seed %llu)\n   -> %s\n",
                static_cast<unsigned long long>(o.references), static_cast<unsigned long long>(o.seed),
                workload.c_str());
  if (auto s = write_workload(o, workload); !s) return hmtt::app::fail("demo", s.error());

  struct Step {
    std::string title;
    std::vector<std::string> args;
    bool json_flag = true;  // the verb takes --json
  };
  // A board capture (whole 64-byte lines, a hot set of whole blocks): Chameleon's synthesis reuses
  // blocks as full as the capture's (docs/chameleon.md, "Which block is reused").
  std::vector<std::string> profile_args = {"profile", d + "demo.hmtt", "--method", method, "-o", d + "demo.profile.json"};
  if (method == "chameleon") profile_args.insert(profile_args.end(), {"--param", "fill=8"});
  const std::vector<Step> steps = {
      {"2. the memory controller and the board: DDR2-400, two GigE links, timing checked, the board's\n"
       "   Statistic Unit and reuse-distance unit reporting every 20000 cycles",
       {"sim", "--replay", workload, "--standard", "ddr2-400", "--links", "2", "--check", "--events-every", "20000",
        "--su-interval", "20000", "--rdhpu-interval", "20000", "-o", d + "demo"}},
      {"3. the receiver merges the two links into a store",
       {"capture", "--pcap", d + "demo-b0-l0.pcap", d + "demo-b0-l1.pcap", "-o", d + "demo.hmtt"}},
      {"4. what the store holds", {"info", d + "demo.hmtt"}},
      {"5. the board's online statistics (its own reports, no trace analysis needed)", {"stats", d + "demo.hmtt"}},
      {"6. analyses: caches (PSnAP hierarchies), reuse distance, stream coverage, bandwidth",
       {"analyze", d + "demo.hmtt", "--with", "cache,reuse,scr,bandwidth"}},
      {"7. a compact profile (" + method + ") of the capture",
       profile_args},
      {"8. a synthetic trace from the profile, judged against the capture",
       {"synth", d + "demo.profile.json", "-o", d + "synthetic.hmtt", "--compare", d + "demo.hmtt"}},
      {"9. an HTML report of the capture", {"report", d + "demo.hmtt", "-o", d + "report.html"}, false},
  };
  for (const auto& st : steps) {
    auto args = st.args;
    if (o.json && st.json_flag) args.push_back("--json");
    if (!o.json) std::printf("\n== %s\n$ %s\n", st.title.c_str(), quoted(st.args).c_str());
    auto r = run_step(args, o.json);
    if (!r) return hmtt::app::fail("demo", r.error());
    Json j;
    j["command"] = quoted(args);
    j["exit_code"] = r->exit_code;
    if (o.json) {
      Json parsed = Json::parse(r->out, nullptr, false);
      j["output"] = parsed.is_discarded() ? Json(r->out) : parsed;
    }
    summary["steps"].push_back(j);
    if (r->exit_code != 0) {
      if (o.json) std::cout << summary.dump(2) << "\n";
      std::fprintf(stderr, "hmtt demo: step '%s' failed (exit %d): %s\n", st.title.c_str(), r->exit_code,
                   quoted(args).c_str());
      return hmtt::app::kExitError;
    }
  }
  if (o.json) {
    std::cout << summary.dump(2) << "\n";
  } else {
    std::printf("\n== done. Everything is in %s: open %sreport.html in a browser;\n"
                "   `hmtt --help` lists every verb, docs/ has a guide per use case.\n",
                o.workdir.c_str(), d.c_str());
  }
  return hmtt::app::kExitOk;
}

}  // namespace

void setup_demo(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<DemoOptions>();
  auto* cmd = app.add_subcommand(
      "demo", "Run the whole pipeline on a built-in workload: controller + board model -> receiver -> store -> "
              "analyses -> profile and synthetic trace -> HTML report");
  cmd->add_option("--workdir,-C", o->workdir, "directory for every file the demo writes")->capture_default_str();
  cmd->add_option("-n,--references", o->references, "references of the built-in workload")->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed of the built-in workload")->capture_default_str();
  cmd->add_option("--method,-m", o->method, "profiling method for steps 7-8 (default: the most capable one built in)");
  cmd->add_flag("--json", o->json, "print one JSON object with every step's command, exit code and output");
  cmd->callback([o, &exit_code]() { exit_code = run_demo(*o); });
}
