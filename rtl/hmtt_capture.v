// Copyright hmtt contributors. Licensed under the Apache License 2.0.
//
// hmtt_capture: the board's timing-critical capture path, DCBU + DSMU + CU +
// packer, for synthesis and Fmax measurement (bench/board, nextpnr-ice40).
//
// Between the CU and the packer a register stage stands in for the TX FIFO's
// write: it computes the item's gap to the previous item as the TFU does, with
// the same carry-select subtractor hmtt_csel_sub (an item that arrives while the
// packer is busy is counted in lost_o). The config space is the top 8 MiB of a
// 2 GiB channel, records per frame 288; the packer's records and frame closes
// are the outputs.
//
// Latency: command in cycle c -> item in cycle c+3 -> staged in c+4 -> first
// record in cycle c+5.
`default_nettype none

// A top of its own (synthesis and Fmax of the capture path), not instantiated by hmtt_board_top.
/* verilator lint_off MULTITOP */
module hmtt_capture #(
  /* verilator lint_on MULTITOP */
  parameter integer Ranks = 2,
  parameter integer TimeW = 64,
  parameter integer PhysW = 32
) (
  input  wire             clk_i,
  input  wire             rst_ni,
  // DDR command bus
  input  wire [Ranks-1:0] cs_n_i,
  input  wire             ras_n_i,
  input  wire             cas_n_i,
  input  wire             we_n_i,
  input  wire [2:0]       ba_i,
  input  wire [15:0]      a_i,
  // Records
  output wire             rec_valid_o,
  output wire [39:0]      rec_o,
  output wire             close_o,
  output wire             lost_o
);

  wire             cmd_valid, cmd_ap;
  wire [2:0]       cmd, cmd_rank, cmd_bank;
  wire [15:0]      cmd_addr;
  wire [TimeW-1:0] cmd_time;
  hmtt_dcbu #(.Ranks(Ranks), .TimeW(TimeW)) u_dcbu (
    .clk_i(clk_i), .rst_ni(rst_ni), .cs_n_i(cs_n_i), .ras_n_i(ras_n_i), .cas_n_i(cas_n_i), .we_n_i(we_n_i),
    .ba_i(ba_i), .a_i(a_i), .cmd_valid_o(cmd_valid), .cmd_o(cmd), .rank_o(cmd_rank), .bank_o(cmd_bank),
    .addr_o(cmd_addr), .ap_o(cmd_ap), .time_o(cmd_time)
  );

  wire             ref_valid, ref_write, orphan;
  wire [PhysW-1:0] ref_addr;
  wire [TimeW-1:0] ref_time;
  hmtt_dsmu #(.Ranks(Ranks), .TimeW(TimeW), .PhysW(PhysW)) u_dsmu (
    .clk_i(clk_i), .rst_ni(rst_ni), .channel_i(3'd0),
    .cmd_valid_i(cmd_valid), .cmd_i(cmd), .rank_i(cmd_rank), .bank_i(cmd_bank), .addr_i(cmd_addr),
    .ap_i(cmd_ap), .time_i(cmd_time),
    .ref_valid_o(ref_valid), .ref_write_o(ref_write), .ref_addr_o(ref_addr), .ref_time_o(ref_time),
    .orphan_o(orphan)
  );

  wire             item_valid, item_event, item_write, tracing;
  wire [PhysW-1:0] item_data;
  wire [TimeW-1:0] item_time;
  hmtt_cu #(.TimeW(TimeW), .PhysW(PhysW)) u_cu (
    .clk_i(clk_i), .rst_ni(rst_ni), .cfg_base_i(32'h7F80_0000), .cfg_size_i(32'h0080_0000),
    .trace_on_reset_i(1'b1),
    .ref_valid_i(ref_valid), .ref_write_i(ref_write), .ref_addr_i(ref_addr), .ref_time_i(ref_time),
    .item_valid_o(item_valid), .item_event_o(item_event), .item_write_o(item_write),
    .item_data_o(item_data), .item_time_o(item_time), .tracing_o(tracing)
  );

  // Stand-in for the TFU's write: the gap to the previous item, registered.
  reg              s_valid_q, s_event_q, s_write_q;
  reg [PhysW-1:0]  s_data_q;
  reg [TimeW-1:0]  s_time_q, acc_q;
  reg [63:0]       s_gap_q;
  wire [63:0]      gap_d;
  hmtt_csel_sub #(.Width(64)) u_gap (
    .a_i({{(64-TimeW){1'b0}}, item_time}), .b_i({{(64-TimeW){1'b0}}, acc_q}), .diff_o(gap_d)
  );
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s_valid_q <= 1'b0;
      s_event_q <= 1'b0;
      s_write_q <= 1'b0;
      s_data_q  <= {PhysW{1'b0}};
      s_time_q  <= {TimeW{1'b0}};
      s_gap_q   <= 64'd0;
      acc_q     <= {TimeW{1'b0}};
    end else begin
      s_valid_q <= item_valid;
      s_event_q <= item_event;
      s_write_q <= item_write;
      s_data_q  <= item_data;
      s_time_q  <= item_time;
      s_gap_q   <= gap_d;
      acc_q     <= item_valid ? item_time : acc_q;
    end
  end

  wire             ready, flag, idle, rep_ready, rep_unit;
  wire [TimeW-1:0] base;
  hmtt_packer #(.TimeW(TimeW), .DataW(PhysW)) u_packer (
    .clk_i(clk_i), .rst_ni(rst_ni), .rpf_i(9'd288), .trace_on_reset_i(1'b1), .flush_i(1'b0),
    .fifo_idle_i(1'b1), .ent_valid_i(s_valid_q && ready), .ent_kind_i({1'b0, s_event_q}),
    .ent_write_i(s_write_q), .ent_data_i(s_data_q), .ent_time_i(s_time_q), .ent_gap_i(s_gap_q),
    .ent_loss_i(36'd0),
    .rep_rec_i(40'd0), .rep_ready_o(rep_ready), .rep_unit_o(rep_unit),
    .ready_o(ready), .rec_valid_o(rec_valid_o), .rec_o(rec_o), .close_o(close_o), .base_o(base),
    .flag_o(flag), .idle_o(idle)
  );

  wire unused_capture = ^{orphan, tracing, base, flag, idle, rep_ready, rep_unit};

  assign lost_o = s_valid_q && !ready;

endmodule

`default_nettype wire
