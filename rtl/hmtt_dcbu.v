// Copyright hmtt contributors. Licensed under the Apache License 2.0.
//
// hmtt_dcbu: DDR Command Buffer Unit (docs/board.md section 2).
//
// Samples the DDR command pins (cs_n per rank, ras_n, cas_n, we_n, ba, a) on
// every rising edge, decodes them by the JEDEC truth table and passes on only
// ACTIVE, READ, WRITE, PRECHARGE, PRECHARGE ALL and REFRESH. NOP, DESELECT,
// MODE REGISTER SET, BURST TERMINATE and cycles with more than one rank
// selected carry no information for the trace and are dropped. Each command is
// stamped with the board time of the cycle its pins were sampled in; the time
// counter starts at 0 in the first cycle after reset. The counter is kept in two
// halves with a registered carry between them (no TimeW-bit carry chain: on an
// iCE40 a 64-bit chain alone caps the clock near 90 MHz).
//
// Latency: 1 cycle (pins in cycle c -> cmd_valid_o in cycle c+1, time_o = c).
`default_nettype none

module hmtt_dcbu #(
  parameter integer Ranks = 2,   // chip selects, 1..8
  parameter integer TimeW = 64   // board time width
) (
  input  wire             clk_i,
  input  wire             rst_ni,
  // DDR command bus (active-low signals carry their electrical value)
  input  wire [Ranks-1:0] cs_n_i,
  input  wire             ras_n_i,
  input  wire             cas_n_i,
  input  wire             we_n_i,
  input  wire [2:0]       ba_i,
  input  wire [15:0]      a_i,
  // Decoded command, one cycle later
  output wire             cmd_valid_o,
  output wire [2:0]       cmd_o,     // 1 ACT, 2 RD, 3 WR, 4 PRE, 5 PREA, 6 REF
  output wire [2:0]       rank_o,
  output wire [2:0]       bank_o,
  output wire [15:0]      addr_o,    // row (ACT) or column with A10 cleared (RD/WR)
  output wire             ap_o,      // auto-precharge (A10 of RD/WR)
  output wire [TimeW-1:0] time_o
);

  localparam [2:0] CmdAct  = 3'd1;
  localparam [2:0] CmdRd   = 3'd2;
  localparam [2:0] CmdWr   = 3'd3;
  localparam [2:0] CmdPre  = 3'd4;
  localparam [2:0] CmdPrea = 3'd5;
  localparam [2:0] CmdRef  = 3'd6;

  // Exactly one rank selected, and which.
  wire [Ranks-1:0] sel = ~cs_n_i;
  wire one_rank = (sel != {Ranks{1'b0}}) && ((sel & (sel - {{(Ranks-1){1'b0}}, 1'b1})) == {Ranks{1'b0}});
  reg [2:0] rank_d;
  integer i;
  always @* begin
    rank_d = 3'd0;
    for (i = Ranks - 1; i >= 0; i = i - 1) begin
      if (sel[i]) rank_d = i[2:0];
    end
  end

  // JEDEC truth table on {ras_n, cas_n, we_n}.
  reg       valid_d;
  reg [2:0] cmd_d;
  reg [15:0] addr_d;
  always @* begin
    valid_d = 1'b0;
    cmd_d   = 3'd0;
    addr_d  = 16'd0;
    if (one_rank) begin
      case ({ras_n_i, cas_n_i, we_n_i})
        3'b011: begin valid_d = 1'b1; cmd_d = CmdAct; addr_d = a_i; end
        3'b101: begin valid_d = 1'b1; cmd_d = CmdRd; addr_d = a_i & 16'hFBFF; end
        3'b100: begin valid_d = 1'b1; cmd_d = CmdWr; addr_d = a_i & 16'hFBFF; end
        3'b010: begin valid_d = 1'b1; cmd_d = a_i[10] ? CmdPrea : CmdPre; end
        3'b001: begin valid_d = 1'b1; cmd_d = CmdRef; end
        default: begin valid_d = 1'b0; end  // NOP, MRS, BST
      endcase
    end
  end

  reg             valid_q;
  reg [2:0]       cmd_q, rank_q, bank_q;
  reg [15:0]      addr_q;
  reg             ap_q;
  reg [TimeW-1:0] time_q;

  // Board time in two halves with no carry chain across them: the high half steps in the cycle the
  // low half wraps, which wrap_q announces one cycle ahead (the low half is all ones but bit 0).
  localparam integer LoW = TimeW / 2;
  localparam integer HiW = TimeW - LoW;
  reg [LoW-1:0] now_lo_q;
  reg [HiW-1:0] now_hi_q;
  reg           wrap_q;
  wire [TimeW-1:0] now_q = {now_hi_q, now_lo_q};
  wire [LoW-1:0] now_lo_d = now_lo_q + {{(LoW-1){1'b0}}, 1'b1};
  wire [HiW-1:0] now_hi_d = now_hi_q + {{(HiW-1){1'b0}}, wrap_q};
  wire           wrap_d = (now_lo_q == {{(LoW-1){1'b1}}, 1'b0});

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= 1'b0;
      cmd_q   <= 3'd0;
      rank_q  <= 3'd0;
      bank_q  <= 3'd0;
      addr_q  <= 16'd0;
      ap_q    <= 1'b0;
      now_lo_q <= {LoW{1'b0}};
      now_hi_q <= {HiW{1'b0}};
      wrap_q  <= 1'b0;
      time_q  <= {TimeW{1'b0}};
    end else begin
      valid_q <= valid_d;
      cmd_q   <= cmd_d;
      rank_q  <= rank_d;
      bank_q  <= ba_i;
      addr_q  <= addr_d;
      ap_q    <= a_i[10];
      now_lo_q <= now_lo_d;
      now_hi_q <= now_hi_d;
      wrap_q  <= wrap_d;
      time_q  <= now_q;
    end
  end

  assign cmd_valid_o = valid_q;
  assign cmd_o       = cmd_q;
  assign rank_o      = rank_q;
  assign bank_o      = bank_q;
  assign addr_o      = addr_q;
  assign ap_o        = ap_q;
  assign time_o      = time_q;

endmodule

`default_nettype wire
