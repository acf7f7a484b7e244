// Link frames from UDP sockets, one per link port, with Boost.Asio.
//
// Each port gets a socket bound to `address:port` with a large receive buffer
// (SO_RCVBUFFORCE when running as root, else SO_RCVBUF up to
// net.core.rmem_max). Readiness comes from Asio; the datagrams are then taken
// in batches with recvmmsg(2) on the socket's native handle. SO_RXQ_OVFL
// makes the kernel report how many datagrams it dropped for a full buffer.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hmtt/host/link_source.h"

namespace hmtt::host {

struct UdpOptions {
  std::string address = "0.0.0.0";
  int receive_buffer_bytes = 64 << 20;
  unsigned batch = 64;  // datagrams per recvmmsg call
};

class UdpSource final : public LinkSource {
 public:
  static Result<std::unique_ptr<UdpSource>> open(const std::vector<std::uint16_t>& ports, const UdpOptions& options = {});
  ~UdpSource() override;
  UdpSource(const UdpSource&) = delete;
  UdpSource& operator=(const UdpSource&) = delete;

  Result<ReadState> read(FrameBatch& batch, std::size_t max_frames, std::chrono::milliseconds timeout) override;
  const SourceCounters& counters() const override { return counters_; }
  std::string name() const override;
  std::vector<std::uint16_t> expected_ports() const override { return ports_; }
  // The receive buffer size the kernel granted (per socket, as getsockopt reports it).
  int receive_buffer_bytes() const { return granted_; }

  struct Impl;

 private:
  UdpSource(std::unique_ptr<Impl> impl, std::vector<std::uint16_t> ports);
  std::unique_ptr<Impl> impl_;
  std::vector<std::uint16_t> ports_;
  SourceCounters counters_;
  int granted_ = 0;
};

// Parses "7400-7402,7410" into ports.
Result<std::vector<std::uint16_t>> parse_ports(const std::string& text);

}  // namespace hmtt::host
