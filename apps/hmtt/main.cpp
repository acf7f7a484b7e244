// hmtt: one command, verbs in the style of git and perf. main only creates the
// app, lets each verb register itself, requires a verb and parses.
#include <nlohmann/json.hpp>

#include "verb.h"

std::string hmtt::app::json_quote(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

int main(int argc, char** argv) {
  CLI::App app{
      "hmtt: Hybrid Memory Trace Tool. A DIMM-snooping board model, its receiver, a trace store\n"
      "and the analyses and trace synthesis that run on it. `hmtt VERB --help` for each verb."};
  app.set_version_flag("--version", std::string("hmtt ") + HMTT_VERSION);
  app.require_subcommand(1);
  app.fallthrough(false);
  int exit_code = 0;
#define HMTT_VERB(name) setup_##name(app, exit_code);
#include "verbs.def"
#undef HMTT_VERB
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : hmtt::app::kExitUsage;
  }
  return exit_code;
}
