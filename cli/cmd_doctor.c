/*
 * cli/cmd_doctor.c: `srtctl doctor`: can srtctl use SLURM from here?
 *
 * Resolves the slurmrestd settings the way every srtctl verb that talks to
 * SLURM does (srt_cli_slurm_config(): flags, then the environment, then
 * srtslurm.yaml), pings slurmrestd once, and reports the URL, the cluster
 * config found, the API version chosen, the Slurm release, and whether the
 * credentials work.  Exit 0 when usable, 1 when not (with what to fix), 2 on
 * a usage error.  The token is never printed: only where it came from, whose
 * it is and when it expires; nor is the password of a URL's user:password@.
 */
#include "cli/cli.h"
#include "slurm/slurm.h"
#include "util/buf.h"
#include "util/clock.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: srtctl doctor [--url URL] [--api-version VERSION] [-o text|json]\n"
	"\n"
	"Check that srtctl can use SLURM: ping slurmrestd and show its URL, the API version\n"
	"chosen, the Slurm release, whether the token works, and the cluster config used.\n"
	"The token itself is never shown.\n"
	"\n"
	"Options:\n"
	"      --url URL             slurmrestd: http(s)://host:port, unix:/path or /path\n"
	"      --api-version V       use API version V (e.g. v0.0.38) instead of the newest\n"
	"                            the server serves\n"
	"  -o, --output FORMAT       text (default) or json\n"
	"  -h, --help                show this help\n"
	"\n"
	"Where each setting comes from, strongest first:\n"
	"  URL          --url, $SRTCTL_SLURMRESTD_URL, slurmrestd.url in srtslurm.yaml\n"
	"  API version  --api-version, slurmrestd.api_version (unset: newest served)\n"
	"  token        $SLURM_JWT, slurmrestd.token_file, slurmrestd.token_command\n"
	"               (none: no auth headers, as a unix socket with local auth wants)\n"
	"  user         slurmrestd.user, else the token's user\n"
	"  timeout      slurmrestd.timeout_seconds (default 30)\n"
	"  CA bundle    $SRTCTL_SLURMRESTD_CA_FILE (https only)\n"
	"srtslurm.yaml is $SRTSLURM_CONFIG, else ./srtslurm.yaml.\n"
	"\n"
	"Exit codes: 0 usable, 1 not usable (the output says what to fix), 2 usage error.\n"
	"\n"
	"Examples:\n"
	"  srtctl doctor\n"
	"  srtctl doctor --url unix:/run/slurmrestd.sock -o json\n";

void srt_cli_slurm_config(struct srt_cli_slurm *out, const struct srt_cluster *c,
			  const char *url_arg, const char *api_arg)
{
	const char *env_url = getenv("SRTCTL_SLURMRESTD_URL");
	const char *env_jwt = getenv("SLURM_JWT");
	const char *env_ca = getenv("SRTCTL_SLURMRESTD_CA_FILE");

	memset(out, 0, sizeof(*out));
	if (url_arg && *url_arg) {
		out->cfg.url = url_arg;
		out->url_origin = "--url";
	} else if (env_url && *env_url) {
		out->cfg.url = env_url;
		out->url_origin = "$SRTCTL_SLURMRESTD_URL";
	} else if (c->slurmrestd.url && *c->slurmrestd.url) {
		out->cfg.url = c->slurmrestd.url;
		out->url_origin = "slurmrestd.url";
	}
	if (api_arg && *api_arg) {
		out->cfg.api_version = api_arg;
		out->api_origin = "--api-version";
	} else if (c->slurmrestd.api_version && *c->slurmrestd.api_version) {
		out->cfg.api_version = c->slurmrestd.api_version;
		out->api_origin = "slurmrestd.api_version";
	}
	if (env_jwt && *env_jwt) {
		out->cfg.auth.token = env_jwt;
		out->cfg.auth.origin = "$SLURM_JWT";
	} else if (c->slurmrestd.token_file && *c->slurmrestd.token_file) {
		out->cfg.auth.token_file = c->slurmrestd.token_file;
		out->cfg.auth.origin = "slurmrestd.token_file";
	} else if (c->slurmrestd.token_command.n > 0) {
		out->cfg.auth.token_command = c->slurmrestd.token_command.v;
		out->cfg.auth.token_command_n = c->slurmrestd.token_command.n;
		out->cfg.auth.origin = "slurmrestd.token_command";
	}
	out->cfg.user = c->slurmrestd.user;
	out->cfg.timeout_ms =
		c->slurmrestd.timeout_seconds > 0 ? c->slurmrestd.timeout_seconds * 1000 : 30000;
	if (env_ca && *env_ca)
		out->cfg.ca_file = env_ca;
}

/* What to do about a failure, by result code. */
static const char *fix_hint(int rc)
{
	switch (rc) {
	case SRT_SLURM_EINVAL:
		return "fix the setting named above (--url, $SRTCTL_SLURMRESTD_URL, or the "
		       "slurmrestd section of srtslurm.yaml)";
	case SRT_SLURM_EUNREACHABLE:
		return "start slurmrestd, or point srtctl at it (--url, $SRTCTL_SLURMRESTD_URL, "
		       "slurmrestd.url)";
	case SRT_SLURM_ETIMEOUT:
		return "slurmrestd or slurmctld is slow or stuck; check them, or raise "
		       "slurmrestd.timeout_seconds";
	case SRT_SLURM_EAUTH:
		return "give srtctl a valid token ($SLURM_JWT, slurmrestd.token_file or "
		       "slurmrestd.token_command) for the right user (slurmrestd.user)";
	case SRT_SLURM_ESERVER:
		return "slurmctld does not answer through slurmrestd; check `scontrol ping` and the "
		       "slurmrestd log";
	case SRT_SLURM_EPROTOCOL:
		return "check that the URL is slurmrestd's, or pin a served version "
		       "(slurmrestd.api_version)";
	case SRT_SLURM_ETLS:
		return "check http vs https in the URL and the CA bundle "
		       "($SRTCTL_SLURMRESTD_CA_FILE)";
	default:
		return "see the error above";
	}
}

static void expiry_text(int64_t exp, char *buf, size_t n)
{
	int64_t now = srt_clock_now(srt_clock_system()) / 1000;
	char d[32];

	if (exp <= 0) {
		snprintf(buf, n, "no exp claim");
		return;
	}
	srt_duration_human((exp > now ? exp - now : now - exp) * 1000, d, sizeof(d));
	snprintf(buf, n, exp > now ? "expires in %s" : "EXPIRED %s ago", d);
}

int srt_cmd_doctor(int argc, char **argv)
{
	enum {
		OPT_URL = 256,
		OPT_API,
	};
	static const struct option opts[] = {
		{ "url", required_argument, NULL, OPT_URL },
		{ "api-version", required_argument, NULL, OPT_API },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *url_arg = NULL, *api_arg = NULL;
	enum srt_output fmt = SRT_OUT_TEXT;
	struct srt_cluster cluster;
	struct srt_cli_slurm sc;
	struct srt_slurm *s = NULL;
	struct srt_slurm_info info;
	struct srt_slurm_stats stats;
	struct srt_error err;
	const char *cfg_path = NULL;
	char *shown_url = NULL; /* the URL, its password masked */
	char exp_text[64] = "";
	bool have_cluster = false;
	int c, rc, exit_code = SRT_EXIT_OK;

	memset(&info, 0, sizeof(info));
	memset(&stats, 0, sizeof(stats));
	err.msg[0] = '\0';
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_URL:
			url_arg = optarg;
			break;
		case OPT_API:
			api_arg = optarg;
			break;
		case 'o':
			if (srt_cli_parse_output("doctor", optarg, &fmt, false) != 0)
				return SRT_EXIT_USAGE;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return SRT_EXIT_OK;
		default:
			return srt_cli_usage_error("doctor", "unknown option");
		}
	}
	if (optind < argc)
		return srt_cli_usage_error("doctor", "unexpected argument '%s'", argv[optind]);

	/* An srtslurm.yaml that exists but is invalid: not usable (errors printed). */
	if (srt_cli_load_cluster("doctor", &cluster, true) != 0) {
		fprintf(stderr, "srtctl doctor: the cluster config is invalid; fix it first\n");
		return SRT_EXIT_INVALID;
	}
	have_cluster = true;
	cfg_path = cluster.source;
	srt_cli_slurm_config(&sc, &cluster, url_arg, api_arg);
	if (sc.cfg.url)
		shown_url = srt_slurm_url_redact(sc.cfg.url);

	rc = srt_slurm_new(&s, &sc.cfg, &err);
	if (rc == 0) {
		rc = srt_slurm_ping(s, &info, &err);
		srt_slurm_stats(s, &stats);
	} else {
		srt_error_prefix(&err, "slurmrestd");
	}
	if (sc.cfg.auth.origin)
		expiry_text(info.token_exp, exp_text, sizeof(exp_text));

	if (fmt == SRT_OUT_JSON) {
		json_t *o = json_object();
		char *text;

		json_object_set_new(o, "config", cfg_path ? json_string(cfg_path) : json_null());
		json_object_set_new(o, "url", shown_url ? json_string(shown_url) : json_null());
		json_object_set_new(o, "url_from",
				    sc.url_origin ? json_string(sc.url_origin) : json_null());
		json_object_set_new(o, "api_version",
				    info.api_version[0] ? json_string(info.api_version) :
							  json_null());
		json_object_set_new(o, "api_version_pinned_by",
				    sc.api_origin ? json_string(sc.api_origin) : json_null());
		json_object_set_new(o, "slurm_release",
				    info.release[0] ? json_string(info.release) : json_null());
		json_object_set_new(o, "cluster",
				    info.cluster[0] ? json_string(info.cluster) : json_null());
		json_object_set_new(o, "controller",
				    info.controller[0] ? json_string(info.controller) :
							 json_null());
		json_object_set_new(o, "controller_up", json_boolean(info.controller_up));
		json_object_set_new(o, "auth_ok", json_boolean(info.auth_ok));
		json_object_set_new(o, "token_from",
				    sc.cfg.auth.origin ? json_string(sc.cfg.auth.origin) :
							 json_null());
		json_object_set_new(o, "user", info.user[0] ? json_string(info.user) : json_null());
		json_object_set_new(o, "token_exp",
				    info.token_exp > 0 ? json_integer(info.token_exp) :
							 json_null());
		json_object_set_new(o, "requests", json_integer((json_int_t)stats.requests));
		json_object_set_new(o, "usable", json_boolean(rc == 0));
		json_object_set_new(o, "result", json_string(srt_slurm_rc_name(rc)));
		json_object_set_new(o, "error", rc ? json_string(err.msg) : json_null());
		json_object_set_new(o, "fix", rc ? json_string(fix_hint(rc)) : json_null());
		text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		if (text)
			puts(text);
		free(text);
		json_decref(o);
	} else {
		printf("%-15s %s\n", "cluster config",
		       cfg_path ? cfg_path :
				  "defaults (no srtslurm.yaml here; $SRTSLURM_CONFIG names one)");
		if (shown_url)
			printf("%-15s %s (from %s)\n", "slurmrestd", shown_url, sc.url_origin);
		else
			printf("%-15s %s\n", "slurmrestd", "not configured");
		if (sc.cfg.auth.origin)
			printf("%-15s from %s%s%s, %s\n", "token", sc.cfg.auth.origin,
			       info.user[0] ? ", user " : "", info.user, exp_text);
		else
			printf("%-15s %s\n", "token", "none (no auth headers are sent)");
		if (info.api_version[0])
			printf("%-15s %s (%s)\n", "api version", info.api_version,
			       sc.api_origin ? sc.api_origin : "the newest the server serves");
		else
			printf("%-15s %s\n", "api version", "unknown");
		printf("%-15s %s\n", "slurm release", info.release[0] ? info.release : "unknown");
		if (info.cluster[0])
			printf("%-15s %s\n", "cluster", info.cluster);
		if (info.controller[0])
			printf("%-15s %s %s\n", "slurmctld", info.controller,
			       info.controller_up ? "up" : "DOWN");
		printf("%-15s %s\n", "auth",
		       info.auth_ok	     ? "works" :
		       rc == SRT_SLURM_EAUTH ? "REJECTED" :
					       "unknown");
		printf("%-15s %llu\n", "requests", (unsigned long long)stats.requests);
		if (rc == 0) {
			printf("%-15s %s\n", "result", "usable");
		} else {
			printf("%-15s NOT usable (%s)\n", "result", srt_slurm_rc_name(rc));
			fprintf(stderr, "srtctl doctor: %s\n", err.msg);
			fprintf(stderr, "srtctl doctor: to fix: %s\n", fix_hint(rc));
		}
	}
	if (rc != 0)
		exit_code = SRT_EXIT_INVALID;
	srt_slurm_free(s);
	free(shown_url);
	if (have_cluster)
		srt_cluster_release(&cluster);
	return exit_code;
}
