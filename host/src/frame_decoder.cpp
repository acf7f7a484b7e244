#include "hmtt/host/frame_decoder.h"

#include "hmtt/host/checksums.h"

#include <bit>
#include <cstddef>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace hmtt::host {

namespace {

#if defined(__x86_64__)
bool refs_avx512_available() {
  // libgcc's check includes the OS saving the ZMM registers (XCR0).
  static const bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  return ok;
}

// GCC 12's AVX-512 intrinsics start many results from _mm512_undefined, which its flow analysis
// reports as (maybe-)uninitialized (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
// Reference records eight a step (AVX-512 F and BW), from q while eight records are left and all
// eight are references; returns where it stopped (the records from there are the scalar loop's).
// One masked 40-byte load (nothing read past the eight); each record's five bytes, big-endian,
// into a 64-bit lane by a dword permute and a byte shuffle; the durations' prefix sum in three
// shifted adds; the Reference rows (time, address, then size and kind in one word) stored as
// three 64-byte vectors. `tt`: the time before q, then the last reference's. `wrapped`: set when
// a time passed 2^64 (the step is left to the scalar loop, which sets it too).
static_assert(sizeof(Reference) == 24 && offsetof(Reference, address) == 8 && offsetof(Reference, size) == 16 &&
                  offsetof(Reference, kind) == 20 && offsetof(Reference, origin) == 21 &&
                  offsetof(Reference, source) == 22,
              "refs_avx512 stores rows as three words");
__attribute__((target("avx512f,avx512bw"))) const std::uint8_t* refs_avx512(const std::uint8_t* q,
                                                                           const std::uint8_t* last, std::uint64_t& tt,
                                                                           Reference*& w, unsigned dbits,
                                                                           unsigned abits, unsigned shift,
                                                                           std::uint32_t unit_bytes) {
  // 128-bit lane L takes records 2L and 2L+1 (bytes 10L .. 10L+9) from the dwords starting at
  // 0, 2, 5, 7: the records start 0, 2, 0, 2 bytes into their lane.
  const __m512i dwords = _mm512_setr_epi32(0, 1, 2, 3, 2, 3, 4, 5, 5, 6, 7, 8, 7, 8, 9, 10);
  const __m512i bytes = _mm512_setr_epi64(0x8080800001020304LL, 0x8080800506070809LL, 0x8080800203040506LL,
                                          0x8080800708090A0BLL, 0x8080800001020304LL, 0x8080800506070809LL,
                                          0x8080800203040506LL, 0x8080800708090A0BLL);
  const __m512i control = _mm512_set1_epi64(std::int64_t{1} << 39);
  const __m512i dmask = _mm512_set1_epi64(static_cast<long long>((std::uint64_t{1} << dbits) - 1));
  const __m512i amask = _mm512_set1_epi64(static_cast<long long>((std::uint64_t{1} << abits) - 1));
  const __m128i dcount = _mm_cvtsi32_si128(static_cast<int>(dbits));
  const __m128i scount = _mm_cvtsi32_si128(static_cast<int>(shift));
  const __m512i one = _mm512_set1_epi64(1), zero = _mm512_setzero_si512();
  const __m512i unit = _mm512_set1_epi64(unit_bytes);
  const __m512i lane7 = _mm512_set1_epi64(7);
  // The rows: time and address words from (t, a), the third word from the tails.
  const __m512i row0 = _mm512_setr_epi64(0, 8, 0, 1, 9, 0, 2, 10), tail0 = _mm512_setr_epi64(0, 0, 0, 0, 0, 1, 0, 0);
  const __m512i row1 = _mm512_setr_epi64(0, 3, 11, 0, 4, 12, 0, 5), tail1 = _mm512_setr_epi64(2, 0, 0, 3, 0, 0, 4, 0);
  const __m512i row2 = _mm512_setr_epi64(13, 0, 6, 14, 0, 7, 15, 0), tail2 = _mm512_setr_epi64(0, 5, 0, 0, 6, 0, 0, 7);
  __m512i time = _mm512_set1_epi64(static_cast<long long>(tt));
  while (last - q >= static_cast<std::ptrdiff_t>(8 * wire::kRecordBytes)) {
    const __m512i raw = _mm512_maskz_loadu_epi8(0xFFFFFFFFFFULL, q);
    const __m512i r = _mm512_shuffle_epi8(_mm512_permutexvar_epi32(dwords, raw), bytes);
    if (_mm512_test_epi64_mask(r, control) != 0) break;
    __m512i d = _mm512_and_si512(r, dmask);
    d = _mm512_add_epi64(d, _mm512_alignr_epi64(d, zero, 7));
    d = _mm512_add_epi64(d, _mm512_alignr_epi64(d, zero, 6));
    d = _mm512_add_epi64(d, _mm512_alignr_epi64(d, zero, 4));
    const __m512i t = _mm512_add_epi64(time, d);
    if (_mm512_cmplt_epu64_mask(t, time) != 0) break;
    time = _mm512_permutexvar_epi64(lane7, t);
    const __m512i a = _mm512_sll_epi64(_mm512_and_si512(_mm512_srl_epi64(r, dcount), amask), scount);
    const __m512i tail = _mm512_or_si512(unit, _mm512_slli_epi64(_mm512_and_si512(_mm512_srli_epi64(r, 38), one), 32));
    auto* out = reinterpret_cast<long long*>(w);
    _mm512_storeu_si512(out, _mm512_mask_permutexvar_epi64(_mm512_permutex2var_epi64(t, row0, a), 0x24, tail0, tail));
    _mm512_storeu_si512(out + 8,
                        _mm512_mask_permutexvar_epi64(_mm512_permutex2var_epi64(t, row1, a), 0x49, tail1, tail));
    _mm512_storeu_si512(out + 16,
                        _mm512_mask_permutexvar_epi64(_mm512_permutex2var_epi64(t, row2, a), 0x92, tail2, tail));
    w += 8;
    q += 8 * wire::kRecordBytes;
  }
  tt = static_cast<std::uint64_t>(_mm_cvtsi128_si64(_mm512_castsi512_si128(time)));
  return q;
}
#pragma GCC diagnostic pop
#endif

// Decodes the records, the references into `o` (room for h.count of them) and the rest into `out`;
// false on any rule of docs/wire-format.md section 3 broken. `refs` is set to the references decoded.
bool records_ok(std::span<const std::uint8_t> b, const wire::FrameHeader& h, wire::DecodedFrame& out, Reference* o,
                std::size_t& refs) {
  const unsigned abits = h.addr_bits;
  const unsigned dbits = wire::duration_bits(abits);
  const std::uint64_t dmask = (std::uint64_t{1} << dbits) - 1;
  const std::uint64_t amask = (std::uint64_t{1} << abits) - 1;
  const std::uint32_t unit_bytes = 1u << h.line_shift;
  const unsigned shift = h.line_shift;
  std::uint64_t t = h.base_time;
  bool pending_overflow = false;
  std::size_t report_left = 0;
  const std::size_t n = h.count;
  // References written through a pointer into room for every record (push_back kept the vector's
  // end in memory, a load and a store per reference); the caller cuts to the references decoded.
  std::size_t k = 0;
  const std::uint8_t* p = b.data() + wire::kHeaderBytes;
  // The record at p as a 40-bit value (8 bytes from a record's start stay inside the frame: the
  // 4-byte CRC follows the last record).
  auto record = [](const std::uint8_t* at) {
    std::uint64_t word;
    std::memcpy(&word, at, sizeof word);
    if constexpr (std::endian::native == std::endian::little) word = __builtin_bswap64(word);
    return word >> 24;
  };
  for (std::size_t i = 0; i < n; ++i, p += wire::kRecordBytes) {
    // References, the bulk of a frame, in a loop of their own that keeps its few variables in
    // registers (with the control records' cases in the same loop they were kept on the stack).
    if (report_left == 0) {
      std::uint64_t tt = t;
      Reference* w = o + k;
      const std::uint8_t* q = p;
      const std::uint8_t* const last = b.data() + wire::kHeaderBytes + n * wire::kRecordBytes;
      bool wrapped = false;
#if defined(__x86_64__)
      if (refs_avx512_available()) q = refs_avx512(q, last, tt, w, dbits, abits, shift, unit_bytes);
#endif
      for (; q != last; q += wire::kRecordBytes) {
        const std::uint64_t r = record(q);
        if ((r >> 39) != 0) break;
        const std::uint64_t d = r & dmask;
        wrapped |= tt + d < tt;
        tt += d;
        *w++ = Reference{tt, ((r >> dbits) & amask) << shift, unit_bytes, ((r >> 38) & 1) ? Kind::Write : Kind::Read,
                         Origin::Unknown, 0};
      }
      if (wrapped) return false;
      if (q != p) pending_overflow = false;
      t = tt;
      k = static_cast<std::size_t>(w - o);
      i += static_cast<std::size_t>(q - p) / wire::kRecordBytes;
      p = q;
      if (i == n) break;
    }
    const std::uint64_t r = record(p);
    if ((r >> 39) == 0) return false;  // a reference inside a report's values
    const unsigned op = static_cast<unsigned>((r >> 36) & 7);
    const std::uint64_t payload = r & wire::kPayloadMask;
    if (report_left > 0 && op != 4) return false;
    switch (op) {
      case 0:  // OVERFLOW
        if (t + payload < t) return false;
        t += payload;
        pending_overflow = true;
        break;
      case 1: {  // EVENT
        const std::uint64_t d = payload >> 24;
        if (t + d < t) return false;
        t += d;
        out.events.push_back(wire::DecodedEvent{t, static_cast<std::uint32_t>(payload & wire::kEventIndexMask),
                                                ((payload >> 23) & 1) != 0});
        pending_overflow = false;
        break;
      }
      case 2:  // LOSS
        if (pending_overflow) return false;
        out.losses.push_back(wire::DecodedLoss{t, payload});
        break;
      case 3: {  // REPORT
        if (pending_overflow) return false;
        wire::DecodedReport rep;
        rep.time = t;
        rep.unit = static_cast<std::uint8_t>((payload >> 32) & 0xF);
        rep.interval = static_cast<std::uint16_t>(payload & 0xFFFF);
        report_left = static_cast<std::size_t>((payload >> 16) & 0xFFFF);
        if (rep.unit > 1) return false;
        if (report_left > n - i - 1) return false;
        rep.values.reserve(report_left);
        out.reports.push_back(std::move(rep));
        break;
      }
      case 4:  // REPORT_VALUE
        if (report_left == 0) return false;
        out.reports.back().values.push_back(payload);
        --report_left;
        break;
      default:
        return false;
    }
  }
  refs = k;
  if (pending_overflow) return false;
  out.end_time = t;
  return true;
}

// The header and length checks, then records_ok. `room(n)` gives room for n references.
// `crc_ok`: frame_crc_ok(b) is known true, so the CRC is not computed again.
template <typename Room>
bool frame_ok(std::span<const std::uint8_t> b, wire::DecodedFrame& out, Room room, std::size_t& refs,
              bool crc_ok = false) {
  // Everything but the references: the caller's room holds them.
  out.events.clear();
  out.losses.clear();
  out.reports.clear();
  out.end_time = 0;
  refs = 0;
  wire::FrameHeader h;
  if (!wire::read_header(b, h) || !wire::header_valid(h)) return false;
  out.header = h;
  const std::size_t expect = wire::kHeaderBytes + wire::kRecordBytes * h.count + wire::kCrcBytes;
  return b.size() == expect &&
         (crc_ok || wire::load_be32(&b[expect - wire::kCrcBytes]) == fast_crc32(b.first(expect - wire::kCrcBytes))) &&
         records_ok(b, h, out, room(h.count), refs);
}

// Rejected: the codec names the frame, record and field.
Status rejection(std::span<const std::uint8_t> b, wire::DecodedFrame& out) {
  Status s = wire::decode_frame(b, out);
  out.clear();
  if (s.ok()) return make_error("receiver: frame decoders disagree (accepted by the codec, rejected by the receiver)");
  return s;
}

}  // namespace

Status decode_link_frame(std::span<const std::uint8_t> b, wire::DecodedFrame& out) {
  // A vector reused at its last frame's size is not zero-filled again.
  std::size_t refs = 0;
  const bool ok = frame_ok(
      b, out,
      [&out](std::size_t n) {
        out.refs.resize(n);
        return out.refs.data();
      },
      refs);
  out.refs.resize(refs);
  if (ok) return Status::success();
  return rejection(b, out);
}

bool frame_crc_ok(std::span<const std::uint8_t> b) {
  return b.size() >= wire::kCrcBytes &&
         wire::load_be32(&b[b.size() - wire::kCrcBytes]) == fast_crc32(b.first(b.size() - wire::kCrcBytes));
}

Status decode_link_frame(std::span<const std::uint8_t> b, wire::DecodedFrame& side, std::span<Reference> room,
                         std::size_t& refs, bool crc_ok) {
  side.refs.clear();
  refs = 0;
  if (room.size() < wire::kMaxRecords)
    return make_error("receiver: room for " + std::to_string(room.size()) + " references, less than a frame's " +
                      std::to_string(wire::kMaxRecords));
  if (frame_ok(b, side, [&room](std::size_t) { return room.data(); }, refs, crc_ok)) return Status::success();
  refs = 0;
  return rejection(b, side);
}

}  // namespace hmtt::host
