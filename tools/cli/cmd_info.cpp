// `wgprim info`: the adapter, backend, driver, limits, features, the registered algorithms and the policy in effect.
#include <fmt/core.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>
#include <memory>

#include "command.hpp"
#include "wgprim/wgprim.hpp"

using json = nlohmann::json;
using namespace wgprim;

// ---------------------------------------------------------------------------------------------------------------
int print_info(const std::string& adapter, bool as_json) {
  context ctx(context_options{adapter});
  const auto& a = ctx.adapter();
  const auto& l = ctx.limits();
  const auto& f = ctx.features();
  json j = {{"wgpu_native", context::wgpu_version()},
            {"adapter", {{"name", a.name}, {"vendor", a.vendor}, {"architecture", a.architecture},
                         {"driver", a.driver}, {"backend", a.backend}, {"type", a.type},
                         {"vendor_id", a.vendor_id}, {"device_id", a.device_id}}},
            {"limits", {{"max_storage_buffer_binding_size", l.max_storage_buffer_binding_size},
                        {"max_buffer_size", l.max_buffer_size},
                        {"max_compute_workgroup_storage_size", l.max_compute_workgroup_storage_size},
                        {"max_compute_invocations_per_workgroup", l.max_compute_invocations_per_workgroup},
                        {"max_compute_workgroup_size_x", l.max_compute_workgroup_size_x},
                        {"max_compute_workgroups_per_dimension", l.max_compute_workgroups_per_dimension},
                        {"min_storage_buffer_offset_alignment", l.min_storage_buffer_offset_alignment},
                        {"max_storage_buffers_per_shader_stage", l.max_storage_buffers_per_shader_stage}}},
            {"features", {{"timestamp_query", f.timestamp_query}, {"shader_f16", f.shader_f16},
                          {"subgroups", f.subgroups}, {"subgroup_barrier", f.subgroup_barrier},
                          {"shader_f64", f.shader_f64},
                          {"shader_int64", f.shader_int64}, {"immediates", f.immediates}}},
            {"backend", backend_choice_name(ctx.backend())},
            {"timestamps_trustworthy", ctx.timestamps_trustworthy()},
            {"reduce_algorithms", reduce_algorithms()},
            {"scan_algorithms", scan_algorithms()}};
  json all = json::array();
  for (const auto& x : context::enumerate_adapters())
    all.push_back({{"name", x.name}, {"backend", x.backend}, {"type", x.type}});
  j["adapters"] = all;
  // The policy in effect (wgprim/policy.hpp): the built-in table's row for the adapter class, or the tuned file.
  const policy_info pol = policy(ctx);
  json knobs = json::object();
  for (const auto& k : pol.knobs) knobs[k.name] = k.value;
  j["policy"] = {{"class", pol.adapter_class}, {"source", pol.source}, {"file", pol.file},
                 {"warning", pol.warning}, {"knobs", knobs}};
  if (as_json) {
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  fmt::print("wgpu-native   {}\n", context::wgpu_version());
  if (ctx.backend() == backend_choice::native)
    fmt::print("backend       native CPU backend (no GPU found; --adapter llvmpipe runs the WGSL on lavapipe)\n");
  fmt::print("adapter       {} ({}, {})\n", a.name, a.backend, a.type);
  fmt::print("vendor        {} (0x{:04x}), device 0x{:04x}\n", a.vendor.empty() ? "-" : a.vendor, a.vendor_id,
             a.device_id);
  fmt::print("driver        {}\n", a.driver.empty() ? "-" : a.driver);
  fmt::print("limits        storage binding {} B, buffer {} B, workgroup storage {} B,\n",
             l.max_storage_buffer_binding_size, l.max_buffer_size, l.max_compute_workgroup_storage_size);
  fmt::print("              {} invocations/workgroup, {} workgroups/dimension\n",
             l.max_compute_invocations_per_workgroup, l.max_compute_workgroups_per_dimension);
  fmt::print("features      timestamp-query={} shader-f16={} subgroups={} shader-f64={} shader-int64={} immediates={} (timestamps {})\n",
             f.timestamp_query, f.shader_f16, f.subgroups, f.shader_f64, f.shader_int64, f.immediates,
             ctx.timestamps_trustworthy() ? "used" : "not trusted");
  // Every registered algorithm, by primitive (the library's registry); * marks the default on this adapter kind.
  {
    const bool cpu_kind = ctx.adapter().kind == adapter_kind::cpu;
    std::string line, prim;
    for (const auto& d : algorithm_list()) {
      if (d.primitive != prim) {
        line += (prim.empty() ? "" : "; ") + d.primitive + ":";
        prim = d.primitive;
      } else {
        line += ",";
      }
      line += " " + d.name + ((cpu_kind ? d.default_on_cpu : d.default_on_gpu) ? "*" : "");
    }
    fmt::print("algorithms    {}\n", line);
  }
  // Where the policy came from: the tuned file, or the built-in row (and why the file did not serve).
  std::string from = pol.source;
  if (!pol.file.empty() && pol.source != pol.file) {
    if (!pol.warning.empty()) from += fmt::format("; {} ignored: {}", pol.file, pol.warning);
    else if (pol.source.find("WGPRIM_NO_TUNE") == std::string::npos) from += "; no tuned file at " + pol.file;
  }
  fmt::print("policy        {}\n", from);
  if (ctx.backend() == backend_choice::native) {
    fmt::print("              (the native backend runs no WGSL: the knobs below apply to CPU adapters)\n");
  }
  {
    // One line per family: knob=value, and the built-in value where a file or set_policy changed it.
    std::string family, line;
    auto flush = [&] {
      if (!family.empty()) fmt::print("  {:<12}{}\n", family, line);
    };
    for (const auto& k : pol.knobs) {
      const std::string fam = k.name.substr(0, k.name.find('.')), name = k.name.substr(k.name.find('.') + 1);
      if (fam != family) {
        flush();
        family = fam;
        line.clear();
      }
      line += fmt::format("{}{}={}", line.empty() ? "" : " ", name, k.value);
      if (k.value != k.builtin) line += fmt::format(" (built-in {})", k.builtin);
    }
    flush();
  }
  fmt::print("all adapters  ");
  for (std::size_t i = 0; i < all.size(); ++i)
    fmt::print("{}{} ({})", i ? "; " : "", all[i]["name"].get<std::string>(), all[i]["backend"].get<std::string>());
  fmt::print("\n");
  return 0;
}

command add_info_command(CLI::App& app) {
  struct options {
    std::string adapter;
    bool json = false;
  };
  auto c = std::make_shared<options>();
  auto* s = app.add_subcommand("info", "adapter, backend, driver, limits, features");
  s->add_option("--adapter", c->adapter,
                "adapter name substring, or cpu for the native CPU backend (default: WGPRIM_ADAPTER, else the "
                "best GPU, else the native CPU backend)");
  s->add_flag("--json", c->json, "print one JSON object");
  return {s, [c] { return print_info(c->adapter, c->json); }};
}
