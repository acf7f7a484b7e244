// The HTML report: one self-contained page (inline CSS and SVG, no scripts,
// no external files) with the figures of one trace, and the comparison when a
// second trace is given. Plots are drawn by gnuplot (Debian gnuplot-nox, svg
// terminal); the page holds the SVG inline.
//
// Sections: summary; cache surface (hit ratio vs depth per width, Chameleon);
// reuse-distance CDF; cache hierarchies (PSnAP Table 1) table; SCR bars (HMTT
// Fig. 11) and stride CDF (Fig. 12a); locality surfaces (PSnAP Fig. 3); bandwidth timeline (Table 5's unit);
// DMA table (Tables 3 and 4); comparison (LRU sweep A vs B, hierarchy hit
// ratios, errors, locality-surface distance).
#pragma once

#include <string>

#include "hmtt/analysis/bandwidth.h"
#include "hmtt/analysis/compare.h"
#include "hmtt/analysis/scr.h"
#include "hmtt/analysis/tool.h"

namespace hmtt::analysis {

struct ReportOptions {
  std::string title = "hmtt report";
  std::string name_a = "A";
  std::string name_b = "B";
  std::string hierarchy = "psnap";
  ScrKnobs scr;
  BandwidthKnobs bandwidth;
  RunOptions run;
  std::string gnuplot = "gnuplot";  // program to run (found on PATH)
};

struct Report {
  std::string html;
  std::size_t figures = 0;                     // inline SVG figures
  std::optional<ComparisonResult> comparison;  // when B was given
};

// Reads `a` (and `b` when not null) once each and renders the page.
Result<Report> render_report(ReferenceSource& a, ReferenceSource* b, const ReportOptions& options = {});

}  // namespace hmtt::analysis
