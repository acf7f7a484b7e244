// The profiling-and-synthesis contract shared by every compact-profile method
// (Chameleon, PSnAP, METRIC, HHnHMM, and the IRM baseline): one method is one
// class that reads a trace once into a profile, and regenerates a synthetic
// reference stream of any length from that profile.
//
//   profile()     one pass over the trace; returns the profile as bytes
//                 (human-readable JSON for most methods; binary where the
//                 method's own paper defines a binary format) plus a summary.
//   synthesize()  a pull-based ReferenceSource of synthetic references;
//                 `length` references (0 = the original's count, as recorded
//                 in the profile). Time is the reference index.
//
// `hmtt profile --method NAME` and `hmtt synth` are the CLI over this contract
// (docs/profiling.md); the methods are listed in apps/hmtt/profilers.def.
// Every profile file starts with the method's own recognisable header: JSON
// profiles carry "format": "hmtt-profile" and "method": NAME at the top level.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hmtt/analysis/tool.h"
#include "hmtt/result.h"
#include "hmtt/stream.h"

namespace hmtt::analysis {

// A method's knob: name, default value as text, one-line help.
struct ProfileParam {
  std::string name;
  std::string default_value;
  std::string help;
};

// The method-specific knobs given as `--param key=value`, checked against the
// method's declared ProfileParams: an unknown key or a malformed value is an
// error that names the key.
class ProfileParams {
 public:
  ProfileParams() = default;
  // Parses "key=value" strings; `known` is the method's declaration.
  static Result<ProfileParams> parse(const std::vector<std::string>& assignments,
                                     const std::vector<ProfileParam>& known);
  // The value of `key` (the given one or the declared default).
  Result<std::string> text(std::string_view key) const;
  Result<std::uint64_t> u64(std::string_view key) const;
  Result<double> real(std::string_view key) const;
  Result<bool> flag(std::string_view key) const;
  // Every key with its effective value (for the profile's own record).
  const std::map<std::string, std::string, std::less<>>& values() const { return values_; }

 private:
  std::map<std::string, std::string, std::less<>> values_;
};

struct ProfileOutput {
  std::string format = "json";  // "json" or "binary"
  std::string data;             // the profile file's bytes
  Json summary;                 // figures to print: size, complexity, counts, ...
};

struct SynthOptions {
  std::uint64_t length = 0;  // references to generate; 0 = as many as the original had
  std::uint64_t seed = 1;    // pseudo-random seed; same seed, same stream
};

class Profiler {
 public:
  virtual ~Profiler() = default;
  virtual std::string_view name() const = 0;
  // One line for `hmtt profile --list`.
  virtual std::string_view summary() const = 0;
  virtual std::vector<ProfileParam> params() const { return {}; }
  // Reads `trace` to its end (honouring run.limit and run.progress).
  virtual Result<ProfileOutput> profile(ReferenceSource& trace, const ProfileParams& params,
                                        const RunOptions& run) = 0;
  // True when `data` (a profile file's bytes) is this method's profile.
  virtual bool recognizes(std::string_view data) const;
  // A stream of synthetic references regenerated from `data`; bad profile
  // bytes are an error naming the field or offset.
  virtual Result<std::unique_ptr<ReferenceSource>> synthesize(std::string_view data,
                                                              const SynthOptions& options) = 0;
};

// The top-level "method" of a JSON profile, or "" when `data` is not one.
std::string json_profile_method(std::string_view data);

// The version every JSON profile is written with, and the only one read.
inline constexpr std::uint64_t kJsonProfileVersion = 1;

// Parses a JSON profile of `method`, checking "format", "method" and "version" (exactly the
// integer kJsonProfileVersion); errors name the field, e.g.
// "profile: version: 7 is not a version this hmtt reads (1)".
Result<Json> parse_json_profile(std::string_view data, std::string_view method);

// The header every JSON profile starts with: format, version, method, params.
Json json_profile_header(std::string_view method, const ProfileParams& params);

// The independent reference model baseline: each 64-byte block of the trace
// drawn independently with its observed frequency. It keeps the footprint and
// the popularity of blocks but no ordering, so it is the floor every real
// method must beat on hit rates and locality surfaces.
std::unique_ptr<Profiler> make_irm_profiler();

}  // namespace hmtt::analysis
