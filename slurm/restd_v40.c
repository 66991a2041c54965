/*
 * slurm/restd_v40.c: what is particular to API v0.0.40 to v0.0.44 (Slurm
 * 23.11 to 25.11, the data_parser generation).
 *
 * Submit: job.script (the top-level script is deprecated since v0.0.41);
 * job.environment is a string array and required (without it 24.11 answers
 * 500 and still burns a job id); numbers such as time_limit are
 * {set, infinite, number} structs; nodes is a count range string ("2").
 * Jobs: job_state is an array (base state plus flags), exit_code an object
 * {status[], return_code, signal{id, name}}, times are number structs.
 * v0.0.42 adds ping.responding and DELETE's status[] (proto.c reads those).
 */
#include "slurm/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int num(json_t *j, const char *key, const char *what, int64_t *out, struct srt_error *err)
{
	bool set;

	if (srt_slurm_json_num(j, key, what, out, &set, NULL, err) != 0)
		return SRT_SLURM_EPROTOCOL;
	if (!set)
		*out = 0;
	return 0;
}

/* job_state: an array of words (a plain string is accepted too). */
static int read_state(json_t *j, const char *what, struct srt_job *out, struct srt_error *err)
{
	json_t *st = json_object_get(j, "job_state");
	const char *words[16];
	size_t n = 0, i;
	json_t *w;

	if (!st || json_is_null(st)) {
		srt_job_set_state(out, words, 0, out->reason);
		return 0;
	}
	if (json_is_string(st)) {
		words[n++] = json_string_value(st);
	} else if (json_is_array(st)) {
		json_array_foreach(st, i, w)
		{
			if (!json_is_string(w))
				return srt_slurm_fail(err, SRT_SLURM_EPROTOCOL,
						      "%s: job_state[%zu] is not a string", what,
						      i);
			if (n < sizeof(words) / sizeof(words[0]))
				words[n++] = json_string_value(w);
		}
	} else {
		return srt_slurm_fail(err, SRT_SLURM_EPROTOCOL,
				      "%s: field 'job_state' is not an array of strings", what);
	}
	srt_job_set_state(out, words, n, out->reason);
	return 0;
}

/* exit_code: {status: [...], return_code: num, signal: {id: num, name: str}}. */
static int read_exit(json_t *j, const char *what, struct srt_job *out, struct srt_error *err)
{
	json_t *ec = json_object_get(j, "exit_code");
	json_t *status, *sig, *w;
	bool exited = false, signaled = false, rc_set = false, sig_set = false;
	int64_t rc = 0, signo = 0;
	size_t i;

	out->exit_code = -1;
	out->signal = 0;
	if (!ec || json_is_null(ec))
		return 0;
	if (!json_is_object(ec))
		return srt_slurm_fail(
			err, SRT_SLURM_EPROTOCOL,
			"%s: field 'exit_code' is not an object {status, return_code, "
			"signal}",
			what);
	status = json_object_get(ec, "status");
	if (status && !json_is_null(status) && !json_is_array(status))
		return srt_slurm_fail(err, SRT_SLURM_EPROTOCOL,
				      "%s: field 'exit_code.status' is not an array", what);
	json_array_foreach(status, i, w)
	{
		const char *s = json_string_value(w);

		if (!s)
			return srt_slurm_fail(err, SRT_SLURM_EPROTOCOL,
					      "%s: exit_code.status[%zu] is not a string", what, i);
		if (!strcmp(s, "SUCCESS") || !strcmp(s, "ERROR"))
			exited = true;
		else if (!strcmp(s, "SIGNALED") || !strcmp(s, "CORE_DUMPED"))
			signaled = true;
	}
	if (srt_slurm_json_num(ec, "return_code", what, &rc, &rc_set, NULL, err) != 0)
		return SRT_SLURM_EPROTOCOL;
	sig = json_object_get(ec, "signal");
	if (sig && !json_is_null(sig)) {
		if (!json_is_object(sig))
			return srt_slurm_fail(err, SRT_SLURM_EPROTOCOL,
					      "%s: field 'exit_code.signal' is not an object",
					      what);
		if (srt_slurm_json_num(sig, "id", what, &signo, &sig_set, NULL, err) != 0)
			return SRT_SLURM_EPROTOCOL;
	}
	if (signaled || (!exited && sig_set && signo > 0)) {
		out->signal = sig_set && signo > 0 && signo < 256 ? (int)signo : 0;
	} else if (rc_set && rc >= 0 && rc < 256) {
		out->exit_code = (int)rc;
	} else if (exited && !rc_set) {
		/* SUCCESS without a number: 0; ERROR without one: unknown. */
		json_array_foreach(status, i, w) if (!strcmp(json_string_value(w), "SUCCESS"))
			out->exit_code = 0;
	}
	return 0;
}

int srt_slurm_v40_job(const struct srt_slurm_api *api, json_t *j, struct srt_job *out,
		      struct srt_error *err)
{
	char what[48] = "job";
	int64_t id, tl;
	bool set, inf;
	int rc;

	(void)api;
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
	    (rc = read_state(j, what, out, err)) || (rc = read_exit(j, what, out, err)) ||
	    (rc = srt_slurm_json_num(j, "time_limit", what, &tl, &set, &inf, err)))
		return SRT_SLURM_EPROTOCOL;
	/* {"set":false,"infinite":true} is how an unlimited job comes back. */
	out->time_limit = set && !inf ? tl : -1;
	return 0;
}

static json_t *number_struct(int64_t n)
{
	return json_pack("{s:b, s:b, s:I}", "set", 1, "infinite", 0, "number", (json_int_t)n);
}

int srt_slurm_v40_submit_body(const struct srt_slurm_api *api, const struct srt_job_spec *spec,
			      json_t *extra, json_t **out, struct srt_error *err)
{
	json_t *body = json_object();
	json_t *job = json_object();
	json_t *env = json_array();
	int rc;

	(void)api;
	*out = NULL;
	json_object_set_new(body, "job", job);
	json_object_set_new(job, "environment", env);
	if ((rc = srt_slurm_json_put_str(job, "script", spec->script, err)) ||
	    (rc = srt_slurm_json_put_str(job, "name", spec->name, err)) ||
	    (rc = srt_slurm_json_put_str(job, "comment", spec->comment, err)) ||
	    (rc = srt_slurm_json_put_str(job, "partition", spec->partition, err)) ||
	    (rc = srt_slurm_json_put_str(job, "account", spec->account, err)) ||
	    (rc = srt_slurm_json_put_str(job, "current_working_directory", spec->cwd, err)) ||
	    (rc = srt_slurm_json_put_str(job, "standard_output", spec->stdout_path, err)) ||
	    (rc = srt_slurm_json_put_str(job, "standard_error", spec->stderr_path, err)))
		goto out;
	if (spec->nodes > 0) {
		char n[16];

		snprintf(n, sizeof(n), "%d", spec->nodes);
		json_object_set_new(job, "nodes", json_string(n));
	}
	if (spec->time_limit > 0)
		json_object_set_new(job, "time_limit", number_struct(spec->time_limit));
	if (spec->hold)
		json_object_set_new(job, "hold", json_true());
	if (spec->exclusive)
		json_object_set_new(job, "shared", json_pack("[s]", "none"));
	for (size_t i = 0; i < spec->nenv; i++) {
		json_t *v = json_string(spec->env[i]);

		if (!v) {
			rc = srt_slurm_fail(err, SRT_SLURM_EINVAL,
					    "environment entry %zu is not valid UTF-8", i);
			goto out;
		}
		json_array_append_new(env, v);
	}
	if (spec->nenv == 0)
		json_array_append_new(env, json_string("PATH=/usr/bin:/bin"));
	if (extra)
		json_object_update(job, extra);
	*out = json_incref(body);
out:
	json_decref(body);
	return rc;
}
