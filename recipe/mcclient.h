/*
 * recipe/mcclient.h: TRT-LLM's Mooncake client config, one file per role.
 *
 * A TRT-LLM role whose engine YAML selects the mooncake-store KV connector
 * (srt_role_trtllm_mooncake()) joins the job's mooncake_master through a
 * client config file that MOONCAKE_CONFIG_PATH names.  srtctl renders one
 * per such role: the master's options.store_config keys, the role's
 * roles.<role>.mooncake_store_config over them, then
 *
 *   role                   "both" (prefill, agg) or "capacity" (decode),
 *                          unless written
 *   model_key              the served model name, unless written
 *   master_server_address  the master's address, always srtctl's
 *
 * The keys are checked as TRT-LLM reads them (sizes in binary units only,
 * role, transfer_batch_size, stage_through_host, ...), and the keys every
 * server of one pool must agree on are compared across roles.
 */
#ifndef SRT_RECIPE_MCCLIENT_H
#define SRT_RECIPE_MCCLIENT_H

#include "recipe/model.h"
#include "util/diag.h"

#include <jansson.h>
#include <stdbool.h>

/* Does role k read a client config srtctl renders (TRT-LLM, the connector, a master)? */
bool srt_mcclient_reads(const struct srt_recipe *r, enum srt_role_kind k);

/* Its file, relative to the log directory: "mooncake/store_config_<role>.json". */
const char *srt_mcclient_file(enum srt_role_kind k);

/*
 * Role k's client config (new reference), or NULL when it reads none.
 * master_addr is what master_server_address gets (with placeholders);
 * model_key the default model key (NULL: none set).
 */
json_t *srt_mcclient_render(const struct srt_recipe *r, enum srt_role_kind k,
			    const char *master_addr, const char *model_key);

/*
 * The rules of the client configs and roles.<role>.mooncake_store_config,
 * for every engine (other engines read no such key).  model_key as above.
 */
void srt_mcclient_check(const struct srt_recipe *r, const char *model_key, struct srt_arena *a,
			struct srt_diags *d);

#endif
