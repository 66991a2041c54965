/*
 * recipe/yemit.h: write a node tree back out as YAML.
 *
 * Block style, two-space indent, keys in tree order.  Strings are quoted
 * whenever a plain scalar would be read back as another type or another
 * string (so emit -> parse is the identity on values); numbers, booleans and
 * nulls that were plain stay plain.
 */
#ifndef SRT_RECIPE_YEMIT_H
#define SRT_RECIPE_YEMIT_H

#include "recipe/yaml.h"
#include "util/buf.h"

/* Append the YAML text of root to out.  Returns 0, or -1 on an emitter error. */
int srt_yemit(const struct srt_ynode *root, struct srt_buf *out);

#endif
