# cpack_checks.cmake — read by cpack (CPACK_PROJECT_CONFIG_FILE) before it
# packs. The .deb's library dependencies come from dpkg-shlibdeps; without it
# CPack would quietly make a .deb that depends on nothing.
if(CPACK_GENERATOR STREQUAL "DEB")
  find_program(SUNGKA_DPKG_SHLIBDEPS dpkg-shlibdeps)
  if(NOT SUNGKA_DPKG_SHLIBDEPS)
    message(FATAL_ERROR "cpack -G DEB needs dpkg-shlibdeps (Debian package dpkg-dev) to "
                        "find the packages the programs' libraries come from")
  endif()
endif()
