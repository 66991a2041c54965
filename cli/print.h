/*
 * cli/print.h: output printers shared by the read verbs (tables, JSON, YAML).
 *
 * A struct srt_table collects cells row by row (the first row is the
 * header) and prints them in columns padded to the widest cell, three
 * spaces apart, like kubectl.  Empty cells print as "<none>"; control
 * characters in a cell print as spaces so one row stays one line.
 *
 * Structured output is built as jansson values: srt_print_list() prints
 * {"kind": "List", "items": [...]} as indented JSON or as YAML, and
 * srt_print_yaml() writes any JSON value as block-style YAML (strings that
 * a YAML reader could take for something else are double-quoted).
 */
#ifndef SRT_CLI_PRINT_H
#define SRT_CLI_PRINT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/cli.h"

struct srt_table {
	size_t ncols;
	char **cells; /* row-major, ncols per row, each malloc'd */
	size_t n, cap;
};

/*
 * Control characters (bytes below 0x20, and 0x7f) of s become spaces, in
 * place, so a value from a run directory or slurmrestd cannot move the
 * cursor, recolour or retitle the user's terminal.  Returns s.  Every table
 * cell and every `describe` field goes through it.
 */
char *srt_print_sanitize(char *s);

void srt_table_init(struct srt_table *t, size_t ncols);
void srt_table_release(struct srt_table *t);
/* Append one cell (copied); NULL or "" becomes "<none>". */
void srt_table_add(struct srt_table *t, const char *cell);
void srt_table_addf(struct srt_table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The age of `at` at time `now` ("5s", "3m", "2h", "4d"); "<unknown>" when at is 0. */
void srt_table_add_age(struct srt_table *t, int64_t now, int64_t at);
/* An integer, or "<none>" when it is below `none_below`. */
void srt_table_add_int(struct srt_table *t, int64_t v, int64_t none_below);
/* Rows after the header. */
size_t srt_table_rows(const struct srt_table *t);
/*
 * Print with every line prefixed by `indent`; `underline` adds a row of
 * dashes under the header (the style of `describe`).
 */
void srt_table_print(const struct srt_table *t, FILE *out, const char *indent, bool underline);

/* JSON values for items: an RFC 3339 string, or null when ms is 0. */
json_t *srt_json_time(int64_t ms);
/* A string, or null when s is NULL. */
json_t *srt_json_str(const char *s);

/*
 * What a run's frontend shows as (`get runs -o wide` FRONTEND, `describe
 * run`): the URL its agent bound (url), "pending" while the run's plan has a
 * frontend (planned) whose URL is not known yet and the run has not ended
 * (phase Succeeded, Failed, Cancelled), else NULL (no frontend, or none was
 * reported before the run ended).
 */
const char *srt_print_frontend(const char *planned, const char *url, const char *phase);

/* Print `j` as indented JSON (keys in insertion order) and a newline. */
void srt_print_json(FILE *out, const json_t *j);
/* Print `j` as block-style YAML. */
void srt_print_yaml(FILE *out, const json_t *j);
/* Print `j` as YAML with every line prefixed by `indent` spaces. */
void srt_print_yaml_indent(FILE *out, const json_t *j, int indent);
/* Print {"kind": "List", "items": items} as JSON or YAML (per fmt); steals items. */
void srt_print_list(FILE *out, json_t *items, enum srt_output fmt);

#endif
