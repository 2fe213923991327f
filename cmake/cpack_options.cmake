# Read by cpack for each generator (CPACK_PROJECT_CONFIG_FILE): the portable tarball holds the tree that the
# packages put below /usr at its own root (bin/gpudoctor, share/gpudoctor/probes, ...), so that it runs in
# place: gpudoctor finds its probe sources beside its binary (src/probe/installed_probes.cpp).
if(CPACK_GENERATOR STREQUAL "TGZ")
  set(CPACK_PACKAGING_INSTALL_PREFIX "/")
  set(CPACK_SET_DESTDIR OFF)
endif()
