# What a cluster admin installs besides the binary (docs/fleet.md), and the Debian package of it all:
#   man page         help2man over `gpudoctor --help` and each subcommand's --help (cmake/man_page.cmake)
#   bash completion  `gpudoctor completion bash`, generated from the command-line parser
#   systemd units    contrib/systemd: a timer writing the Prometheus textfile
#   Slurm and NHC    contrib/slurm: the HealthCheckProgram wrapper and the NHC check
# `cpack -G DEB` in a build folder makes gpudoctor_<version>_<arch>.deb (./install.sh --deb configures one:
# Release, GPUDOCTOR_STATIC_DEPS=ON, GPUDOCTOR_BUILD_PROBES=OFF so that the probe programs, which link the
# vendors' runtimes, are not in it: their sources are, and gpudoctor compiles them where a GPU compiler is).

set(gpudoctor_generated ${CMAKE_BINARY_DIR}/share)
set(gpudoctor_completion ${gpudoctor_generated}/bash-completion/completions/gpudoctor)
add_custom_command(
  OUTPUT ${gpudoctor_completion}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${gpudoctor_generated}/bash-completion/completions
  COMMAND sh -c "\"$1\" completion bash >\"$2\"" sh $<TARGET_FILE:gpudoctor> ${gpudoctor_completion}
  DEPENDS gpudoctor
  COMMENT "Generating the bash completion from gpudoctor's parser"
  VERBATIM)
set(gpudoctor_docs ${gpudoctor_completion})
install(FILES ${gpudoctor_completion} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)

option(GPUDOCTOR_REQUIRE_MAN_PAGE "Fail the configuration without help2man (a package build)" OFF)
find_program(GPUDOCTOR_HELP2MAN help2man)
if(GPUDOCTOR_HELP2MAN)
  set(gpudoctor_man ${gpudoctor_generated}/man/man1/gpudoctor.1.gz)
  add_custom_command(
    OUTPUT ${gpudoctor_man}
    COMMAND ${CMAKE_COMMAND} -DGPUDOCTOR=$<TARGET_FILE:gpudoctor> -DHELP2MAN=${GPUDOCTOR_HELP2MAN}
            -DOUT=${gpudoctor_man} -P ${CMAKE_SOURCE_DIR}/cmake/man_page.cmake
    DEPENDS gpudoctor ${CMAKE_SOURCE_DIR}/cmake/man_page.cmake ${CMAKE_SOURCE_DIR}/docs/man/sections.h2m
    COMMENT "Generating the man page with help2man"
    VERBATIM)
  list(APPEND gpudoctor_docs ${gpudoctor_man})
  install(FILES ${gpudoctor_man} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
elseif(GPUDOCTOR_REQUIRE_MAN_PAGE)
  # A package without its man page is not one to ship (install.sh --deb sets this).
  message(FATAL_ERROR "help2man not found: the package needs the man page (apt-get install help2man)")
else()
  message(STATUS "help2man not found: no man page (apt-get install help2man)")
endif()
add_custom_target(gpudoctor_docs ALL DEPENDS ${gpudoctor_docs})

# systemd looks in /usr/lib/systemd/system for units a package installs (whatever the prefix of the rest).
set(GPUDOCTOR_SYSTEMD_UNIT_DIR lib/systemd/system CACHE STRING "Where the systemd units go, below the prefix")
foreach(unit gpudoctor-metrics.service gpudoctor-metrics.timer gpudoctor-probe.service gpudoctor-probe.timer)
  configure_file(${CMAKE_SOURCE_DIR}/contrib/systemd/${unit}.in ${CMAKE_BINARY_DIR}/systemd/${unit} @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/systemd/${unit} DESTINATION ${GPUDOCTOR_SYSTEMD_UNIT_DIR})
endforeach()
install(PROGRAMS ${CMAKE_SOURCE_DIR}/contrib/slurm/gpudoctor-slurm-healthcheck
        DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/gpudoctor)
install(FILES ${CMAKE_SOURCE_DIR}/contrib/slurm/gpudoctor_gpu.nhc DESTINATION ${CMAKE_INSTALL_DATADIR}/gpudoctor/nhc)
install(FILES ${CMAKE_SOURCE_DIR}/contrib/grafana/gpudoctor-nodes.json DESTINATION ${CMAKE_INSTALL_DATADIR}/gpudoctor/grafana)
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/docs/fleet.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The copyright file and the changelog (Debian policy 12.5 and 12.7; the RPM's %license and %changelog are
# made from the same two files). The changelog's newest entry names this version, or the build stops.
install(FILES ${CMAKE_SOURCE_DIR}/contrib/debian/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
file(STRINGS ${CMAKE_SOURCE_DIR}/contrib/debian/changelog gpudoctor_changelog_top LIMIT_COUNT 1)
if(NOT gpudoctor_changelog_top MATCHES "^gpudoctor \\(${PROJECT_VERSION}\\) ")
  message(FATAL_ERROR "contrib/debian/changelog starts with '${gpudoctor_changelog_top}', "
                      "not an entry for ${PROJECT_VERSION}: add one")
endif()
set(gpudoctor_changelog ${gpudoctor_generated}/doc/changelog.gz)
add_custom_command(
  OUTPUT ${gpudoctor_changelog}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${gpudoctor_generated}/doc
  COMMAND sh -c "gzip -9n <\"$1\" >\"$2\"" sh ${CMAKE_SOURCE_DIR}/contrib/debian/changelog ${gpudoctor_changelog}
  DEPENDS ${CMAKE_SOURCE_DIR}/contrib/debian/changelog
  COMMENT "Compressing the changelog"
  VERBATIM)
add_custom_target(gpudoctor_changelog ALL DEPENDS ${gpudoctor_changelog})
install(FILES ${gpudoctor_changelog} DESTINATION ${CMAKE_INSTALL_DOCDIR})
# What lintian says of the package that is so on purpose, each with its reason (contrib/debian).
install(FILES ${CMAKE_SOURCE_DIR}/contrib/debian/gpudoctor.lintian-overrides
        DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME gpudoctor)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gpudoctor)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "doctor for GPU machines (NVIDIA CUDA, AMD ROCm)")
# Lines of at most 80 characters (lintian: extended-description-line-too-long).
set(CPACK_PACKAGE_DESCRIPTION
    "gpudoctor says what is wrong with a GPU machine and how to fix it: drivers,\n"
    "toolkits, PyTorch builds, environment variables, permissions. It also writes\n"
    "Prometheus metrics, JUnit XML and node-problem-detector messages, and ships a\n"
    "Slurm health check.")
string(REPLACE ";" "" CPACK_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
set(CPACK_PACKAGE_CONTACT "gpudoctor maintainers <maintainers@gpudoctor.invalid>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Depends from dpkg-shlibdeps over the ELF files of the package (the gpudoctor binary only), and the two
# libraries it opens when first used (util/shared_library.hpp), which dpkg-shlibdeps cannot see: libarchive
# for bundles (Depends), libcurl for --upload and --online (Recommends). Noble's t64 packages provide both
# names on amd64.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libarchive13 (>= 3.0.4)")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libcurl4 (>= 7.16.2)")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "prometheus-node-exporter, python3")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

# The portable tarball (`cpack -G TGZ` in a GPUDOCTOR_PORTABLE build folder): one top folder
# gpudoctor-<version>-linux-x86_64 with bin/, share/ and the rest as below /usr, run in place
# (cmake/cpack_options.cmake puts the TGZ's files at its root rather than below /usr).
set(CPACK_PACKAGE_FILE_NAME gpudoctor-${PROJECT_VERSION}-linux-${CMAKE_SYSTEM_PROCESSOR})
set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY ON)
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_SOURCE_DIR}/cmake/cpack_options.cmake)

# The RPM (`cpack -G RPM` in the same folder: the portable binary, since RHEL 9's libstdc++ lacks
# GLIBCXX_3.4.30). rpm's own scan requires the binary's sonames and glibc versions; libarchive and libcurl,
# opened when used, are required by soname here, as every EL and Fedora release provides them.
set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_RPM_PACKAGE_RELEASE 1)
set(CPACK_RPM_PACKAGE_LICENSE Apache-2.0)
set(CPACK_RPM_PACKAGE_GROUP "Applications/System")
set(CPACK_RPM_PACKAGE_REQUIRES "libarchive.so.13()(64bit), libcurl.so.4()(64bit)")
set(CPACK_RPM_PACKAGE_SUGGESTS "python3")
# No /usr/lib/.build-id links: the .deb has none, and the two packages hold the same files.
set(CPACK_RPM_SPEC_MORE_DEFINE "%define _build_id_links none")
set(CPACK_RPM_USER_FILELIST "%license ${CPACK_PACKAGING_INSTALL_PREFIX}/${CMAKE_INSTALL_DOCDIR}/copyright")
# Folders other packages own (filesystem, systemd, bash-completion, man-db): the RPM owns none of them.
set(CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION
    /usr/lib/systemd /usr/lib/systemd/system /usr/libexec /usr/share/bash-completion
    /usr/share/bash-completion/completions /usr/share/man /usr/share/man/man1 /usr/share/doc /usr/share/lintian
    /usr/share/lintian/overrides)
# %changelog from the Debian changelog, one entry per release (cmake/rpm_changelog.cmake).
set(gpudoctor_rpm_changelog ${CMAKE_BINARY_DIR}/rpm/changelog)
execute_process(COMMAND ${CMAKE_COMMAND} -DIN=${CMAKE_SOURCE_DIR}/contrib/debian/changelog
                        -DOUT=${gpudoctor_rpm_changelog} -P ${CMAKE_SOURCE_DIR}/cmake/rpm_changelog.cmake
                COMMAND_ERROR_IS_FATAL ANY)
set(CPACK_RPM_CHANGELOG_FILE ${gpudoctor_rpm_changelog})
include(CPack)
