// Link frames from pcap/pcapng files or a live interface, through libpcap.
//
// pcap_open_offline reads both pcap and pcapng. Ethernet (with or without the
// 4-byte FCS) and Linux cooked captures (SLL, SLL2: what `-i any` records)
// are understood; any other link type is an error naming the file.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "hmtt/host/link_source.h"

namespace hmtt::host {

class PcapSource final : public LinkSource {
 public:
  // `check_udp_checksum` = false for files recorded on the sending host (checksum offload).
  static Result<std::unique_ptr<PcapSource>> open_file(const std::string& path, const PortRange& ports = {},
                                                       bool check_udp_checksum = true);
  // A capture held in memory (fuzzing, tests); `bytes` must outlive the source.
  static Result<std::unique_ptr<PcapSource>> open_buffer(std::span<const std::uint8_t> bytes, const std::string& name,
                                                         const PortRange& ports = {});
  // Live capture; `buffer_bytes` is the kernel ring size (pcap_set_buffer_size). The UDP checksum is
  // not checked (outgoing packets are captured before the NIC fills it in; incoming ones were
  // checked by the NIC or the kernel); the frame CRC-32 still is.
  static Result<std::unique_ptr<PcapSource>> open_live(const std::string& iface, const PortRange& ports = {},
                                                       int buffer_bytes = 256 << 20);
  ~PcapSource() override;
  PcapSource(const PcapSource&) = delete;
  PcapSource& operator=(const PcapSource&) = delete;

  Result<ReadState> read(FrameBatch& batch, std::size_t max_frames, std::chrono::milliseconds timeout) override;
  const SourceCounters& counters() const override { return counters_; }
  // Reads the file (or buffer) again from its start, on a handle of its own: frames that pass
  // read()'s checks (UDP checksum as configured) and decode, duplicates (same port and sequence)
  // counted once, until more than `refs`
  // references or the end. std::nullopt for live input, standard input, a pipe or a FIFO (they
  // cannot be read twice) and a file damaged within that far.
  std::optional<std::vector<std::uint16_t>> streams_ahead(std::size_t refs) override;
  std::string name() const override { return name_; }

  struct Impl;

 private:
  explicit PcapSource(std::unique_ptr<Impl> impl, std::string name);
  std::unique_ptr<Impl> impl_;
  std::string name_;
  SourceCounters counters_;
};

}  // namespace hmtt::host
