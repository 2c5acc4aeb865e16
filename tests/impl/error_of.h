// The status and message of the ct::Error f throws ({CT_OK, ""} when it throws none).
#pragma once
#include <string>
#include <utility>

#include "impl/core/error.h"

template <typename F>
std::pair<ct_status, std::string> error_of(F f) {
  try {
    f();
  } catch (const ct::Error& e) {
    return {e.code(), e.what()};
  }
  return {CT_OK, ""};
}
