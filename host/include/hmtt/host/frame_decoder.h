// The receiver's frame decoding path: the checks of docs/wire-format.md
// sections 2 and 3 without building an error string per record.
//
// decode_link_frame accepts and rejects exactly the frames that
// hmtt::wire::decode_frame accepts and rejects, and fills the same
// DecodedFrame; on a rejection it asks the codec for the message, so errors
// name the same frame, record and field. The equivalence is checked by
// tests/receiver (random and mutated frames) and the fuzz_receiver_frame
// harness, which compares both decoders on every input.
#pragma once

#include <cstdint>
#include <span>

#include "hmtt/result.h"
#include "hmtt/wire/frame.h"

namespace hmtt::host {

Status decode_link_frame(std::span<const std::uint8_t> bytes, wire::DecodedFrame& out);

// The same, with the references written into `room` (at least wire::kMaxRecords of them, else an
// error) instead of side.refs, which is left empty; `refs` is set to how many (0 on a rejection).
// The receiver decodes into the merge's rooms this way (see FrameRooms in link_merger.h).
// `crc_ok`: frame_crc_ok(bytes) is already known true, so the CRC is not computed again (every
// other check is made); false checks it here. Either way it accepts and rejects exactly what the
// codec does.
Status decode_link_frame(std::span<const std::uint8_t> bytes, wire::DecodedFrame& side, std::span<Reference> room,
                         std::size_t& refs, bool crc_ok = false);

// True when the last 4 bytes are the big-endian CRC-32 of the bytes before them, as a frame's are
// (docs/wire-format.md section 2). A source's reader thread takes it for each frame as it copies it
// (FrameBatch::add, RawFrame::crc_ok), off the thread that decodes and merges.
bool frame_crc_ok(std::span<const std::uint8_t> bytes);

}  // namespace hmtt::host
