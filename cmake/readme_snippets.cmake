# wgprim_readme_snippets(README OUT_DIR RESULT): pulls the C++ blocks of a Markdown file (README.md, a page of docs/)
# that are marked for compiling into OUT_DIR/readme_snippet_<k>.cpp, so that the page's code is built and run by the
# tests as written (tests/CMakeLists.txt calls it once per page, each with its own OUT_DIR).
#
# A block is marked by an HTML comment (invisible on the rendered page) on the line(s) right before its fence:
#   <!-- compile -->                          the block is a whole program (it has main) and is run;
#   <!-- compile with tests/some/file.cpp --> the block is a piece (a function, a class) and that file, a test
#                                             harness with main, includes it through the macro WGPRIM_README_SNIPPET
#                                             and runs it.
# Each snippet starts with a #line directive: compiler errors point at the README's own lines.
# RESULT receives a list of "<snippet file>|<harness file or empty>".
function(wgprim_readme_snippets readme out_dir result)
  file(READ "${readme}" text)
  set(marker_re "<!-- compile( with ([^ ]+))? -->")
  set(out "")
  set(k 0)
  set(rest "${text}")
  set(consumed 0)  # characters of `text` before `rest`, to count lines
  while(TRUE)
    string(REGEX MATCH "${marker_re}" marker "${rest}")
    if(NOT marker)
      break()
    endif()
    set(harness "${CMAKE_MATCH_2}")
    string(FIND "${rest}" "${marker}" at)
    string(LENGTH "${marker}" marker_len)
    math(EXPR after "${at} + ${marker_len}")
    string(SUBSTRING "${rest}" ${after} -1 tail)
    # The fence must follow the marker with nothing but white space in between.
    string(FIND "${tail}" "```cpp\n" fence)
    if(fence LESS 0)
      message(FATAL_ERROR "${readme}: '${marker}' is not followed by a ```cpp block")
    endif()
    string(SUBSTRING "${tail}" 0 ${fence} gap)
    string(STRIP "${gap}" gap)
    if(NOT gap STREQUAL "")
      message(FATAL_ERROR "${readme}: '${marker}' is followed by text before its ```cpp block: ${gap}")
    endif()
    math(EXPR body_at "${fence} + 7")
    string(SUBSTRING "${tail}" ${body_at} -1 body_and_rest)
    string(FIND "${body_and_rest}" "\n```" close)
    if(close LESS 0)
      message(FATAL_ERROR "${readme}: unterminated ```cpp block after '${marker}'")
    endif()
    math(EXPR close_incl "${close} + 1")
    string(SUBSTRING "${body_and_rest}" 0 ${close_incl} body)

    # The README line the block's first line is on: newlines before it, plus one.
    math(EXPR body_pos "${consumed} + ${after} + ${body_at}")
    string(SUBSTRING "${text}" 0 ${body_pos} before)
    string(REGEX REPLACE "[^\n]" "" newlines "${before}")
    string(LENGTH "${newlines}" line)
    math(EXPR line "${line} + 1")

    math(EXPR k "${k} + 1")
    set(file "${out_dir}/readme_snippet_${k}.cpp")
    # Written only when it changed, so that a README edit elsewhere does not rebuild it.
    file(WRITE "${file}.tmp" "#line ${line} \"${readme}\"\n${body}")
    configure_file("${file}.tmp" "${file}" COPYONLY)
    if(harness)
      if(NOT EXISTS "${PROJECT_SOURCE_DIR}/${harness}")
        message(FATAL_ERROR "${readme}: the harness ${harness} named by '${marker}' does not exist")
      endif()
      set(harness "${PROJECT_SOURCE_DIR}/${harness}")
    endif()
    list(APPEND out "${file}|${harness}")

    math(EXPR next "${after} + ${body_at} + ${close_incl} + 4")
    string(SUBSTRING "${rest}" ${next} -1 rest)
    math(EXPR consumed "${consumed} + ${next}")
  endwhile()
  if(k EQUAL 0)
    message(FATAL_ERROR "${readme}: no C++ block is marked <!-- compile -->")
  endif()
  set(${result} "${out}" PARENT_SCOPE)
endfunction()
