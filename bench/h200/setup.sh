# Sourced at the start of every H200 call (copied into devbuild/ by pack.sh): the Vulkan loader from .gl, the
# NVIDIA ICD, the carried binaries ($B) and their libraries.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
fi
B=$PWD/devbuild/bin
export LD_LIBRARY_PATH=$B:$PWD/devbuild/lib:${LD_LIBRARY_PATH:-}
[ -d $PWD/devbuild/plplot-drivers ] && export PLPLOT_DRV_DIR=$PWD/devbuild/plplot-drivers  # the CLI's pictures
[ -d $PWD/devbuild/plplot-data ] && export PLPLOT_LIB=$PWD/devbuild/plplot-data
[ -f /etc/fonts/fonts.conf ] || export FONTCONFIG_FILE=$PWD/devbuild/fonts/fonts.conf  # no fonts there
