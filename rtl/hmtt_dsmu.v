// Copyright hmtt contributors. Licensed under the Apache License 2.0.
//
// hmtt_dsmu: DDR State Machine Unit (docs/board.md section 3).
//
// Keeps the simplified four-state machine of the HMTT paper's Fig. 5 for every
// bank of every rank: IDLE -ACTIVE(row)-> ACTIVE -READ-> READING / -WRITE->
// WRITING; READ/WRITE keep the row open (or close it with auto-precharge),
// ACTIVE re-opens, PRECHARGE closes one bank, PRECHARGE ALL and REFRESH close
// every bank of their rank. Only ACTIVE, READ and WRITE drive the machine. A
// READ/WRITE to an open bank becomes a reference whose physical address is
// rebuilt from the bank's row, the column, bank, rank and channel through the
// address map given as parameters (AddressMap::compose); a READ/WRITE to an
// IDLE bank is an orphan (pulse on orphan_o, no reference).
//
// Latency: 1 cycle (command in cycle c+1 -> ref_valid_o in cycle c+2).
`default_nettype none

module hmtt_dsmu #(
  parameter integer Ranks        = 2,
  parameter integer TimeW        = 64,
  parameter integer PhysW        = 32,
  // Address map: position (shift) and width of each field in the byte address.
  parameter integer RowShift     = 17,
  parameter integer RowWidth     = 14,
  parameter integer ColShift     = 3,
  parameter integer ColWidth     = 10,
  parameter integer ColLowShift  = 0,
  parameter integer ColLowWidth  = 0,
  parameter integer BankShift    = 13,
  parameter integer BankWidth    = 3,
  parameter integer RankShift    = 16,
  parameter integer RankWidth    = 1,
  parameter integer ChannelShift = 0,
  parameter integer ChannelWidth = 0
) (
  input  wire             clk_i,
  input  wire             rst_ni,
  // Board setting
  input  wire [2:0]       channel_i,
  // Commands from the DCBU
  input  wire             cmd_valid_i,
  input  wire [2:0]       cmd_i,
  input  wire [2:0]       rank_i,
  input  wire [2:0]       bank_i,
  input  wire [15:0]      addr_i,
  input  wire             ap_i,
  input  wire [TimeW-1:0] time_i,
  // References
  output wire             ref_valid_o,
  output wire             ref_write_o,
  output wire [PhysW-1:0] ref_addr_o,
  output wire [TimeW-1:0] ref_time_o,
  output wire             orphan_o
);

  localparam [2:0] CmdAct  = 3'd1;
  localparam [2:0] CmdRd   = 3'd2;
  localparam [2:0] CmdWr   = 3'd3;
  localparam [2:0] CmdPre  = 3'd4;
  localparam [2:0] CmdPrea = 3'd5;
  localparam [2:0] CmdRef  = 3'd6;

  localparam [1:0] StIdle    = 2'd0;
  localparam [1:0] StActive  = 2'd1;
  localparam [1:0] StReading = 2'd2;
  localparam [1:0] StWriting = 2'd3;

  localparam integer NumBanks = Ranks * 8;

  localparam [63:0] RowMask    = (64'd1 << RowWidth) - 64'd1;
  localparam [63:0] ColMask    = (64'd1 << ColWidth) - 64'd1;
  localparam [63:0] ColLowMask = (64'd1 << ColLowWidth) - 64'd1;
  localparam [63:0] BankMask   = (64'd1 << BankWidth) - 64'd1;
  localparam [63:0] RankMask   = (64'd1 << RankWidth) - 64'd1;
  localparam [63:0] ChanMask   = (64'd1 << ChannelWidth) - 64'd1;

  reg [2*NumBanks-1:0]  state_q, state_d;
  reg [16*NumBanks-1:0] row_q, row_d;

  // The bank this command addresses.
  wire [6:0] idx = {1'b0, rank_i, bank_i};
  wire [1:0] cur_state = state_q[2*idx +: 2];
  wire [15:0] cur_row = row_q[16*idx +: 16];
  wire is_cas = cmd_valid_i && (cmd_i == CmdRd || cmd_i == CmdWr);
  wire hit = is_cas && (cur_state != StIdle);

  // Physical address rebuild (AddressMap::compose).
  wire [63:0] col64 = {48'd0, addr_i};
  wire [63:0] addr64 = (({48'd0, cur_row} & RowMask) << RowShift)
                     | (((col64 >> ColLowWidth) & ColMask) << ColShift)
                     | ((col64 & ColLowMask) << ColLowShift)
                     | (({61'd0, bank_i} & BankMask) << BankShift)
                     | (({61'd0, rank_i} & RankMask) << RankShift)
                     | (({61'd0, channel_i} & ChanMask) << ChannelShift);

  integer b;
  always @* begin
    state_d = state_q;
    row_d   = row_q;
    if (cmd_valid_i) begin
      case (cmd_i)
        CmdAct: begin
          state_d[2*idx +: 2] = StActive;
          row_d[16*idx +: 16] = addr_i;
        end
        CmdRd, CmdWr: begin
          if (cur_state != StIdle) begin
            if (ap_i) state_d[2*idx +: 2] = StIdle;
            else state_d[2*idx +: 2] = (cmd_i == CmdWr) ? StWriting : StReading;
          end
        end
        CmdPre: state_d[2*idx +: 2] = StIdle;
        CmdPrea, CmdRef: begin
          for (b = 0; b < 8; b = b + 1) state_d[2*(8*rank_i + b) +: 2] = StIdle;
        end
        default: begin
          state_d = state_q;
        end
      endcase
    end
  end

  reg             ref_valid_q, ref_write_q, orphan_q;
  reg [PhysW-1:0] ref_addr_q;
  reg [TimeW-1:0] ref_time_q;

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q     <= {2*NumBanks{1'b0}};
      row_q       <= {16*NumBanks{1'b0}};
      ref_valid_q <= 1'b0;
      ref_write_q <= 1'b0;
      orphan_q    <= 1'b0;
      ref_addr_q  <= {PhysW{1'b0}};
      ref_time_q  <= {TimeW{1'b0}};
    end else begin
      state_q     <= state_d;
      row_q       <= row_d;
      ref_valid_q <= hit;
      ref_write_q <= cmd_i == CmdWr;
      orphan_q    <= is_cas && !hit;
      ref_addr_q  <= addr64[PhysW-1:0];
      ref_time_q  <= time_i;
    end
  end

  wire unused_addr = ^addr64[63:PhysW];

  assign ref_valid_o = ref_valid_q;
  assign ref_write_o = ref_write_q;
  assign ref_addr_o  = ref_addr_q;
  assign ref_time_o  = ref_time_q;
  assign orphan_o    = orphan_q;

endmodule

`default_nettype wire
