#include "hmtt/host/udp_source.h"

#include <sys/socket.h>
#include <time.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>
#include <cerrno>
#include <algorithm>
#include <cstring>

namespace hmtt::host {

namespace asio = boost::asio;

struct UdpSource::Impl {
  asio::io_context io;
  std::vector<std::unique_ptr<asio::ip::udp::socket>> sockets;
  std::vector<std::uint16_t> ports;
  std::vector<bool> readable;
  std::vector<std::uint64_t> drops;  // SO_RXQ_OVFL per socket
  unsigned batch = 64;
  std::size_t next = 0;  // socket that goes first in the next read
  // recvmmsg buffers
  std::vector<std::uint8_t> buffers;
  std::vector<mmsghdr> msgs;
  std::vector<iovec> iovs;
  std::vector<std::uint8_t> controls;
  static constexpr std::size_t kSlot = 2048;
  static constexpr std::size_t kControl = 64;
};

UdpSource::UdpSource(std::unique_ptr<Impl> impl, std::vector<std::uint16_t> ports)
    : impl_(std::move(impl)), ports_(std::move(ports)) {}
UdpSource::~UdpSource() = default;

std::string UdpSource::name() const {
  std::string s = "udp:";
  for (std::size_t i = 0; i < ports_.size(); ++i) s += (i ? "," : "") + std::to_string(ports_[i]);
  return s;
}

Result<std::vector<std::uint16_t>> parse_ports(const std::string& text) {
  std::vector<std::uint16_t> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = text.find(',', at);
    const std::string item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    const std::size_t dash = item.find('-');
    auto num = [&](const std::string& s) -> Result<std::uint16_t> {
      if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 5)
        return make_error("--udp: '" + s + "' in '" + text + "' is not a port number");
      const unsigned long v = std::stoul(s);
      if (v == 0 || v > 65535) return make_error("--udp: port " + s + " is not 1-65535");
      return static_cast<std::uint16_t>(v);
    };
    auto lo = num(item.substr(0, dash));
    if (!lo) return lo.error();
    std::uint16_t hi = *lo;
    if (dash != std::string::npos) {
      auto h = num(item.substr(dash + 1));
      if (!h) return h.error();
      hi = *h;
      if (hi < *lo) return make_error("--udp: range '" + item + "' is backwards");
    }
    for (unsigned p = *lo; p <= hi; ++p) out.push_back(static_cast<std::uint16_t>(p));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (out.empty()) return make_error("--udp: no ports in '" + text + "'");
  return out;
}

Result<std::unique_ptr<UdpSource>> UdpSource::open(const std::vector<std::uint16_t>& ports, const UdpOptions& o) {
  auto impl = std::make_unique<Impl>();
  impl->batch = o.batch == 0 ? 1 : o.batch;
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(o.address, ec);
  if (ec) return make_error("udp: address '" + o.address + "': " + ec.message());
  int granted = 0;
  for (std::uint16_t port : ports) {
    auto sock = std::make_unique<asio::ip::udp::socket>(impl->io);
    const asio::ip::udp::endpoint ep(address, port);
    sock->open(ep.protocol(), ec);
    if (ec) return make_error("udp port " + std::to_string(port) + ": socket: " + ec.message());
    const int fd = sock->native_handle();
    int size = o.receive_buffer_bytes;
    // As root the buffer may exceed net.core.rmem_max; otherwise the kernel caps it.
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) != 0)
      setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof one);
    socklen_t len = sizeof granted;
    getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &granted, &len);
    sock->bind(ep, ec);
    if (ec) return make_error("udp port " + std::to_string(port) + ": bind: " + ec.message());
    sock->non_blocking(true, ec);
    impl->sockets.push_back(std::move(sock));
    impl->ports.push_back(port);
  }
  impl->readable.assign(ports.size(), true);
  impl->drops.assign(ports.size(), 0);
  impl->buffers.resize(Impl::kSlot * impl->batch);
  impl->msgs.resize(impl->batch);
  impl->iovs.resize(impl->batch);
  impl->controls.resize(Impl::kControl * impl->batch);
  auto src = std::unique_ptr<UdpSource>(new UdpSource(std::move(impl), ports));
  src->granted_ = granted;
  return src;
}

Result<ReadState> UdpSource::read(FrameBatch& batch, std::size_t max_frames, std::chrono::milliseconds timeout) {
  Impl& s = *impl_;
  timespec now{};
  std::size_t got = 0;
  // One recvmmsg batch from socket i; clears its readable flag when it runs dry.
  auto take = [&](std::size_t i) -> Status {
    const int fd = s.sockets[i]->native_handle();
    const unsigned n = s.batch;
    for (unsigned k = 0; k < n; ++k) {
      s.iovs[k] = iovec{s.buffers.data() + Impl::kSlot * k, Impl::kSlot};
      std::memset(&s.msgs[k], 0, sizeof(mmsghdr));
      s.msgs[k].msg_hdr.msg_iov = &s.iovs[k];
      s.msgs[k].msg_hdr.msg_iovlen = 1;
      s.msgs[k].msg_hdr.msg_control = s.controls.data() + Impl::kControl * k;
      s.msgs[k].msg_hdr.msg_controllen = Impl::kControl;
    }
    const int r = recvmmsg(fd, s.msgs.data(), n, MSG_DONTWAIT, nullptr);
    if (r < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        s.readable[i] = false;
        return Status::success();
      }
      return make_error("udp port " + std::to_string(s.ports[i]) + ": recvmmsg: " + std::strerror(errno));
    }
    clock_gettime(CLOCK_REALTIME, &now);
    const std::uint64_t t = static_cast<std::uint64_t>(now.tv_sec) * 1000000000ull +
                            static_cast<std::uint64_t>(now.tv_nsec);
    for (int k = 0; k < r; ++k) {
      const mmsghdr& m = s.msgs[static_cast<std::size_t>(k)];
      ++counters_.packets;
      counters_.bytes += m.msg_len;
      for (cmsghdr* c = CMSG_FIRSTHDR(&m.msg_hdr); c; c = CMSG_NXTHDR(const_cast<msghdr*>(&m.msg_hdr), c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
          std::uint32_t d = 0;
          std::memcpy(&d, CMSG_DATA(c), sizeof d);
          s.drops[i] = d;
        }
      }
      if (m.msg_hdr.msg_flags & MSG_TRUNC) {
        batch.add_rejected(s.ports[i], t, "udp port " + std::to_string(s.ports[i]) + ": datagram larger than " +
                                              std::to_string(Impl::kSlot) + " bytes");
      } else {
        batch.add(std::span<const std::uint8_t>(s.buffers.data() + Impl::kSlot * static_cast<std::size_t>(k),
                                                m.msg_len),
                  s.ports[i], t);
      }
      ++got;
    }
    if (static_cast<unsigned>(r) < n) s.readable[i] = false;
    return Status::success();
  };
  // Links take turns, one batch each, starting from a different one every call, so a busy link
  // never starves the others (the merge would then have to hold the busy link's frames).
  auto drain = [&]() -> Status {
    const std::size_t count = s.sockets.size();
    for (bool any = true; any && got < max_frames;) {
      any = false;
      for (std::size_t k = 0; k < count && got < max_frames; ++k) {
        const std::size_t i = (s.next + k) % count;
        if (!s.readable[i]) continue;
        HMTT_TRY(take(i));
        any = true;
      }
    }
    s.next = (s.next + 1) % count;
    return Status::success();
  };

  // Every socket gets a chance each call: one that came up short last time may have filled since
  // (a socket left out while the others stay busy would starve, and hold the merge).
  std::fill(s.readable.begin(), s.readable.end(), true);
  for (int round = 0; round < 2; ++round) {
    HMTT_TRY(drain());
    if (got > 0 || round == 1) break;
    // Nothing ready: wait with Asio for any socket to become readable.
    bool any = false;
    for (std::size_t i = 0; i < s.sockets.size(); ++i) {
      s.sockets[i]->async_wait(asio::ip::udp::socket::wait_read, [&s, &any, i](const boost::system::error_code& e) {
        if (!e) {
          s.readable[i] = true;
          any = true;
          s.io.stop();
        }
      });
    }
    s.io.restart();
    s.io.run_for(timeout);
    for (auto& sock : s.sockets) sock->cancel();
    s.io.restart();
    s.io.poll();  // run the cancelled handlers
    if (!any) break;
  }
  std::uint64_t drops = 0;
  for (auto d : s.drops) drops += d;
  counters_.kernel_drops = drops;
  return got > 0 ? ReadState::Frames : ReadState::Idle;
}

}  // namespace hmtt::host
