// Copyright hmtt contributors. Licensed under the Apache License 2.0.
//
// hmtt_unit_ctl: the board top's run-time control of one online unit (the
// Statistic Unit or the RDHPU, docs/board.md 13), between the unit, its
// interval setting and the TFU's report port.
//
// - interval_o, to the unit: Never while the unit is off (interval_i = 0) or
//   after its last interval; 1 in the cycle a flush ends the open interval
//   (when the unit offers no report then); interval_i otherwise.
// - want_o: the unit offers a report (rec_valid_i) that is not in the TFU yet.
//   taken_i says the TFU took it this cycle; the unit keeps offering it while
//   the packer sends its records, so pushed_q remembers it was taken until the
//   unit drops rec_valid_i.
// - done_o: off, or the last interval has ended and its report is in the TFU;
//   the top holds the TFU's flush until every unit is done.
//
// Timing: pushed_q and fin_q are registers; interval_o, want_o and done_o are
// combinational in them and the inputs (no path from taken_i to want_o).
`default_nettype none

module hmtt_unit_ctl #(
  parameter [31:0] Never = 32'hFFFF_FFFF  // an interval that does not end in a run
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  input  wire [31:0] interval_i,  // cycles per interval; 0 = the unit is off
  input  wire        flush_i,     // end of the run: end the open interval
  input  wire        rec_valid_i, // the unit offers a report
  input  wire        taken_i,     // the TFU took the offered report this cycle
  output wire [31:0] interval_o,
  output wire        on_o,
  output wire        want_o,
  output wire        done_o
);

  reg  pushed_q, fin_q;  // the report on offer is in the FIFO; the last interval has ended
  wire on   = interval_i != 32'd0;
  wire fire = flush_i && on && !fin_q && !rec_valid_i;  // end the open interval now

  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pushed_q <= 1'b0;
      fin_q    <= 1'b0;
    end else begin
      pushed_q <= (pushed_q || taken_i) && rec_valid_i;
      fin_q    <= fin_q || fire;
    end
  end

  assign interval_o = (!on || fin_q) ? Never : (fire ? 32'd1 : interval_i);
  assign on_o       = on;
  assign want_o     = on && rec_valid_i && !pushed_q;
  assign done_o     = !on || (fin_q && !want_o);

endmodule
