// JsonFigures: a benchmark's figures collected as one flat JSON object, for the
// `--json` option every benchmark has (text goes to stderr then, so stdout is the
// object alone). Keys are plain identifiers; strings are escaped.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace hmtt::bench {

class JsonFigures {
 public:
  void number(const std::string& key, double v) {
    char b[64];
    if (std::isfinite(v)) {
      std::snprintf(b, sizeof b, "%.6g", v);
    } else {
      std::snprintf(b, sizeof b, "null");  // JSON has no inf or nan
    }
    add(key, b);
  }
  void integer(const std::string& key, unsigned long long v) { add(key, std::to_string(v)); }
  void boolean(const std::string& key, bool v) { add(key, v ? "true" : "false"); }
  void text(const std::string& key, const std::string& v) {
    std::string q = "\"";
    for (const char c : v) {
      if (c == '"' || c == '\\') {
        q += '\\';
        q += c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        char e[8];
        std::snprintf(e, sizeof e, "\\u%04x", static_cast<unsigned>(c));
        q += e;
      } else {
        q += c;
      }
    }
    add(key, q + "\"");
  }
  std::string str() const { return "{" + body_ + "}"; }
  void print(std::FILE* f = stdout) const { std::fprintf(f, "%s\n", str().c_str()); }

 private:
  void add(const std::string& key, const std::string& value) {
    if (!body_.empty()) body_ += ", ";
    body_ += "\"" + key + "\": " + value;
  }
  std::string body_;
};

}  // namespace hmtt::bench
