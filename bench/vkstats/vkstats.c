// vkstats: a Vulkan layer (VK_LAYER_WGPRIM_stats) that prints what the driver says about each compute pipeline
// wgpu-native creates: the statistics of VK_KHR_pipeline_executable_properties (on NVIDIA: registers per thread,
// shared memory, local memory / spills...), one line per statistic, prefixed with the entry point's name. For the
// kernels' occupancy questions (bench/results/2026-12-07-h100-session24/README.md: how many workgroups of the
// onesweep are resident per SM) that no WebGPU query answers. A measurement tool: not part of the library, not run
// by `make test`.
//
// Use (bench/vkstats/README.md): build with `make -C bench/vkstats`, then
//   VK_LAYER_PATH=bench/vkstats/build VK_INSTANCE_LAYERS=VK_LAYER_WGPRIM_stats build/wgprim sort ...
// Lines go to stderr, or to the file named by VKSTATS_OUT (appended). VKSTATS_SPIRV=DIR also writes each shader
// module's SPIR-V there (module_<n>.spv).
//
// The layer adds the extension and its feature at device creation where the driver offers it, sets
// VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR on compute pipelines, and passes everything else through.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_OBJECTS 64

// What the layer keeps per instance and per device, found by the loader's dispatch pointer of a handle.
typedef struct {
  void* key;
  PFN_vkGetInstanceProcAddr gipa;
  PFN_vkDestroyInstance destroy;
  PFN_vkEnumerateDeviceExtensionProperties enum_ext;
} instance_data;

typedef struct {
  void* key;
  VkDevice device;
  PFN_vkGetDeviceProcAddr gdpa;
  PFN_vkCreateComputePipelines create_compute;
  PFN_vkCreateShaderModule create_module;
  PFN_vkGetPipelineExecutablePropertiesKHR exec_props;
  PFN_vkGetPipelineExecutableStatisticsKHR exec_stats;
  int stats;  // the extension was enabled
} device_data;

static instance_data instances[MAX_OBJECTS];
static device_data devices[MAX_OBJECTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned modules_seen;

static void* key_of(const void* handle) { return *(void* const*)handle; }

static instance_data* instance_of(const void* handle) {
  void* k = key_of(handle);
  for (int i = 0; i < MAX_OBJECTS; ++i)
    if (instances[i].key == k) return &instances[i];
  return NULL;
}

static device_data* device_of(const void* handle) {
  void* k = key_of(handle);
  for (int i = 0; i < MAX_OBJECTS; ++i)
    if (devices[i].key == k) return &devices[i];
  return NULL;
}

static FILE* out_file(void) {
  const char* path = getenv("VKSTATS_OUT");
  if (path && *path) {
    FILE* f = fopen(path, "a");
    if (f) return f;
  }
  return stderr;
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateInstance(const VkInstanceCreateInfo* info,
                                                           const VkAllocationCallbacks* alloc, VkInstance* out) {
  VkLayerInstanceCreateInfo* link = (VkLayerInstanceCreateInfo*)info->pNext;
  while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO && link->function == VK_LAYER_LINK_INFO))
    link = (VkLayerInstanceCreateInfo*)link->pNext;
  if (!link) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
  VkResult r = create(info, alloc, out);
  if (r != VK_SUCCESS) return r;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < MAX_OBJECTS; ++i)
    if (!instances[i].key) {
      instances[i].key = key_of(*out);
      instances[i].gipa = gipa;
      instances[i].destroy = (PFN_vkDestroyInstance)gipa(*out, "vkDestroyInstance");
      instances[i].enum_ext =
          (PFN_vkEnumerateDeviceExtensionProperties)gipa(*out, "vkEnumerateDeviceExtensionProperties");
      break;
    }
  pthread_mutex_unlock(&lock);
  return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL layer_DestroyInstance(VkInstance instance, const VkAllocationCallbacks* alloc) {
  pthread_mutex_lock(&lock);
  instance_data* d = instance_of(instance);
  PFN_vkDestroyInstance destroy = d ? d->destroy : NULL;
  if (d) memset(d, 0, sizeof *d);
  pthread_mutex_unlock(&lock);
  if (destroy) destroy(instance, alloc);
}

// Whether the physical device offers the extension (asked through the next layer, with the instance's table).
static int offers_stats(instance_data* inst, VkPhysicalDevice gpu) {
  if (!inst || !inst->enum_ext) return 0;
  uint32_t count = 0;
  if (inst->enum_ext(gpu, NULL, &count, NULL) != VK_SUCCESS || count == 0) return 0;
  VkExtensionProperties* props = calloc(count, sizeof *props);
  int found = 0;
  if (props && inst->enum_ext(gpu, NULL, &count, props) == VK_SUCCESS)
    for (uint32_t i = 0; i < count; ++i)
      if (!strcmp(props[i].extensionName, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME)) found = 1;
  free(props);
  return found;
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateDevice(VkPhysicalDevice gpu, const VkDeviceCreateInfo* info,
                                                         const VkAllocationCallbacks* alloc, VkDevice* out) {
  VkLayerDeviceCreateInfo* link = (VkLayerDeviceCreateInfo*)info->pNext;
  while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && link->function == VK_LAYER_LINK_INFO))
    link = (VkLayerDeviceCreateInfo*)link->pNext;
  if (!link) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(VK_NULL_HANDLE, "vkCreateDevice");

  pthread_mutex_lock(&lock);
  instance_data* inst = instance_of(gpu);
  pthread_mutex_unlock(&lock);
  const int stats = offers_stats(inst, gpu);
  // The create info again, with the extension (unless asked for already) and its feature added.
  VkDeviceCreateInfo ci = *info;
  const char** names = calloc(info->enabledExtensionCount + 1, sizeof *names);
  int asked = 0;
  for (uint32_t i = 0; i < info->enabledExtensionCount; ++i) {
    names[i] = info->ppEnabledExtensionNames[i];
    if (!strcmp(names[i], VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME)) asked = 1;
  }
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR feature = {
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR, NULL, VK_TRUE};
  int added = 0;
  if (stats && !asked) {
    added = 1;
    names[ci.enabledExtensionCount++] = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
    feature.pNext = (void*)ci.pNext;
    ci.pNext = &feature;
  }
  ci.ppEnabledExtensionNames = names;
  VkResult r = create(gpu, &ci, alloc, out);
  if (r != VK_SUCCESS && added) {  // the driver refused the addition: plain pass-through
    FILE* f = out_file();
    fprintf(f, "vkstats: the device refused %s (%d); no statistics\n", VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME, r);
    if (f != stderr) fclose(f);
    added = 0;
    r = create(gpu, info, alloc, out);
  }
  const int enabled = r == VK_SUCCESS && (added || asked);
  free(names);
  if (r != VK_SUCCESS) return r;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < MAX_OBJECTS; ++i)
    if (!devices[i].key) {
      device_data* d = &devices[i];
      d->key = key_of(*out);
      d->device = *out;
      d->gdpa = gdpa;
      d->create_compute = (PFN_vkCreateComputePipelines)gdpa(*out, "vkCreateComputePipelines");
      d->create_module = (PFN_vkCreateShaderModule)gdpa(*out, "vkCreateShaderModule");
      d->exec_props = (PFN_vkGetPipelineExecutablePropertiesKHR)gdpa(*out, "vkGetPipelineExecutablePropertiesKHR");
      d->exec_stats = (PFN_vkGetPipelineExecutableStatisticsKHR)gdpa(*out, "vkGetPipelineExecutableStatisticsKHR");
      d->stats = enabled && d->exec_props && d->exec_stats;
      break;
    }
  pthread_mutex_unlock(&lock);
  FILE* f = out_file();
  fprintf(f, "vkstats: device created, statistics %s\n", enabled ? "on" : "not offered by the driver");
  if (f != stderr) fclose(f);
  return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL layer_DestroyDevice(VkDevice device, const VkAllocationCallbacks* alloc) {
  pthread_mutex_lock(&lock);
  device_data* d = device_of(device);
  PFN_vkDestroyDevice destroy = d ? (PFN_vkDestroyDevice)d->gdpa(device, "vkDestroyDevice") : NULL;
  if (d) memset(d, 0, sizeof *d);
  pthread_mutex_unlock(&lock);
  if (destroy) destroy(device, alloc);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateShaderModule(VkDevice device, const VkShaderModuleCreateInfo* info,
                                                               const VkAllocationCallbacks* alloc, VkShaderModule* out) {
  pthread_mutex_lock(&lock);
  device_data* d = device_of(device);
  PFN_vkCreateShaderModule next = d ? d->create_module : NULL;
  const unsigned n = modules_seen++;
  pthread_mutex_unlock(&lock);
  const char* dir = getenv("VKSTATS_SPIRV");
  if (dir && *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/module_%u.spv", dir, n);
    FILE* f = fopen(path, "wb");
    if (f) {
      fwrite(info->pCode, 1, info->codeSize, f);
      fclose(f);
    }
  }
  return next ? next(device, info, alloc, out) : VK_ERROR_INITIALIZATION_FAILED;
}

static void print_statistics(device_data* d, VkPipeline pipeline, const char* entry) {
  VkPipelineInfoKHR pi = {VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, NULL, pipeline};
  uint32_t count = 0;
  if (d->exec_props(d->device, &pi, &count, NULL) != VK_SUCCESS) return;
  VkPipelineExecutablePropertiesKHR* props = calloc(count, sizeof *props);
  for (uint32_t i = 0; i < count; ++i) props[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR;
  FILE* f = out_file();
  if (d->exec_props(d->device, &pi, &count, props) == VK_SUCCESS)
    for (uint32_t e = 0; e < count; ++e) {
      VkPipelineExecutableInfoKHR ei = {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, NULL, pipeline, e};
      uint32_t n = 0;
      if (d->exec_stats(d->device, &ei, &n, NULL) != VK_SUCCESS) continue;
      VkPipelineExecutableStatisticKHR* st = calloc(n, sizeof *st);
      for (uint32_t i = 0; i < n; ++i) st[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
      if (d->exec_stats(d->device, &ei, &n, st) == VK_SUCCESS)
        for (uint32_t i = 0; i < n; ++i) {
          fprintf(f, "vkstats %s [%s] %s = ", entry, props[e].name, st[i].name);
          switch (st[i].format) {
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: fprintf(f, "%s", st[i].value.b32 ? "true" : "false"); break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: fprintf(f, "%lld", (long long)st[i].value.i64); break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: fprintf(f, "%llu", (unsigned long long)st[i].value.u64); break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: fprintf(f, "%g", st[i].value.f64); break;
            default: fprintf(f, "?"); break;
          }
          fprintf(f, "\n");
        }
      free(st);
    }
  if (f != stderr) fclose(f);
  free(props);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateComputePipelines(VkDevice device, VkPipelineCache cache, uint32_t count,
                                                                   const VkComputePipelineCreateInfo* infos,
                                                                   const VkAllocationCallbacks* alloc, VkPipeline* out) {
  pthread_mutex_lock(&lock);
  device_data* d = device_of(device);
  pthread_mutex_unlock(&lock);
  if (!d) return VK_ERROR_INITIALIZATION_FAILED;
  if (!d->stats) return d->create_compute(device, cache, count, infos, alloc, out);
  VkComputePipelineCreateInfo* ci = calloc(count, sizeof *ci);
  for (uint32_t i = 0; i < count; ++i) {
    ci[i] = infos[i];
    ci[i].flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  }
  VkResult r = d->create_compute(device, cache, count, ci, alloc, out);
  if (r == VK_SUCCESS)
    for (uint32_t i = 0; i < count; ++i) print_statistics(d, out[i], infos[i].stage.pName ? infos[i].stage.pName : "?");
  free(ci);
  return r;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char* name);

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char* name) {
  if (!strcmp(name, "vkGetInstanceProcAddr")) return (PFN_vkVoidFunction)vkGetInstanceProcAddr;
  if (!strcmp(name, "vkCreateInstance")) return (PFN_vkVoidFunction)layer_CreateInstance;
  if (!strcmp(name, "vkDestroyInstance")) return (PFN_vkVoidFunction)layer_DestroyInstance;
  if (!strcmp(name, "vkCreateDevice")) return (PFN_vkVoidFunction)layer_CreateDevice;
  if (!strcmp(name, "vkGetDeviceProcAddr")) return (PFN_vkVoidFunction)vkGetDeviceProcAddr;
  if (!instance) return NULL;
  pthread_mutex_lock(&lock);
  instance_data* d = instance_of(instance);
  PFN_vkGetInstanceProcAddr next = d ? d->gipa : NULL;
  pthread_mutex_unlock(&lock);
  return next ? next(instance, name) : NULL;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char* name) {
  if (!strcmp(name, "vkGetDeviceProcAddr")) return (PFN_vkVoidFunction)vkGetDeviceProcAddr;
  if (!strcmp(name, "vkDestroyDevice")) return (PFN_vkVoidFunction)layer_DestroyDevice;
  if (!strcmp(name, "vkCreateComputePipelines")) return (PFN_vkVoidFunction)layer_CreateComputePipelines;
  if (!strcmp(name, "vkCreateShaderModule")) return (PFN_vkVoidFunction)layer_CreateShaderModule;
  pthread_mutex_lock(&lock);
  device_data* d = device_of(device);
  PFN_vkGetDeviceProcAddr next = d ? d->gdpa : NULL;
  pthread_mutex_unlock(&lock);
  return next ? next(device, name) : NULL;
}

EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface* v) {
  if (v->loaderLayerInterfaceVersion > 2) v->loaderLayerInterfaceVersion = 2;
  v->pfnGetInstanceProcAddr = vkGetInstanceProcAddr;
  v->pfnGetDeviceProcAddr = vkGetDeviceProcAddr;
  v->pfnGetPhysicalDeviceProcAddr = NULL;
  return VK_SUCCESS;
}
