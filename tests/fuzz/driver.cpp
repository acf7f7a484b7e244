// Standalone fuzz driver for toolchains without libFuzzer (the default gcc
// build). It accepts the libFuzzer flags the fuzz tier uses, replays every
// corpus file, then runs -runs=N mutations of corpus entries (bit flips, byte
// sets, inserts, erases, truncations, splices), all under ASan/UBSan. A crash
// aborts with the sanitizer report and the input is written to ./crash-<n>.
// Long coverage-guided runs: build with -DHMTT_LIBFUZZER=ON and clang (make fuzz).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string g_current_path;
Bytes g_current;

[[maybe_unused]] void save_current(int) {
  std::ofstream out("crash-input", std::ios::binary);
  out.write(reinterpret_cast<const char*>(g_current.data()), static_cast<std::streamsize>(g_current.size()));
}

void run(const Bytes& b) {
  g_current = b;
  // Copy into an exact-size heap buffer so ASan catches reads past the end.
  auto* buf = new std::uint8_t[b.size() ? b.size() : 1];
  if (!b.empty()) std::memcpy(buf, b.data(), b.size());
  LLVMFuzzerTestOneInput(buf, b.size());
  delete[] buf;
}

Bytes mutate(const std::vector<Bytes>& corpus, std::mt19937_64& rng, std::size_t max_len) {
  Bytes b = corpus.empty() ? Bytes{} : corpus[rng() % corpus.size()];
  int steps = 1 + static_cast<int>(rng() % 8);
  for (int s = 0; s < steps; ++s) {
    switch (rng() % 7) {
      case 0:
        if (!b.empty()) b[rng() % b.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
        break;
      case 1:
        if (!b.empty()) b[rng() % b.size()] = static_cast<std::uint8_t>(rng());
        break;
      case 2: {
        static const std::uint8_t interesting[] = {0, 1, 0x7f, 0x80, 0xff, '\n', ' ', '0', '9', '-'};
        if (!b.empty()) b[rng() % b.size()] = interesting[rng() % sizeof(interesting)];
        break;
      }
      case 3:
        if (b.size() < max_len) {
          auto pos = b.empty() ? 0 : rng() % (b.size() + 1);
          b.insert(b.begin() + static_cast<std::ptrdiff_t>(pos), static_cast<std::uint8_t>(rng()));
        }
        break;
      case 4:
        if (!b.empty()) b.erase(b.begin() + static_cast<std::ptrdiff_t>(rng() % b.size()));
        break;
      case 5:
        if (!b.empty()) b.resize(rng() % b.size());
        break;
      case 6:
        if (!corpus.empty()) {
          const Bytes& o = corpus[rng() % corpus.size()];
          if (!o.empty() && !b.empty()) {
            auto at = rng() % b.size();
            auto from = rng() % o.size();
            auto len = 1 + rng() % (o.size() - from);
            b.resize(at);
            b.insert(b.end(), o.begin() + static_cast<std::ptrdiff_t>(from),
                     o.begin() + static_cast<std::ptrdiff_t>(from + len));
          }
        }
        break;
    }
  }
  if (b.size() > max_len) b.resize(max_len);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  long runs = 0;
  std::size_t max_len = 4096;
  std::uint64_t seed = 1;
  std::vector<Bytes> corpus;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("-runs=", 0) == 0) {
      runs = std::stol(a.substr(6));
    } else if (a.rfind("-max_len=", 0) == 0) {
      max_len = std::stoul(a.substr(9));
    } else if (a.rfind("-seed=", 0) == 0) {
      seed = std::stoull(a.substr(6));
    } else if (a.rfind("-", 0) == 0) {
      // other libFuzzer flags are accepted and ignored
    } else {
      std::filesystem::path p(a);
      std::vector<std::filesystem::path> files;
      if (std::filesystem::is_directory(p)) {
        for (auto& e : std::filesystem::recursive_directory_iterator(p))
          if (e.is_regular_file()) files.push_back(e.path());
      } else if (std::filesystem::exists(p)) {
        files.push_back(p);
      } else {
        std::fprintf(stderr, "fuzz driver: no such corpus path %s\n", a.c_str());
        return 2;
      }
      std::sort(files.begin(), files.end());
      for (auto& f : files) {
        g_current_path = f.string();
        Bytes b = read_file(f);
        run(b);
        corpus.push_back(std::move(b));
      }
    }
  }
  std::printf("fuzz driver: replayed %zu corpus inputs\n", corpus.size());
  std::mt19937_64 rng(seed);
  g_current_path = "(mutation)";
  for (long r = 0; r < runs; ++r) run(mutate(corpus, rng, max_len));
  std::printf("fuzz driver: %ld mutated inputs, no crash\n", runs);
  return 0;
}
