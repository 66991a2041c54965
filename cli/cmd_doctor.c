/*
 * cli/cmd_doctor.c: `srtctl doctor`: can srtctl work from here?
 *
 * One line per check, OK / WARN / FAIL with what to do: the cluster config
 * found, the state database (schema, size, quick_check, through
 * srt_store_inspect()), the controller holding its lock (and its last pass,
 * from the lock file), slurmrestd (resolved the way every verb that talks
 * to SLURM does, srt_cli_slurm_config(): flags, then the environment, then
 * srtslurm.yaml; pinged once), the token's expiry, and whether the job user
 * can write to the log root.  Exit 0 when no check failed, 1 when one did,
 * 2 on a usage error.  The token is never printed: only where it came from, whose
 * it is and when it expires; nor is the password of a URL's user:password@.
 */
#include "cli/cli.h"
#include "slurm/slurm.h"
#include "util/buf.h"
#include "util/clock.h"

#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <jansson.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: srtctl doctor [--url URL] [--api-version VERSION] [--db PATH] [-o text|json]\n"
	"\n"
	"Check that srtctl can work from here, one line per check with OK, WARN or FAIL and\n"
	"what to do:\n"
	"  cluster config  the srtslurm.yaml found\n"
	"  database        its path, schema version, size and integrity (quick_check)\n"
	"  controller      whether one runs for this database, and its last pass\n"
	"  slurmrestd      a ping: the URL, the API version chosen, the Slurm release\n"
	"  token           where it comes from, whose it is, when it expires\n"
	"  log root        runtime.log_root exists and the job user can write to it\n"
	"The token itself is never shown.\n"
	"\n"
	"Options:\n"
	"      --url URL             slurmrestd: http(s)://host:port, unix:/path or /path\n"
	"      --api-version V       use API version V (e.g. v0.0.38) instead of the newest\n"
	"                            the server serves\n"
	"      --db PATH             the state database (default: $SRTCTL_DB, then\n"
	"                            ~/.local/state/srtctl/srtctl.db)\n"
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
	"srtslurm.yaml is $SRTSLURM_CONFIG, else ./srtslurm.yaml. The job user, whose\n"
	"access to the log root is checked, is slurmrestd.user, else the token's user, else\n"
	"the user running doctor.\n"
	"\n"
	"Exit codes: 0 no check failed (WARN lines may remain), 1 a check failed (the\n"
	"output says what to fix), 2 usage error.\n"
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

static void expiry_text(int64_t exp, int64_t now, char *buf, size_t n)
{
	char d[32];

	if (exp <= 0) {
		snprintf(buf, n, "no exp claim");
		return;
	}
	srt_duration_human((exp > now ? exp - now : now - exp) * 1000, d, sizeof(d));
	snprintf(buf, n, exp > now ? "expires in %s" : "EXPIRED %s ago", d);
}

/* ---- the checks: one line each, OK / WARN / FAIL and what to do ---- */

enum level {
	LVL_OK,
	LVL_WARN,
	LVL_FAIL
};
static const char *const level_names[] = { "OK", "WARN", "FAIL" };

#define MAX_CHECKS 8

struct check {
	const char *name;
	enum level level;
	char detail[640];
	char fix[320]; /* "" when there is nothing to do */
};

struct checks {
	struct check v[MAX_CHECKS];
	size_t n;
};

static struct check *add(struct checks *cs, const char *name, enum level lvl)
{
	struct check *c = &cs->v[cs->n++];

	c->name = name;
	c->level = lvl;
	c->detail[0] = c->fix[0] = '\0';
	return c;
}

static void human_bytes(int64_t b, char *buf, size_t n)
{
	if (b < 1024)
		snprintf(buf, n, "%lld B", (long long)b);
	else if (b < 1024 * 1024)
		snprintf(buf, n, "%.1f KiB", (double)b / 1024.0);
	else
		snprintf(buf, n, "%.1f MiB", (double)b / (1024.0 * 1024.0));
}

/* The database: there, readable, its schema, its size, PRAGMA quick_check. */
static void check_database(struct checks *cs, const char *db)
{
	struct srt_store_health h;
	struct srt_error err;
	struct check *c;
	char size[32];
	const int known = srt_store_schema_version();

	if (access(db, F_OK) != 0) {
		c = add(cs, "database", LVL_WARN);
		snprintf(c->detail, sizeof(c->detail), "%.500s: none yet", db);
		snprintf(c->fix, sizeof(c->fix),
			 "`srtctl apply -f RECIPE` creates it (or point --db or $SRTCTL_DB at "
			 "the controller's)");
		return;
	}
	if (srt_store_inspect(db, &h, &err) != 0) {
		c = add(cs, "database", LVL_FAIL);
		snprintf(c->detail, sizeof(c->detail), "%.600s", err.msg);
		snprintf(c->fix, sizeof(c->fix), "check the path and its permissions");
		return;
	}
	human_bytes(h.bytes, size, sizeof(size));
	c = add(cs, "database", LVL_OK);
	snprintf(c->detail, sizeof(c->detail), "%.300s: schema %d%s, %s, quick_check %.200s", db,
		 h.schema,
		 h.schema == known ? " (current)" :
		 h.schema < known  ? " (older than this srtctl's)" :
				     " (NEWER than this srtctl's)",
		 size, h.check);
	if (strcmp(h.check, "ok") != 0) {
		c->level = LVL_FAIL;
		snprintf(c->fix, sizeof(c->fix),
			 "the database is damaged: stop the controller and restore it from a "
			 "backup (sqlite3 DB .recover can save what is left)");
	} else if (h.schema > known) {
		c->level = LVL_FAIL;
		snprintf(c->fix, sizeof(c->fix), "upgrade srtctl (this one knows schema %d)",
			 known);
	} else if (h.schema < known) {
		c->level = LVL_WARN;
		snprintf(c->fix, sizeof(c->fix),
			 "a writing command (the controller, `srtctl apply`) upgrades it");
	}
}

/* Is a controller running for this database, and when did it last pass? */
static void check_controller(struct checks *cs, const char *db, int64_t now_ms)
{
	struct srt_lock_info li;
	struct check *c;
	char ago[32];

	srt_store_lock_info(db, &li);
	if (!li.held) {
		c = add(cs, "controller", LVL_WARN);
		snprintf(c->detail, sizeof(c->detail), "none running for this database");
		snprintf(c->fix, sizeof(c->fix),
			 "start one: `srtctl controller` (or `systemctl start "
			 "srtctl-controller`); nothing is submitted until then");
		return;
	}
	c = add(cs, "controller", LVL_OK);
	if (!li.readable) {
		snprintf(c->detail, sizeof(c->detail),
			 "running (its lock file is not readable by this user: no pid or last "
			 "pass)");
		return;
	}
	if (li.last_pass <= 0) {
		snprintf(c->detail, sizeof(c->detail), "running (pid and host: %s), no pass yet",
			 li.holder[0] ? li.holder : "unknown");
		return;
	}
	srt_duration_human(now_ms > li.last_pass ? now_ms - li.last_pass : 0, ago, sizeof(ago));
	snprintf(c->detail, sizeof(c->detail), "running (pid and host: %s), last pass %s ago",
		 li.holder[0] ? li.holder : "unknown", ago);
}

/* Token: FAIL once expired, WARN within a day unless a command renews it. */
static void check_token(struct checks *cs, const struct srt_cli_slurm *sc,
			const struct srt_slurm_info *info, int64_t now)
{
	struct check *c;
	char exp[64];

	if (!sc->cfg.auth.origin) {
		c = add(cs, "token", LVL_OK);
		snprintf(c->detail, sizeof(c->detail), "none (no auth headers are sent)");
		return;
	}
	expiry_text(info->token_exp, now, exp, sizeof(exp));
	c = add(cs, "token", LVL_OK);
	snprintf(c->detail, sizeof(c->detail), "from %s%s%s, %s", sc->cfg.auth.origin,
		 info->user[0] ? ", user " : "", info->user, exp);
	if (info->token_exp > 0 && info->token_exp <= now) {
		c->level = LVL_FAIL;
		snprintf(c->fix, sizeof(c->fix),
			 "get a new token (`scontrol token lifespan=...`), or let "
			 "slurmrestd.token_command fetch one when needed");
	} else if (info->token_exp > 0 && info->token_exp - now < 24 * 3600 &&
		   !sc->cfg.auth.token_command) {
		c->level = LVL_WARN;
		snprintf(c->fix, sizeof(c->fix),
			 "renew it before then, or use slurmrestd.token_command (renewed as it "
			 "expires)");
	}
}

/* Can `pw` create entries in `dir` by its mode bits (ACLs are not read)? */
static bool mode_allows(const struct stat *st, const struct passwd *pw)
{
	gid_t groups[256];
	int ngroups = (int)(sizeof(groups) / sizeof(groups[0]));

	if (pw->pw_uid == 0)
		return true;
	if (st->st_uid == pw->pw_uid)
		return (st->st_mode & (S_IWUSR | S_IXUSR)) == (S_IWUSR | S_IXUSR);
	if (getgrouplist(pw->pw_name, pw->pw_gid, groups, &ngroups) < 0)
		ngroups = 0; /* more than 256 groups: judged by the others' bits */
	for (int i = 0; i < ngroups; i++)
		if (groups[i] == st->st_gid)
			return (st->st_mode & (S_IWGRP | S_IXGRP)) == (S_IWGRP | S_IXGRP);
	return (st->st_mode & (S_IWOTH | S_IXOTH)) == (S_IWOTH | S_IXOTH);
}

/*
 * The log root (runtime.log_root): a directory the job user (slurmrestd.user,
 * else the token's user, else this user) can write: the controller creates
 * the run directories there and the jobs write into them.  For this user it
 * is tried (access(2)); for another one judged by the mode bits, except as
 * root: a root controller hands each run directory to the job user.
 */
static void check_log_root(struct checks *cs, const char *root, const struct srt_cli_slurm *sc,
			   const struct srt_slurm_info *info)
{
	const struct passwd *me = getpwuid(geteuid());
	const char *user = sc->cfg.user && *sc->cfg.user ? sc->cfg.user :
			   info->user[0]		 ? info->user :
			   me				 ? me->pw_name :
							   NULL;
	struct passwd *pw;
	struct stat st;
	struct check *c;
	bool ok;

	if (!root) {
		c = add(cs, "log root", LVL_FAIL);
		snprintf(c->detail, sizeof(c->detail), "cannot be resolved");
		snprintf(c->fix, sizeof(c->fix), "set runtime.log_root to an absolute path");
		return;
	}
	if (stat(root, &st) != 0 || !S_ISDIR(st.st_mode)) {
		c = add(cs, "log root", LVL_WARN);
		snprintf(c->detail, sizeof(c->detail), "%.500s: %s", root,
			 errno == ENOENT ? "does not exist yet" : "not a directory");
		snprintf(c->fix, sizeof(c->fix),
			 "create it on the filesystem the compute nodes share, writable by %s "
			 "(or set runtime.log_root)",
			 user ? user : "the job user");
		return;
	}
	if (geteuid() == 0 && user && me && strcmp(user, me->pw_name) != 0) {
		/* A root controller gives each run directory it creates to slurmrestd.user. */
		c = add(cs, "log root", LVL_OK);
		snprintf(c->detail, sizeof(c->detail),
			 "%.500s: writable by root, which gives each run directory to job user "
			 "%.64s",
			 root, user);
		return;
	}
	if (!user || (me && !strcmp(user, me->pw_name))) {
		ok = faccessat(AT_FDCWD, root, W_OK | X_OK, AT_EACCESS) == 0;
		c = add(cs, "log root", ok ? LVL_OK : LVL_FAIL);
		snprintf(c->detail, sizeof(c->detail), "%.500s: %swritable by %.64s", root,
			 ok ? "" : "NOT ", user ? user : "this user");
	} else if (!(pw = getpwnam(user))) {
		c = add(cs, "log root", LVL_WARN);
		snprintf(c->detail, sizeof(c->detail),
			 "%.500s: job user %.64s is unknown on this host", root, user);
		snprintf(c->fix, sizeof(c->fix), "check slurmrestd.user and the token's user");
		return;
	} else {
		ok = mode_allows(&st, pw);
		c = add(cs, "log root", ok ? LVL_OK : LVL_FAIL);
		snprintf(c->detail, sizeof(c->detail),
			 "%.500s: %swritable by job user %.64s (mode %03o)", root, ok ? "" : "NOT ",
			 user, (unsigned)(st.st_mode & 0777));
	}
	if (!ok)
		snprintf(c->fix, sizeof(c->fix),
			 "make it writable by %s (chown/chmod), or set runtime.log_root", user);
}

static void print_checks(const struct checks *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		const struct check *c = &cs->v[i];

		printf("%-4s %-15s %s%s%s\n", level_names[c->level], c->name, c->detail,
		       c->fix[0] ? "; to fix: " : "", c->fix);
	}
}

static json_t *checks_json(const struct checks *cs)
{
	json_t *a = json_array();

	for (size_t i = 0; i < cs->n; i++) {
		const struct check *c = &cs->v[i];

		json_array_append_new(a,
				      json_pack("{s:s, s:s, s:s, s:o}", "check", c->name, "status",
						level_names[c->level], "detail", c->detail, "fix",
						c->fix[0] ? json_string(c->fix) : json_null()));
	}
	return a;
}

int srt_cmd_doctor(int argc, char **argv)
{
	enum {
		OPT_URL = 256,
		OPT_API,
		OPT_DB,
	};
	static const struct option opts[] = {
		{ "url", required_argument, NULL, OPT_URL },
		{ "api-version", required_argument, NULL, OPT_API },
		{ "db", required_argument, NULL, OPT_DB },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *url_arg = NULL, *api_arg = NULL, *db_arg = NULL;
	enum srt_output fmt = SRT_OUT_TEXT;
	struct srt_cluster cluster;
	struct srt_cli_slurm sc;
	struct srt_slurm *s = NULL;
	struct srt_slurm_info info;
	struct srt_slurm_stats stats;
	struct srt_error err;
	struct checks cs = { .n = 0 };
	struct check *chk;
	const char *cfg_path = NULL;
	char *shown_url = NULL; /* the URL, its password masked */
	char *db = NULL, *root = NULL;
	int64_t now_ms = srt_clock_now(srt_clock_system());
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
		case OPT_DB:
			db_arg = optarg;
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

	chk = add(&cs, "cluster config", cfg_path ? LVL_OK : LVL_WARN);
	snprintf(chk->detail, sizeof(chk->detail), "%s",
		 cfg_path ? cfg_path : "none: built-in defaults (no ./srtslurm.yaml)");
	if (!cfg_path)
		snprintf(chk->fix, sizeof(chk->fix), "write one, or name it with $SRTSLURM_CONFIG");
	db = srt_cli_db_path(db_arg);
	if (db) {
		check_database(&cs, db);
		check_controller(&cs, db, now_ms);
	} else {
		chk = add(&cs, "database", LVL_FAIL);
		snprintf(chk->detail, sizeof(chk->detail), "no path (no home directory)");
		snprintf(chk->fix, sizeof(chk->fix), "pass --db PATH or set $SRTCTL_DB");
	}
	chk = add(&cs, "slurmrestd", rc == 0 ? LVL_OK : LVL_FAIL);
	if (shown_url)
		snprintf(chk->detail, sizeof(chk->detail), "%.400s (from %s): %s%s%s", shown_url,
			 sc.url_origin, rc == 0 ? "usable" : "NOT usable (",
			 rc == 0 ? "" : srt_slurm_rc_name(rc), rc == 0 ? "" : ")");
	else
		snprintf(chk->detail, sizeof(chk->detail), "not configured");
	if (rc != 0)
		snprintf(chk->fix, sizeof(chk->fix), "%s", fix_hint(rc));
	check_token(&cs, &sc, &info, now_ms / 1000);
	root = srt_cli_absolute("doctor", cluster.log_root);
	check_log_root(&cs, root, &sc, &info);

	if (fmt == SRT_OUT_JSON) {
		json_t *o = json_object();
		char *text;

		json_object_set_new(o, "checks", checks_json(&cs));
		json_object_set_new(o, "cluster_config",
				    cfg_path ? json_string(cfg_path) : json_null());
		json_object_set_new(o, "database", db ? json_string(db) : json_null());
		json_object_set_new(o, "log_root", root ? json_string(root) : json_null());
		json_object_set_new(o, "url", shown_url ? json_string(shown_url) : json_null());
		json_object_set_new(o, "url_from",
				    sc.url_origin ? json_string(sc.url_origin) : json_null());
		json_object_set_new(o, "api_version",
				    info.api_version[0] ? json_string(info.api_version) :
							  json_null());
		json_object_set_new(o, "api_version_from",
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
		print_checks(&cs);
		if (info.api_version[0])
			printf("     %-15s %s (%s)\n", "api version", info.api_version,
			       sc.api_origin ? sc.api_origin : "the newest the server serves");
		else
			printf("     %-15s %s\n", "api version", "unknown");
		printf("     %-15s %s\n", "slurm release",
		       info.release[0] ? info.release : "unknown");
		if (info.cluster[0])
			printf("     %-15s %s\n", "cluster", info.cluster);
		if (info.controller[0])
			printf("     %-15s %s %s\n", "slurmctld", info.controller,
			       info.controller_up ? "up" : "DOWN");
		printf("     %-15s %s\n", "auth",
		       info.auth_ok	     ? "works" :
		       rc == SRT_SLURM_EAUTH ? "REJECTED" :
					       "unknown");
		printf("     %-15s %llu\n", "requests", (unsigned long long)stats.requests);
		if (rc != 0) {
			fprintf(stderr, "srtctl doctor: %s\n", err.msg);
			fprintf(stderr, "srtctl doctor: to fix: %s\n", fix_hint(rc));
		}
	}
	for (size_t i = 0; i < cs.n; i++)
		if (cs.v[i].level == LVL_FAIL)
			exit_code = SRT_EXIT_INVALID;
	srt_slurm_free(s);
	free(shown_url);
	free(root);
	free(db);
	srt_cluster_release(&cluster);
	return exit_code;
}
