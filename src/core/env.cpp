#include "core/env.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

#include "wgprim/error.hpp"

namespace wgprim::detail::env {

namespace {
const char* get(const char* name) { return std::getenv(name); }
// The comma-separated parts of a variable's value (an empty part stays: the callers refuse it).
std::vector<std::string> comma_parts(const std::string& v) {
  std::vector<std::string> parts;
  for (std::size_t at = 0; at <= v.size();) {
    const std::size_t end = std::min(v.find(',', at), v.size());
    parts.push_back(v.substr(at, end - at));
    at = end + 1;
  }
  return parts;
}
}  // namespace

namespace {
// The index of the variable's value among `values` (-1: unset or empty); any other value throws one line naming
// the variable and its values ("WGPRIM_X must be a, b or c").
int choice(const char* name, std::initializer_list<const char*> values) {
  const char* e = get(name);
  if (!e || !*e) return -1;
  int i = 0;
  std::string list;
  for (const char* v : values) {
    if (std::string(e) == v) return i;
    list += (i == 0 ? "" : i + 1 == static_cast<int>(values.size()) ? " or " : ", ") + std::string(v);
    ++i;
  }
  throw error(errc::invalid_argument, std::string(name) + " must be " + list);
}
}  // namespace

std::string adapter() {
  const char* v = get("WGPRIM_ADAPTER");
  return v ? v : "";
}

bool all_backends() {
  const char* v = get("WGPRIM_BACKENDS");
  return v && std::string(v) == "all";
}

std::optional<double> timeout_s() {
  const char* v = get("WGPRIM_TIMEOUT_S");
  if (!v) return std::nullopt;
  char* end = nullptr;
  const double t = std::strtod(v, &end);
  if (end == v || *end || !(t > 0) || !std::isfinite(t))
    throw error(errc::invalid_argument, "WGPRIM_TIMEOUT_S must be a positive number");
  return t;
}

// 0 turns the feature off, 1 (or unset) leaves it to the adapter; anything else is refused, as every A/B switch is.
bool immediates_off() { return choice("WGPRIM_IMMEDIATES", {"0", "1"}) == 0; }
bool mapped_result_off() { return choice("WGPRIM_MAPPED_RESULT", {"0", "1"}) == 0; }

unsigned queued_calls() {
  const char* v = get("WGPRIM_QUEUED_CALLS");
  if (!v || !*v) return 0;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (end == v || *end || n < 1 || n > 4096)
    throw error(errc::invalid_argument, "WGPRIM_QUEUED_CALLS must be a whole number from 1 to 4096");
  return static_cast<unsigned>(n);
}

std::optional<double> mpi_timeout_s() {
  const char* v = get("WGPRIM_MPI_TIMEOUT_S");
  if (!v) return std::nullopt;
  char* end = nullptr;
  const double t = std::strtod(v, &end);
  if (end != v && *end == 0 && t >= 0) return t;
  return std::nullopt;
}

unsigned onesweep_wg() {
  const int i = choice("WGPRIM_ONESWEEP_WG", {"0", "256", "512"});
  return i == 1 ? 256 : i == 2 ? 512 : 0;
}

unsigned onesweep_pool() {
  const char* v = get("WGPRIM_ONESWEEP_POOL");
  if (!v || !*v) return 0;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (end == v || *end || n < 0 || n > (1 << 20))
    throw error(errc::invalid_argument, "WGPRIM_ONESWEEP_POOL must be a whole number of words from 0 to 1048576");
  return static_cast<unsigned>(n);
}

namespace {
unsigned whole_in(const char* name, unsigned lo, unsigned hi) {
  const char* v = get(name);
  if (!v || !*v) return 0;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (end == v || *end || n < long(lo) || n > long(hi))
    throw error(errc::invalid_argument,
                std::string(name) + " must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
  return static_cast<unsigned>(n);
}
}  // namespace

unsigned onesweep_rounds() { return whole_in("WGPRIM_ONESWEEP_ROUNDS", 1, 6); }
unsigned onesweep_slots() { return whole_in("WGPRIM_ONESWEEP_SLOTS", 1, 16); }

int unroll() { return choice("WGPRIM_UNROLL", {"0", "1"}); }

int onesweep_reload() { return choice("WGPRIM_ONESWEEP_RELOAD", {"0", "1"}); }
int onesweep_fold() { return choice("WGPRIM_ONESWEEP_FOLD", {"0", "1"}); }
int onesweep_early() { return choice("WGPRIM_ONESWEEP_EARLY", {"0", "1"}); }
int onesweep_match() { return choice("WGPRIM_ONESWEEP_MATCH", {"0", "1"}); }
int onesweep_match_clear() { return choice("WGPRIM_ONESWEEP_MATCH_CLEAR", {"leader", "own", "pair"}); }
int exact_load_first() { return choice("WGPRIM_EXACT_LOAD_FIRST", {"0", "1"}); }

bool no_tune() {
  const char* v = get("WGPRIM_NO_TUNE");
  return v && *v && std::string(v) != "0";
}

std::string policy_dir() {
  const char* xdg = get("XDG_CACHE_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/wgprim";
  const char* home = get("HOME");
  if (home && *home) return std::string(home) + "/.cache/wgprim";
  return "";
}

int onesweep_rank() { return choice("WGPRIM_ONESWEEP_RANK", {"ballot", "atomic"}); }

bool comparator_merge_level() { return choice("WGPRIM_COMPARATOR_MERGE", {"tile", "level"}) == 1; }

bool dist_sort_host() { return choice("WGPRIM_DIST_SORT", {"device", "host"}) == 1; }

unsigned onesweep_ablate() {
  const char* e = get("WGPRIM_ONESWEEP_ABLATE");
  if (!e || !*e) return 0;
  unsigned bits = 0;
  for (const std::string& part : comma_parts(e)) {
    if (part == "rank") bits |= 1;
    else if (part == "lookback") bits |= 2;
    else if (part == "scatter") bits |= 4;
    else
      throw error(errc::invalid_argument, "WGPRIM_ONESWEEP_ABLATE takes rank, lookback and scatter, comma-separated");
  }
  return bits;
}

histogram_ab histogram_variant() {
  histogram_ab v;
  const char* e = get("WGPRIM_HISTOGRAM_AB");
  if (!e || !*e) return v;
  for (const std::string& part : comma_parts(e)) {
    if (part == "step1") v.step = 1;
    else if (part == "step2") v.step = 2;
    else if (part == "scalar") v.scalar = true;
    else if (part == "step4") v.step = 4;
    else if (part == "step8") v.step = 8;
    else if (part == "nomerge") v.merge = 0;
    else if (part == "merge") v.merge = 1;
    else if (part == "noatomic") v.no_atomics = true;
    else
      throw error(errc::invalid_argument, "WGPRIM_HISTOGRAM_AB takes step1, step2, step4, step8, scalar, merge, nomerge and noatomic, comma-separated");
  }
  return v;
}

int sort_mid() { return choice("WGPRIM_SORT_MID", {"memory", "registers", "subgroups", "merge"}); }

const char* system(const char* name) { return get(name); }

}  // namespace wgprim::detail::env
