// The status and message of the ct::Error f throws ({Status::Ok, ""} when it throws none).
#pragma once
#include <string>
#include <utility>

#include "impl/core/error.h"

template <typename F>
std::pair<ct::Status, std::string> error_of(F f) {
  try {
    f();
  } catch (const ct::Error& e) {
    return {e.code(), e.what()};
  }
  return {ct::Status::Ok, ""};
}
