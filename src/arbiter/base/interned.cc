#include "arbiter/base/interned.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <mutex>
#include <ostream>
#include <unordered_set>

namespace arbiter {
namespace {

struct Hash {
  using is_transparent = void;  // NOLINT(readability-identifier-naming): the standard's name
  std::size_t operator()(std::string_view s) const noexcept {
    return std::hash<std::string_view>{}(s);
  }
};

// Never destroyed: handles in static objects may outlive any destruction order.
struct Table {
  std::mutex mu;
  // Node-based: an element's address is stable as the set grows, and handles point at it.
  std::unordered_set<std::string, Hash, std::equal_to<>> strings;
  std::size_t bytes = 0;
};

Table& TheTable() {
  static auto* const kTable = new Table;  // NOLINT(cppcoreguidelines-owning-memory): never freed
  return *kTable;
}

const std::string& EmptyString() {
  static const auto* const kEmpty = new std::string;  // NOLINT: never freed, as the table
  return *kEmpty;
}

// A thread's cache of recent strings has 2^kRecentBits slots.
constexpr int kRecentBits = 9;

// Where a string goes in a thread's cache of recent strings: from its length and its first and
// last 8 bytes, which tell apart the keys of one object (prefixes repeat, the ends differ), at a
// few instructions whatever the length (a full hash cost more than the allocation it spares).
std::size_t RecentSlot(std::string_view text) {
  std::uint64_t head = 0;
  std::uint64_t tail = 0;
  if (text.size() >= 8) {  // two fixed-size loads, not two calls to memcpy
    std::memcpy(&head, text.data(), 8);
    std::memcpy(&tail, text.data() + text.size() - 8, 8);
  } else {
    for (const char c : text) head = (head << 8) | static_cast<unsigned char>(c);
    tail = head;
  }
  const std::uint64_t mixed =
      (head * 0x9E3779B97F4A7C15ULL) ^ (tail + text.size()) * 0xC2B2AE3D27D4EB4FULL;
  return static_cast<std::size_t>(mixed >> (64 - kRecentBits));
}

// Interns `text` (not empty), or returns nullptr when the table is full.
const std::string* Intern(std::string_view text) {
  // Per thread, the strings interned last: a decoder reading the same few dozen keys for every
  // pod of a list takes the table's lock once per key, not once per pod.
  thread_local std::array<const std::string*, std::size_t{1} << kRecentBits> recent{};
  const std::string*& slot = recent[RecentSlot(text)];
  if (slot != nullptr && *slot == text) return slot;
  Table& table = TheTable();
  std::lock_guard lock(table.mu);
  auto it = table.strings.find(text);
  if (it == table.strings.end()) {
    if (table.bytes + text.size() > kInternTableBytes) return nullptr;
    it = table.strings.emplace(text).first;
    table.bytes += text.size();
  }
  slot = &*it;
  return slot;
}

}  // namespace

std::uintptr_t InternedString::Empty() noexcept {
  return reinterpret_cast<std::uintptr_t>(&EmptyString());  // NOLINT
}

InternedString::InternedString() noexcept : rep_(Empty()) {}

InternedString::InternedString(std::string_view text) {
  if (text.empty()) {
    rep_ = Empty();
    return;
  }
  if (const std::string* interned = Intern(text); interned != nullptr) {
    rep_ = reinterpret_cast<std::uintptr_t>(interned);  // NOLINT
  } else {
    rep_ = reinterpret_cast<std::uintptr_t>(new std::string(text)) | kOwned;  // NOLINT
  }
}

std::uintptr_t InternedString::CopyOwned(const InternedString& other) {
  return reinterpret_cast<std::uintptr_t>(new std::string(other.str())) | kOwned;  // NOLINT
}

void InternedString::DeleteOwned() noexcept {
  delete Text();  // NOLINT(cppcoreguidelines-owning-memory)
}

InternedString::TableStats InternedString::Stats() {
  Table& table = TheTable();
  std::lock_guard lock(table.mu);
  return {table.strings.size(), table.bytes};
}

std::ostream& operator<<(std::ostream& out, const InternedString& s) { return out << s.view(); }

}  // namespace arbiter
