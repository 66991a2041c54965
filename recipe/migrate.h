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
 *       .container -> container, .master_extra_args -> args (after the
 *       tuning flags srt-slurm always passed; .default_kv_lease_ttl_ms
 *       sets the lease among them), .store_config ->
 *       options.store_config, .env -> each role's env (over the role's own
 *       values, as v1 applied it last)
 *   infra.etcd_nats_dedicated_node: true (with a store)
 *                                       -> the master's placement.node: dedicated
 *   backend.connector                   -> vLLM: roles.<role>.args.kv-transfer-config
 *                                          (srt-slurm's JSON; default nixl);
 *                                          SGLang: prefill/decode
 *                                          args.disaggregation-transfer-backend
 *   resources.<mode>_nodes/_workers     -> roles.<role>.nodes / .workers
 *   resources.gpus_per_<mode>           -> roles.<role>.gpus
 *   every other section                 -> carried over unchanged
 * A variant file (base + zip_override_*) is migrated section by section.
 * What v2 cannot express is an error, never a silent change of meaning: a
 * `sweep:` section (srt-slurm ran one job per combination), a vLLM
 * connector srt-slurm did not expand, a store or connector in an override.
 */
#ifndef SRT_RECIPE_MIGRATE_H
#define SRT_RECIPE_MIGRATE_H

#include "recipe/yaml.h"
#include "util/diag.h"

/*
 * Migrate a v1 document.  Returns a new document (caller frees with
 * srt_ydoc_free()) or NULL after adding errors to diags.  Notes about
 * choices made (inferred engine, dropped empty sections, role env values
 * rewritten to keep v1's precedence) go to diags as warnings.
 */
struct srt_ydoc *srt_migrate_v1(const struct srt_ydoc *v1, struct srt_diags *diags);

#endif
