// Errors inside the core: a C++ exception that carries a ct_status code. The C ABI glue
// (capi/api.h, CT_API_BEGIN/END) turns it into a status + thread-local message.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

#include "capi/ctorch.h"

namespace ct {

class Error : public std::runtime_error {
 public:
  Error(ct_status code, const std::string& msg) : std::runtime_error(msg), code_(code) {}
  ct_status code() const { return code_; }

 private:
  ct_status code_;
};

namespace detail {
inline void cat_into(std::ostringstream&) {}
template <typename T, typename... Rest>
void cat_into(std::ostringstream& os, const T& v, const Rest&... rest) {
  os << v;
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
[[noreturn]] void fail(ct_status code, const Args&... args) {
  throw Error(code, str_cat(args...));
}

}  // namespace ct

// CT_CHECK(cond, code, message parts...): throws ct::Error(code, message) unless cond.
#define CT_CHECK(cond, code, ...)            \
  do {                                       \
    if (!(cond)) ::ct::fail(code, __VA_ARGS__); \
  } while (0)
