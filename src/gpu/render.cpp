// The render side: textures, render pipelines and draws (the render-pass reduction draws 2x2 folds).
#include "gpu/device_impl.hpp"

namespace wgprim::detail {

namespace {
WGPUTextureFormat wgpu_format(tex_format f) {
  switch (f) {
    case tex_format::r32float: return WGPUTextureFormat_R32Float;
    case tex_format::r32sint: return WGPUTextureFormat_R32Sint;
    case tex_format::r32uint: return WGPUTextureFormat_R32Uint;
    case tex_format::rgba8unorm: return WGPUTextureFormat_RGBA8Unorm;
  }
  return WGPUTextureFormat_RGBA8Unorm;
}
}  // namespace


texture::texture(context& ctx, std::uint32_t width, std::uint32_t height, tex_format format)
    : w_(width), h_(height), f_(format) {
  auto& c = ctx.impl();
  c.need_webgpu("a texture");
  c.check();
  WGPULimits lim = WGPU_LIMITS_INIT;
  wgpuDeviceGetLimits(c.device, &lim);
  if (width == 0 || height == 0 || width > lim.maxTextureDimension2D || height > lim.maxTextureDimension2D)
    throw error(errc::limit, "a " + std::to_string(width) + "x" + std::to_string(height) +
                                 " texture exceeds the adapter's limit of " + std::to_string(lim.maxTextureDimension2D));
  WGPUTextureDescriptor d = WGPU_TEXTURE_DESCRIPTOR_INIT;
  d.usage = WGPUTextureUsage_RenderAttachment | WGPUTextureUsage_TextureBinding | WGPUTextureUsage_CopySrc |
            WGPUTextureUsage_CopyDst;
  d.dimension = WGPUTextureDimension_2D;
  d.size = {width, height, 1};
  d.format = wgpu_format(format);
  d.mipLevelCount = 1;
  d.sampleCount = 1;
  WGPUTexture t = wgpuDeviceCreateTexture(c.device, &d);
  c.check(errc::out_of_memory, "creating a texture");
  tex_ = t;
  view_ = wgpuTextureCreateView(t, nullptr);
}

texture::~texture() {
  if (view_) wgpuTextureViewRelease(static_cast<WGPUTextureView>(view_));
  if (tex_) wgpuTextureRelease(static_cast<WGPUTexture>(tex_));
}

texture& texture::operator=(texture&& o) noexcept {
  if (this != &o) {
    if (view_) wgpuTextureViewRelease(static_cast<WGPUTextureView>(view_));
    if (tex_) wgpuTextureRelease(static_cast<WGPUTexture>(tex_));
    tex_ = o.tex_; view_ = o.view_; w_ = o.w_; h_ = o.h_; f_ = o.f_;
    o.tex_ = o.view_ = nullptr;
  }
  return *this;
}

const render_kernel& get_render_kernel(context& ctx, const std::string& source, const std::string& vs_entry,
                                       const std::string& fs_entry, const std::vector<rslot>& layout,
                                       tex_format target) {
  auto& s = ctx.impl();
  s.need_webgpu("a render pipeline");
  const std::string key =
      cache_key(vs_entry + "|" + fs_entry + "|" + std::to_string(static_cast<int>(target)), layout, source);
  auto it = s.render_kernels.find(key);
  if (it != s.render_kernels.end()) return *it->second;
  s.check();
  WGPUShaderModule mod = make_module(s, source, false, "shader '" + vs_entry + "/" + fs_entry + "'");
  std::vector<WGPUBindGroupLayoutEntry> entries(layout.size());
  for (std::size_t i = 0; i < layout.size(); ++i) {
    WGPUBindGroupLayoutEntry e = WGPU_BIND_GROUP_LAYOUT_ENTRY_INIT;
    e.binding = static_cast<std::uint32_t>(i);
    e.visibility = WGPUShaderStage_Vertex | WGPUShaderStage_Fragment;
    switch (layout[i]) {
      case rslot::uniform: e.buffer.type = WGPUBufferBindingType_Uniform; break;
      case rslot::storage_read: e.buffer.type = WGPUBufferBindingType_ReadOnlyStorage; break;
      case rslot::texture_float:
      case rslot::texture_sint:
      case rslot::texture_uint:
        e.visibility = WGPUShaderStage_Fragment;
        e.texture.sampleType = layout[i] == rslot::texture_float ? WGPUTextureSampleType_UnfilterableFloat
                               : layout[i] == rslot::texture_sint ? WGPUTextureSampleType_Sint
                                                                  : WGPUTextureSampleType_Uint;
        e.texture.viewDimension = WGPUTextureViewDimension_2D;
        break;
    }
    entries[i] = e;
  }
  auto k = std::make_unique<render_kernel>();
  k->slots = layout;
  k->layout = make_layout(s, entries);
  WGPUPipelineLayout pl = make_pipeline_layout(s, &k->layout);
  WGPUColorTargetState ct = WGPU_COLOR_TARGET_STATE_INIT;
  ct.format = wgpu_format(target);
  ct.writeMask = WGPUColorWriteMask_All;
  WGPUFragmentState fs = WGPU_FRAGMENT_STATE_INIT;
  fs.module = mod;
  fs.entryPoint = sv(fs_entry);
  fs.targetCount = 1;
  fs.targets = &ct;
  WGPURenderPipelineDescriptor rd = WGPU_RENDER_PIPELINE_DESCRIPTOR_INIT;
  rd.layout = pl;
  rd.vertex.module = mod;
  rd.vertex.entryPoint = sv(vs_entry);
  rd.primitive.topology = WGPUPrimitiveTopology_TriangleStrip;
  rd.multisample.count = 1;
  rd.multisample.mask = 0xffffffffu;
  rd.fragment = &fs;
  k->pipeline = wgpuDeviceCreateRenderPipeline(s.device, &rd);
  wgpuPipelineLayoutRelease(pl);
  wgpuShaderModuleRelease(mod);
  try {
    s.check(errc::shader, "render pipeline '" + vs_entry + "/" + fs_entry + "' could not be created");
  } catch (...) {
    if (k->pipeline) wgpuRenderPipelineRelease(k->pipeline);
    wgpuBindGroupLayoutRelease(k->layout);
    throw;
  }
  return *s.render_kernels.emplace(key, std::move(k)).first->second;
}

void recorder::draw(const render_kernel& k, std::initializer_list<rbinding> bindings, const texture& target,
                    const double clear[4], std::uint32_t vertices, std::uint32_t instances) {
  auto& c = ctx_.impl();
  if (bindings.size() != k.slots.size()) throw error(errc::gpu, "internal: binding count does not match");
  s_->close_pass();
  std::vector<WGPUBindGroupEntry> es;
  std::uint32_t i = 0;
  for (const rbinding& b : bindings) {
    WGPUBindGroupEntry e = WGPU_BIND_GROUP_ENTRY_INIT;
    e.binding = i++;
    if (b.tex) {
      e.textureView = static_cast<WGPUTextureView>(b.tex->native_view());
    } else {
      c.ring_mark(b.buf.buf, b.buf.offset, b.buf.size);  // a parameter block from the ring is read there
      e.buffer = b.buf.buf;
      e.offset = b.buf.offset;
      e.size = b.buf.size;
    }
    es.push_back(e);
  }
  WGPUBindGroup g = s_->make_group(c, k.layout, es, "binding render resources");
  WGPURenderPassColorAttachment ca = WGPU_RENDER_PASS_COLOR_ATTACHMENT_INIT;
  ca.view = static_cast<WGPUTextureView>(target.native_view());
  ca.depthSlice = WGPU_DEPTH_SLICE_UNDEFINED;
  ca.loadOp = WGPULoadOp_Clear;
  ca.storeOp = WGPUStoreOp_Store;
  ca.clearValue = {clear[0], clear[1], clear[2], clear[3]};
  WGPURenderPassDescriptor rp = WGPU_RENDER_PASS_DESCRIPTOR_INIT;
  rp.colorAttachmentCount = 1;
  rp.colorAttachments = &ca;
  WGPURenderPassEncoder pass = wgpuCommandEncoderBeginRenderPass(s_->enc, &rp);
  wgpuRenderPassEncoderSetPipeline(pass, k.pipeline);
  wgpuRenderPassEncoderSetBindGroup(pass, 0, g, 0, nullptr);
  wgpuRenderPassEncoderDraw(pass, vertices, instances, 0, 0);
  wgpuRenderPassEncoderEnd(pass);
  wgpuRenderPassEncoderRelease(pass);
}

void recorder::copy(const texture& src, const buffer& dst) {
  s_->close_pass();
  WGPUTexelCopyTextureInfo from = WGPU_TEXEL_COPY_TEXTURE_INFO_INIT;
  from.texture = static_cast<WGPUTexture>(src.native_texture());
  WGPUTexelCopyBufferInfo to = WGPU_TEXEL_COPY_BUFFER_INFO_INIT;
  to.buffer = dst.native();
  to.layout.bytesPerRow = bytes_per_row(src);
  to.layout.rowsPerImage = src.height();
  WGPUExtent3D size = {src.width(), src.height(), 1};
  wgpuCommandEncoderCopyTextureToBuffer(s_->enc, &from, &to, &size);
}


}  // namespace wgprim::detail
