# install_unit.cmake — run by `cmake --install` (and by cpack, which installs
# into a staging tree): writes sungka-board.service with ExecStart naming the
# sungka-board of THIS install, which only the install step knows (the
# prefix may be given then: `cmake --install build --prefix DIR`; cpack
# installs with the prefix /usr). Expects SUNGKA_UNIT_IN, SUNGKA_UNIT_WORK,
# SUNGKA_BINDIR and SUNGKA_UNITDIR (the last two relative to the prefix, or
# absolute).
foreach(dir BINDIR UNITDIR)
  if(IS_ABSOLUTE "${SUNGKA_${dir}}")
    set(full_${dir} "${SUNGKA_${dir}}")
  else()
    set(full_${dir} "${CMAKE_INSTALL_PREFIX}/${SUNGKA_${dir}}")
  endif()
endforeach()
set(SUNGKA_BINDIR "${full_BINDIR}")   # for @SUNGKA_BINDIR@ in the unit
# One work file per prefix, so that two installs at once (the tests) do not
# write the same file.
string(MD5 key "${full_BINDIR}")
configure_file("${SUNGKA_UNIT_IN}" "${SUNGKA_UNIT_WORK}/${key}/sungka-board.service" @ONLY)
# file(INSTALL) is what install(FILES) runs: DESTDIR, the manifest, the log.
file(INSTALL DESTINATION "${full_UNITDIR}" TYPE FILE
     FILES "${SUNGKA_UNIT_WORK}/${key}/sungka-board.service")
