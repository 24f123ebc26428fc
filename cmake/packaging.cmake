# CPack: `cpack -G DEB` in a build folder makes one Debian package of everything `cmake --install` installs
# (headers, libwgprim.a [and libwgprim_mpi.a], libwgpu_native.so with its headers, the CMake package and the
# pkg-config file, and the wgprim CLI when it was built), under /usr. tests/deb_package_test.sh extracts it into
# an empty folder and builds a find_package(wgprim) consumer against it; docs/packaging.md says how to make one.
#
# One package rather than a Debian-style split (libwgprim-dev, wgprim-tools): the library is static, so the
# package is a development package whatever its name, and the only shared object, libwgpu_native.so, is not in
# Debian; it goes in the package, next to the static library that needs it, as the CMake package expects.
set(CPACK_PACKAGE_NAME "wgprim")
set(CPACK_PACKAGE_VENDOR "wgprim")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "GPU parallel primitives (reduce, scan, select, histogram, segmented ops, sort) in WGSL on WebGPU")
set(CPACK_PACKAGE_DESCRIPTION
    "A C++17 library of GPU parallel primitives written in WGSL and run through wgpu-native (bundled), with a \
native CPU backend (oneTBB); a static library, its headers, a CMake package (find_package(wgprim)) and a \
pkg-config file, and the wgprim command line tool.")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
# Executables and the shared library lose their debug information (static libraries keep their symbols).
set(CPACK_STRIP_FILES TRUE)

set(CPACK_DEBIAN_PACKAGE_MAINTAINER "wgprim maintainers <wgprim@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION "libdevel")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # wgprim_0.1.0_amd64.deb
set(CPACK_DEBIAN_COMPRESSION_TYPE "gzip")  # xz takes minutes on two cores for a ~100 MB static library
# Dependencies by Debian 12 package name, stated rather than computed by dpkg-shlibdeps (dpkg-dev is not always
# installed, and it cannot place the bundled libwgpu_native.so). A consumer links oneTBB (find_dependency(TBB)); the
# CLI loads cairo, PLplot with its cairo driver, fmt (and Open MPI when built with it); WebGPU needs a Vulkan
# loader, and a driver (Mesa's lavapipe runs it on the CPU) is recommended. tests/deb_package_test.sh checks the
# list against the libraries the packaged CLI needs.
set(wgprim_deb_depends "libtbb-dev, libtbb12, libvulkan1, libc6, libstdc++6, libgcc-s1")
if(WGPRIM_BUILD_TOOLS)
  string(APPEND wgprim_deb_depends ", libcairo2, libplplot17, plplot-driver-cairo, libfmt9")
endif()
if(TARGET wgprim_mpi)
  # wgprim::mpi links MPI's C library: a consumer of it needs MPI's headers; the CLI's MPI mode loads libmpi.
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libopenmpi-dev")
  if(WGPRIM_BUILD_TOOLS)
    string(APPEND wgprim_deb_depends ", libopenmpi3")
  endif()
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${wgprim_deb_depends}")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "mesa-vulkan-drivers")
set(CPACK_GENERATOR "DEB")
set(CPACK_SOURCE_GENERATOR "TGZ")
set(CPACK_SOURCE_IGNORE_FILES "/\\\\.git/" "/build/" "/\\\\.deps/")
include(CPack)
