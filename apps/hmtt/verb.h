// Shared declarations for the verbs of the `hmtt` command.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "hmtt/result.h"

#define HMTT_VERB(name) void setup_##name(CLI::App& app, int& exit_code);
#include "verbs.def"
#undef HMTT_VERB

namespace hmtt::app {

// Exit codes scripts can rely on.
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;      // the work failed (bad input, I/O error)
inline constexpr int kExitUsage = 2;      // the command line was wrong
inline constexpr int kExitMismatch = 3;   // a check or comparison found a difference

// Prints "hmtt VERB: message" to stderr and returns kExitError.
inline int fail(const std::string& verb, const hmtt::Error& e) {
  std::fprintf(stderr, "hmtt %s: %s\n", verb.c_str(), e.message.c_str());
  return kExitError;
}

// A JSON string literal (paths may hold quotes, backslashes or control bytes;
// bytes that are not UTF-8 are replaced, so the line always parses).
std::string json_quote(const std::string& s);

}  // namespace hmtt::app
