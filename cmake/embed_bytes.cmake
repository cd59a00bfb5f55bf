# cmake -DIN=FILE -DOUT=FILE.c -DNAME=symbol -P embed_bytes.cmake
# Writes FILE's bytes as a C array `const unsigned char NAME[]` and its
# length `const size_t NAME_len`, so a build product (a FileDescriptorSet)
# is part of the program with no file to find at run time.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR len "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n"
       bytes "${bytes}")
file(WRITE ${OUT} "/* Generated from ${IN} by cmake/embed_bytes.cmake: do not edit. */\n"
     "#include <stddef.h>\n"
     "const unsigned char ${NAME}[] = {\n${bytes}0};\n"
     "const size_t ${NAME}_len = ${len};\n")
