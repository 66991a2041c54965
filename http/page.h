/*
 * http/page.h: "/", the read-only status page.
 *
 * Server-rendered HTML, no script at all: a <meta http-equiv="refresh">
 * reloads it.  Each campaign links to its report (campaigns/NAME/report,
 * served by http/server.c from report/report.h: Chart.js inlined from the
 * local file, nothing from the network).  Every value from the database (names come from users, run
 * messages from agents) goes through srt_buf_html().  Tables are bounded:
 * the newest SRT_PAGE_ROWS rows of each, and the newest SRT_PAGE_EVENTS
 * events.
 */
#ifndef SRT_HTTP_PAGE_H
#define SRT_HTTP_PAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "store/store.h"
#include "util/buf.h"
#include "util/err.h"

#define SRT_PAGE_ROWS 500
#define SRT_PAGE_EVENTS 50

/* What the page says about the controller itself (above the tables). */
struct srt_page_info {
	int64_t now;	      /* Unix ms */
	int64_t last_pass_at; /* Unix ms; 0: no pass yet */
	int refresh_seconds;
	const char *health; /* "ok" or why not (escaped here) */
};

/*
 * Is `name` one that a URL path carries as it is (1 to 128 of A-Z a-z 0-9
 * . _ -, not "." or "..")?  Every name srtctl accepts is; one that is not
 * gets no link and no route.
 */
bool srt_http_name_ok(const char *name);

/*
 * The page into `b`, from the database `s`.  -1 with err set when the
 * database cannot be read.
 */
int srt_page_render(struct srt_buf *b, struct srt_store *s, const struct srt_page_info *info,
		    struct srt_error *err);

#endif
