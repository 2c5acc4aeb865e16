// Errors inside the core: a C++ exception that carries a Status code. The C ABI glue
// (capi/api.h, CT_API_BEGIN/END) turns it into a status + thread-local message.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "impl/abi/tables.h"

namespace ct {

class Error : public std::runtime_error {
 public:
  Error(Status code, const std::string& msg) : std::runtime_error(msg), code_(code) {}
  Status code() const { return code_; }

 private:
  Status code_;
};

namespace detail {
inline void cat_into(std::ostringstream&) {}
template <typename T, typename... Rest>
void cat_into(std::ostringstream& os, const T& v, const Rest&... rest) {
  if constexpr (std::is_enum_v<T>) os << static_cast<std::underlying_type_t<T>>(v);  // op codes print as numbers
  else os << v;
  cat_into(os, rest...);
}
}  // namespace detail

template <typename... Args>
std::string str_cat(const Args&... args) {
  std::ostringstream os;
  detail::cat_into(os, args...);
  return os.str();
}

template <typename... Args>
[[noreturn]] void fail(Status code, const Args&... args) {
  throw Error(code, str_cat(args...));
}

}  // namespace ct

// CT_CHECK(cond, code, message parts...): throws ct::Error(code, message) unless cond.
#define CT_CHECK(cond, code, ...)            \
  do {                                       \
    if (!(cond)) ::ct::fail(code, __VA_ARGS__); \
  } while (0)
