/*
 * http/page.c: the status page (see http/page.h).  Reads recipes, runs,
 * services, workers, events and campaigns through the store and writes
 * one HTML document; nothing here writes to the database.
 */
#include "http/page.h"
#include "util/clock.h"

#include <stdio.h>
#include <string.h>

static void cell(struct srt_buf *b, const char *s)
{
	srt_buf_puts(b, "<td>");
	srt_buf_html(b, s ? s : "");
	srt_buf_puts(b, "</td>");
}

static void cell_int(struct srt_buf *b, int64_t v, bool unset_zero)
{
	if (unset_zero && v == 0)
		srt_buf_puts(b, "<td></td>");
	else
		srt_buf_printf(b, "<td>%lld</td>", (long long)v);
}

static void cell_time(struct srt_buf *b, int64_t ms)
{
	char t[64] = "";

	if (ms > 0)
		srt_time_rfc3339(ms, t, sizeof(t));
	cell(b, t);
}

static void table_head(struct srt_buf *b, const char *id, const char *title, size_t n,
		       const char *const *cols)
{
	srt_buf_printf(b, "<h2 id=\"%s\">%s (%zu)</h2>\n<table id=\"%s-table\"><tr>", id, title, n,
		       id);
	for (size_t i = 0; cols[i]; i++)
		srt_buf_printf(b, "<th>%s</th>", cols[i]);
	srt_buf_puts(b, "</tr>\n");
}

static size_t first_shown(size_t n)
{
	return n > SRT_PAGE_ROWS ? n - SRT_PAGE_ROWS : 0;
}

static void more_note(struct srt_buf *b, size_t n)
{
	if (n > SRT_PAGE_ROWS)
		srt_buf_printf(b,
			       "<p>%zu older rows not shown; `srtctl get` lists every row.</p>\n",
			       n - SRT_PAGE_ROWS);
}

static int recipes(struct srt_buf *b, struct srt_store *s, struct srt_error *err)
{
	struct srt_recipe_row *r = NULL;
	size_t n = 0;

	if (srt_store_recipe_list(s, false, &r, &n, err) != 0)
		return -1;
	table_head(b, "recipes", "Recipes", n,
		   (const char *const[]){ "name", "generation", "applied", "source", NULL });
	for (size_t i = first_shown(n); i < n; i++) {
		srt_buf_puts(b, "<tr>");
		cell(b, r[i].name);
		cell_int(b, r[i].generation, false);
		cell_time(b, r[i].applied_at);
		cell(b, r[i].source_file);
		srt_buf_puts(b, "</tr>\n");
	}
	srt_buf_puts(b, "</table>\n");
	more_note(b, n);
	srt_recipe_rows_free(r, n);
	return 0;
}

static int runs(struct srt_buf *b, struct srt_store *s, struct srt_error *err)
{
	struct srt_run_row *r = NULL;
	size_t n = 0;

	if (srt_store_run_list(s, NULL, &r, &n, err) != 0)
		return -1;
	table_head(b, "runs", "Runs", n,
		   (const char *const[]){ "name", "recipe", "phase", "generation", "attempt", "job",
					  "slurm state", "exit", "updated", "message", NULL });
	for (size_t i = first_shown(n); i < n; i++) {
		srt_buf_printf(b, "<tr class=\"phase-");
		srt_buf_html(b, r[i].phase);
		srt_buf_puts(b, "\">");
		cell(b, r[i].name);
		cell(b, r[i].recipe);
		cell(b, r[i].phase);
		cell_int(b, r[i].generation, false);
		cell_int(b, r[i].attempt, false);
		cell_int(b, r[i].slurm_job_id, true);
		cell(b, r[i].slurm_state);
		if (r[i].exit_code < 0)
			cell(b, "");
		else
			cell_int(b, r[i].exit_code, false);
		cell_time(b, r[i].updated_at);
		cell(b, r[i].message);
		srt_buf_puts(b, "</tr>\n");
	}
	srt_buf_puts(b, "</table>\n");
	more_note(b, n);
	srt_run_rows_free(r, n);
	return 0;
}

static int services(struct srt_buf *b, struct srt_store *s, struct srt_error *err)
{
	struct srt_service_row *r = NULL;
	size_t n = 0;

	if (srt_store_service_list(s, NULL, NULL, &r, &n, err) != 0)
		return -1;
	table_head(b, "services", "Services", n,
		   (const char *const[]){ "run", "name", "type", "node", "endpoint", "state",
					  "restarts", "message", NULL });
	for (size_t i = first_shown(n); i < n; i++) {
		srt_buf_puts(b, "<tr>");
		cell(b, r[i].run);
		cell(b, r[i].name);
		cell(b, r[i].type);
		cell(b, r[i].node);
		cell(b, r[i].endpoint);
		cell(b, r[i].state);
		cell_int(b, r[i].restarts, false);
		cell(b, r[i].message);
		srt_buf_puts(b, "</tr>\n");
	}
	srt_buf_puts(b, "</table>\n");
	more_note(b, n);
	srt_service_rows_free(r, n);
	return 0;
}

static int workers(struct srt_buf *b, struct srt_store *s, struct srt_error *err)
{
	struct srt_worker_row *r = NULL;
	size_t n = 0;

	if (srt_store_worker_list(s, NULL, &r, &n, err) != 0)
		return -1;
	table_head(b, "workers", "Workers", n,
		   (const char *const[]){ "run", "role", "index", "node", "ip", "state", "restarts",
					  "message", NULL });
	for (size_t i = first_shown(n); i < n; i++) {
		srt_buf_puts(b, "<tr>");
		cell(b, r[i].run);
		cell(b, r[i].role);
		cell_int(b, r[i].idx, false);
		cell(b, r[i].node);
		cell(b, r[i].ip);
		cell(b, r[i].state);
		cell_int(b, r[i].restarts, false);
		cell(b, r[i].message);
		srt_buf_puts(b, "</tr>\n");
	}
	srt_buf_puts(b, "</table>\n");
	more_note(b, n);
	srt_worker_rows_free(r, n);
	return 0;
}

static int events(struct srt_buf *b, struct srt_store *s, struct srt_error *err)
{
	struct srt_event_row *r = NULL;
	struct srt_event_filter f = { .limit = SRT_PAGE_EVENTS };
	size_t n = 0;

	if (srt_store_event_list(s, &f, &r, &n, err) != 0)
		return -1;
	table_head(b, "events", "Recent events", n,
		   (const char *const[]){ "last seen", "type", "reason", "object", "count",
					  "message", NULL });
	for (size_t i = n; i-- > 0;) { /* newest first */
		srt_buf_puts(b, "<tr>");
		cell_time(b, r[i].last_at);
		cell(b, r[i].type);
		cell(b, r[i].reason);
		srt_buf_puts(b, "<td>");
		srt_buf_html(b, r[i].kind);
		srt_buf_putc(b, '/');
		srt_buf_html(b, r[i].name);
		srt_buf_puts(b, "</td>");
		cell_int(b, r[i].count, false);
		cell(b, r[i].message);
		srt_buf_puts(b, "</tr>\n");
	}
	srt_buf_puts(b, "</table>\n");
	srt_event_rows_free(r, n);
	return 0;
}

bool srt_http_name_ok(const char *name)
{
	size_t len = name ? strlen(name) : 0;

	if (!len || len > 128 || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") ==
	       len;
}

static int campaigns(struct srt_buf *b, struct srt_store *s, struct srt_error *err)
{
	struct srt_campaign_row *r = NULL;
	size_t n = 0, live = 0;

	if (srt_store_campaign_list(s, &r, &n, err) != 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		live += r[i].deleted_at == 0;
	if (live) {
		table_head(b, "campaigns", "Campaigns", live,
			   (const char *const[]){ "name", "state", "points done", "running",
						  "failed", "invalid", "deployments", "updated",
						  "report", NULL });
		for (size_t i = 0; i < n; i++) {
			const struct srt_campaign_row *c = &r[i];
			int64_t total = c->pending + c->running + c->done + c->failed + c->invalid;

			if (c->deleted_at)
				continue;
			srt_buf_puts(b, "<tr>");
			cell(b, c->name);
			cell(b, c->state);
			srt_buf_printf(b, "<td>%lld / %lld</td>", (long long)c->done,
				       (long long)total);
			cell_int(b, c->running, false);
			cell_int(b, c->failed, false);
			cell_int(b, c->invalid, false);
			cell_int(b, c->deployments, false);
			cell_time(b, c->updated_at);
			/* A relative link (works behind a proxy's prefix); names are URL-safe. */
			if (srt_http_name_ok(c->name)) {
				srt_buf_puts(b, "<td><a href=\"campaigns/");
				srt_buf_html(b, c->name);
				srt_buf_puts(b, "/report\">report</a></td>");
			} else {
				cell(b, "");
			}
			srt_buf_puts(b, "</tr>\n");
		}
		srt_buf_puts(b, "</table>\n");
	}
	srt_campaign_rows_free(r, n);
	return 0;
}

static const char STYLE[] =
	"body{font-family:sans-serif;margin:1em 2em}table{border-collapse:collapse;"
	"margin-bottom:1em}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;"
	"vertical-align:top;white-space:pre-wrap}th{background:#eee}"
	".phase-Failed td{background:#fdd}.phase-Ready td{background:#dfd}";

int srt_page_render(struct srt_buf *b, struct srt_store *s, const struct srt_page_info *info,
		    struct srt_error *err)
{
	char now[64] = "", last[64] = "never";

	srt_time_rfc3339(info->now, now, sizeof(now));
	if (info->last_pass_at > 0)
		srt_time_rfc3339(info->last_pass_at, last, sizeof(last));
	srt_buf_printf(b,
		       "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		       "<meta http-equiv=\"refresh\" content=\"%d\">\n"
		       "<title>srtctl controller</title>\n<style>%s</style></head>\n<body>\n"
		       "<h1>srtctl controller</h1>\n<p id=\"summary\">Page made %s; last pass "
		       "%s; health: <span id=\"health\">",
		       info->refresh_seconds, STYLE, now, last);
	srt_buf_html(b, info->health);
	srt_buf_puts(b, "</span>. Read-only; <a href=\"/metrics\">/metrics</a>, "
			"<a href=\"/healthz\">/healthz</a>.</p>\n");
	if (recipes(b, s, err) != 0 || runs(b, s, err) != 0 || services(b, s, err) != 0 ||
	    workers(b, s, err) != 0 || campaigns(b, s, err) != 0 || events(b, s, err) != 0)
		return -1;
	srt_buf_puts(b, "</body></html>\n");
	return 0;
}
