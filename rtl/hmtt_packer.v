// Copyright hmtt contributors. Licensed under the Apache License 2.0.
//
// hmtt_packer: trace packer (docs/board.md section 6, docs/wire-format.md 3).
//
// hmtt::wire::FrameEncoder in hardware. For each FIFO entry (time t, gap
// g = t - last_time) it performs one action per cycle:
//   1. LOSS record (payload = loss) if the entry carries a loss count;
//   2. if g >= 2^36, two cycles without a record that count the OVERFLOW
//      chain; a frame close if the n_ovf + 1 records of the item would not fit
//      the open frame (n_ovf = 0 if g fits the duration field, else
//      ceil(g / (2^36-1)));
//   3. n_ovf OVERFLOW records (2^36-1 each, the last one the remainder);
//   4. the reference record (duration g, or 0 after OVERFLOW) or EVENT record
//      (12-bit duration); last_time := t.
// A report entry (kind 3, an online unit's report, docs/board.md 13; write bit =
// unit, data = its record count n = NV + 1) takes: the LOSS record if it carries
// a loss count; a frame close (no record) if the open frame is not empty and
// cannot hold the n records; then the n records one per cycle, taken from
// rep_rec_i, with rep_ready_o high exactly in those cycles (the unit's
// rec_ready). A report carries no time: last_time stays. rpf_i must be >= n.
// A frame closes after the record that fills it (rpf_i records), after an END
// TRACING event, and on flush_i once the FIFO is idle and the packer idle.
// base_o/flag_o give the frame's base_time and tracing flag for the framer,
// which latches them with the first record of a frame. The tracing flag follows
// the CU's rule, updated when BEGIN/END events are packed.
//
// Timing: no adder or wide compare follows this cycle's action before the next
// entry's decisions: the OVERFLOW remainder is split in a 28-bit and a 36-bit
// chain, "ovf_q != 0" and "ovf_q >= 2^36" are registered flags, the frame's fill
// state is compared with rpf_i - 1..3 from the registered count (near1..3), and
// BEGIN/END are decoded when the entry is loaded.
//
// Latency: an entry popped in cycle k has its actions in cycles k+1...; ready_o
// is high while idle and in the cycle of the last action, so single-record
// entries flow at one per cycle.
`default_nettype none

module hmtt_packer #(
  parameter integer TimeW     = 64,
  parameter integer DataW     = 32,
  parameter integer AddrBits  = 26,   // A: address field of a reference record
  parameter integer LineShift = 6
) (
  input  wire             clk_i,
  input  wire             rst_ni,
  // Settings
  input  wire [8:0]       rpf_i,             // records per frame, 8..288
  input  wire             trace_on_reset_i,
  input  wire             flush_i,
  input  wire             fifo_idle_i,
  // Entries from the TFU
  input  wire             ent_valid_i,
  input  wire [1:0]       ent_kind_i,
  input  wire             ent_write_i,
  input  wire [DataW-1:0] ent_data_i,
  input  wire [TimeW-1:0] ent_time_i,
  input  wire [63:0]      ent_gap_i,         // ent_time_i - time of the previous time-carrying entry
  input  wire [35:0]      ent_loss_i,
  output wire             ready_o,
  // Report records of the unit whose report entry is being packed
  input  wire [39:0]      rep_rec_i,
  output wire             rep_ready_o,       // rep_rec_i is written this cycle
  output wire             rep_unit_o,        // that unit (0 SU, 1 RDHPU)
  // Records to the framer
  output wire             rec_valid_o,
  output wire [39:0]      rec_o,
  output wire             close_o,           // close the open frame (after rec_o if rec_valid_o)
  output wire [TimeW-1:0] base_o,
  output wire             flag_o,
  output wire             idle_o             // nothing to pack, no open frame
);

  localparam integer DurBits = 38 - AddrBits;
  localparam [2:0] StIdle  = 3'd0;
  localparam [2:0] StLoss  = 3'd1;
  localparam [2:0] StClose = 3'd2;
  localparam [2:0] StOvf   = 3'd3;
  localparam [2:0] StRec   = 3'd4;
  localparam [2:0] StBig   = 3'd5;  // gap >= 2^36: two cycles to count the OVERFLOW chain
  localparam [2:0] StBig2  = 3'd6;
  localparam [2:0] StRep   = 3'd7;  // a unit's report: [close], then its records
  localparam [1:0] KindRef  = 2'd0;
  localparam [1:0] KindLoss = 2'd2;
  localparam [1:0] KindRep  = 2'd3;
  localparam [1:0] TrUnset = 2'd0;
  localparam [1:0] TrOn    = 2'd1;
  localparam [1:0] TrOff   = 2'd2;
  localparam [63:0] Pm = 64'h0000_000F_FFFF_FFFF;  // 2^36-1

  reg [2:0]       st_q, st_d, st_a;
  reg [1:0]       kind_q, kind_d;
  reg             write_q, write_d;
  reg [DataW-1:0] data_q, data_d;
  reg [TimeW-1:0] time_q, time_d;
  reg [35:0]      loss_q, loss_d;
  reg             closeb_q, closeb_d;   // close before the item
  reg [63:0]      ovf_q, ovf_d, ovf_a;  // gap still to send as OVERFLOW
  // Registered flags of ovf_q, so that no 64-bit OR precedes the state decisions:
  // nz = (ovf_q != 0), more = (ovf_q >= 2^36: more than one OVERFLOW left).
  reg             ovf_nz_q, ovf_nz_d, ovf_nz_a;
  reg             ovf_more_q, ovf_more_d, ovf_more_a;
  reg [63:0]      dur_q, dur_d;         // duration of the item's record
  reg [TimeW-1:0] last_q, last_d;
  reg [8:0]       cnt_q, cnt_d;
  reg [1:0]       trc_q, trc_d;
  reg             rfirst_q, rfirst_d, rfirst_a;  // StRep has not acted yet (close-before decision)
  reg [8:0]       rrem_q, rrem_d, rrem_a;        // report records still to write
  reg             rlast_q, rlast_d, rlast_a;     // rrem_q == 1: the next record is the report's last
  reg [9:0]       rlim_q, rlim_d;                // rpf_i - n: more records than this in the frame = close
  // The report's close-before decision for StRep's first cycle, registered: the open frame is not empty
  // and cannot hold the n records (cnt + n > rpf_i, i.e. cnt > rlim). Computed at the load from the count
  // after this cycle's action, and again in StLoss after the LOSS record.
  reg             rclose_q, rclose_d, rclose_a;

  wire tracing = (trc_q == TrUnset) ? trace_on_reset_i : (trc_q == TrOn);
  // A report has n >= 2 records, so its last record (rlast_q) is never its first action.
  wire last_action = (st_q == StRec) || (st_q == StLoss && kind_q == KindLoss) ||
                     (st_q == StRep && rlast_q);
  // The report's close-before (registered decision, see rclose_q).
  wire rep_close = rfirst_q && rclose_q;
  wire ready = (st_q == StIdle) || last_action;

  // Records of the current entry.
  wire        ovf_more = ovf_more_q;                      // more than one OVERFLOW left
  wire [35:0] ovf_part = ovf_more ? Pm[35:0] : ovf_q[35:0];
  // ovf_q - (2^36-1) with ovf_q = {hi, lo} is {hi - 1, lo + 1}, or {hi, 0} when lo = 2^36-1 (lo + 1
  // wraps to 0 then): a 28-bit and a 36-bit carry chain side by side instead of one of 64.
  wire [27:0] ovf_hi = ovf_q[63:36];
  wire [35:0] ovf_lo_inc = ovf_q[35:0] + 36'd1;
  wire [27:0] ovf_hi_dec = ovf_hi - 28'd1;
  wire        ovf_lo_full = &ovf_q[35:0];
  wire [63:0] ovf_rest = {ovf_lo_full ? ovf_hi : ovf_hi_dec, ovf_lo_inc};
  // ovf_rest >= 2^36 (with hi >= 1 while ovf_more): hi stays, or hi - 1 is not 0.
  wire        rest_more = ovf_lo_full || (ovf_hi != 28'd1);
  wire [39:0] loss_rec = {1'b1, 3'd2, loss_q};
  wire [39:0] ovf_rec = {1'b1, 3'd0, ovf_part};
  wire [DataW-1:0] line = data_q >> LineShift;
  wire [39:0] ref_rec = {1'b0, write_q, line[AddrBits-1:0], dur_q[DurBits-1:0]};
  wire [39:0] evt_rec = {1'b1, 3'd1, dur_q[11:0], write_q, data_q[22:0]};
  // BEGIN/END TRACING, decoded when the entry is loaded (no 32-bit compare after the register).
  reg  is_begin_q, is_begin_d, is_end_q, is_end_d;
  wire is_begin = is_begin_q;
  wire is_end = is_end_q;

  reg        rec_valid, close, rep_ready;
  reg [39:0] rec;
  reg [8:0]  cnt_inc;
  reg        cnt_step, cnt_clear;  // this cycle's action: cnt_d = cnt_q + 1, or cnt_d = 0

  // How full the open frame is, from the registered count: near_k = (cnt_q == rpf_i - k). near1 is
  // "the next record fills the frame"; near2 and near3 give the next entry's close-before decision
  // without adding up cnt_d after this cycle's action (see closeb).
  wire near1 = (cnt_q == rpf_i - 9'd1);
  wire near2 = (cnt_q == rpf_i - 9'd2);
  wire near3 = (cnt_q == rpf_i - 9'd3);

  // Load: the next entry's gap, OVERFLOW count and close-before decision.
  // The gap comes with the entry (the TFU computes it when the item enters). The OVERFLOW
  // count n = ceil(g / (2^36-1)) = hi + (lo + hi == 0 ? 0 : lo + hi <= 2^36-1 ? 1 : 2)
  // with g = hi * 2^36 + lo needs no adder: lo + hi <= 2^36-1 <=> lo <= ~hi.
  wire [63:0] gap = ent_gap_i;
  wire        fits = (ent_kind_i == KindRef) ? (gap[63:DurBits] == {(64-DurBits){1'b0}})
                                             : (gap[63:12] == 52'd0);
  wire        big = gap[63:36] != 28'd0;   // needs the StBig cycle (rare: 2^36 cycles of silence)
  // A gap below 2^36 that does not fit needs one OVERFLOW: close first if only one record fits,
  // i.e. if cnt_d plus the LOSS record (if any) is rpf_i - 1 (cnt_d is below rpf_i, and 0 after a
  // close, which never matches as rpf_i >= 8). after_k = (cnt_d == rpf_i - k), from the near flags.
  wire        after1 = !cnt_clear && (cnt_step ? near2 : near1);
  wire        after2 = !cnt_clear && (cnt_step ? near3 : near2);
  wire        closeb = !fits && !big && ((ent_loss_i != 36'd0) ? after2 : after1);
  // A report's close-before from the count after this cycle's action: cnt_d = 0 never closes, cnt_q + 1
  // closes if cnt_q + 1 > rpf_i - n, cnt_q if cnt_q > rpf_i - n (which implies cnt_q != 0).
  wire [9:0]  rep_lim = {1'b0, rpf_i} - {1'b0, ent_data_i[8:0]};
  wire        rep_closeb = !cnt_clear && (cnt_step ? ({1'b0, cnt_q} >= rep_lim) : ({1'b0, cnt_q} > rep_lim));
  // StBig, from the registered gap in ovf_q: n = ceil(g / (2^36-1)) = hi + (lo + hi <= 2^36-1 ? 1 : 2)
  // (hi > 0 here) with g = hi * 2^36 + lo; lo + hi <= 2^36-1 <=> lo <= ~hi, no adder.
  wire [27:0] big_hi = ovf_q[63:36];
  wire [1:0]  carry_n = (ovf_q[35:0] <= {8'hFF, ~big_hi}) ? 2'd1 : 2'd2;
  wire        n_big = big_hi[27:9] != 19'd0;                       // n >= 512: never fits a frame
  reg  [1:0]  carry_q, carry_d;
  wire [9:0]  n_small = {1'b0, big_hi[8:0]} + {8'd0, carry_q};  // in StBig2
  wire [9:0]  room = {1'b0, rpf_i} - {1'b0, cnt_q} - 10'd1;          // OVERFLOW records that still fit
  // StBig registers the chain's carry term, StBig2 compares the chain length with the room left.
  wire        closeb_big = (cnt_q != 9'd0) && (n_big || (n_small > room));

  // This cycle's action (st_a/ovf_a: state after it).
  always @* begin
    st_a = st_q; ovf_a = ovf_q; ovf_nz_a = ovf_nz_q; ovf_more_a = ovf_more_q;
    last_d = last_q; cnt_d = cnt_q; trc_d = trc_q;
    rfirst_a = rfirst_q; rrem_a = rrem_q; rlast_a = rlast_q; rclose_a = rclose_q;
    rec_valid = 1'b0;
    rep_ready = 1'b0;
    rec = 40'd0;
    close = 1'b0;
    cnt_inc = cnt_q + 9'd1;
    cnt_step = 1'b0;
    cnt_clear = 1'b0;
    case (st_q)
      StIdle: begin
        if (flush_i && fifo_idle_i && !ent_valid_i && cnt_q != 9'd0) begin
          close = 1'b1;
          cnt_d = 9'd0;
          cnt_clear = 1'b1;
        end
      end
      StLoss: begin
        rec_valid = 1'b1;
        rec = loss_rec;
        cnt_d = cnt_inc;
        cnt_step = 1'b1;
        if (near1) begin
          close = 1'b1;
          cnt_d = 9'd0;
          cnt_clear = 1'b1;
        end
        // A report after its LOSS: close first unless the frame is empty after the LOSS (cnt_d = 0 or
        // cnt_q + 1) or holds the report (cnt_q + 1 + n <= rpf_i).
        rclose_a = !near1 && ({1'b0, cnt_q} >= rlim_q);
        if (kind_q == KindLoss) st_a = StIdle;
        else if (kind_q == KindRep) st_a = StRep;
        else if (ovf_more_q) st_a = StBig;
        else if (closeb_q) st_a = StClose;
        else if (ovf_nz_q) st_a = StOvf;
        else st_a = StRec;
      end
      StBig: begin
        st_a = StBig2;
      end
      StBig2: begin
        if (closeb_big) st_a = StClose;
        else st_a = StOvf;
      end
      StClose: begin
        close = 1'b1;
        cnt_d = 9'd0;
        cnt_clear = 1'b1;
        st_a = ovf_nz_q ? StOvf : StRec;
      end
      StOvf: begin
        rec_valid = 1'b1;
        rec = ovf_rec;
        cnt_d = cnt_inc;
        cnt_step = 1'b1;
        ovf_a = ovf_more ? ovf_rest : 64'd0;
        ovf_nz_a = ovf_more;
        ovf_more_a = ovf_more && rest_more;
        if (!ovf_more) st_a = StRec;  // this part was all that was left
      end
      StRec: begin
        rec_valid = 1'b1;
        rec = (kind_q == KindRef) ? ref_rec : evt_rec;
        cnt_d = cnt_inc;
        cnt_step = 1'b1;
        last_d = time_q;
        if (near1 || is_end) begin
          close = 1'b1;
          cnt_d = 9'd0;
          cnt_clear = 1'b1;
        end
        if (is_begin) trc_d = TrOn;
        if (is_end) trc_d = TrOff;
        st_a = StIdle;
      end
      StRep: begin
        rfirst_a = 1'b0;
        if (rep_close) begin
          close = 1'b1;
          cnt_d = 9'd0;
          cnt_clear = 1'b1;
        end else begin
          rec_valid = 1'b1;
          rec = rep_rec_i;
          rep_ready = 1'b1;
          cnt_d = cnt_inc;
          cnt_step = 1'b1;
          if (near1) begin
            close = 1'b1;
            cnt_d = 9'd0;
            cnt_clear = 1'b1;
          end
          rrem_a = rrem_q - 9'd1;
          rlast_a = (rrem_q == 9'd2);
          if (rlast_q) st_a = StIdle;
        end
      end
      default: begin
        st_a = StIdle;
      end
    endcase
  end


  always @* begin
    carry_d = carry_q;
    if (st_q == StBig) carry_d = carry_n;
  end

  // Load the next entry (the TFU pops only while ready).
  always @* begin
    st_d = st_a; kind_d = kind_q; write_d = write_q; data_d = data_q; time_d = time_q;
    loss_d = loss_q; closeb_d = closeb_q; ovf_d = ovf_a; dur_d = dur_q;
    ovf_nz_d = ovf_nz_a; ovf_more_d = ovf_more_a;
    is_begin_d = is_begin_q; is_end_d = is_end_q;
    rfirst_d = rfirst_a; rrem_d = rrem_a; rlast_d = rlast_a; rclose_d = rclose_a; rlim_d = rlim_q;
    if (ent_valid_i) begin
      is_begin_d = (ent_kind_i != KindRef) && (ent_data_i == {DataW{1'b0}});
      is_end_d   = (ent_kind_i != KindRef) && (ent_data_i == {{(DataW-1){1'b0}}, 1'b1});
      kind_d   = ent_kind_i;
      write_d  = ent_write_i;
      data_d   = ent_data_i;
      time_d   = ent_time_i;
      loss_d   = ent_loss_i;
      closeb_d = closeb;
      ovf_d    = fits ? 64'd0 : gap;
      ovf_nz_d = !fits;      // a gap that does not fit is above 4095
      ovf_more_d = big;      // big implies !fits
      dur_d    = fits ? gap : 64'd0;
      rfirst_d = 1'b1;
      rrem_d   = ent_data_i[8:0];
      rlast_d  = 1'b0;  // n >= 2
      rlim_d   = rep_lim;
      rclose_d = rep_closeb;
      if (ent_loss_i != 36'd0) st_d = StLoss;
      else if (ent_kind_i == KindRep) st_d = StRep;
      else if (big) st_d = StBig;
      else if (closeb) st_d = StClose;
      else if (!fits) st_d = StOvf;
      else st_d = StRec;
    end
  end

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q     <= StIdle;
      kind_q   <= KindRef;
      write_q  <= 1'b0;
      data_q   <= {DataW{1'b0}};
      time_q   <= {TimeW{1'b0}};
      loss_q   <= 36'd0;
      closeb_q <= 1'b0;
      ovf_q    <= 64'd0;
      ovf_nz_q <= 1'b0;
      ovf_more_q <= 1'b0;
      dur_q    <= 64'd0;
      last_q   <= {TimeW{1'b0}};
      cnt_q    <= 9'd0;
      trc_q    <= TrUnset;
      carry_q  <= 2'd0;
      is_begin_q <= 1'b0;
      is_end_q <= 1'b0;
      rfirst_q <= 1'b0;
      rrem_q   <= 9'd0;
      rlast_q  <= 1'b0;
      rlim_q   <= 10'd0;
      rclose_q <= 1'b0;
    end else begin
      st_q     <= st_d;
      kind_q   <= kind_d;
      write_q  <= write_d;
      data_q   <= data_d;
      time_q   <= time_d;
      loss_q   <= loss_d;
      closeb_q <= closeb_d;
      ovf_q    <= ovf_d;
      ovf_nz_q <= ovf_nz_d;
      ovf_more_q <= ovf_more_d;
      dur_q    <= dur_d;
      last_q   <= last_d;
      cnt_q    <= cnt_d;
      trc_q    <= trc_d;
      carry_q  <= carry_d;
      is_begin_q <= is_begin_d;
      is_end_q <= is_end_d;
      rfirst_q <= rfirst_d;
      rrem_q   <= rrem_d;
      rlast_q  <= rlast_d;
      rlim_q   <= rlim_d;
      rclose_q <= rclose_d;
    end
  end

  wire unused_bits = ^{dur_q[63:DurBits], line[DataW-1:AddrBits], data_q[DataW-1:23]};

  assign ready_o     = ready;
  assign rec_valid_o = rec_valid;
  assign rec_o       = rec;
  assign rep_ready_o = rep_ready;
  assign rep_unit_o  = write_q;
  assign close_o     = close;
  assign base_o      = last_q;
  assign flag_o      = tracing;
  assign idle_o      = (st_q == StIdle) && (cnt_q == 9'd0);

endmodule

`default_nettype wire
