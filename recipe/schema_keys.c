/*
 * recipe/schema_keys.c: srt-slurm's recipe keys, by section (see the header).
 *
 * Each list is the `properties` of one definition in srt-slurm 2.0's
 * recipe.schema.json, copied by hand and sorted; "(v1)" marks a key of the
 * v1 recipe model (docs/legacy-v1.md) that the 2.0 schema dropped.  Keep
 * every list sorted: tests/unit/test_schema_keys.c checks it.
 */
#include "recipe/schema_keys.h"

#include <stdlib.h>
#include <string.h>

static const char *const none_keys[] = { NULL };

/* Recipe */
static const char *const top_keys[] = {
	"auxiliary_services" /* newer srt-slurm */,
	"backend" /* v1 */,
	"benchmark",
	"container_mounts",
	"dynamo",
	"enable_config_dump",
	"engine",
	"environment",
	"extra_mount",
	"frontend",
	"health_check",
	"host_setup",
	"identity",
	"infra" /* v1 */,
	"job_scoped_ports" /* newer srt-slurm (its config reference) */,
	"kubernetes" /* srt-slurm's kubernetes example */,
	"model",
	"name",
	"observability",
	"output",
	"post_eval",
	"profiling",
	"reporting",
	"resources",
	"roles",
	"sbatch_directives",
	"sbatch_post_sweep" /* in srt-slurm's public recipes */,
	"sbatch_pre_sweep" /* in srt-slurm's public recipes */,
	"schema",
	"services",
	"setup_script",
	"slurm",
	"srun_options",
	"sweep",
	"telemetry",
	"vmon" /* in srt-slurm's public recipes */,
	NULL,
};

/* ModelConfig */
static const char *const model_keys[] = { "container", "path", "precision", "stage_dir", NULL };

/* ResourceConfig (the v1 topology keys are the v1 layout, not listed) */
static const char *const resources_keys[] = { "gpu_type", "gpus_per_node", "het_jobs",
					      "spread_workers", NULL };

/* SlurmConfig */
static const char *const slurm_keys[] = { "account", "partition", "time_limit", NULL };

/* FrontendConfig */
static const char *const frontend_keys[] = {
	"args",
	"container_image",
	"ctx_router",
	"dedicated_node" /* v1 */,
	"enable_multiple_frontends",
	"env",
	"epp_config" /* frontend type llm-d */,
	"gen_router",
	"install" /* in srt-slurm's public recipes */,
	"nginx_container",
	"nginx_keepalive_timeout",
	"nginx_raise_ulimit",
	"nginx_session_affinity",
	"nginx_session_affinity_header",
	"num_additional_frontends",
	"numa_bind",
	"orchestrator_placement" /* v1 */,
	"placement",
	"server_config_extra",
	"source" /* in srt-slurm's public recipes */,
	"type",
	"use_nginx" /* v1 */,
	"worker_selection",
	NULL,
};

/* BenchmarkConfig */
static const char *const benchmark_keys[] = {
	"agentperf_client_dir",
	"agentperf_config",
	"aime_dataset" /* benchmark type aime */,
	"aiperf_args",
	"aiperf_package",
	"categories",
	"client_dedicated_node" /* v1 */,
	"client_placement" /* v1 */,
	"colocate_with_frontend",
	"command",
	"concurrencies",
	"concurrency",
	"container_image",
	"custom_tokenizer",
	"dataset_name",
	"dataset_path",
	"duration" /* benchmark type agentic */,
	"env",
	"export_node_metrics" /* srt-slurm 0.3 */,
	"isl",
	"itl_threshold_ms",
	"max_context_length",
	"max_tokens",
	"model_prefix" /* benchmark type agentic */,
	"mooncake_workload",
	"num_examples",
	"num_prompts" /* in srt-slurm's public recipes */,
	"num_prompts_mult",
	"num_requests",
	"num_shots",
	"num_threads",
	"num_warmup_mult",
	"num_warmups" /* in srt-slurm's public recipes */,
	"osl",
	"placement",
	"prefix_ratios",
	"random_range_ratio",
	"repeat",
	"req_rate",
	"result_filename" /* benchmark type agentic */,
	"reuse_http_connections",
	"slow_down_sleep_time",
	"slow_down_wait_time",
	"stream_output",
	"sweep",
	"temperature",
	"tokenizer_mode" /* v1 (srt-slurm 0.3: passed to sa-bench) */,
	"top_k",
	"top_p",
	"trace_file",
	"ttft_threshold_ms",
	"type",
	"use_chat_template",
	"warmup_prompts" /* in srt-slurm's public recipes */,
	"warmup_req_rate" /* retired by srt-slurm; older recipes */,
	NULL,
};

/* RoleConfig */
static const char *const role_keys[] = {
	"args",	     "container", "critical", "engine",	 "env",		 "extra_args", "gpus",
	"kv_events", "nodes",	  "restart",  "sidecar", "srun_options", "workers",    NULL,
};

/* RestartPolicy */
static const char *const restart_keys[] = { "backoff_seconds", "max_backoff_seconds",
					    "max_restarts", "policy", NULL };

/* ServiceConfig */
static const char *const service_keys[] = {
	"args",
	"build_command",
	"build_timeout_seconds",
	"command",
	"container",
	"cpu_bind",
	"cpus_per_task",
	"critical",
	"enabled",
	"env",
	"external",
	"inherit_discovery_env",
	"metrics",
	"name",
	"nodes",
	"options",
	"placement",
	"preamble",
	"readiness",
	"source",
	"srun_options",
	"start",
	"terminal",
	"type",
	NULL,
};

/* ServiceConfig.options: the kinds' keys (nats, mooncake-master) */
static const char *const service_options_keys[] = { "device_names_by_gpu", "max_payload_mb",
						    "store_config", NULL };

/* ServicePlacementConfig */
static const char *const service_placement_keys[] = { "node", "per", "pool", NULL };

/* ServiceReadinessConfig */
static const char *const readiness_keys[] = { "http", "interval_seconds", "log", "port",
					      "tcp",  "timeout_seconds",  NULL };

/* HttpProbe, TcpProbe */
static const char *const http_probe_keys[] = { "path", "port", "status", NULL };
static const char *const tcp_probe_keys[] = { "port", NULL };

/* DynamoConfig, with the 0.3-era install keys (v1) */
/* HealthCheckConfig */
static const char *const health_check_keys[] = { "extra_fatal_log_patterns", "fatal_log_markers",
						 "interval_seconds", "max_attempts", NULL };

static const char *const dynamo_keys[] = { "event_plane",
					   "hash" /* v1 */,
					   "install",
					   "request_plane",
					   "sidecar",
					   "sidecar_args",
					   "sidecar_binary",
					   "sidecar_context_length",
					   "sidecar_port",
					   "sidecar_startup_timeout",
					   "source",
					   "top_of_tree",
					   "version" /* v1 */,
					   "wheel" /* v1 */,
					   NULL };

#define TABLE(t)                                \
	{                                       \
		t, sizeof(t) / sizeof(t[0]) - 1 \
	}

static const struct {
	const char *const *keys;
	size_t n;
} tables[SRT_SCHEMA_COUNT] = {
	[SRT_SCHEMA_NONE] = TABLE(none_keys),
	[SRT_SCHEMA_TOP] = TABLE(top_keys),
	[SRT_SCHEMA_MODEL] = TABLE(model_keys),
	[SRT_SCHEMA_RESOURCES] = TABLE(resources_keys),
	[SRT_SCHEMA_SLURM] = TABLE(slurm_keys),
	[SRT_SCHEMA_FRONTEND] = TABLE(frontend_keys),
	[SRT_SCHEMA_BENCHMARK] = TABLE(benchmark_keys),
	[SRT_SCHEMA_ROLE] = TABLE(role_keys),
	[SRT_SCHEMA_RESTART] = TABLE(restart_keys),
	[SRT_SCHEMA_SERVICE] = TABLE(service_keys),
	[SRT_SCHEMA_SERVICE_OPTIONS] = TABLE(service_options_keys),
	[SRT_SCHEMA_SERVICE_PLACEMENT] = TABLE(service_placement_keys),
	[SRT_SCHEMA_READINESS] = TABLE(readiness_keys),
	[SRT_SCHEMA_HTTP_PROBE] = TABLE(http_probe_keys),
	[SRT_SCHEMA_TCP_PROBE] = TABLE(tcp_probe_keys),
	[SRT_SCHEMA_DYNAMO] = TABLE(dynamo_keys),
	[SRT_SCHEMA_HEALTH_CHECK] = TABLE(health_check_keys),
};

const char *const *srt_schema_keys(enum srt_schema_section section, size_t *n)
{
	if (section >= SRT_SCHEMA_COUNT)
		section = SRT_SCHEMA_NONE;
	if (n)
		*n = tables[section].n;
	return tables[section].keys;
}

static int cmp_key(const void *k, const void *e)
{
	return strcmp((const char *)k, *(const char *const *)e);
}

bool srt_schema_has_key(enum srt_schema_section section, const char *key)
{
	size_t n;
	const char *const *t = srt_schema_keys(section, &n);

	return bsearch(key, t, n, sizeof(*t), cmp_key) != NULL;
}
