# The RPM's %changelog from contrib/debian/changelog: each Debian entry
#   gpudoctor (VERSION) DIST; urgency=...  /  * item lines  /  -- NAME <MAIL>  Www, DD Mmm YYYY HH:MM:SS +ZZZZ
# becomes
#   * Www Mmm DD YYYY NAME <MAIL> - VERSION-1  /  - item lines
# Usage: cmake -DIN=changelog -DOUT=file -P rpm_changelog.cmake
file(STRINGS ${IN} lines)
set(out "")
set(items "")
set(version "")
foreach(line IN LISTS lines)
  if(line MATCHES "^gpudoctor \\(([^)]+)\\) ")
    set(version ${CMAKE_MATCH_1})
    set(items "")
  elseif(line MATCHES "^  \\* (.*)$")
    string(APPEND items "- ${CMAKE_MATCH_1}\n")
  elseif(line MATCHES "^    (.*)$")
    string(APPEND items "  ${CMAKE_MATCH_1}\n")
  elseif(line MATCHES "^ -- (.+)  ([A-Z][a-z][a-z]), ([0-9][0-9]?) ([A-Z][a-z][a-z]) ([0-9][0-9][0-9][0-9]) ")
    if(version STREQUAL "")
      message(FATAL_ERROR "${IN}: a trailer line before any entry: ${line}")
    endif()
    string(APPEND out "* ${CMAKE_MATCH_2} ${CMAKE_MATCH_4} ${CMAKE_MATCH_3} ${CMAKE_MATCH_5} ${CMAKE_MATCH_1} - ${version}-1\n${items}\n")
    set(version "")
  endif()
endforeach()
if(out STREQUAL "")
  message(FATAL_ERROR "${IN}: no entry read")
endif()
file(WRITE ${OUT} "${out}")
