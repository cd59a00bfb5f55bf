# install_unit.cmake — run by `cmake --install` (and by debian/rules, which
# installs into debian/tmp): writes a unit with ExecStart naming the program
# of THIS install, which only the install step knows (the prefix may be
# given then: `cmake --install build --prefix DIR`; the packages install
# with the prefix /usr). One unit a run: SUNGKA_UNIT_IN is its
# NAME.service.in. Expects SUNGKA_UNIT_IN, SUNGKA_UNIT_WORK,
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
get_filename_component(unit "${SUNGKA_UNIT_IN}" NAME)
string(REGEX REPLACE "\\.in$" "" unit "${unit}")
configure_file("${SUNGKA_UNIT_IN}" "${SUNGKA_UNIT_WORK}/${key}/${unit}" @ONLY)
# file(INSTALL) is what install(FILES) runs: DESTDIR, the manifest, the log.
file(INSTALL DESTINATION "${full_UNITDIR}" TYPE FILE
     FILES "${SUNGKA_UNIT_WORK}/${key}/${unit}")
