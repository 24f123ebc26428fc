// The pipeline cache: WGSL modules compiled once per context, keyed by entry point, binding layout and source.
#include "gpu/device_impl.hpp"

namespace wgprim::detail {

// Compiles WGSL; a compile error becomes errc::shader naming `what`. `trusted` drops naga's runtime checks.
WGPUShaderModule make_module(context_impl& s, const std::string& source, bool trusted, const std::string& what) {
  WGPUShaderSourceWGSL wgsl = WGPU_SHADER_SOURCE_WGSL_INIT;
  wgsl.code = sv(source);
  WGPUShaderModuleDescriptor md = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
  md.nextInChain = &wgsl.chain;
  WGPUShaderModule mod = trusted ? wgpuDeviceCreateShaderModuleTrusted(s.device, &md, WGPUShaderRuntimeChecks_None)
                                 : wgpuDeviceCreateShaderModule(s.device, &md);
  try {
    s.check(errc::shader, what + " failed to compile");
  } catch (...) {
    if (mod) wgpuShaderModuleRelease(mod);
    throw;
  }
  return mod;
}

WGPUBindGroupLayout make_layout(context_impl& s, std::vector<WGPUBindGroupLayoutEntry>& entries) {
  WGPUBindGroupLayoutDescriptor bd = WGPU_BIND_GROUP_LAYOUT_DESCRIPTOR_INIT;
  bd.entryCount = entries.size();
  bd.entries = entries.data();
  return wgpuDeviceCreateBindGroupLayout(s.device, &bd);
}

WGPUPipelineLayout make_pipeline_layout(context_impl& s, WGPUBindGroupLayout* group, std::uint32_t immediate_bytes) {
  WGPUPipelineLayoutDescriptor pd = WGPU_PIPELINE_LAYOUT_DESCRIPTOR_INIT;
  pd.bindGroupLayoutCount = 1;
  pd.bindGroupLayouts = group;
  pd.immediateSize = immediate_bytes;
  return wgpuDeviceCreatePipelineLayout(s.device, &pd);
}


namespace {
// Where the device takes immediate data, a kernel's parameter block (slot 0, declared as below) becomes an
// immediate block: set with the dispatch, so a call writes no uniform buffer and the queue runs no copy first.
const std::string params_decl = "@group(0) @binding(0) var<uniform> params:";
std::uint32_t immediate_size(const context_impl& s, const std::string& source, const std::vector<slot>& layout,
                             std::size_t params_bytes) {
  if (!s.max_immediate || !params_bytes || layout.empty() || layout[0] != slot::uniform) return 0;
  if (std::count(layout.begin(), layout.end(), slot::uniform) != 1) return 0;
  const std::size_t at = source.find(params_decl);
  if (at == std::string::npos || source.find(params_decl, at + 1) != std::string::npos) return 0;
  const std::uint32_t bytes = static_cast<std::uint32_t>((params_bytes + 15) / 16 * 16);
  return bytes <= s.max_immediate ? bytes : 0;
}
}  // namespace

const kernel& get_kernel(context& ctx, const std::string& source, const std::string& entry,
                         const std::vector<slot>& layout, bool trusted, const void* memo_tag,
                         std::size_t params_bytes) {
  auto& s = ctx.impl();
  s.need_webgpu("compiling WGSL");
  const context_impl::spec_key fast{&source, memo_tag, trusted};
  if (memo_tag) {
    auto f = s.kernels_by_spec.find(fast);
    if (f != s.kernels_by_spec.end()) return *f->second;
  }
  const std::string key = cache_key(entry + (trusted ? "|t" : "|c"), layout, source);
  auto it = s.kernels.find(key);
  if (it != s.kernels.end()) {
    if (memo_tag) s.kernels_by_spec.emplace(fast, it->second.get());
    return *it->second;
  }
  s.check();
  // Compilation is timed apart (run_stats::compile_ms), so that no GPU time figure includes it.
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint32_t imm = immediate_size(s, source, layout, params_bytes);
  std::string rewritten;
  if (imm) {
    rewritten = source;
    rewritten.replace(rewritten.find(params_decl), params_decl.size(), "var<immediate> params:");
  }
  WGPUShaderModule mod = make_module(s, imm ? rewritten : source, trusted, "shader '" + entry + "'");

  std::vector<WGPUBindGroupLayoutEntry> entries;
  for (std::size_t i = imm ? 1 : 0; i < layout.size(); ++i) {
    WGPUBindGroupLayoutEntry e = WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT;
    e.binding = static_cast<std::uint32_t>(i);
    e.visibility = WGPUShaderStage_Compute;
    // Uniform blocks and ring work blocks take a dynamic offset: one cached bind group serves every slot of the
    // parameter ring.
    e.buffer.hasDynamicOffset = layout[i] == slot::uniform || layout[i] == slot::storage_rw_dynamic;
    e.buffer.type = layout[i] == slot::uniform ? WGPUBufferBindingType_Uniform
                    : layout[i] == slot::storage_read ? WGPUBufferBindingType_ReadOnlyStorage
                                                      : WGPUBufferBindingType_Storage;
    entries.push_back(e);
  }
  auto k = std::make_unique<kernel>();
  k->slots = layout.size();
  k->immediate_bytes = imm;
  for (std::size_t i = imm ? 1 : 0; i < layout.size() && i < 32; ++i)
    if (layout[i] == slot::uniform || layout[i] == slot::storage_rw_dynamic) k->dynamic_mask |= 1u << i;
  k->layout = make_layout(s, entries);
  WGPUPipelineLayout pl = make_pipeline_layout(s, &k->layout, imm);
  WGPUComputePipelineDescriptor cd = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
  cd.layout = pl;
  cd.compute.module = mod;
  cd.compute.entryPoint = sv(entry);
  k->pipeline = wgpuDeviceCreateComputePipeline(s.device, &cd);
  wgpuPipelineLayoutRelease(pl);
  wgpuShaderModuleRelease(mod);
  try {
    s.check(errc::shader, "pipeline '" + entry + "' could not be created");
  } catch (...) {
    if (k->pipeline) wgpuComputePipelineRelease(k->pipeline);
    wgpuBindGroupLayoutRelease(k->layout);
    throw;
  }
  s.compile_pending_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const kernel& out = *s.kernels.emplace(key, std::move(k)).first->second;
  if (memo_tag) s.kernels_by_spec.emplace(fast, &out);
  return out;
}


std::uint64_t kernels_created(context& ctx) {
  return ctx.backend() == backend_choice::native ? 0 : ctx.impl().kernels.size();
}

std::uint64_t dispatches_recorded(context& ctx) {
  return ctx.backend() == backend_choice::native ? 0 : ctx.impl().dispatches;
}

}  // namespace wgprim::detail
