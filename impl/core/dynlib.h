// Loading optional shared libraries at first use (Note [BLAS libraries load on first use]).
// Every dlopen/dlsym of the library goes through here.
#pragma once
#include <string>
#include <vector>

#include "impl/core/error.h"

namespace ct {

// dlopen (RTLD_NOW | RTLD_LOCAL) of name; nullptr when it does not load, with *error the
// loader's message.
void* open_library(const std::string& name, std::string* error);
// The first of names that loads; nullptr when none does, with *tried listing every name and
// the loader's message ("\n  name: message" each).
void* open_library(const std::vector<std::string>& names, std::string* tried);
void close_library(void* handle);

// Where a CUDA library is looked for: its soname (the loader's path), the same under
// $CUDA_HOME/lib64 (default /usr/local/cuda), then the unversioned development name.
std::vector<std::string> cuda_library_names(const std::string& soname, const std::string& unversioned);

// Takes functions from a loaded library by name; missing() names the first one it lacked.
class Symbols {
 public:
  explicit Symbols(void* handle) : handle_(handle) {}
  template <typename F>
  void bind(F& fn, const std::string& name) {
    fn = reinterpret_cast<F>(find(name));
  }
  const std::string& missing() const { return missing_; }

 private:
  void* find(const std::string& name);
  void* handle_;
  std::string missing_;
};

// A library's table of functions, declared from one list: CT_LIBRARY_TABLE(Name, FUNCTIONS)
// declares struct Name, where FUNCTIONS(X) is a macro listing X(member, symbol, type) for each
// function (symbol without quotes; type, a function pointer type, last as it may hold commas).
// Name holds `type member = nullptr` for each, and bind(Symbols&, prefix) takes each from the
// library as prefix + "symbol" (LazyLibrary calls it).
template <typename T>
using Same = T;  // `Same<void (*)(int)> f;` declares a pointer f of that type
#define CT_LIBRARY_MEMBER_(member, symbol, ...) ::ct::Same<__VA_ARGS__> member = nullptr;
#define CT_LIBRARY_BIND_(member, symbol, ...) s.bind(member, prefix + #symbol);
#define CT_LIBRARY_TABLE(Name, FUNCTIONS)                                                    \
  struct Name {                                                                              \
    FUNCTIONS(CT_LIBRARY_MEMBER_)                                                            \
    void bind(::ct::Symbols& s, const std::string& prefix) { FUNCTIONS(CT_LIBRARY_BIND_) } \
  }

// A library's table of functions (a CT_LIBRARY_TABLE), loaded when the first caller needs it (a
// function-local static: loaded once, thread-safe). get() throws Status::NotSupported, on every
// call, when the library could not be loaded or lacks a function; the library stays loaded for
// the process.
template <typename Table>
class LazyLibrary {
 public:
  // names: where to look, first that loads; need: the error's start ("CPU FFTs need FFTW 3
  // (...), which could not be loaded:"); prefix: what the library's symbols start with beyond
  // the table's (FFTW's fftw_ or fftwf_).
  LazyLibrary(const std::vector<std::string>& names, const std::string& need, const std::string& prefix = "") {
    std::string tried;
    void* h = open_library(names, &tried);
    if (!h) {
      error_ = need + tried;
      return;
    }
    Symbols s(h);
    table_.bind(s, prefix);
    if (!s.missing().empty()) {
      error_ = str_cat(names.front(), " has no function '", s.missing(), "'");
      table_ = Table{};
    }
  }
  const Table& get() const {
    CT_CHECK(error_.empty(), Status::NotSupported, error_);
    return table_;
  }

 private:
  Table table_;
  std::string error_;
};

}  // namespace ct
