/*
 * util/diff.c: Myers' shortest edit script and the unified diff format.
 *
 * The texts are split into lines (a line keeps its '\n', so a last line
 * without one differs from the same line with one, as in GNU diff).  The
 * common prefix and suffix are matched first; the middle goes through the
 * greedy forward algorithm of Myers (1986), which keeps, for each edit
 * count d, the furthest point reached on every diagonal.  Those rows are
 * kept (d^2 integers in all) so the path can be walked back.  Past
 * SRT_DIFF_MAX_EDITS the middle is reported as delete-all, insert-all.
 */
#include "util/diff.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct line {
	const char *s;
	size_t len; /* including the '\n' when there is one */
	uint64_t hash;
};

struct lines {
	struct line *v;
	size_t n;
};

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

static void split_lines(const char *text, struct lines *out)
{
	size_t cap = 0;
	const char *p = text ? text : "";

	out->v = NULL;
	out->n = 0;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);

		if (out->n == cap) {
			cap = cap ? cap * 2 : 64;
			out->v = srt_xrealloc(out->v, cap * sizeof(*out->v));
		}
		out->v[out->n].s = p;
		out->v[out->n].len = len;
		out->v[out->n].hash = hash_bytes(p, len);
		out->n++;
		p += len;
	}
}

static bool line_eq(const struct line *x, const struct line *y)
{
	return x->hash == y->hash && x->len == y->len && !memcmp(x->s, y->s, x->len);
}

struct script {
	struct srt_diff_edit *v;
	size_t n, cap;
};

static void push(struct script *sc, enum srt_diff_op op, size_t a, size_t b)
{
	if (sc->n == sc->cap) {
		sc->cap = sc->cap ? sc->cap * 2 : 64;
		sc->v = srt_xrealloc(sc->v, sc->cap * sizeof(*sc->v));
	}
	sc->v[sc->n].op = op;
	sc->v[sc->n].a = a;
	sc->v[sc->n].b = b;
	sc->n++;
}

/*
 * Myers on a[0..n) and b[0..m) (the middle, offsets a0/b0 added to the
 * output).  Appends the script in reverse order to `rev`; returns false
 * when more than SRT_DIFF_MAX_EDITS edits would be needed.
 */
static bool myers(const struct line *a, size_t n, const struct line *b, size_t m, size_t a0,
		  size_t b0, struct script *rev)
{
	long N = (long)n, M = (long)m;
	long maxd = N + M < (long)SRT_DIFF_MAX_EDITS ? N + M : (long)SRT_DIFF_MAX_EDITS;
	long off = maxd + 1, D = -1;
	long *v = NULL, *trace = NULL;
	size_t tcap = 0;
	bool ok = false;

	v = srt_xcalloc((size_t)(2 * maxd + 3), sizeof(*v));
	v[off + 1] = 0;
	for (long d = 0; d <= maxd && D < 0; d++) {
		for (long k = -d; k <= d; k += 2) {
			long x, y;

			if (k == -d || (k != d && v[off + k - 1] < v[off + k + 1]))
				x = v[off + k + 1];
			else
				x = v[off + k - 1] + 1;
			y = x - k;
			while (x < N && y < M && line_eq(&a[x], &b[y])) {
				x++;
				y++;
			}
			v[off + k] = x;
			if (x >= N && y >= M) {
				D = d;
				break;
			}
		}
		/* Row d holds v[-d..d]: 2d+1 entries starting at d*d. */
		if ((size_t)((d + 1) * (d + 1)) > tcap) {
			tcap = tcap ? tcap * 2 : 256;
			while (tcap < (size_t)((d + 1) * (d + 1)))
				tcap *= 2;
			trace = srt_xrealloc(trace, tcap * sizeof(*trace));
		}
		memcpy(trace + d * d, v + off - d, (size_t)(2 * d + 1) * sizeof(*trace));
	}
	if (D < 0)
		goto out;

	/* Walk back from (N, M) to (0, 0). */
	{
		long x = N, y = M;

		for (long d = D; d > 0; d--) {
			const long *prev =
				trace + (d - 1) * (d - 1) + (d - 1); /* prev[k], |k| < d */
			long k = x - y, pk, px, py, mx, my;

			if (k == -d || (k != d && prev[k - 1] < prev[k + 1]))
				pk = k + 1; /* came down: an insertion */
			else
				pk = k - 1; /* came right: a deletion */
			px = prev[pk];
			py = px - pk;
			mx = pk == k + 1 ? px : px + 1;
			my = pk == k + 1 ? py + 1 : py;
			while (x > mx && y > my) {
				x--;
				y--;
				push(rev, SRT_DIFF_EQUAL, a0 + (size_t)x, b0 + (size_t)y);
			}
			if (pk == k + 1)
				push(rev, SRT_DIFF_INSERT, a0 + (size_t)px, b0 + (size_t)py);
			else
				push(rev, SRT_DIFF_DELETE, a0 + (size_t)px, b0 + (size_t)py);
			x = px;
			y = py;
		}
		while (x > 0 && y > 0) {
			x--;
			y--;
			push(rev, SRT_DIFF_EQUAL, a0 + (size_t)x, b0 + (size_t)y);
		}
	}
	ok = true;
out:
	free(v);
	free(trace);
	return ok;
}

size_t srt_diff_lines(const char *a, const char *b, struct srt_diff_edit **edits, size_t *nedits)
{
	struct lines la, lb;
	struct script sc = { 0 }, rev = { 0 };
	size_t pre = 0, suf = 0, changes = 0;

	split_lines(a, &la);
	split_lines(b, &lb);
	while (pre < la.n && pre < lb.n && line_eq(&la.v[pre], &lb.v[pre]))
		pre++;
	while (suf < la.n - pre && suf < lb.n - pre &&
	       line_eq(&la.v[la.n - 1 - suf], &lb.v[lb.n - 1 - suf]))
		suf++;

	for (size_t i = 0; i < pre; i++)
		push(&sc, SRT_DIFF_EQUAL, i, i);
	{
		size_t n = la.n - pre - suf, m = lb.n - pre - suf;

		if (myers(la.v + pre, n, lb.v + pre, m, pre, pre, &rev)) {
			for (size_t i = rev.n; i-- > 0;)
				push(&sc, rev.v[i].op, rev.v[i].a, rev.v[i].b);
		} else {
			for (size_t i = 0; i < n; i++)
				push(&sc, SRT_DIFF_DELETE, pre + i, pre);
			for (size_t j = 0; j < m; j++)
				push(&sc, SRT_DIFF_INSERT, pre + n, pre + j);
		}
	}
	for (size_t i = 0; i < suf; i++)
		push(&sc, SRT_DIFF_EQUAL, la.n - suf + i, lb.n - suf + i);

	for (size_t i = 0; i < sc.n; i++)
		if (sc.v[i].op != SRT_DIFF_EQUAL)
			changes++;
	free(la.v);
	free(lb.v);
	free(rev.v);
	*edits = sc.v;
	*nedits = sc.n;
	return changes;
}

static void put_range(struct srt_buf *out, size_t start, size_t count)
{
	if (count == 0)
		srt_buf_printf(out, "%zu,0", start);
	else if (count == 1)
		srt_buf_printf(out, "%zu", start + 1);
	else
		srt_buf_printf(out, "%zu,%zu", start + 1, count);
}

static void put_line(struct srt_buf *out, char mark, const struct line *l)
{
	srt_buf_putc(out, mark);
	srt_buf_append(out, l->s, l->len);
	if (!l->len || l->s[l->len - 1] != '\n')
		srt_buf_puts(out, "\n\\ No newline at end of file\n");
}

size_t srt_diff_unified(const char *a, const char *b, const char *label_a, const char *label_b,
			unsigned context, struct srt_buf *out)
{
	struct srt_diff_edit *e = NULL;
	struct lines la, lb;
	size_t ne = 0, changes, i = 0;

	changes = srt_diff_lines(a, b, &e, &ne);
	if (!changes) {
		free(e);
		return 0;
	}
	split_lines(a, &la);
	split_lines(b, &lb);
	srt_buf_printf(out, "--- %s\n+++ %s\n", label_a, label_b);
	while (i < ne) {
		size_t c = i, last, j, start, end, na = 0, nb = 0;

		while (c < ne && e[c].op == SRT_DIFF_EQUAL)
			c++;
		if (c == ne)
			break;
		start = c - i > context ? c - context : i;
		last = c;
		for (j = c; j < ne; j++) {
			if (e[j].op != SRT_DIFF_EQUAL)
				last = j;
			else if (j - last > 2 * (size_t)context)
				break;
		}
		end = last + 1 + context < ne ? last + 1 + context : ne;
		for (j = start; j < end; j++) {
			if (e[j].op != SRT_DIFF_INSERT)
				na++;
			if (e[j].op != SRT_DIFF_DELETE)
				nb++;
		}
		srt_buf_puts(out, "@@ -");
		put_range(out, e[start].a, na);
		srt_buf_puts(out, " +");
		put_range(out, e[start].b, nb);
		srt_buf_puts(out, " @@\n");
		for (j = start; j < end; j++) {
			if (e[j].op == SRT_DIFF_EQUAL)
				put_line(out, ' ', &la.v[e[j].a]);
			else if (e[j].op == SRT_DIFF_DELETE)
				put_line(out, '-', &la.v[e[j].a]);
			else
				put_line(out, '+', &lb.v[e[j].b]);
		}
		i = end;
	}
	free(la.v);
	free(lb.v);
	free(e);
	return changes;
}
