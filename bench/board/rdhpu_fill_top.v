// Copyright hmtt contributors. Licensed under the Apache License 2.0.
//
// rdhpu_fill_top: a bench-only top for bench/board/rdhpu_fmax.sh (constant-fill
// sweep, docs/board.md section 11.4). Not part of the board.
//
// Behaviour. Copies instances of hmtt_rdhpu_stack (Depth, TagWidth) side by
// side, so that Copies * Depth entries fill the device about equally at every
// depth (8 x 16, 4 x 32, 2 x 64, 1 x 128). A 16-bit Fibonacci LFSR drives the
// accesses: copy k sees the valid bit lfsr[(15 + 5k) mod 16] and the tag
// lfsr[TagWidth-1:0] XOR k, so no two copies are equal and synthesis cannot
// merge any of their registers (with one valid bit for all copies, yosys merged
// the copies' identical valid chains into one that fanned out to every copy). Every
// output of copy k is XOR-folded into a register fold_q[k]; the one output pin
// is the registered XOR of all folds, so nothing is optimised away and the
// only pins are clk_i, rst_ni and sig_o.
//
// Timing. Everything is registered: LFSR -> stacks (their own registers) ->
// fold_q -> sig_q. The paths outside the stacks are at most one XOR tree of
// 3 * TagWidth + log2(Depth) + 2 bits (fold) and of Copies bits (sig).
`default_nettype none

module rdhpu_fill_top #(
  parameter integer Copies   = 1,
  parameter integer Depth    = 128,
  parameter integer TagWidth = 8
) (
  input  wire clk_i,
  input  wire rst_ni,
  output wire sig_o
);

  localparam integer DistW = (Depth > 2) ? $clog2(Depth) : 1;

  reg  [15:0] lfsr_q;
  wire [15:0] lfsr_d = {lfsr_q[14:0], lfsr_q[15] ^ lfsr_q[13] ^ lfsr_q[12] ^ lfsr_q[10]};

  reg  [Copies-1:0] fold_q;
  wire [Copies-1:0] fold_d;
  reg               sig_q;
  wire              sig_d = ^fold_q;

  genvar k;
  generate
    for (k = 0; k < Copies; k = k + 1) begin : gen_copy
      localparam [TagWidth-1:0] Salt = k;
      localparam integer        Tap  = (15 + 5 * k) % 16;  // a different valid bit per copy
      wire                res_valid, res_hit, res_evict_valid;
      wire [TagWidth-1:0] res_tag, res_evict_tag;
      wire [DistW-1:0]    res_dist;
      hmtt_rdhpu_stack #(
        .Depth    (Depth),
        .TagWidth (TagWidth)
      ) u_stack (
        .clk_i             (clk_i),
        .rst_ni            (rst_ni),
        .req_valid_i       (lfsr_q[Tap]),
        .req_tag_i         (lfsr_q[TagWidth-1:0] ^ Salt),
        .res_valid_o       (res_valid),
        .res_tag_o         (res_tag),
        .res_hit_o         (res_hit),
        .res_dist_o        (res_dist),
        .res_evict_valid_o (res_evict_valid),
        .res_evict_tag_o   (res_evict_tag)
      );
      assign fold_d[k] = ^{res_valid, res_hit, res_evict_valid, res_tag, res_evict_tag, res_dist};
    end
  endgenerate

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lfsr_q <= 16'h0001;
      fold_q <= {Copies{1'b0}};
      sig_q  <= 1'b0;
    end else begin
      lfsr_q <= lfsr_d;
      fold_q <= fold_d;
      sig_q  <= sig_d;
    end
  end

  assign sig_o = sig_q;

endmodule

`default_nettype wire
