// Helpers shared by the decode tests: decode a JSON literal with a fresh parser.
#pragma once

#include <string_view>

#include <simdjson.h>

#include "arbiter/k8s/decode.h"

namespace arbiter::k8s::test_util {

template <typename T>
StatusOr<T> Decode(std::string_view json) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(json);
  return DecodeObject<T>(parser, padded);
}

template <typename T>
StatusOr<ObjectList<T>> DecodeListOf(std::string_view json) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(json);
  return DecodeList<T>(parser, padded);
}

template <typename T>
StatusOr<WatchEvent<T>> DecodeEventLine(std::string_view json) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(json);
  return DecodeWatchEvent<T>(parser, padded);
}

}  // namespace arbiter::k8s::test_util
