// Copyright hmtt contributors. Licensed under the Apache License 2.0.
//
// hmtt_board_top: the HMTT board of one channel (docs/board.md).
//
// DDR pins -> DCBU -> DSMU -> CU -> TFU (16K entries, drops, LOSS, link-rate
// drain) -> packer -> framer -> 4 x link_tx (Ethernet/IPv4/UDP byte streams).
// links_i (1-4) of the four links carry frames, round-robin. All settings are
// quasi-static inputs except the address map, which is parameters. Counters
// report commands, references, events, orphan READ/WRITEs, dropped items, LOSS
// records, the FIFO high-water mark and frames; drained_o is high when nothing
// is left inside the board (use with flush_i at the end of a run).
//
// Online units (docs/board.md 13), each behind a parameter (default off: the
// board is then exactly the board without them): WithSu adds the Statistic
// Unit (hmtt_su: Ranks, PhysW, 32-bit counters), WithRdhpu the RDHPU
// (hmtt_rdhpu: a 128-entry stack of 24-bit page numbers, page = address >> 12,
// HotK hot pages, 32-bit counters). su_interval_i / rdhpu_interval_i are their
// intervals in cycles; 0 leaves a built-in unit off at run time. The SU sees
// the DCBU's commands (cycle c+1) and the DSMU's references (c+2), the RDHPU
// the references' pages (c+2). A unit's report becomes one FIFO item at the
// TFU's report port: the CU's item wins the edge, else the SU's waiting
// report, else the RDHPU's, when the FIFO has room; a report item waits, it is
// never dropped. The packer then writes its records straight from the unit's
// report buffer (the unit's rec_ready is the packer's rep_ready_o). A unit
// offers one report at a time: an interval that ends while its report is still
// in the board is lost (reports_lost_o).
//
// End of a run: raise flush_i once every command's inputs have reached the
// units (the last command + 3 cycles, + 128 with the RDHPU: the model's
// BoardModel::finish). Each unit then ends its open interval at the first
// cycle with flush_i high in which it is not sending a report (its interval is
// 1 for that cycle) and ends no other; once their last reports are in the
// FIFO, the TFU and the packer see flush_i (loss-only entry, frame close).
//
// Latency: a command in cycle c is pushed into the TFU at the edge ending
// cycle c+3; what follows depends on the link rate (docs/board.md 5-7).
`default_nettype none

module hmtt_board_top #(
  parameter integer Ranks        = 2,
  parameter integer TimeW        = 64,
  parameter integer PhysW        = 32,
  parameter integer AddrBits     = 26,
  parameter integer LineShift    = 6,
  parameter integer FifoDepth    = 16384,
  parameter integer BurstBytes   = 1472,
  parameter integer RecDepth     = 1024,
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
  parameter integer ChannelWidth = 0,
  // Online units (docs/board.md 13): 1 builds the unit in. PhysW must be 13..36 with the RDHPU.
  parameter integer WithSu       = 0,
  parameter integer WithRdhpu    = 0,
  parameter integer HotK         = 8    // RDHPU hot-page table entries, 1..64
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
  // Board settings
  input  wire [2:0]       channel_i,
  input  wire [7:0]       board_id_i,
  input  wire [PhysW-1:0] cfg_base_i,
  input  wire [PhysW-1:0] cfg_size_i,
  input  wire             trace_on_reset_i,
  input  wire [2:0]       links_i,
  input  wire [8:0]       rpf_i,
  input  wire [19:0]      rate_i,
  input  wire [31:0]      clock_khz_i,
  input  wire [47:0]      host_mac_i,
  input  wire [31:0]      host_ip_i,
  input  wire [15:0]      base_port_i,
  input  wire             flush_i,
  input  wire [31:0]      su_interval_i,     // cycles per SU interval, 0 = off
  input  wire [31:0]      rdhpu_interval_i,  // cycles per RDHPU interval, 0 = off
  // Links: byte streams, lane l in bits [8l+7:8l]
  output wire [3:0]       tx_valid_o,
  output wire [31:0]      tx_data_o,
  output wire [3:0]       tx_last_o,
  input  wire [3:0]       tx_ready_i,
  // Counters and status
  output wire [63:0]      commands_o,
  output wire [63:0]      references_o,
  output wire [63:0]      events_o,
  output wire [63:0]      orphans_o,
  output wire [63:0]      dropped_o,
  output wire [63:0]      loss_records_o,
  output wire [63:0]      frames_o,
  output wire [31:0]      high_water_o,
  output wire [63:0]      reports_o,         // report items pushed into the FIFO
  output wire [31:0]      reports_lost_o,    // reports the units lost (interval ended while sending)
  output wire             overrun_o,
  output wire             drained_o
);

  localparam integer PtrW = $clog2(FifoDepth);
  // The units' fixed parameters on the board (hmtt::board::kBoard*) and their report lengths.
  localparam integer RdDepth   = 128;
  localparam integer RdTagW    = 24;
  localparam integer PageShift = 12;
  localparam integer SuNV      = 4 + 8 * Ranks + PhysW;
  localparam integer RdNV      = $clog2(RdDepth) + 2 + 3 * HotK;
  localparam integer SuRecs    = SuNV + 1;  // REPORT + its REPORT_VALUEs
  localparam integer RdRecs    = RdNV + 1;
  localparam [8:0]   SuLen     = SuRecs[8:0];
  localparam [8:0]   RdLen     = RdRecs[8:0];
  localparam [31:0]  Never     = 32'hFFFF_FFFF;  // an interval that does not end in a run

  // Capture path.
  wire             cmd_valid, cmd_ap;
  wire [2:0]       cmd, cmd_rank, cmd_bank;
  wire [15:0]      cmd_addr;
  wire [TimeW-1:0] cmd_time;
  hmtt_dcbu #(.Ranks(Ranks), .TimeW(TimeW)) u_dcbu (
    .clk_i(clk_i), .rst_ni(rst_ni), .cs_n_i(cs_n_i), .ras_n_i(ras_n_i), .cas_n_i(cas_n_i), .we_n_i(we_n_i), .ba_i(ba_i), .a_i(a_i),
    .cmd_valid_o(cmd_valid), .cmd_o(cmd), .rank_o(cmd_rank), .bank_o(cmd_bank), .addr_o(cmd_addr),
    .ap_o(cmd_ap), .time_o(cmd_time)
  );

  wire             ref_valid, ref_write, orphan;
  wire [PhysW-1:0] ref_addr;
  wire [TimeW-1:0] ref_time;
  hmtt_dsmu #(
    .Ranks(Ranks), .TimeW(TimeW), .PhysW(PhysW),
    .RowShift(RowShift), .RowWidth(RowWidth), .ColShift(ColShift), .ColWidth(ColWidth),
    .ColLowShift(ColLowShift), .ColLowWidth(ColLowWidth), .BankShift(BankShift), .BankWidth(BankWidth),
    .RankShift(RankShift), .RankWidth(RankWidth), .ChannelShift(ChannelShift), .ChannelWidth(ChannelWidth)
  ) u_dsmu (
    .clk_i(clk_i), .rst_ni(rst_ni), .channel_i(channel_i),
    .cmd_valid_i(cmd_valid), .cmd_i(cmd), .rank_i(cmd_rank), .bank_i(cmd_bank), .addr_i(cmd_addr),
    .ap_i(cmd_ap), .time_i(cmd_time),
    .ref_valid_o(ref_valid), .ref_write_o(ref_write), .ref_addr_o(ref_addr), .ref_time_o(ref_time),
    .orphan_o(orphan)
  );

  wire             item_valid, item_event, item_write, tracing;
  wire [PhysW-1:0] item_data;
  wire [TimeW-1:0] item_time;
  hmtt_cu #(.TimeW(TimeW), .PhysW(PhysW)) u_cu (
    .clk_i(clk_i), .rst_ni(rst_ni), .cfg_base_i(cfg_base_i), .cfg_size_i(cfg_size_i), .trace_on_reset_i(trace_on_reset_i),
    .ref_valid_i(ref_valid), .ref_write_i(ref_write), .ref_addr_i(ref_addr), .ref_time_i(ref_time),
    .item_valid_o(item_valid), .item_event_o(item_event), .item_write_o(item_write),
    .item_data_o(item_data), .item_time_o(item_time), .tracing_o(tracing)
  );

  // Online units and their report port at the TFU.
  wire        su_want, su_valid, su_done, su_taken;
  wire        rd_want, rd_valid, rd_done, rd_taken;
  wire [39:0] su_rec, rd_rec;
  wire [31:0] su_lost, rd_lost;
  wire        rep_valid, rep_unit, rep_taken, pk_rep_ready, pk_rep_unit;
  wire [8:0]  rep_len;
  assign rep_valid = su_want || rd_want;
  assign rep_unit  = !su_want;                   // the SU first
  assign rep_len   = su_want ? SuLen : RdLen;
  assign su_taken  = rep_taken && su_want;
  assign rd_taken  = rep_taken && !su_want;
  // The TFU and the packer see the flush once the units' last reports are in the FIFO.
  wire        units_done = su_done && rd_done;
  wire        drain = flush_i && units_done;

  generate
    if (WithSu != 0) begin : gen_su
      wire        on;
      wire [31:0] interval, lost;
      hmtt_unit_ctl #(.Never(Never)) u_ctl (
        .clk_i(clk_i), .rst_ni(rst_ni), .interval_i(su_interval_i), .flush_i(flush_i),
        .rec_valid_i(su_valid), .taken_i(su_taken),
        .interval_o(interval), .on_o(on), .want_o(su_want), .done_o(su_done)
      );
      hmtt_su #(.Ranks(Ranks), .PhysW(PhysW), .CntW(32)) u_su (
        .clk_i(clk_i), .rst_ni(rst_ni), .interval_i(interval),
        .cmd_valid_i(cmd_valid), .cmd_i(cmd), .rank_i(cmd_rank), .bank_i(cmd_bank), .ap_i(cmd_ap),
        .ref_valid_i(ref_valid), .ref_addr_i(ref_addr),
        .rec_valid_o(su_valid), .rec_o(su_rec), .rec_ready_i(pk_rep_ready && !pk_rep_unit), .lost_o(lost)
      );
      assign su_lost = on ? lost : 32'd0;
    end else begin : gen_no_su
      assign su_want  = 1'b0;
      assign su_valid = 1'b0;
      assign su_done  = 1'b1;
      assign su_rec   = 40'd0;
      assign su_lost  = 32'd0;
      wire unused_su = ^{su_interval_i, su_taken, cmd_ap};
    end
  endgenerate

  generate
    if (WithRdhpu != 0) begin : gen_rdhpu
      wire        on;
      wire [31:0] interval, lost;
      wire [RdTagW-1:0] page = {{(RdTagW-PhysW+PageShift){1'b0}}, ref_addr[PhysW-1:PageShift]};
      hmtt_unit_ctl #(.Never(Never)) u_ctl (
        .clk_i(clk_i), .rst_ni(rst_ni), .interval_i(rdhpu_interval_i), .flush_i(flush_i),
        .rec_valid_i(rd_valid), .taken_i(rd_taken),
        .interval_o(interval), .on_o(on), .want_o(rd_want), .done_o(rd_done)
      );
      hmtt_rdhpu #(.Depth(RdDepth), .TagWidth(RdTagW), .K(HotK), .CntW(32)) u_rdhpu (
        .clk_i(clk_i), .rst_ni(rst_ni), .interval_i(interval),
        .acc_valid_i(ref_valid), .acc_page_i(page),
        .rec_valid_o(rd_valid), .rec_o(rd_rec), .rec_ready_i(pk_rep_ready && pk_rep_unit), .lost_o(lost)
      );
      assign rd_lost = on ? lost : 32'd0;
      wire unused_page = ^ref_addr[PageShift-1:0];
    end else begin : gen_no_rdhpu
      assign rd_want  = 1'b0;
      assign rd_valid = 1'b0;
      assign rd_done  = 1'b1;
      assign rd_rec   = 40'd0;
      assign rd_lost  = 32'd0;
      wire unused_rdhpu = ^{rdhpu_interval_i, rd_taken};
    end
  endgenerate

  // TX FIFO and packer.
  wire             pack_ready, emit, ent_valid, ent_write, tfu_idle;
  wire [1:0]       ent_kind;
  wire [PhysW-1:0] ent_data;
  wire [TimeW-1:0] ent_time;
  wire [63:0]      ent_gap;
  wire [35:0]      ent_loss;
  wire [PtrW:0]    hwm;
  hmtt_tfu #(.Depth(FifoDepth), .TimeW(TimeW), .DataW(PhysW), .BurstBytes(BurstBytes)) u_tfu (
    .clk_i(clk_i), .rst_ni(rst_ni), .rate_i(rate_i), .flush_i(drain),
    .item_valid_i(item_valid), .item_event_i(item_event), .item_write_i(item_write),
    .item_data_i(item_data), .item_time_i(item_time),
    .rep_valid_i(rep_valid), .rep_unit_i(rep_unit), .rep_len_i(rep_len), .rep_taken_o(rep_taken),
    .pack_ready_i(pack_ready), .emit_i(emit), .ent_valid_o(ent_valid), .ent_kind_o(ent_kind),
    .ent_write_o(ent_write), .ent_data_o(ent_data), .ent_time_o(ent_time), .ent_gap_o(ent_gap), .ent_loss_o(ent_loss),
    .idle_o(tfu_idle), .dropped_o(dropped_o), .high_water_o(hwm)
  );

  wire             rec_valid, close, flag, pack_idle;
  wire [39:0]      rec;
  wire [TimeW-1:0] base;
  hmtt_packer #(.TimeW(TimeW), .DataW(PhysW), .AddrBits(AddrBits), .LineShift(LineShift)) u_packer (
    .clk_i(clk_i), .rst_ni(rst_ni), .rpf_i(rpf_i), .trace_on_reset_i(trace_on_reset_i), .flush_i(drain), .fifo_idle_i(tfu_idle),
    .ent_valid_i(ent_valid), .ent_kind_i(ent_kind), .ent_write_i(ent_write), .ent_data_i(ent_data),
    .ent_time_i(ent_time), .ent_gap_i(ent_gap), .ent_loss_i(ent_loss), .ready_o(pack_ready),
    .rep_rec_i(pk_rep_unit ? rd_rec : su_rec), .rep_ready_o(pk_rep_ready), .rep_unit_o(pk_rep_unit),
    .rec_valid_o(rec_valid), .rec_o(rec), .close_o(close), .base_o(base), .flag_o(flag), .idle_o(pack_idle)
  );
  assign emit = rec_valid;

  // Framer and links.
  wire [3:0]       wr_valid, close_l;
  wire [39:0]      wr_rec;
  wire [8:0]       close_count;
  wire [TimeW-1:0] close_base;
  wire             close_flag;
  hmtt_framer #(.TimeW(TimeW)) u_framer (
    .clk_i(clk_i), .rst_ni(rst_ni), .links_i(links_i),
    .rec_valid_i(rec_valid), .rec_i(rec), .close_i(close), .base_i(base), .flag_i(flag),
    .wr_valid_o(wr_valid), .wr_rec_o(wr_rec), .close_o(close_l), .close_count_o(close_count),
    .close_base_o(close_base), .close_flag_o(close_flag), .frames_o(frames_o)
  );

  wire [3:0] overrun, link_idle;
  genvar l;
  generate
    for (l = 0; l < 4; l = l + 1) begin : gen_link
      localparam [1:0] LinkId = l;
      hmtt_link_tx #(.RecDepth(RecDepth), .TimeW(TimeW), .AddrBits(AddrBits), .LineShift(LineShift)) u_link (
        .clk_i(clk_i), .rst_ni(rst_ni), .board_id_i(board_id_i), .link_id_i(LinkId), .clock_khz_i(clock_khz_i), .host_mac_i(host_mac_i), .host_ip_i(host_ip_i), .base_port_i(base_port_i),
        .wr_valid_i(wr_valid[l]), .wr_rec_i(wr_rec), .close_i(close_l[l]), .close_count_i(close_count),
        .close_base_i(close_base), .close_flag_i(close_flag),
        .tx_valid_o(tx_valid_o[l]), .tx_data_o(tx_data_o[8*l +: 8]), .tx_last_o(tx_last_o[l]),
        .tx_ready_i(tx_ready_i[l]), .overrun_o(overrun[l]), .idle_o(link_idle[l])
      );
    end
  endgenerate

  // Counters.
  reg [63:0] commands_q, references_q, events_q, orphans_q, loss_q, reports_q;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      commands_q   <= 64'd0;
      references_q <= 64'd0;
      events_q     <= 64'd0;
      orphans_q    <= 64'd0;
      loss_q       <= 64'd0;
      reports_q    <= 64'd0;
    end else begin
      commands_q   <= commands_q + {63'd0, cmd_valid};
      references_q <= references_q + {63'd0, item_valid && !item_event};
      events_q     <= events_q + {63'd0, item_valid && item_event};
      orphans_q    <= orphans_q + {63'd0, orphan};
      loss_q       <= loss_q + {63'd0, rec_valid && (rec[39:36] == 4'b1010)};
      reports_q    <= reports_q + {63'd0, rep_taken};
    end
  end

  wire unused_top = ^{tracing, pk_rep_ready};  // pk_rep_ready: read only by the units built in

  assign commands_o     = commands_q;
  assign references_o   = references_q;
  assign events_o       = events_q;
  assign orphans_o      = orphans_q;
  assign loss_records_o = loss_q;
  assign reports_o      = reports_q;
  assign reports_lost_o = su_lost + rd_lost;
  assign high_water_o   = {{(31-PtrW){1'b0}}, hwm};
  assign overrun_o      = |overrun;
  assign drained_o      = tfu_idle && pack_idle && (&link_idle) && !item_valid && !ref_valid && !cmd_valid &&
                          units_done && !su_valid && !rd_valid;

endmodule

`default_nettype wire
