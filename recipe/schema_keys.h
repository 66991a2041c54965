/*
 * recipe/schema_keys.h: the keys srt-slurm's recipe model accepts, section
 * by section.
 *
 * srtctl reads a subset of srt-slurm's recipe.  A key srt-slurm accepts and
 * srtctl does not use is kept in the spec and warned about; a key neither
 * accepts is an error.  These tables hold srt-slurm's side: every property
 * of recipe.schema.json (srt-slurm 2.0) in the sections srtctl parses, plus
 * the keys its v1 recipe model still reads there (frontend.dedicated_node,
 * benchmark.client_placement, the top-level infra and backend, ...).  They
 * were written by hand from the schema; each is sorted (strcmp) for bsearch.
 */
#ifndef SRT_RECIPE_SCHEMA_KEYS_H
#define SRT_RECIPE_SCHEMA_KEYS_H

#include <stdbool.h>
#include <stddef.h>

enum srt_schema_section {
	SRT_SCHEMA_NONE, /* a mapping srt-slurm has no schema for: no key is known */
	SRT_SCHEMA_TOP,	 /* the recipe itself */
	SRT_SCHEMA_MODEL,
	SRT_SCHEMA_RESOURCES,
	SRT_SCHEMA_SLURM,
	SRT_SCHEMA_FRONTEND,
	SRT_SCHEMA_BENCHMARK,
	SRT_SCHEMA_ROLE,	      /* roles.<role> */
	SRT_SCHEMA_RESTART,	      /* roles.<role>.restart, services[].restart */
	SRT_SCHEMA_SERVICE,	      /* services[] */
	SRT_SCHEMA_SERVICE_OPTIONS,   /* services[].options */
	SRT_SCHEMA_SERVICE_PLACEMENT, /* services[].placement */
	SRT_SCHEMA_READINESS,	      /* services[].readiness */
	SRT_SCHEMA_HTTP_PROBE,
	SRT_SCHEMA_TCP_PROBE,
	SRT_SCHEMA_DYNAMO,	 /* dynamo */
	SRT_SCHEMA_HEALTH_CHECK, /* health_check */
	SRT_SCHEMA_COUNT,
};

/* Does srt-slurm accept `key` in `section`?  O(log n). */
bool srt_schema_has_key(enum srt_schema_section section, const char *key);

/*
 * The section's keys, sorted, NULL-terminated (an empty list for
 * SRT_SCHEMA_NONE); *n gets their number when n is not NULL.  Static
 * storage: the caller does not free it.
 */
const char *const *srt_schema_keys(enum srt_schema_section section, size_t *n);

#endif
