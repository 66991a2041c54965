/*
 * recipe/envvars.h: the environment variables srt-slurm resolves in a recipe.
 *
 * srt-slurm runs Python's os.path.expandvars over model.path,
 * model.container, the host side of every extra_mount and both sides of
 * every container_mounts entry, in the job it submits: they take the
 * environment the user submitted from.  It also mounts $INFMAX_WORKSPACE
 * (an InferenceX checkout, which agentic recipes run their client from) at
 * /infmax-workspace whenever that variable is set.
 *
 * srtctl resolves the same fields where a user hands it a recipe
 * (validate, dry-run, diff, render, apply: the verbs set srt_cluster.env)
 * and records the result, so the controller, a service with an environment
 * of its own, compiles a resolved spec.  Pure: the environment comes in as
 * a lookup function.
 */
#ifndef SRT_RECIPE_ENVVARS_H
#define SRT_RECIPE_ENVVARS_H

#include <stdbool.h>

#include "recipe/yaml.h"
#include "util/buf.h"
#include "util/diag.h"

/* An environment: the value of `name`, or NULL when it is not set. */
typedef const char *(*srt_getenv_fn)(const char *name);

/* Where srt-slurm mounts $INFMAX_WORKSPACE. */
#define SRT_INFMAX_MOUNT "/infmax-workspace"

/*
 * `s` with every $NAME and ${NAME} that `get` knows replaced by its value,
 * as os.path.expandvars does (NAME: letters, digits and '_' after a bare
 * '$'; anything up to the '}' in braces).  A variable that is not set stays
 * as written and is appended to *unset ("$A, $B"; may be NULL).  Returns `s`
 * itself when nothing changed, else a string in `a`.
 */
const char *srt_expand_vars(struct srt_arena *a, const char *s, srt_getenv_fn get,
			    struct srt_buf *unset);

/*
 * The recipe at `root` with those fields resolved, and the InferenceX mount
 * added when INFMAX_WORKSPACE is set and nothing is mounted at
 * /infmax-workspace yet.  Copy-on-write: `root` and the nodes it shares
 * with other variants are not modified; returns `root` when nothing
 * changed (or `get` is NULL).  A variable that is not set is an error when
 * `strict` (apply records the spec), else a warning; a recipe that uses
 * /infmax-workspace with nothing mounted there is a warning.
 */
struct srt_ynode *srt_recipe_expand_env(struct srt_ydoc *doc, struct srt_ynode *root,
					srt_getenv_fn get, bool strict, struct srt_diags *diags);

#endif
