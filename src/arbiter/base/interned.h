// InternedString: an immutable string kept once per process. A handle is one pointer: copying it
// allocates nothing, and two interned handles are equal exactly when their pointers are. For the
// strings that repeat across objects: the keys of every `Labels` map (labels, annotations, node
// selectors, matchLabels), such as `app.kubernetes.io/name`, which are longer than the 15
// characters a std::string keeps inline, so that each copy of one in each decoded pod was a heap
// block of its own; the names of resources (`ResourceEntry`: every pod, node and queue names the
// same few); and objects' namespaces (`ObjectMeta`). (Toleration, taint and requirement keys are
// still std::string.)
//
// The table never shrinks, so it takes at most kInternTableBytes: a string that arrives once the
// table is full is kept by its handle alone (one heap copy, as a std::string would be), and hostile
// input (a label key per pod) cannot grow the process without bound. Ordering is by content, as
// std::string's, so a sorted container of handles iterates as one of strings did.
//
// Thread safety: a handle is a value type; constructing one from text may be done from any thread
// (the table is locked; each thread keeps a small cache of the strings it interned last).
//
//   InternedString key("app.kubernetes.io/name");
//   if (key == "app.kubernetes.io/name") ...        // by content
//   std::string_view text = key;                     // valid as long as the handle is
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

namespace arbiter {

// The most bytes of string the process-wide table keeps (strings beyond it are owned copies).
inline constexpr std::size_t kInternTableBytes = std::size_t{16} << 20;

class InternedString {
 public:
  InternedString() noexcept;
  // Implicit, as for std::string: a key is written as a literal or read as a view.
  InternedString(std::string_view text);  // NOLINT(google-explicit-constructor)
  InternedString(const char* text)        // NOLINT(google-explicit-constructor)
      : InternedString(std::string_view(text)) {}
  InternedString(const std::string& text)  // NOLINT(google-explicit-constructor)
      : InternedString(std::string_view(text)) {}

  // Copies, moves and destruction of an interned handle (all but a full table's) are inline: they
  // are a pointer's, and every copy of a ResourceList or Labels makes one per entry.
  InternedString(const InternedString& other) : rep_(other.rep_) {
    if (!interned()) rep_ = CopyOwned(other);
  }
  InternedString(InternedString&& other) noexcept : rep_(other.rep_) { other.rep_ = Empty(); }
  InternedString& operator=(const InternedString& other) {
    if (this != &other) *this = InternedString(other);
    return *this;
  }
  InternedString& operator=(InternedString&& other) noexcept {
    if (this != &other) {
      Release();
      rep_ = other.rep_;
      other.rep_ = Empty();
    }
    return *this;
  }
  ~InternedString() {
    if (!interned()) DeleteOwned();
  }

  const std::string& str() const noexcept { return *Text(); }
  std::string_view view() const noexcept { return *Text(); }
  operator std::string_view() const noexcept { return *Text(); }  // NOLINT
  // As the table's (or this handle's) std::string, so that a field that was a std::string (a
  // namespace) can become a handle with its readers unchanged; valid as long as the handle is.
  operator const std::string&() const noexcept { return *Text(); }  // NOLINT
  const char* data() const noexcept { return Text()->data(); }
  std::size_t size() const noexcept { return Text()->size(); }
  bool empty() const noexcept { return Text()->empty(); }
  // Whether the table keeps it (false: this handle owns a copy, the table being full).
  bool interned() const noexcept { return (rep_ & kOwned) == 0; }

  friend bool operator==(const InternedString& a, const InternedString& b) noexcept {
    return a.rep_ == b.rep_ || ((!a.interned() || !b.interned()) && a.view() == b.view());
  }
  friend std::strong_ordering operator<=>(const InternedString& a,
                                          const InternedString& b) noexcept {
    if (a.rep_ == b.rep_) return std::strong_ordering::equal;
    return a.view() <=> b.view();
  }
  friend bool operator==(const InternedString& a, std::string_view b) noexcept {
    return a.view() == b;
  }
  friend std::strong_ordering operator<=>(const InternedString& a, std::string_view b) noexcept {
    return a.view() <=> b;
  }
  friend bool operator==(const InternedString& a, const std::string& b) noexcept {
    return a.view() == std::string_view(b);
  }
  friend std::strong_ordering operator<=>(const InternedString& a, const std::string& b) noexcept {
    return a.view() <=> std::string_view(b);
  }
  friend bool operator==(const InternedString& a, const char* b) noexcept {
    return a.view() == std::string_view(b);
  }
  friend std::strong_ordering operator<=>(const InternedString& a, const char* b) noexcept {
    return a.view() <=> std::string_view(b);
  }

  // Concatenation, as for std::string (hidden friends: found only when one side is a handle).
  friend std::string operator+(std::string a, const InternedString& b) {
    a += b.view();
    return a;
  }
  friend std::string operator+(const char* a, const InternedString& b) {
    return std::string(a) + b;
  }
  friend std::string operator+(const InternedString& a, std::string_view b) {
    std::string out;
    out.reserve(a.size() + b.size());
    out += a.view();
    out += b;
    return out;
  }
  friend std::string operator+(const InternedString& a, const char* b) {
    return a + std::string_view(b);
  }

  // Strings the table holds and their bytes (for tests).
  struct TableStats {
    std::size_t strings = 0;
    std::size_t bytes = 0;
  };
  static TableStats Stats();

 private:
  // A pointer to the table's std::string, or (low bit set) to a std::string this handle owns.
  static constexpr std::uintptr_t kOwned = 1;
  static std::uintptr_t Empty() noexcept;
  const std::string* Text() const noexcept {
    return reinterpret_cast<const std::string*>(rep_ & ~kOwned);  // NOLINT
  }
  void Release() noexcept {
    if (!interned()) DeleteOwned();
    rep_ = Empty();
  }
  static std::uintptr_t CopyOwned(const InternedString& other);
  void DeleteOwned() noexcept;

  std::uintptr_t rep_;
};

std::ostream& operator<<(std::ostream& out, const InternedString& s);

}  // namespace arbiter
