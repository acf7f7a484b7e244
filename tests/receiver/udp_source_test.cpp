// Live UDP links on the loopback interface: a sender thread plays a board's
// three links into UdpSource (Asio + recvmmsg); the live merge (watermark,
// idle links) must give exactly the board's references, no loss counted.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "frame_streams.h"
#include "hmtt/host/capture.h"
#include "hmtt/host/udp_source.h"

using namespace hmtt;
using namespace hmtt::host;

TEST_CASE("UDP loopback: three links, live merge, nothing lost") {
  const std::uint16_t base = static_cast<std::uint16_t>(27400 + (getpid() % 500) * 4);
  auto t = test::make_traffic(1, 3, 200000, 31);
  std::vector<std::uint16_t> ports{base, static_cast<std::uint16_t>(base + 1), static_cast<std::uint16_t>(base + 2)};
  UdpOptions uo;
  uo.address = "127.0.0.1";
  uo.receive_buffer_bytes = 8 << 20;
  auto src = UdpSource::open(ports, uo);
  REQUIRE(src.ok());
  std::vector<std::unique_ptr<LinkSource>> sources;
  sources.push_back(std::move(*src));

  std::thread sender([&] {
    std::vector<int> fds;
    for (auto p : ports) {
      const int fd = socket(AF_INET, SOCK_DGRAM, 0);
      sockaddr_in to{};
      to.sin_family = AF_INET;
      to.sin_port = htons(p);
      to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to);
      fds.push_back(fd);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::size_t n = 0;
    for (const auto& f : t.frames) {
      send(fds[f.link], f.bytes.data(), f.bytes.size(), 0);
      if (++n % 64 == 0) std::this_thread::sleep_for(std::chrono::microseconds(500));  // well below the buffers
    }
    for (int fd : fds) close(fd);
  });

  MemoryCaptureSink sink;
  ReceiverOptions ro;
  ro.live = true;
  ro.ports.base = base;
  Receiver rx(sink, ro);
  CaptureOptions co;
  co.duration_s = 2.5;
  auto st = run_capture(sources, rx, co, nullptr, {});
  sender.join();
  REQUIRE(st.ok());
  CHECK(st->kernel_drops == 0);
  CHECK(st->totals.gap_frames == 0);
  CHECK(st->totals.frames == t.frames.size());
  CHECK(sink.references() == test::expected_merge([&] {
          std::vector<const test::WireFrame*> p;
          for (const auto& f : t.frames) p.push_back(&f);
          return p;
        }()));
  REQUIRE(st->links.size() == 3);
  for (const auto& l : st->links) CHECK(l.port == base + l.link);
}
