/*
 * cli/cmd_controller.c: `srtctl controller`, the reconcile loop.
 *
 * Parses the options, takes the database's controller lock (one controller
 * per database), opens the store and the slurmrestd client, and prints.  The
 * loop itself (interval, signals, back-off while slurmrestd does not answer,
 * --once) is srt_controller_run() in controller/.  Under systemd
 * (Type=notify) it reports through service/sdnotify.h: READY=1 after the
 * first pass, STATUS= with each pass's summary, WATCHDOG=1 after each pass
 * and while it waits, STOPPING=1 once a signal stopped the loop.
 */
#include "cli/cli.h"
#include "controller/controller.h"
#include "service/sdnotify.h"
#include "http/server.h"
#include "notify/notify.h"
#include "util/buf.h"
#include "util/clock.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: srtctl controller [--once] [--interval DURATION] [--db PATH] [--url URL]\n"
	"                         [--listen [ADDR:]PORT [--listen-public]]\n"
	"\n"
	"Reconcile the recipes in the state database against SLURM: create a run for each\n"
	"new recipe generation, render its plan and batch script into its run directory,\n"
	"submit it through slurmrestd, follow its job and its agent, cancel what was\n"
	"deleted, and record every decision as an event. One line per decision is logged\n"
	"to stderr. One controller per database: a second one exits 1.\n"
	"\n"
	"Options:\n"
	"      --once               run one pass and exit\n"
	"      --interval DURATION  time between passes (default 5s)\n"
	"      --db PATH            the state database (default: $SRTCTL_DB, then\n"
	"                           ~/.local/state/srtctl/srtctl.db)\n"
	"      --url URL            slurmrestd (default: $SRTCTL_SLURMRESTD_URL, then\n"
	"                           slurmrestd.url in srtslurm.yaml)\n"
	"      --listen [ADDR:]PORT serve /metrics (Prometheus), /healthz, /readyz and a\n"
	"                           read-only status page at / over HTTP (off by default;\n"
	"                           without ADDR: 127.0.0.1; PORT 0: any free port, printed\n"
	"                           in the start line), with each campaign's report at\n"
	"                           /campaigns/NAME/report (Chart.js from $SRTCTL_CHARTJS,\n"
	"                           else Debian's libjs-chart.js)\n"
	"      --listen-public      allow a --listen address that is not loopback (the\n"
	"                           server has no authentication: prefer a proxy)\n"
	"  -v, --verbose            also log a line per pass\n"
	"  -h, --help               show this help\n"
	"\n"
	"Run directories go under runtime.log_root of srtslurm.yaml (default ./outputs); it\n"
	"must be on a filesystem the compute nodes share. SIGTERM or SIGINT stop the\n"
	"controller between passes; it resumes where it was when started again.\n"
	"\n"
	"Under systemd (a Type=notify unit; $NOTIFY_SOCKET set) it reports READY=1 after\n"
	"its first pass, the last pass's summary as STATUS=, WATCHDOG=1 at half the\n"
	"unit's WatchdogSec (also while it waits between passes) and STOPPING=1 on\n"
	"SIGTERM. Without systemd none of this is sent.\n"
	"With notify: in srtslurm.yaml, a run that Failed, a service in CrashLoopBackOff and\n"
	"a campaign that ended are sent to notify.command as one JSON event on stdin; a\n"
	"campaign's own notify: gets the events of that campaign too (docs/operations.md).\n"
	"\n"
	"Exit codes: 0 stopped by a signal (or --once done), 1 cannot run (invalid cluster\n"
	"config, lock held, no slurmrestd configured, the --listen address cannot be\n"
	"bound), 2 usage or an I/O or database error\n"
	"(the cluster config cannot be read, the database cannot be opened, a --once pass\n"
	"failed).\n";

struct printer {
	bool verbose;
	bool ready;    /* READY=1 was sent */
	bool watchdog; /* systemd's watchdog is on: ping it */
	int lock_fd;   /* the controller lock: each pass's end is noted in it */
	const char *db, *url, *root;
	/* Hooked onto the loop after each pass (both may be NULL). */
	struct srt_http_server *http;
	struct srt_notifier *notifier;
	struct srt_store *store;
	struct srt_slurm_client *slurm;
	struct srt_metrics_loop loop; /* accumulated here, published to the server */
	struct srt_sdnotify sd;	      /* systemd, when under a Type=notify unit */
	char listen[96];
};

/* The start line, printed once a signal stops the loop cleanly (tests wait for it). */
static void print_start(void *arg)
{
	const struct printer *p = arg;

	fprintf(stderr,
		"srtctl controller: database %s, slurmrestd %s, run directories in %s%s%s\n", p->db,
		p->url, p->root, p->http ? ", http on " : "", p->http ? p->listen : "");
}

/* One non-blocking step of the notifier: settle the running command, start the next. */
static void notify_step(void *arg)
{
	struct printer *p = arg;
	struct srt_notify_step ns;
	struct srt_error err;

	if (!p->notifier)
		return;
	if (srt_notifier_step(p->notifier, p->store, srt_store_now(p->store), &ns, &err) != 0)
		fprintf(stderr, "srtctl controller: notify: %s\n", err.msg);
	p->loop.notifications_delivered += ns.delivered;
	p->loop.notifications_failed += ns.failed;
}

/* After each pass: notifications, then the numbers for /metrics. */
static void after_pass(void *arg, int rc, const struct srt_pass_stats *st, int64_t next_wait_ms)
{
	struct printer *p = arg;
	struct srt_slurm_stats ss;

	notify_step(p);
	if (!p->http)
		return;
	srt_metrics_loop_observe(&p->loop, rc == 0, st->usec);
	p->loop.actions += st->actions;
	p->loop.action_errors += st->action_errors;
	p->loop.events_ingested += st->events_ingested;
	p->loop.slurm_known = st->slurm_known;
	if (st->slurm_rc < 0 && st->slurm_rc > -SRT_METRICS_SLURM_CODES)
		p->loop.listing_failures[-st->slurm_rc]++;
	srt_slurm_client_stats(p->slurm, &ss);
	p->loop.slurm_requests = ss.requests;
	p->loop.slurm_failures = ss.failures;
	p->loop.last_pass_at = srt_store_now(p->store);
	srt_http_server_publish(p->http, &p->loop, next_wait_ms);
}

/* One line on a pass: its counts and costs, for stderr and systemd's STATUS=. */
static void pass_summary(const struct srt_pass_stats *st, char *buf, size_t n)
{
	snprintf(buf, n,
		 "pass: %zu run(s), %zu action(s), %zu event(s) ingested, %llu slurmrestd "
		 "call(s), %.1f ms (cpu %.1f ms, max rss %.1f MiB)%s",
		 st->runs, st->actions, st->events_ingested, (unsigned long long)st->slurm_calls,
		 (double)st->usec / 1000.0, (double)st->cpu_usec / 1000.0,
		 (double)st->max_rss_kb / 1024.0, st->slurm_known ? "" : " (SLURM unknown)");
}

/*
 * After each pass: a failure always, the stats line when asked or when it
 * acted; to systemd the same line as STATUS= (READY=1 with the first) and a
 * watchdog ping.
 */
static void print_pass(void *arg, int rc, const struct srt_pass_stats *st,
		       const struct srt_error *err)
{
	struct printer *p = arg;
	char line[512], status[640];

	srt_store_lock_note_pass(p->lock_fd, srt_clock_now(srt_clock_system()));
	pass_summary(st, line, sizeof(line));
	if (rc != 0)
		fprintf(stderr, "srtctl controller: pass failed: %s\n", err->msg);
	else if (p->verbose || st->actions)
		fprintf(stderr, "srtctl controller: %s\n", line);
	if (rc != 0)
		snprintf(status, sizeof(status), "last pass failed: %.600s", err->msg);
	else
		snprintf(status, sizeof(status), "last %s", line);
	if (!p->ready)
		srt_sdnotify_ready(&p->sd, status);
	else
		srt_sdnotify_status(&p->sd, status);
	p->ready = true;
	if (p->watchdog)
		srt_sdnotify_watchdog(&p->sd);
}

/* While the loop waits between passes (every half watchdog period). */
static void ping_watchdog(void *arg)
{
	struct printer *p = arg;

	srt_sdnotify_watchdog(&p->sd);
}

int srt_cmd_controller(int argc, char **argv)
{
	enum {
		OPT_DB = 256,
		OPT_URL,
		OPT_INTERVAL,
		OPT_ONCE,
		OPT_LISTEN,
		OPT_LISTEN_PUBLIC
	};
	static const struct option opts[] = {
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "db", required_argument, NULL, OPT_DB },
		{ "url", required_argument, NULL, OPT_URL },
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "listen-public", no_argument, NULL, OPT_LISTEN_PUBLIC },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db_arg = NULL, *url_arg = NULL, *listen_arg = NULL;
	bool once = false, verbose = false, listen_public = false;
	struct srt_http_listen listen;
	int64_t interval = 5000;
	struct srt_cluster cluster;
	struct srt_cli_slurm sc;
	struct srt_controller *ctl = NULL;
	struct printer pr = { .lock_fd = -1 };
	int64_t watchdog_ms = 0;
	struct srt_store *store = NULL;
	struct srt_slurm_client *slurm = NULL;
	struct srt_error err;
	char *db = NULL, *root = NULL;
	int lock_fd = -1, c, rc = SRT_EXIT_INVALID;

	optind = 1;
	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case OPT_ONCE:
			once = true;
			break;
		case OPT_INTERVAL:
			if (srt_duration_parse(optarg, &interval) == SRT_DURATION_TOO_LONG)
				return srt_cli_usage_error("controller",
							   "--interval '%s' is longer than the "
							   "longest duration srtctl accepts, "
							   SRT_DURATION_MAX_TEXT,
							   optarg);
			if (srt_duration_parse(optarg, &interval) != 0 || interval < 100)
				return srt_cli_usage_error("controller",
							   "--interval '%s' is not a duration of at "
							   "least 100ms (e.g. 5s, 1m)",
							   optarg);
			break;
		case OPT_DB:
			db_arg = optarg;
			break;
		case OPT_URL:
			url_arg = optarg;
			break;
		case OPT_LISTEN:
			listen_arg = optarg;
			break;
		case OPT_LISTEN_PUBLIC:
			listen_public = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return SRT_EXIT_OK;
		default:
			return srt_cli_usage_error("controller", "unknown option");
		}
	}
	if (optind < argc)
		return srt_cli_usage_error("controller", "unexpected argument '%s'", argv[optind]);
	if (listen_public && !listen_arg)
		return srt_cli_usage_error("controller",
					   "--listen-public needs --listen ADDR:PORT");
	if (listen_arg && srt_http_listen_parse(listen_arg, listen_public, &listen, &err) != 0)
		return srt_cli_usage_error("controller", "%s", err.msg);
	rc = srt_cli_load_cluster("controller", &cluster, true);
	if (rc != SRT_EXIT_OK)
		goto out;
	rc = SRT_EXIT_INVALID;
	db = srt_store_default_path(db_arg);
	if (!db) {
		fprintf(stderr, "srtctl controller: no database path: pass --db PATH or set "
				"$SRTCTL_DB\n");
		goto out;
	}
	lock_fd = srt_store_lock_acquire(db, &err);
	if (lock_fd < 0) {
		fprintf(stderr, "srtctl controller: %s\n", err.msg);
		goto out;
	}
	if (srt_store_open(&store, db, SRT_STORE_CREATE, NULL, &err) != 0) {
		fprintf(stderr, "srtctl controller: %s\n", err.msg);
		rc = SRT_EXIT_USAGE; /* a database error */
		goto out;
	}
	srt_cli_slurm_config(&sc, &cluster, url_arg, NULL);
	if (!sc.cfg.url) {
		fprintf(stderr, "srtctl controller: no slurmrestd configured: pass --url, set "
				"$SRTCTL_SLURMRESTD_URL, or set slurmrestd.url in srtslurm.yaml "
				"(`srtctl doctor` checks it)\n");
		goto out;
	}
	if (srt_slurm_client_restd_new(&slurm, &sc.cfg, &err) != 0) {
		fprintf(stderr, "srtctl controller: %s\n", err.msg);
		goto out;
	}
	root = srt_cli_run_root("controller", &cluster);
	if (!root)
		goto out;
	if (srt_controller_new(&ctl,
			       &(struct srt_controller_config){
				       .store = store,
				       .slurm = slurm,
				       .cluster = &cluster,
				       .run_root = root,
				       .srtctl = cluster.commands[SRT_CMD_SRTCTL].v,
				       .nsrtctl = cluster.commands[SRT_CMD_SRTCTL].n,
				       .log = stderr,
			       },
			       &err) != 0) {
		fprintf(stderr, "srtctl controller: %s\n", err.msg);
		goto out;
	}
	if (srt_notifier_new(&pr.notifier,
			     &(struct srt_notify_config){
				     .argv = cluster.notify.command.v,
				     .argc = cluster.notify.command.n,
				     .timeout_ms = cluster.notify.timeout_ms,
				     .backoff_ms = cluster.notify.backoff_ms,
				     .max_attempts = cluster.notify.max_attempts,
				     .log = stderr,
			     },
			     &err) != 0) {
		fprintf(stderr, "srtctl controller: %s\n", err.msg);
		goto out;
	}
	if (listen_arg) {
		if (srt_http_server_start(
			    &pr.http,
			    &(struct srt_http_config){
				    .listen = listen,
				    .db_path = db,
				    .interval_ms = interval,
				    .grace_ms =
					    2LL * (sc.cfg.timeout_ms ? sc.cfg.timeout_ms : 30000),
				    .chartjs = getenv("SRTCTL_CHARTJS") &&
							       *getenv("SRTCTL_CHARTJS") ?
						       getenv("SRTCTL_CHARTJS") :
						       NULL,
			    },
			    &err) != 0) {
			fprintf(stderr, "srtctl controller: %s\n", err.msg);
			goto out;
		}
		snprintf(pr.listen, sizeof(pr.listen), "%.*s%u",
			 (int)(strrchr(listen.text, ':') - listen.text + 1), listen.text,
			 (unsigned)srt_http_server_port(pr.http));
	}
	{
		char why[512];

		if (srt_sdnotify_open(&pr.sd, why, sizeof(why)) != 0)
			fprintf(stderr,
				"srtctl controller: warning: %s; systemd will not hear "
				"that the controller is ready\n",
				why);
		watchdog_ms = srt_sdnotify_watchdog_ms(&pr.sd);
	}
	pr.store = store;
	pr.slurm = slurm;
	pr.verbose = verbose;
	pr.watchdog = watchdog_ms > 0;
	pr.lock_fd = lock_fd;
	pr.db = db;
	pr.url = srt_slurm_client_url(slurm);
	pr.root = root;
	if (srt_controller_run(ctl,
			       &(struct srt_controller_loop){ .interval_ms = interval,
							      .once = once,
							      .on_start = print_start,
							      .on_pass = print_pass,
							      .tick_ms = watchdog_ms,
							      .on_tick = ping_watchdog,
							      .after_pass = after_pass,
							      .idle = notify_step,
							      .arg = &pr },
			       &err) != 0) {
		rc = SRT_EXIT_USAGE; /* a --once pass failed (a database error) */
		goto out;
	}
	srt_sdnotify_stopping(&pr.sd, once ? "stopping: --once done" :
					     "stopping: a signal stopped the loop");
	fprintf(stderr, "srtctl controller: stopped\n");
	rc = SRT_EXIT_OK;
out:
	srt_sdnotify_close(&pr.sd);
	srt_http_server_stop(pr.http);
	srt_notifier_free(pr.notifier);
	srt_controller_free(ctl);
	srt_slurm_client_free(slurm);
	srt_store_close(store);
	if (lock_fd >= 0)
		srt_store_lock_release(lock_fd);
	srt_cluster_release(&cluster);
	free(root);
	free(db);
	return rc;
}
