# sungka_protoc_c(TARGET PROTO_ROOT PROTO_FILES...)
# Generates protobuf-c sources into the build tree (never committed) and
# builds them as a static library TARGET. Generated code is compiled without
# our -Werror: it is not ours to fix.
function(sungka_protoc_c target root)
  set(srcs)
  set(hdrs)
  foreach(proto ${ARGN})
    string(REGEX REPLACE "\\.proto$" "" stem ${proto})
    set(c ${CMAKE_CURRENT_BINARY_DIR}/gen/${stem}.pb-c.c)
    set(h ${CMAKE_CURRENT_BINARY_DIR}/gen/${stem}.pb-c.h)
    add_custom_command(
      OUTPUT ${c} ${h}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/gen
      COMMAND ${PROTOC_C} --proto_path=${root} --c_out=${CMAKE_CURRENT_BINARY_DIR}/gen ${root}/${proto}
      DEPENDS ${root}/${proto}
      COMMENT "protoc-c ${proto}")
    list(APPEND srcs ${c})
    list(APPEND hdrs ${h})
  endforeach()
  add_library(${target} STATIC ${srcs} ${hdrs})
  target_include_directories(${target} PUBLIC ${CMAKE_CURRENT_BINARY_DIR}/gen)
  target_link_libraries(${target} PUBLIC PkgConfig::PROTOBUF_C)
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()
