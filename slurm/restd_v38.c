/*
 * slurm/restd_v38.c: what is particular to API v0.0.38 (Slurm 22.05 to 23.11).
 *
 * Submit: the script is a top-level "script"; job.environment is an object
 * and required (slurmrestd answers 400 "environment must be set" without
 * one, and for an empty one); time_limit and nodes are plain integers (the
 * spec's [min, max] array for nodes is silently ignored by 22.05).
 * Jobs: job_state is one word (a flag such as COMPLETING wins over the base
 * state), exit_code is the raw wait status (768 = exit 3, 15 = killed by
 * SIGTERM), times are plain integers.
 */
#include "slurm/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Slurm's INFINITE and NO_VAL (uint32) as they come out of 22.05. */
#define V38_INFINITE 0xffffffffLL
#define V38_NO_VAL 0xfffffffeLL

static int num(json_t *j, const char *key, const char *what, int64_t *out, struct srt_error *err)
{
	bool set;

	if (srt_slurm_json_num(j, key, what, out, &set, NULL, err) != 0)
		return SRT_SLURM_EPROTOCOL;
	if (!set)
		*out = 0;
	return 0;
}

int srt_slurm_v38_job(json_t *j, struct srt_job *out, struct srt_error *err)
{
	char what[48] = "job";
	char *state = NULL;
	int64_t id, raw_exit = 0, tl = 0;
	bool set, exit_set;
	const char *words[1];
	int rc;

	if (srt_slurm_json_num(j, "job_id", what, &id, &set, NULL, err) != 0)
		return SRT_SLURM_EPROTOCOL;
	if (!set || id <= 0)
		return srt_slurm_fail(err, SRT_SLURM_EPROTOCOL, "a job has no job_id");
	out->id = id;
	snprintf(what, sizeof(what), "job %lld", (long long)id);
	if ((rc = srt_slurm_json_str(j, "name", what, &out->name, err)) ||
	    (rc = srt_slurm_json_str(j, "comment", what, &out->comment, err)) ||
	    (rc = srt_slurm_json_str(j, "user_name", what, &out->user, err)) ||
	    (rc = srt_slurm_json_str(j, "partition", what, &out->partition, err)) ||
	    (rc = srt_slurm_json_str(j, "account", what, &out->account, err)) ||
	    (rc = srt_slurm_json_str(j, "job_state", what, &state, err)) ||
	    (rc = srt_slurm_json_str(j, "state_reason", what, &out->reason, err)) ||
	    (rc = srt_slurm_json_str(j, "state_description", what, &out->description, err)) ||
	    (rc = srt_slurm_json_str(j, "nodes", what, &out->nodes, err)) ||
	    (rc = srt_slurm_json_str(j, "batch_host", what, &out->batch_host, err)) ||
	    (rc = srt_slurm_json_str(j, "current_working_directory", what, &out->cwd, err)) ||
	    (rc = srt_slurm_json_str(j, "standard_output", what, &out->stdout_path, err)) ||
	    (rc = srt_slurm_json_str(j, "standard_error", what, &out->stderr_path, err)) ||
	    (rc = num(j, "node_count", what, &out->node_count, err)) ||
	    (rc = num(j, "submit_time", what, &out->submit_time, err)) ||
	    (rc = num(j, "start_time", what, &out->start_time, err)) ||
	    (rc = num(j, "end_time", what, &out->end_time, err)) ||
	    (rc = srt_slurm_json_num(j, "exit_code", what, &raw_exit, &exit_set, NULL, err)) ||
	    (rc = srt_slurm_json_num(j, "time_limit", what, &tl, &set, NULL, err)))
		goto out;
	out->time_limit = !set || tl == V38_INFINITE || tl == V38_NO_VAL ? -1 : tl;
	words[0] = state;
	srt_job_set_state(out, words, state ? 1 : 0, out->reason);
	if (exit_set)
		srt_job_set_wait_status(out, raw_exit);
	else
		out->exit_code = -1;
out:
	free(state);
	return rc ? SRT_SLURM_EPROTOCOL : 0;
}

int srt_slurm_v38_submit_body(const struct srt_job_spec *spec, json_t *extra, json_t **out,
			      struct srt_error *err)
{
	json_t *body = json_object();
	json_t *job = json_object();
	json_t *env = json_object();
	int rc;

	*out = NULL;
	json_object_set_new(body, "job", job);
	json_object_set_new(job, "environment", env);
	if ((rc = srt_slurm_json_put_str(body, "script", spec->script, err)) ||
	    (rc = srt_slurm_json_put_str(job, "name", spec->name, err)) ||
	    (rc = srt_slurm_json_put_str(job, "comment", spec->comment, err)) ||
	    (rc = srt_slurm_json_put_str(job, "partition", spec->partition, err)) ||
	    (rc = srt_slurm_json_put_str(job, "account", spec->account, err)) ||
	    (rc = srt_slurm_json_put_str(job, "current_working_directory", spec->cwd, err)) ||
	    (rc = srt_slurm_json_put_str(job, "standard_output", spec->stdout_path, err)) ||
	    (rc = srt_slurm_json_put_str(job, "standard_error", spec->stderr_path, err)))
		goto out;
	if (spec->nodes > 0)
		json_object_set_new(job, "nodes", json_integer(spec->nodes));
	if (spec->time_limit > 0)
		json_object_set_new(job, "time_limit", json_integer(spec->time_limit));
	if (spec->hold)
		json_object_set_new(job, "hold", json_true());
	if (spec->exclusive)
		json_object_set_new(job, "exclusive", json_string("exclusive"));
	/* encode_submit checked that every entry is NAME=value. */
	for (size_t i = 0; i < spec->nenv && rc == 0; i++) {
		const char *eq = strchr(spec->env[i], '=');
		char *name = srt_xstrndup(spec->env[i], (size_t)(eq - spec->env[i]));

		rc = srt_slurm_json_put_str(env, name, eq + 1, err);
		free(name);
	}
	if (rc)
		goto out;
	if (spec->nenv == 0)
		json_object_set_new(env, "PATH", json_string("/usr/bin:/bin"));
	if (extra)
		json_object_update(job, extra);
	*out = json_incref(body);
out:
	json_decref(body);
	return rc;
}
