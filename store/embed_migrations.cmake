# store/embed_migrations.cmake: embed migrations/NNNN_name.sql into C.
#
# Run at build time (cmake -P) by the srt_store target whenever a .sql file
# changes:
#   cmake -DSRC_DIR=<migrations dir> -DOUT=<file.c> -P embed_migrations.cmake
# Each file becomes a byte array; the table lists them in order with the
# PRAGMA that records the version.  File names must be NNNN_name.sql with
# NNNN counting 0001, 0002, ... without gaps, so the version of a migration
# is its position and a missing or duplicated number fails the build.
if(NOT SRC_DIR OR NOT OUT)
  message(FATAL_ERROR "embed_migrations.cmake: set SRC_DIR and OUT")
endif()

get_filename_component(SRC_DIR "${SRC_DIR}" ABSOLUTE)
file(GLOB sql_files RELATIVE ${SRC_DIR} ${SRC_DIR}/*.sql)
list(SORT sql_files)

set(body "")
set(table "")
set(expect 1)
foreach(f ${sql_files})
  if(NOT f MATCHES "^([0-9][0-9][0-9][0-9])_([a-z0-9_]+)\\.sql$")
    message(FATAL_ERROR "migrations/${f}: name must be NNNN_lowercase_name.sql")
  endif()
  math(EXPR version "${CMAKE_MATCH_1}")
  if(NOT version EQUAL expect)
    message(FATAL_ERROR "migrations/${f}: expected migration number ${expect} "
                        "(migrations count 0001, 0002, ... without gaps or duplicates)")
  endif()
  string(REGEX REPLACE "\\.sql$" "" stem "${f}")
  file(READ ${SRC_DIR}/${f} hex HEX)
  if(hex STREQUAL "")
    message(FATAL_ERROR "migrations/${f} is empty")
  endif()
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  # Break the array into lines of 16 bytes.
  string(REPEAT "0x[0-9a-f][0-9a-f]," 16 sixteen) # CMake regexes have no {n}
  string(REGEX REPLACE "(${sixteen})" "\\1\n\t" bytes "${bytes}")
  string(APPEND body "static const unsigned char sql_${version}[] = {\n\t${bytes}0x00\n};\n\n")
  string(APPEND table "\t{ ${version}, \"${stem}\", (const char *)sql_${version}, \"PRAGMA user_version = ${version}\" },\n")
  math(EXPR expect "${expect} + 1")
endforeach()
math(EXPR count "${expect} - 1")
if(count EQUAL 0)
  message(FATAL_ERROR "no migrations found in ${SRC_DIR}")
endif()

set(content "/* Generated from the files in migrations/ by store/embed_migrations.cmake; do not edit. */
#include \"store/internal.h\"

${body}const struct srt_migration srt_store_migrations[] = {
${table}};

const int srt_store_migrations_count = ${count};
")

file(WRITE ${OUT} "${content}")
