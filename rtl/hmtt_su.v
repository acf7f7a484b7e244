// Copyright hmtt contributors. Licensed under the Apache License 2.0.
//
// hmtt_su: Statistic Unit (docs/board.md section 12), report unit 0.
//
// Behaviour. Per interval of interval_i cycles it counts, from the DCBU's
// commands (cmd_*_i, the codes of hmtt_dcbu) and the DSMU's references:
//   - READ and WRITE commands;
//   - row-buffer hits and misses: a READ/WRITE to an open bank is a miss if it
//     is the first since the bank's ACTIVE, a hit otherwise; a READ/WRITE to a
//     closed bank counts as neither (an orphan). ACTIVE opens the bank,
//     PRECHARGE closes it, PRECHARGE ALL and REFRESH close every bank of the
//     rank, a READ/WRITE with auto-precharge (ap_i) closes it after counting;
//   - ACTIVEs per bank (rank-major: index rank*8 + bank);
//   - per physical-address bit, how often it changed between consecutive
//     references (ref_addr_i against the previous reference, 0 after reset;
//     the previous address carries over interval ends).
// Commands with rank_i >= Ranks are ignored. Intervals start at reset; an
// interval ends in the cycle where the cycle count within it reaches
// interval_i (0 acts as 1), and that cycle's inputs count in it; at the end
// the counters are copied to the report buffer and cleared, the bank states
// are kept, and the interval number (from 0) advances.
//
// Report (docs/wire-format.md 3.2, unit 0): REPORT(unit 0, NV, interval mod
// 2^16), then NV = 4 + 8*Ranks + PhysW REPORT_VALUEs: reads, writes, row hits,
// row misses, the ACTIVEs of each bank, the toggles of address bits 0 ..
// PhysW-1; counters zero-extended to 36 bits. rec_valid_o/rec_o hold until
// rec_ready_i. Which input wins: an interval that ends while the previous
// report is still going out loses its report (lost_o counts it).
//
// Timing: no latency on the inputs; the first record of a report is valid in
// the cycle after its interval ends. On the board: hmtt_board_top with
// WithSu = 1 (docs/board.md 13).
`default_nettype none

// A top of its own in its bench and lint run and in a board built without it (WithSu = 0).
/* verilator lint_off MULTITOP */
module hmtt_su #(
  /* verilator lint_on MULTITOP */
  parameter integer Ranks = 2,   // 1..8
  parameter integer PhysW = 32,  // physical-address bits
  parameter integer CntW  = 32   // counter bits, <= 36
) (
  input  wire             clk_i,
  input  wire             rst_ni,
  // Settings
  input  wire [31:0]      interval_i,
  // Commands from the DCBU
  input  wire             cmd_valid_i,
  input  wire [2:0]       cmd_i,
  input  wire [2:0]       rank_i,
  input  wire [2:0]       bank_i,
  input  wire             ap_i,
  // References from the DSMU
  input  wire             ref_valid_i,
  input  wire [PhysW-1:0] ref_addr_i,
  // Report records
  output wire             rec_valid_o,
  output wire [39:0]      rec_o,
  input  wire             rec_ready_i,
  // Status
  output wire [31:0]      lost_o
);

  localparam [2:0] CmdAct  = 3'd1;
  localparam [2:0] CmdRd   = 3'd2;
  localparam [2:0] CmdWr   = 3'd3;
  localparam [2:0] CmdPre  = 3'd4;
  localparam [2:0] CmdPrea = 3'd5;
  localparam [2:0] CmdRef  = 3'd6;

  localparam integer NumBanks = 8 * Ranks;
  localparam integer NV       = 4 + NumBanks + PhysW;
  localparam integer IdxW     = $clog2(NV + 1);
  localparam [15:0]     NumValues = NV[15:0];
  localparam [IdxW-1:0] LastIdx   = NV[IdxW-1:0];
  localparam [CntW-1:0] One       = {{(CntW-1){1'b0}}, 1'b1};

  // ---------------------------------------------------------------- interval
  reg  [31:0] cyc_q, lost_q;
  reg  [15:0] interval_q;
  wire        iv_end = ({1'b0, cyc_q} + 33'd1) >= {1'b0, interval_i};
  wire [31:0] cyc_d  = iv_end ? 32'd0 : cyc_q + 32'd1;

  // ---------------------------------------------------------------- counting
  wire [5:0] bidx = {rank_i, bank_i};
  wire       cmd  = cmd_valid_i && ({29'd0, rank_i} < Ranks);

  reg [NumBanks-1:0]      open_q, used_q, open_d, used_d;
  reg [NV*CntW-1:0]       cnt_q, cnt_upd;
  reg [PhysW-1:0]         prev_q;
  reg                     sel, in_rank;
  integer k;
  always @* begin
    open_d  = open_q;
    used_d  = used_q;
    cnt_upd = cnt_q;
    // Per bank (constant indices): the state machine and the ACTIVE count.
    for (k = 0; k < NumBanks; k = k + 1) begin
      sel     = cmd && ({26'd0, bidx} == k);
      in_rank = cmd && ({29'd0, rank_i} == (k / 8));
      if (sel && (cmd_i == CmdAct)) begin
        open_d[k] = 1'b1;
        used_d[k] = 1'b0;
        cnt_upd[(4 + k)*CntW +: CntW] = cnt_q[(4 + k)*CntW +: CntW] + One;
      end
      if (sel && ((cmd_i == CmdRd) || (cmd_i == CmdWr)) && open_q[k]) begin
        used_d[k] = 1'b1;
        if (ap_i) open_d[k] = 1'b0;
      end
      if (sel && (cmd_i == CmdPre)) open_d[k] = 1'b0;
      if (in_rank && ((cmd_i == CmdPrea) || (cmd_i == CmdRef))) open_d[k] = 1'b0;
      // A first READ/WRITE since ACTIVE is a miss, a later one a hit.
      if (sel && ((cmd_i == CmdRd) || (cmd_i == CmdWr)) && open_q[k]) begin
        if (used_q[k]) cnt_upd[2*CntW +: CntW] = cnt_q[2*CntW +: CntW] + One;
        else           cnt_upd[3*CntW +: CntW] = cnt_q[3*CntW +: CntW] + One;
      end
    end
    if (cmd && (cmd_i == CmdRd)) cnt_upd[0 +: CntW] = cnt_q[0 +: CntW] + One;
    if (cmd && (cmd_i == CmdWr)) cnt_upd[CntW +: CntW] = cnt_q[CntW +: CntW] + One;
    if (ref_valid_i) begin
      for (k = 0; k < PhysW; k = k + 1) begin
        cnt_upd[(4 + NumBanks + k)*CntW +: CntW] = cnt_q[(4 + NumBanks + k)*CntW +: CntW] +
                                                   {{(CntW-1){1'b0}}, ref_addr_i[k] ^ prev_q[k]};
      end
    end
  end

  // ---------------------------------------------------------------- report buffer
  reg              busy_q;
  reg [IdxW-1:0]   idx_q;
  reg [15:0]       snum_q;
  reg [NV*CntW-1:0] snap_q;

  wire take = iv_end && !busy_q;
  wire lose = iv_end && busy_q;
  wire last = busy_q && rec_ready_i && (idx_q == LastIdx);
  wire [IdxW-1:0] idx_d = take ? {IdxW{1'b0}} :
                          (busy_q && rec_ready_i) ? idx_q + {{(IdxW-1){1'b0}}, 1'b1} : idx_q;
  wire busy_d = take ? 1'b1 : (last ? 1'b0 : busy_q);

  wire [IdxW-1:0] vidx = (idx_q == {IdxW{1'b0}}) ? {IdxW{1'b0}} : idx_q - {{(IdxW-1){1'b0}}, 1'b1};
  wire [CntW-1:0] value = snap_q[vidx*CntW +: CntW];
  assign rec_valid_o = busy_q;
  assign rec_o = (idx_q == {IdxW{1'b0}}) ? {1'b1, 3'd3, 4'd0, NumValues, snum_q}
                                         : {1'b1, 3'd4, {(36-CntW){1'b0}}, value};
  assign lost_o = lost_q;

  // ---------------------------------------------------------------- registers
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cyc_q      <= 32'd0;
      lost_q     <= 32'd0;
      interval_q <= 16'd0;
      open_q     <= {NumBanks{1'b0}};
      used_q     <= {NumBanks{1'b0}};
      cnt_q      <= {(NV*CntW){1'b0}};
      prev_q     <= {PhysW{1'b0}};
      busy_q     <= 1'b0;
      idx_q      <= {IdxW{1'b0}};
    end else begin
      cyc_q      <= cyc_d;
      lost_q     <= lose ? lost_q + 32'd1 : lost_q;
      interval_q <= iv_end ? interval_q + 16'd1 : interval_q;
      open_q     <= open_d;
      used_q     <= used_d;
      cnt_q      <= iv_end ? {(NV*CntW){1'b0}} : cnt_upd;
      prev_q     <= ref_valid_i ? ref_addr_i : prev_q;
      busy_q     <= busy_d;
      idx_q      <= idx_d;
    end
  end

  always @(posedge clk_i) begin
    if (take) begin
      snum_q <= interval_q;
      snap_q <= cnt_upd;
    end
  end

endmodule

`default_nettype wire
