#include "hmtt/cosim/rtl_board.h"

namespace hmtt::cosim {

std::unique_ptr<RtlBoard> make_rtl_board_open_page();
std::unique_ptr<RtlBoard> make_rtl_board_interleaved();
std::unique_ptr<RtlBoard> make_rtl_board_open_page_units();

Result<std::unique_ptr<RtlBoard>> make_rtl_board(const std::string& map_text, bool with_units) {
  if (with_units) {
    if (map_text == "row:14,rank:1,bank:3,col:10,bus:3") return make_rtl_board_open_page_units();
    return make_error("cosim: the RTL board with the online units is built for the open-page map only, not '" +
                      map_text + "'");
  }
  if (map_text == "row:14,rank:1,bank:3,col:10,bus:3") return make_rtl_board_open_page();
  if (map_text == "row:14,col:7,rank:1,bank:3,colLow:3,bus:3") return make_rtl_board_interleaved();
  return make_error("cosim: no RTL board is built for address map '" + map_text +
                    "' (built: the open-page and interleaved maps)");
}

}  // namespace hmtt::cosim
