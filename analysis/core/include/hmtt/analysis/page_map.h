// The page-map log (HMTT paper, section 6.1 and Fig. 9): kernel I-Codes record
// each page-table update as <pid, physical page, virtual page>; with the time
// it was made, it turns a physical reference into a process and a virtual
// address. Text form, one mapping per line, '#' starts a comment:
//
//   TIME PID PHYS_PAGE VIRT_PAGE        (decimal or 0x-hex; pages are page numbers)
//
// A physical page maps to the virtual page of its latest mapping at or before
// the reference's time; a reference before any mapping of its page is unmapped.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hmtt/result.h"

namespace hmtt::analysis {

struct PageMapping {
  std::uint64_t time = 0;
  std::uint32_t pid = 0;
  std::uint64_t phys_page = 0;
  std::uint64_t virt_page = 0;
};

struct VirtualAddress {
  std::uint32_t pid = 0;
  std::uint64_t address = 0;
};

class PageMap {
 public:
  explicit PageMap(std::uint64_t page_bytes = 4096) : page_bytes_(page_bytes == 0 ? 4096 : page_bytes) {}
  static Result<PageMap> parse(std::string_view text, std::string_view file_name, std::uint64_t page_bytes = 4096);
  static Result<PageMap> load(const std::string& path, std::uint64_t page_bytes = 4096);

  void add(const PageMapping& m);
  std::optional<VirtualAddress> translate(std::uint64_t phys_address, std::uint64_t time) const;
  std::uint64_t page_bytes() const { return page_bytes_; }
  std::size_t mappings() const { return count_; }
  std::size_t physical_pages() const { return by_page_.size(); }
  // Fig. 12(c): how many physical pages were mapped 1, 2, 3, ... times.
  std::map<std::uint64_t, std::uint64_t> remap_histogram() const;

 private:
  std::uint64_t page_bytes_;
  std::size_t count_ = 0;
  // physical page -> mappings sorted by time
  std::unordered_map<std::uint64_t, std::vector<PageMapping>> by_page_;
};

}  // namespace hmtt::analysis
