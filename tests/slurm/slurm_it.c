/*
 * tests/slurm/slurm_it.c: drive the SLURM client from the command line, for
 * the integration tests against a real slurmrestd (test_slurm_client.sh).
 *
 *   slurm_it [OPTIONS] COMMAND [ARGS]    run one command
 *   slurm_it [OPTIONS] repl              commands from stdin, one per line
 *
 * Each command prints one JSON line: {"cmd", "rc" (OK, GONE, AUTH, ...),
 * "error", ...what it read}.  The exit status is 0 when rc is OK, 1
 * otherwise, 2 on a usage error.  `repl` keeps one client across commands,
 * which is how the tests check that a client survives a slurmrestd restart.
 *
 * Options (defaults from the environment that `scripts/slurm-local env` sets):
 *   --url URL          $SRT_SLURMRESTD_URL
 *   --api-version V    $SRT_SLURM_API_VERSION (unset: newest served)
 *   --user U           $SRT_SLURM_USER
 *   --token-file F     the token from file F (instead of $SLURM_JWT)
 *   --token-command C  the token from `sh -c C`
 *   --no-token         no auth headers
 *   --timeout-ms N     per request (default 30000)
 *
 * Commands:
 *   ping
 *   submit NAME COMMENT SCRIPT_FILE [nodes=N] [time=MIN] [hold] [env=K=V]... [exclusive]
 *          [dir=OPTION[=VALUE]]... (sbatch directives, slurm/directives.c)
 *          [partition=P] [cwd=DIR] [out=PATH] [extra=JSON]
 *          (partition, cwd and out default to $SRT_SLURM_PARTITION and
 *          $SRT_SLURM_JOBS_DIR[/NAME-%j.out])
 *   get ID
 *   wait ID STATE[,STATE...] SECONDS   poll every 200 ms until one of the states
 *   wait-gone ID SECONDS               poll until slurmctld forgets the job
 *   list [SINCE]
 *   find COMMENT|- [NAME]
 *   cancel ID
 *   signal ID SIGNUM
 *   stats
 */
#include "slurm/slurm.h"
#include "util/buf.h"
#include "util/clock.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define USAGE (-100) /* run()'s "not a command", beside the client's codes */

struct opts {
	const char *url, *api, *user, *token_file, *token_command;
	bool no_token;
	int timeout_ms;
};

static json_t *job_json(const struct srt_job *j)
{
	static const char *const flag_names[] = {
		"COMPLETING",	 "CONFIGURING",	  "REQUEUED",	   "REQUEUE_HOLD", "REQUEUE_FED",
		"SPECIAL_EXIT",	 "RESIZING",	  "STOPPED",	   "SIGNALING",	   "STAGE_OUT",
		"LAUNCH_FAILED", "RECONFIG_FAIL", "POWER_UP_NODE", "REVOKED",	   "RESV_DEL_HOLD",
		"EXPEDITING",	 "HELD",
	};
	json_t *o = json_object(), *flags = json_array(), *hosts = json_array();
	char **hv = NULL;
	size_t hn = 0;
	struct srt_error err;

	for (size_t i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
		if (j->flags & (1u << i))
			json_array_append_new(flags, json_string(flag_names[i]));
	if (srt_slurm_hostlist_expand(j->nodes, &hv, &hn, &err) == 0)
		for (size_t i = 0; i < hn; i++)
			json_array_append_new(hosts, json_string(hv[i]));
	srt_slurm_hostlist_free(hv, hn);
	json_object_set_new(o, "id", json_integer(j->id));
	json_object_set_new(o, "name", json_string(j->name));
	json_object_set_new(o, "comment", json_string(j->comment));
	json_object_set_new(o, "user", json_string(j->user));
	json_object_set_new(o, "partition", json_string(j->partition));
	json_object_set_new(o, "state", json_string(srt_job_state_name(j->state)));
	json_object_set_new(o, "base_state", json_string(srt_job_state_name(j->base_state)));
	json_object_set_new(o, "final", json_boolean(srt_job_state_is_final(j->state)));
	json_object_set_new(o, "flags", flags);
	json_object_set_new(o, "reason", json_string(j->reason));
	json_object_set_new(o, "exit_code", json_integer(j->exit_code));
	json_object_set_new(o, "signal", json_integer(j->signal));
	json_object_set_new(o, "nodes", json_string(j->nodes));
	json_object_set_new(o, "hosts", hosts);
	json_object_set_new(o, "node_count", json_integer(j->node_count));
	json_object_set_new(o, "submit_time", json_integer(j->submit_time));
	json_object_set_new(o, "start_time", json_integer(j->start_time));
	json_object_set_new(o, "end_time", json_integer(j->end_time));
	json_object_set_new(o, "time_limit", json_integer(j->time_limit));
	json_object_set_new(o, "stdout", json_string(j->stdout_path));
	return o;
}

static bool state_in(enum srt_job_state st, const char *list)
{
	const char *name = srt_job_state_name(st);
	size_t n = strlen(name);
	const char *p = list;

	while ((p = strstr(p, name)) != NULL) {
		if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
			return true;
		p += n;
	}
	return false;
}

/* Run one command (argv[0] is its name); fill *out; return the client's rc, or USAGE. */
static int run(struct srt_slurm *s, int argc, char **argv, json_t *out, struct srt_error *err)
{
	const char *cmd = argv[0];
	int rc;

	if (!strcmp(cmd, "ping") && argc == 1) {
		struct srt_slurm_info info;

		rc = srt_slurm_ping(s, &info, err);
		json_object_set_new(out, "api_version", json_string(info.api_version));
		json_object_set_new(out, "release", json_string(info.release));
		json_object_set_new(out, "cluster", json_string(info.cluster));
		json_object_set_new(out, "controller", json_string(info.controller));
		json_object_set_new(out, "controller_up", json_boolean(info.controller_up));
		json_object_set_new(out, "auth_ok", json_boolean(info.auth_ok));
		json_object_set_new(out, "user", json_string(info.user));
		return rc;
	}
	if (!strcmp(cmd, "submit") && argc >= 4) {
		struct srt_job_spec spec = { 0 };
		const char **env = calloc((size_t)argc, sizeof(*env));
		struct srt_slurm_directive *dirs = calloc((size_t)argc, sizeof(*dirs));
		char **dcopies = calloc((size_t)argc, sizeof(*dcopies));
		size_t ncopies = 0;
		char *script = srt_read_file(argv[3], NULL);
		const char *dir = getenv("SRT_SLURM_JOBS_DIR");
		char *out_default = NULL;
		int64_t id = 0;

		if (!script) {
			free(env);
			srt_error_set(err, "cannot read %s", argv[3]);
			return USAGE;
		}
		spec.name = argv[1];
		spec.comment = strcmp(argv[2], "-") ? argv[2] : NULL;
		spec.script = script;
		spec.partition = getenv("SRT_SLURM_PARTITION");
		spec.cwd = dir;
		if (dir)
			spec.stdout_path = out_default =
				srt_xasprintf("%s/%s-%%j.out", dir, argv[1]);
		spec.env = env;
		for (int i = 4; i < argc; i++) {
			const char *a = argv[i];

			if (!strncmp(a, "nodes=", 6))
				spec.nodes = atoi(a + 6);
			else if (!strncmp(a, "time=", 5))
				spec.time_limit = atoi(a + 5);
			else if (!strcmp(a, "hold"))
				spec.hold = true;
			else if (!strncmp(a, "env=", 4))
				env[spec.nenv++] = a + 4;
			else if (!strncmp(a, "partition=", 10))
				spec.partition = a + 10;
			else if (!strncmp(a, "cwd=", 4))
				spec.cwd = a + 4;
			else if (!strncmp(a, "out=", 4))
				spec.stdout_path = a + 4;
			else if (!strncmp(a, "extra=", 6))
				spec.extra_json = a + 6;
			else if (!strcmp(a, "exclusive"))
				spec.exclusive = true;
			else if (!strncmp(a, "dir=", 4)) {
				/* dir=NAME=VALUE or dir=NAME: an sbatch directive. */
				char *d = dcopies[ncopies++] = strdup(a + 4);
				char *eq = strchr(d, '=');

				if (eq)
					*eq = '\0';
				dirs[spec.ndirectives++] =
					(struct srt_slurm_directive){ .name = d,
								      .value = eq ? eq + 1 : "" };
				spec.directives = dirs;
			} else {
				free(script);
				free(env);
				free(dirs);
				for (size_t k = 0; k < ncopies; k++)
					free(dcopies[k]);
				free(dcopies);
				free(out_default);
				srt_error_set(err, "submit: unknown option '%s'", a);
				return USAGE;
			}
		}
		rc = srt_slurm_submit(s, &spec, &id, err);
		json_object_set_new(out, "job_id", json_integer(id));
		if (rc == 0 && err->msg[0])
			json_object_set_new(out, "notice", json_string(err->msg));
		free(script);
		free(env);
		free(out_default);
		free(dirs);
		for (size_t k = 0; k < ncopies; k++)
			free(dcopies[k]);
		free(dcopies);
		return rc;
	}
	if (!strcmp(cmd, "get") && argc == 2) {
		struct srt_job j;

		rc = srt_slurm_get_job(s, atoll(argv[1]), &j, err);
		if (rc == 0)
			json_object_set_new(out, "job", job_json(&j));
		srt_job_release(&j);
		return rc;
	}
	if (!strcmp(cmd, "wait") && argc == 4) {
		int64_t deadline = srt_monotonic_ms() + (int64_t)(atof(argv[3]) * 1000);
		int polls = 0;

		for (;;) {
			struct srt_job j;

			rc = srt_slurm_get_job(s, atoll(argv[1]), &j, err);
			polls++;
			if (rc == 0 &&
			    (state_in(j.state, argv[2]) || srt_job_state_is_final(j.state) ||
			     srt_monotonic_ms() >= deadline)) {
				json_object_set_new(out, "job", job_json(&j));
				json_object_set_new(out, "timed_out",
						    json_boolean(!state_in(j.state, argv[2])));
				srt_job_release(&j);
				break;
			}
			srt_job_release(&j);
			if (rc != 0 || srt_monotonic_ms() >= deadline)
				break;
			usleep(200 * 1000);
		}
		json_object_set_new(out, "polls", json_integer(polls));
		return rc;
	}
	if (!strcmp(cmd, "wait-gone") && argc == 3) {
		int64_t t0 = srt_monotonic_ms();
		int64_t deadline = t0 + (int64_t)(atof(argv[2]) * 1000);

		for (;;) {
			struct srt_job j;

			rc = srt_slurm_get_job(s, atoll(argv[1]), &j, err);
			srt_job_release(&j);
			if (rc != 0 || srt_monotonic_ms() >= deadline)
				break;
			usleep(500 * 1000);
		}
		json_object_set_new(out, "waited_ms", json_integer(srt_monotonic_ms() - t0));
		return rc;
	}
	if (!strcmp(cmd, "list") && argc <= 2) {
		struct srt_job_list l;
		json_t *jobs = json_array();

		rc = srt_slurm_list_jobs(s, argc == 2 ? atoll(argv[1]) : 0, &l, err);
		for (size_t i = 0; i < l.n; i++)
			json_array_append_new(jobs, job_json(&l.jobs[i]));
		json_object_set_new(out, "jobs", jobs);
		json_object_set_new(out, "n", json_integer((json_int_t)l.n));
		json_object_set_new(out, "unchanged", json_boolean(l.unchanged));
		json_object_set_new(out, "last_update", json_integer(l.last_update));
		srt_job_list_release(&l);
		return rc;
	}
	if (!strcmp(cmd, "find") && (argc == 2 || argc == 3)) {
		struct srt_job_list l;
		json_t *ids = json_array();

		rc = srt_slurm_find_jobs(s, strcmp(argv[1], "-") ? argv[1] : NULL,
					 argc == 3 ? argv[2] : NULL, &l, err);
		for (size_t i = 0; i < l.n; i++)
			json_array_append_new(ids, json_integer(l.jobs[i].id));
		json_object_set_new(out, "ids", ids);
		srt_job_list_release(&l);
		return rc;
	}
	if (!strcmp(cmd, "cancel") && argc == 2)
		return srt_slurm_cancel(s, atoll(argv[1]), err);
	if (!strcmp(cmd, "signal") && argc == 3)
		return srt_slurm_signal(s, atoll(argv[1]), atoi(argv[2]), err);
	if (!strcmp(cmd, "stats") && argc == 1) {
		struct srt_slurm_stats st;

		srt_slurm_stats(s, &st);
		json_object_set_new(out, "requests", json_integer((json_int_t)st.requests));
		json_object_set_new(out, "failures", json_integer((json_int_t)st.failures));
		json_object_set_new(out, "bytes_received",
				    json_integer((json_int_t)st.bytes_received));
		json_object_set_new(out, "usec", json_integer((json_int_t)st.usec));
		json_object_set_new(out, "api_version",
				    srt_slurm_api_version(s) ?
					    json_string(srt_slurm_api_version(s)) :
					    json_null());
		return 0;
	}
	srt_error_set(err, "unknown command or wrong arguments: %s", cmd);
	return USAGE;
}

/* Run and print one JSON line; returns the exit status for it. */
static int run_print(struct srt_slurm *s, int argc, char **argv)
{
	json_t *out = json_object();
	struct srt_error err = { "" };
	char *text;
	int rc;

	json_object_set_new(out, "cmd", json_string(argv[0]));
	rc = run(s, argc, argv, out, &err);
	json_object_set_new(out, "rc", json_string(rc == USAGE ? "USAGE" : srt_slurm_rc_name(rc)));
	json_object_set_new(out, "error",
			    rc != 0 && err.msg[0] ? json_string(err.msg) : json_null());
	text = json_dumps(out, JSON_COMPACT | JSON_PRESERVE_ORDER);
	puts(text ? text : "{}");
	fflush(stdout);
	free(text);
	json_decref(out);
	return rc == 0 ? 0 : rc == USAGE ? 2 : 1;
}

static int repl(struct srt_slurm *s)
{
	char line[8192];
	int last = 0;

	while (fgets(line, sizeof(line), stdin)) {
		char *argv[64];
		int argc = 0;
		char *save = NULL;

		for (char *t = strtok_r(line, " \t\r\n", &save); t && argc < 63;
		     t = strtok_r(NULL, " \t\r\n", &save))
			argv[argc++] = t;
		if (argc == 0)
			continue;
		if (!strcmp(argv[0], "quit"))
			break;
		last = run_print(s, argc, argv);
	}
	return last;
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct srt_slurm_config cfg = { 0 };
	struct srt_slurm *s = NULL;
	struct srt_error err = { "" };
	const char *cmd_argv[4] = { "/bin/sh", "-c", NULL, NULL };
	int i, rc;

	o.url = getenv("SRT_SLURMRESTD_URL");
	o.api = getenv("SRT_SLURM_API_VERSION");
	o.user = getenv("SRT_SLURM_USER");
	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--no-token")) {
			o.no_token = true;
			continue;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "slurm_it: %s needs a value\n", a);
			return 2;
		}
		if (!strcmp(a, "--url"))
			o.url = argv[++i];
		else if (!strcmp(a, "--api-version"))
			o.api = argv[++i];
		else if (!strcmp(a, "--user"))
			o.user = argv[++i];
		else if (!strcmp(a, "--token-file"))
			o.token_file = argv[++i];
		else if (!strcmp(a, "--token-command"))
			o.token_command = argv[++i];
		else if (!strcmp(a, "--timeout-ms"))
			o.timeout_ms = atoi(argv[++i]);
		else {
			fprintf(stderr, "slurm_it: unknown option %s\n", a);
			return 2;
		}
	}
	if (i >= argc) {
		fprintf(stderr, "usage: slurm_it [OPTIONS] COMMAND [ARGS] | repl\n");
		return 2;
	}
	cfg.url = o.url;
	cfg.api_version = o.api;
	cfg.user = o.user;
	cfg.timeout_ms = o.timeout_ms;
	if (o.no_token) {
		/* nothing */
	} else if (o.token_file) {
		cfg.auth.token_file = o.token_file;
	} else if (o.token_command) {
		cmd_argv[2] = o.token_command;
		cfg.auth.token_command = cmd_argv;
		cfg.auth.token_command_n = 3;
	} else {
		cfg.auth.token = getenv("SLURM_JWT");
		cfg.auth.origin = "$SLURM_JWT";
	}
	rc = srt_slurm_new(&s, &cfg, &err);
	if (rc != 0) {
		json_t *out = json_pack("{s:s, s:s, s:s}", "cmd", argv[i], "rc",
					srt_slurm_rc_name(rc), "error", err.msg);
		char *text = json_dumps(out, JSON_COMPACT | JSON_PRESERVE_ORDER);

		puts(text);
		free(text);
		json_decref(out);
		return 1;
	}
	if (!strcmp(argv[i], "repl"))
		rc = repl(s);
	else
		rc = run_print(s, argc - i, argv + i);
	srt_slurm_free(s);
	return rc;
}
