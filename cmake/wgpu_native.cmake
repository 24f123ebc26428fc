# Finds wgpu-native, or fetches it, and defines the imported target wgprim::wgpu_native.
#
# Where it comes from, first match wins:
#   1. WGPU_NATIVE_DIR (cache variable or environment): a release folder or own build holding libwgpu_native.so
#      (in the folder or lib/) and include/webgpu/{webgpu.h,wgpu.h};
#   2. <wgprim>/.deps/wgpu-native, which scripts/setup.sh unpacks;
#   3. (WGPRIM_FETCH_WGPU_NATIVE, on by default) the pinned PyPI wheel `wgpu`, downloaded by CMake itself and
#      checked against its sha256, unpacked into the build tree. This is what makes FetchContent/add_subdirectory
#      work on a machine where nobody ran setup.sh. WGPRIM_DOWNLOAD_DIR is where the wheel is kept (default: the
#      build tree), so a test that configures throw-away projects can share one download.
#
# Sets WGPU_NATIVE_LIBRARY (the .so) and WGPU_NATIVE_INCLUDE_DIR (the folder holding webgpu/).

# The pinned wheel: wgpu-py 0.32.0 bundles wgpu-native 29.0.1.1 (same pin as scripts/setup.sh). URLs and sha256
# as PyPI's JSON API lists them (https://pypi.org/pypi/wgpu/json).
set(WGPRIM_WGPU_PY_VERSION 0.32.0)
set(_wgprim_wheel_x86_64 "wgpu-0.32.0-py3-none-manylinux_2_28_x86_64.whl")
set(_wgprim_url_x86_64
    "https://files.pythonhosted.org/packages/99/a9/8b00e9d0cbd1ec0766e5b3c8063e61f0335262afe07cef82c307899bcf01/${_wgprim_wheel_x86_64}")
set(_wgprim_sha_x86_64 6499a31b5a29a10b4f1089fea4a0806411f42605fa86b6c0b543a07ca0de8568)
# aarch64: taken from the same listing; not exercised by our CI (x86_64 only).
set(_wgprim_wheel_aarch64 "wgpu-0.32.0-py3-none-manylinux_2_28_aarch64.whl")
set(_wgprim_url_aarch64
    "https://files.pythonhosted.org/packages/40/52/36819230b805b07fc4c3e92242aba7b73a0ce25e03b124992af79a6b1d4d/${_wgprim_wheel_aarch64}")
set(_wgprim_sha_aarch64 00454ba1bc794d38c8365f4ad29f381b88ce0a7f115133bfaa6f1dfad7eb2764)

set(WGPU_NATIVE_DIR "$ENV{WGPU_NATIVE_DIR}" CACHE PATH "Folder with wgpu-native (lib/ and include/webgpu/)")
option(WGPRIM_FETCH_WGPU_NATIVE "Download the pinned wgpu-native (PyPI wheel wgpu==${WGPRIM_WGPU_PY_VERSION}) when \
WGPU_NATIVE_DIR and .deps/ have none" ON)
set(WGPRIM_DOWNLOAD_DIR "${PROJECT_BINARY_DIR}/_downloads" CACHE PATH
    "Where the fetched wgpu-native wheel is kept (reused when its sha256 matches)")

function(_wgprim_find_wgpu_native dir)
  # Not cached under the usual names: a failed look in one place must not stop the look in the next one.
  find_library(_wgprim_lib NAMES wgpu_native wgpu_native-release PATHS "${dir}" "${dir}/lib" NO_DEFAULT_PATH
               NO_CACHE)
  find_path(_wgprim_inc webgpu/webgpu.h PATHS "${dir}/include" "${dir}" NO_DEFAULT_PATH NO_CACHE)
  if(_wgprim_lib AND _wgprim_inc AND EXISTS "${_wgprim_inc}/webgpu/wgpu.h")
    set(WGPU_NATIVE_LIBRARY "${_wgprim_lib}" PARENT_SCOPE)
    set(WGPU_NATIVE_INCLUDE_DIR "${_wgprim_inc}" PARENT_SCOPE)
  endif()
endfunction()

# Downloads (unless a matching copy is there) and unpacks the wheel's library and headers into `dest`, in the
# layout of scripts/setup.sh: dest/lib/libwgpu_native.so, dest/include/webgpu/{webgpu.h,wgpu.h}.
function(_wgprim_fetch_wgpu_native dest)
  if(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux")
    message(FATAL_ERROR "wgprim: fetching wgpu-native is set up for Linux only; set WGPU_NATIVE_DIR to a "
                        "wgpu-native release folder")
  endif()
  set(arch "${CMAKE_SYSTEM_PROCESSOR}")
  if(arch MATCHES "^(x86_64|AMD64|amd64)$")
    set(arch x86_64)
  elseif(arch MATCHES "^(aarch64|arm64|ARM64)$")
    set(arch aarch64)
  else()
    message(FATAL_ERROR "wgprim: no pinned wgpu-native wheel for ${CMAKE_SYSTEM_PROCESSOR}; set WGPU_NATIVE_DIR")
  endif()
  set(wheel "${WGPRIM_DOWNLOAD_DIR}/${_wgprim_wheel_${arch}}")
  set(sha "${_wgprim_sha_${arch}}")
  set(stamp "${dest}/.stamp-${sha}")
  if(EXISTS "${stamp}")
    return()
  endif()

  set(have_wheel OFF)
  if(EXISTS "${wheel}")
    file(SHA256 "${wheel}" got)
    if(got STREQUAL sha)
      set(have_wheel ON)
    endif()
  endif()
  if(NOT have_wheel)
    message(STATUS "wgprim: downloading wgpu-native (PyPI wheel wgpu==${WGPRIM_WGPU_PY_VERSION}, ${arch})")
    file(MAKE_DIRECTORY "${WGPRIM_DOWNLOAD_DIR}")
    # Into a temporary name first: an interrupted download must not look like a wheel next time.
    file(DOWNLOAD "${_wgprim_url_${arch}}" "${wheel}.part" EXPECTED_HASH SHA256=${sha} STATUS status TLS_VERIFY ON)
    list(GET status 0 code)
    if(NOT code EQUAL 0)
      list(GET status 1 why)
      file(REMOVE "${wheel}.part")
      message(FATAL_ERROR "wgprim: downloading ${_wgprim_url_${arch}} failed (${why}). Without network, set "
                          "WGPU_NATIVE_DIR to a wgpu-native folder, or put ${_wgprim_wheel_${arch}} into "
                          "WGPRIM_DOWNLOAD_DIR (${WGPRIM_DOWNLOAD_DIR})")
    endif()
    file(RENAME "${wheel}.part" "${wheel}")
  endif()

  set(tmp "${dest}.unpack")
  file(REMOVE_RECURSE "${tmp}" "${dest}")
  file(ARCHIVE_EXTRACT INPUT "${wheel}" DESTINATION "${tmp}"
       PATTERNS wgpu/resources/libwgpu_native-release.so wgpu/resources/webgpu.h wgpu/resources/wgpu.h)
  foreach(f libwgpu_native-release.so webgpu.h wgpu.h)
    if(NOT EXISTS "${tmp}/wgpu/resources/${f}")
      message(FATAL_ERROR "wgprim: ${wheel} has no wgpu/resources/${f}")
    endif()
  endforeach()
  file(MAKE_DIRECTORY "${dest}/lib" "${dest}/include/webgpu")
  # The wheel's library has no SONAME; named libwgpu_native.so it links as -lwgpu_native, as the installed copy.
  file(COPY_FILE "${tmp}/wgpu/resources/libwgpu_native-release.so" "${dest}/lib/libwgpu_native.so")
  file(COPY_FILE "${tmp}/wgpu/resources/webgpu.h" "${dest}/include/webgpu/webgpu.h")
  file(COPY_FILE "${tmp}/wgpu/resources/wgpu.h" "${dest}/include/webgpu/wgpu.h")
  file(REMOVE_RECURSE "${tmp}")
  file(TOUCH "${stamp}")
endfunction()

set(WGPU_NATIVE_LIBRARY "")
set(WGPU_NATIVE_INCLUDE_DIR "")
set(_wgprim_looked "")
if(WGPU_NATIVE_DIR)
  # Given explicitly: use it or fail, never fall back silently to something else.
  _wgprim_find_wgpu_native("${WGPU_NATIVE_DIR}")
  if(NOT WGPU_NATIVE_LIBRARY)
    message(FATAL_ERROR "wgprim: WGPU_NATIVE_DIR=${WGPU_NATIVE_DIR} holds no libwgpu_native.so (in it or lib/) "
                        "with include/webgpu/webgpu.h and wgpu.h")
  endif()
else()
  _wgprim_find_wgpu_native("${PROJECT_SOURCE_DIR}/.deps/wgpu-native")
  list(APPEND _wgprim_looked "${PROJECT_SOURCE_DIR}/.deps/wgpu-native")
  if(NOT WGPU_NATIVE_LIBRARY AND WGPRIM_FETCH_WGPU_NATIVE)
    _wgprim_fetch_wgpu_native("${PROJECT_BINARY_DIR}/_deps/wgpu-native")
    _wgprim_find_wgpu_native("${PROJECT_BINARY_DIR}/_deps/wgpu-native")
    list(APPEND _wgprim_looked "${PROJECT_BINARY_DIR}/_deps/wgpu-native")
  endif()
  if(NOT WGPU_NATIVE_LIBRARY)
    message(FATAL_ERROR "wgprim: wgpu-native not found (looked in ${_wgprim_looked}); run scripts/setup.sh, set "
                        "WGPU_NATIVE_DIR, or turn WGPRIM_FETCH_WGPU_NATIVE on")
  endif()
endif()
message(STATUS "wgprim: wgpu-native ${WGPU_NATIVE_LIBRARY}")

# Named wgprim::wgpu_native so that the exported wgprim target refers to the same name the installed package
# config defines (cmake/wgprimConfig.cmake.in).
if(NOT TARGET wgprim::wgpu_native)
  add_library(wgprim::wgpu_native SHARED IMPORTED GLOBAL)
  set_target_properties(wgprim::wgpu_native PROPERTIES IMPORTED_LOCATION "${WGPU_NATIVE_LIBRARY}"
                        IMPORTED_NO_SONAME ON
                        INTERFACE_INCLUDE_DIRECTORIES "${WGPU_NATIVE_INCLUDE_DIR}")
endif()
