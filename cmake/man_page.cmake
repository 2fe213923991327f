# gpudoctor(1) with help2man: the top-level --help, then each subcommand's --help as a section, so that the
# page says every option the parser knows. -DGPUDOCTOR=binary -DHELP2MAN=help2man -DOUT=.../gpudoctor.1.gz
execute_process(COMMAND ${GPUDOCTOR} --help OUTPUT_VARIABLE top RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${GPUDOCTOR} --help failed")
endif()
string(REGEX REPLACE ".*\nSubcommands:\n" "" listing "${top}")
string(REGEX MATCHALL "\n?  [a-z]+ " names "${listing}")
set(include_text "[COMMANDS]\n")
foreach(name IN LISTS names)
  string(STRIP "${name}" name)
  execute_process(COMMAND ${GPUDOCTOR} ${name} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${GPUDOCTOR} ${name} --help failed")
  endif()
  # roff: a leading dot or quote would be a request, a backslash an escape.
  string(REPLACE "\\" "\\e" help "${help}")
  string(REGEX REPLACE "\n([.'])" "\n\\\\&\\1" help "${help}")
  string(APPEND include_text ".SS \"gpudoctor ${name}\"\n.nf\n${help}.fi\n")
endforeach()
# EXIT STATUS, ENVIRONMENT, FILES and EXAMPLES: written by hand (docs/man/sections.h2m), as help2man takes them.
file(READ ${CMAKE_CURRENT_LIST_DIR}/../docs/man/sections.h2m sections)
string(APPEND include_text "${sections}")
string(APPEND include_text "[SEE ALSO]\nThe documentation in /usr/share/doc/gpudoctor, fleet.md for Prometheus, "
       "Slurm, node-problem-detector and Ansible.\n")
get_filename_component(dir ${OUT} DIRECTORY)
file(MAKE_DIRECTORY ${dir})
string(REGEX REPLACE "\\.gz$" "" page ${OUT})
file(WRITE ${page}.include "${include_text}")
execute_process(COMMAND ${HELP2MAN} --no-info --no-discard-stderr --name "doctor for GPU machines"
                        --section 1 --include ${page}.include --output ${page} ${GPUDOCTOR}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "help2man failed")
endif()
# gzip -n: no name or time stamp, so the page is the same from build to build.
execute_process(COMMAND gzip -9nf ${page} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip ${page} failed")
endif()
