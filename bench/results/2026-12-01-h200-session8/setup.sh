# sourced at the start of every device call: the Vulkan loader, the NVIDIA ICD, the carried binaries
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
fi
B=$PWD/devbuild/bin
export LD_LIBRARY_PATH=$B:$PWD/devbuild/lib:${LD_LIBRARY_PATH:-}
export PLPLOT_DRV_DIR=$PWD/devbuild/plplot/drivers PLPLOT_LIB=$PWD/devbuild/plplot/share
