/*
 * recipe/migrate.h: the v1 recipe layout -> the v2 layout.
 *
 * v1 kept the engine and its per-mode settings under `backend:` and the
 * topology under `resources:`; v2 has `engine:`, `roles:` and `services:`.
 * The mapping (every rule is listed in docs/recipe-reference.md):
 *   backend.type                        -> engine (inferred from *_config when absent)
 *   backend.<engine>_config.<mode>      -> roles.<role>.args   (aggregated -> agg)
 *   backend.<mode>_environment          -> roles.<role>.env
 *   backend.<mode>_extra_args           -> roles.<role>.extra_args
 *   backend.mooncake_kv_store           -> services: [{type: mooncake-master, ...}]
 *       .container -> container, .master_extra_args -> args,
 *       .store_config -> options.store_config, .env -> each role's env
 *   resources.<mode>_nodes/_workers     -> roles.<role>.nodes / .workers
 *   resources.gpus_per_<mode>           -> roles.<role>.gpus
 *   every other section                 -> carried over unchanged
 * A variant file (base + zip_override_*) is migrated section by section.
 */
#ifndef SRT_RECIPE_MIGRATE_H
#define SRT_RECIPE_MIGRATE_H

#include "recipe/yaml.h"
#include "util/diag.h"

/*
 * Migrate a v1 document.  Returns a new document (caller frees with
 * srt_ydoc_free()) or NULL after adding errors to diags.  Notes about
 * choices made (inferred engine, dropped empty sections) go to diags as
 * warnings.
 */
struct srt_ydoc *srt_migrate_v1(const struct srt_ydoc *v1, struct srt_diags *diags);

#endif
