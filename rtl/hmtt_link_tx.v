// Copyright hmtt contributors. Licensed under the Apache License 2.0.
//
// hmtt_link_tx: one GigE link of the board (docs/board.md section 7,
// docs/wire-format.md sections 1-2).
//
// Stores the records of the frames the framer gives it (a ring of RecDepth
// records, a queue of DescDepth frame descriptors), then sends each frame as
// one Ethernet/IPv4/UDP packet: pass 1 computes, one record per cycle, the
// HMTT CRC-32 (over the 28-byte header and the records) and the UDP checksum;
// pass 2 sends one byte per cycle with tx_ready_i: Ethernet header (host MAC,
// source 02:48:4d:54:bb:ll, 0x0800), IPv4 header (DF, TTL 64, UDP, checksum),
// UDP header (port base_port + 4*board + link both ways, checksum), the HMTT
// frame (header with this link's sequence number, records, CRC-32) and the
// Ethernet FCS, least significant byte first. The bytes equal
// hmtt::wire::udp_packet(..., with_fcs = true). A record or frame that finds
// the buffers full is lost and sets the sticky overrun_o (a set-up error: the
// FIFO's link rate exceeds what the links carry).
//
// Latency: pass 1 takes 28 + count + 1 cycles after the frame is closed (and
// the previous frame sent); pass 2 takes 78 + 5*count cycles with tx_ready_i high.
`default_nettype none

module hmtt_link_tx #(
  parameter integer RecDepth  = 1024,
  parameter integer DescDepth = 4,
  parameter integer TimeW     = 64,
  parameter integer AddrBits  = 26,
  parameter integer LineShift = 6
) (
  input  wire             clk_i,
  input  wire             rst_ni,
  // Settings
  input  wire [7:0]       board_id_i,
  input  wire [1:0]       link_id_i,
  input  wire [31:0]      clock_khz_i,
  input  wire [47:0]      host_mac_i,
  input  wire [31:0]      host_ip_i,
  input  wire [15:0]      base_port_i,
  // Records and frame closes from the framer
  input  wire             wr_valid_i,
  input  wire [39:0]      wr_rec_i,
  input  wire             close_i,
  input  wire [8:0]       close_count_i,
  input  wire [TimeW-1:0] close_base_i,
  input  wire             close_flag_i,
  // Byte stream
  output wire             tx_valid_o,
  output wire [7:0]       tx_data_o,
  output wire             tx_last_o,
  input  wire             tx_ready_i,
  output wire             overrun_o,
  output wire             idle_o           // no frame stored or being sent
);

  localparam integer PtrW = $clog2(RecDepth);
  localparam integer DPtrW = $clog2(DescDepth);
  localparam [2:0] StIdle = 3'd0;
  localparam [2:0] StHdr  = 3'd1;
  localparam [2:0] StRec  = 3'd2;
  localparam [2:0] StFin  = 3'd3;
  localparam [2:0] StSend = 3'd4;

  function [31:0] crc_byte(input [31:0] c, input [7:0] b);
    integer k;
    reg [31:0] x;
    begin
      x = c ^ {24'd0, b};
      for (k = 0; k < 8; k = k + 1) x = x[0] ? ((x >> 1) ^ 32'hEDB88320) : (x >> 1);
      crc_byte = x;
    end
  endfunction

  function [15:0] fold(input [31:0] s);
    reg [31:0] t;
    begin
      t = {16'd0, s[15:0]} + {16'd0, s[31:16]};
      t = {16'd0, t[15:0]} + {16'd0, t[31:16]};
      fold = t[15:0];
    end
  endfunction

  // --- record ring and descriptor queue ---------------------------------------
  reg [39:0]      mem_q [0:RecDepth-1];
  reg [PtrW:0]    wptr_q, rel_q;
  reg [PtrW-1:0]  d_start_q [0:DescDepth-1];
  reg [8:0]       d_count_q [0:DescDepth-1];
  reg [TimeW-1:0] d_base_q [0:DescDepth-1];
  reg             d_flag_q [0:DescDepth-1];
  reg [DPtrW:0]   dw_q, dr_q;
  reg             overrun_q;

  wire [PtrW:0] used = wptr_q - rel_q;
  wire rec_full = used == RecDepth[PtrW:0];
  wire wr_ok = wr_valid_i && !rec_full;
  wire [PtrW:0] wptr_n = wptr_q + {{PtrW{1'b0}}, wr_ok};
  wire [DPtrW:0] dused = dw_q - dr_q;
  wire desc_full = dused == DescDepth[DPtrW:0];
  wire close_ok = close_i && !desc_full;

  always @(posedge clk_i) begin
    if (wr_ok) mem_q[wptr_q[PtrW-1:0]] <= wr_rec_i;
    if (close_ok) begin
      d_start_q[dw_q[DPtrW-1:0]] <= wptr_n[PtrW-1:0] - {{(PtrW-9){1'b0}}, close_count_i};
      d_count_q[dw_q[DPtrW-1:0]] <= close_count_i;
      d_base_q[dw_q[DPtrW-1:0]]  <= close_base_i;
      d_flag_q[dw_q[DPtrW-1:0]]  <= close_flag_i;
    end
  end

  // --- the frame being sent ------------------------------------------------------
  reg [2:0]       st_q, st_d;
  reg [PtrW-1:0]  start_q, start_d;
  reg [8:0]       count_q, count_d;
  reg [TimeW-1:0] base_q, base_d;
  reg             flag_q, flag_d;
  reg [31:0]      seq_q, seq_d;
  reg [31:0]      crc_q, crc_d;     // HMTT CRC-32 register, then the final value
  reg [31:0]      sum_q, sum_d;     // UDP one's-complement sum (unfolded)
  reg [15:0]      udp_ck_q, udp_ck_d;
  reg [15:0]      ip_ck_q, ip_ck_d;
  reg [10:0]      pos_q, pos_d;     // header byte (pass 1) / packet byte (pass 2)
  reg [8:0]       ridx_q, ridx_d;   // record index
  reg [2:0]       rb_q, rb_d;       // byte within the record (pass 2)
  reg [31:0]      fcs_q, fcs_d;
  reg             rel_en;

  wire [8:0]  cnt_w = count_q;
  wire [15:0] udp_len = 16'd40 + {7'd0, cnt_w} * 16'd5;
  wire [15:0] ip_len = udp_len + 16'd20;
  wire [10:0] total = 11'd78 + {2'd0, cnt_w} * 11'd5;
  wire [10:0] rec_end = 11'd70 + {2'd0, cnt_w} * 11'd5;
  wire [7:0]  link8 = {6'd0, link_id_i};
  wire [31:0] src_ip = {8'd10, 8'd72, board_id_i, link8 + 8'd1};
  wire [15:0] port = base_port_i + {6'd0, board_id_i, 2'd0} + {14'd0, link_id_i};

  wire [223:0] hh = {32'h484D5454, 8'd1, board_id_i, link8, AddrBits[7:0], LineShift[7:0],
                     {7'd0, flag_q}, {7'd0, count_q}, seq_q, base_q, clock_khz_i};
  wire [559:0] hdr = {host_mac_i, 32'h02484d54, board_id_i, link8, 16'h0800,
                      8'h45, 8'h00, ip_len, 16'h0000, 16'h4000, 8'd64, 8'd17, ip_ck_q, src_ip, host_ip_i,
                      port, port, udp_len, udp_ck_q, hh};

  wire [39:0] rec = mem_q[start_q + {{(PtrW-9){1'b0}}, ridx_q}];
  wire [7:0]  hh_byte = hh[223 - 8*pos_q[4:0] -: 8];

  // Pass-2 byte.
  reg [7:0] byte_d;
  always @* begin
    if (pos_q < 11'd70) byte_d = hdr[559 - 8*pos_q -: 8];
    else if (pos_q < rec_end) byte_d = rec[39 - 8*rb_q -: 8];
    else if (pos_q < rec_end + 11'd4) byte_d = crc_q[31 - 8*(pos_q - rec_end) -: 8];
    else byte_d = ~fcs_q[8*(pos_q - rec_end - 11'd4) +: 8];
  end

  // Contribution of a record to the UDP sum: even records start on an even offset.
  wire [31:0] rec_sum_even = {16'd0, rec[39:32], 8'd0} + {24'd0, rec[31:24]} + {16'd0, rec[23:16], 8'd0} +
                             {24'd0, rec[15:8]} + {16'd0, rec[7:0], 8'd0};
  wire [31:0] rec_sum_odd = {24'd0, rec[39:32]} + {16'd0, rec[31:24], 8'd0} + {24'd0, rec[23:16]} +
                            {16'd0, rec[15:8], 8'd0} + {24'd0, rec[7:0]};
  wire [31:0] crc_fin = ~crc_q;
  wire [31:0] crc_sum = count_q[0]
      ? {24'd0, crc_fin[31:24]} + {16'd0, crc_fin[23:16], 8'd0} + {24'd0, crc_fin[15:8]} + {16'd0, crc_fin[7:0], 8'd0}
      : {16'd0, crc_fin[31:24], 8'd0} + {24'd0, crc_fin[23:16]} + {16'd0, crc_fin[15:8], 8'd0} + {24'd0, crc_fin[7:0]};
  wire [31:0] udp_total = sum_q + crc_sum + {16'd0, src_ip[31:16]} + {16'd0, src_ip[15:0]} +
                          {16'd0, host_ip_i[31:16]} + {16'd0, host_ip_i[15:0]} + 32'd17 + {15'd0, udp_len, 1'b0} +
                          {15'd0, port, 1'b0};
  wire [15:0] udp_ck = ~fold(udp_total);
  wire [31:0] ip_total = 32'h4500 + {16'd0, ip_len} + 32'h4000 + 32'h4011 + {16'd0, src_ip[31:16]} +
                         {16'd0, src_ip[15:0]} + {16'd0, host_ip_i[31:16]} + {16'd0, host_ip_i[15:0]};

  wire desc_valid = dused != {(DPtrW+1){1'b0}};
  wire [DPtrW-1:0] dr = dr_q[DPtrW-1:0];

  always @* begin
    st_d = st_q; start_d = start_q; count_d = count_q; base_d = base_q; flag_d = flag_q;
    seq_d = seq_q; crc_d = crc_q; sum_d = sum_q; udp_ck_d = udp_ck_q; ip_ck_d = ip_ck_q;
    pos_d = pos_q; ridx_d = ridx_q; rb_d = rb_q; fcs_d = fcs_q;
    rel_en = 1'b0;
    case (st_q)
      StIdle: begin
        if (desc_valid) begin
          start_d = d_start_q[dr];
          count_d = d_count_q[dr];
          base_d  = d_base_q[dr];
          flag_d  = d_flag_q[dr];
          crc_d   = 32'hFFFFFFFF;
          sum_d   = 32'd0;
          pos_d   = 11'd0;
          st_d    = StHdr;
        end
      end
      StHdr: begin
        crc_d = crc_byte(crc_q, hh_byte);
        sum_d = sum_q + (pos_q[0] ? {24'd0, hh_byte} : {16'd0, hh_byte, 8'd0});
        pos_d = pos_q + 11'd1;
        ridx_d = 9'd0;
        if (pos_q == 11'd27) st_d = (count_q == 9'd0) ? StFin : StRec;
      end
      StRec: begin
        crc_d = crc_byte(crc_byte(crc_byte(crc_byte(crc_byte(crc_q, rec[39:32]), rec[31:24]), rec[23:16]),
                                  rec[15:8]), rec[7:0]);
        sum_d = sum_q + (ridx_q[0] ? rec_sum_odd : rec_sum_even);
        ridx_d = ridx_q + 9'd1;
        if (ridx_d == count_q) st_d = StFin;
      end
      StFin: begin
        crc_d = crc_fin;
        udp_ck_d = (udp_ck == 16'd0) ? 16'hFFFF : udp_ck;
        ip_ck_d = ~fold(ip_total);
        pos_d = 11'd0;
        ridx_d = 9'd0;
        rb_d = 3'd0;
        fcs_d = 32'hFFFFFFFF;
        st_d = StSend;
      end
      StSend: begin
        if (tx_ready_i) begin
          if (pos_q < rec_end + 11'd4) fcs_d = crc_byte(fcs_q, byte_d);
          if (pos_q >= 11'd70 && pos_q < rec_end) begin
            if (rb_q == 3'd4) begin
              rb_d = 3'd0;
              ridx_d = ridx_q + 9'd1;
            end else begin
              rb_d = rb_q + 3'd1;
            end
          end
          pos_d = pos_q + 11'd1;
          if (pos_q == total - 11'd1) begin
            st_d = StIdle;
            seq_d = seq_q + 32'd1;
            rel_en = 1'b1;
          end
        end
      end
      default: st_d = StIdle;
    endcase
  end

  wire sending = st_q == StSend;

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wptr_q <= {(PtrW+1){1'b0}};
      rel_q <= {(PtrW+1){1'b0}};
      dw_q <= {(DPtrW+1){1'b0}};
      dr_q <= {(DPtrW+1){1'b0}};
      overrun_q <= 1'b0;
      st_q <= StIdle;
      start_q <= {PtrW{1'b0}};
      count_q <= 9'd0;
      base_q <= {TimeW{1'b0}};
      flag_q <= 1'b0;
      seq_q <= 32'd0;
      crc_q <= 32'd0;
      sum_q <= 32'd0;
      udp_ck_q <= 16'd0;
      ip_ck_q <= 16'd0;
      pos_q <= 11'd0;
      ridx_q <= 9'd0;
      rb_q <= 3'd0;
      fcs_q <= 32'd0;
    end else begin
      wptr_q <= wptr_n;
      rel_q <= rel_en ? rel_q + {{(PtrW-8){1'b0}}, count_q} : rel_q;
      dw_q <= dw_q + {{DPtrW{1'b0}}, close_ok};
      dr_q <= dr_q + {{DPtrW{1'b0}}, (st_q == StIdle) && desc_valid};
      overrun_q <= overrun_q || (wr_valid_i && rec_full) || (close_i && desc_full);
      st_q <= st_d;
      start_q <= start_d;
      count_q <= count_d;
      base_q <= base_d;
      flag_q <= flag_d;
      seq_q <= seq_d;
      crc_q <= crc_d;
      sum_q <= sum_d;
      udp_ck_q <= udp_ck_d;
      ip_ck_q <= ip_ck_d;
      pos_q <= pos_d;
      ridx_q <= ridx_d;
      rb_q <= rb_d;
      fcs_q <= fcs_d;
    end
  end

  assign tx_valid_o = sending;
  assign tx_data_o  = byte_d;
  assign tx_last_o  = sending && (pos_q == total - 11'd1);
  assign overrun_o  = overrun_q;
  assign idle_o     = (st_q == StIdle) && !desc_valid && (used == {(PtrW+1){1'b0}});

endmodule

`default_nettype wire
