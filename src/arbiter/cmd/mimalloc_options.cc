// Linked into every executable and benchmark when the allocator is mimalloc (ARBITER_ALLOCATOR,
// CMakeLists.txt): mimalloc backs its segments with the kernel's transparent huge pages (2 MiB,
// asked for with madvise), unless MIMALLOC_LARGE_OS_PAGES says otherwise.
//
// Why (docs/benchmarks.md, "The allocator"): with 4 KiB pages a re-list spent a quarter of its
// time in page faults, touching the memory of the objects it builds, and the simulator at 60,000
// pods a tenth; huge pages took decoding 28% and the simulator's CPU 11% down, for 2% more peak
// memory.
#include <cstdlib>

#include <mimalloc.h>

namespace {

// Before main, so that the first segments of the process are covered too: mimalloc reads the
// option at each segment it asks the kernel for.
[[gnu::constructor]] void LargeOsPagesUnlessTold() {
  if (std::getenv("MIMALLOC_LARGE_OS_PAGES") == nullptr) {
    mi_option_enable(mi_option_large_os_pages);
  }
}

}  // namespace
