/*
 * tests/unit/test_diff.c: line diffs (util/diff.h).
 *
 * Exact output is pinned for a few cases (hunk headers, context, merging of
 * nearby changes, empty sides, a missing final newline).  Then, for
 * thousands of random pairs of short texts, the edit script must be valid
 * (it turns a into b), minimal (its length is N + M - 2 * LCS, checked
 * against a dynamic-programming LCS), and the unified output, applied as a
 * patch to a, must give b.  A pair past SRT_DIFF_MAX_EDITS must still give a
 * correct diff.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/diff.h"

static char *udiff(const char *a, const char *b, unsigned ctx)
{
	struct srt_buf out;

	srt_buf_init(&out);
	srt_diff_unified(a, b, "a", "b", ctx, &out);
	return srt_buf_detach(&out);
}

static void test_equal(void **state)
{
	char *d;

	(void)state;
	d = udiff("x\ny\n", "x\ny\n", 3);
	assert_string_equal(d, "");
	free(d);
	d = udiff("", "", 3);
	assert_string_equal(d, "");
	free(d);
}

static void test_exact(void **state)
{
	char *d;

	(void)state;
	/* One change in the middle of 9 lines, 3 lines of context. */
	d = udiff("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n", 3);
	assert_string_equal(d, "--- a\n+++ b\n"
			       "@@ -2,7 +2,7 @@\n"
			       " 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n");
	free(d);

	/* Changes 6 equal lines apart share a hunk; 7 apart do not. */
	d = udiff("a\n1\n2\n3\n4\n5\n6\nb\n", "A\n1\n2\n3\n4\n5\n6\nB\n", 3);
	assert_string_equal(d, "--- a\n+++ b\n"
			       "@@ -1,8 +1,8 @@\n"
			       "-a\n+A\n 1\n 2\n 3\n 4\n 5\n 6\n-b\n+B\n");
	free(d);
	d = udiff("a\n1\n2\n3\n4\n5\n6\n7\nb\n", "A\n1\n2\n3\n4\n5\n6\n7\nB\n", 3);
	assert_string_equal(d, "--- a\n+++ b\n"
			       "@@ -1,4 +1,4 @@\n"
			       "-a\n+A\n 1\n 2\n 3\n"
			       "@@ -6,4 +6,4 @@\n"
			       " 5\n 6\n 7\n-b\n+B\n");
	free(d);

	/* From nothing, to nothing (GNU diff's "-0,0" and "+0,0"). */
	d = udiff("", "x\ny\n", 3);
	assert_string_equal(d, "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n");
	free(d);
	d = udiff("x\n", "", 3);
	assert_string_equal(d, "--- a\n+++ b\n@@ -1 +0,0 @@\n-x\n");
	free(d);

	/* Pure insertion after line 2 with no context. */
	d = udiff("1\n2\n3\n", "1\n2\nnew\n3\n", 0);
	assert_string_equal(d, "--- a\n+++ b\n@@ -2,0 +3 @@\n+new\n");
	free(d);

	/* A last line without its newline differs from the same line with one. */
	d = udiff("x\ny", "x\ny\n", 3);
	assert_string_equal(d, "--- a\n+++ b\n@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of "
			       "file\n+y\n");
	free(d);
}

/* ---- random testing against an LCS oracle and a patch applier ---- */

static unsigned long long rng_state = 0x9e3779b97f4a7c15ull;

static unsigned rnd(unsigned n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned)(rng_state % n);
}

#define MAXL 40

static void random_text(char *buf, size_t *nlines, const char **lines)
{
	static const char *const words[] = { "a", "b", "c", "d", "{", "}" };
	size_t n = rnd(MAXL);

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		lines[i] = words[rnd(6)];
		strcat(buf, lines[i]);
		strcat(buf, "\n");
	}
	*nlines = n;
}

static size_t lcs(const char **a, size_t n, const char **b, size_t m)
{
	static size_t t[MAXL + 1][MAXL + 1];

	for (size_t i = 0; i <= n; i++)
		for (size_t j = 0; j <= m; j++) {
			if (!i || !j)
				t[i][j] = 0;
			else if (!strcmp(a[i - 1], b[j - 1]))
				t[i][j] = t[i - 1][j - 1] + 1;
			else
				t[i][j] = t[i - 1][j] > t[i][j - 1] ? t[i - 1][j] : t[i][j - 1];
		}
	return t[n][m];
}

/* Apply a unified diff (as srt_diff_unified writes it) to `a`; returns the result. */
static char *patch(const char *a, const char *diff)
{
	const char *lines[MAXL * 2 + 1];
	size_t na = 0, pos = 0;
	struct srt_buf out;
	char *copy = strdup(a), *save = NULL, *dcopy = strdup(diff), *dsave = NULL;

	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		lines[na++] = l;
	srt_buf_init(&out);
	for (char *l = strtok_r(dcopy, "\n", &dsave); l; l = strtok_r(NULL, "\n", &dsave)) {
		if (!strncmp(l, "---", 3) || !strncmp(l, "+++", 3))
			continue;
		if (!strncmp(l, "@@ -", 4)) {
			size_t start = strtoul(l + 4, NULL, 10);
			const char *comma = strchr(l + 4, ',');
			const char *space = strchr(l + 4, ' ');
			size_t count = comma && comma < space ? strtoul(comma + 1, NULL, 10) : 1;
			size_t first = count ? start - 1 :
					       start; /* 0-based line the hunk begins at */

			while (pos < first)
				srt_buf_printf(&out, "%s\n", lines[pos++]);
			continue;
		}
		if (l[0] == ' ') {
			assert_string_equal(l + 1, lines[pos]);
			srt_buf_printf(&out, "%s\n", lines[pos++]);
		} else if (l[0] == '-') {
			assert_string_equal(l + 1, lines[pos]);
			pos++;
		} else if (l[0] == '+') {
			srt_buf_printf(&out, "%s\n", l + 1);
		} else {
			fail_msg("unexpected diff line '%s'", l);
		}
	}
	while (pos < na)
		srt_buf_printf(&out, "%s\n", lines[pos++]);
	free(copy);
	free(dcopy);
	return srt_buf_detach(&out);
}

static void test_random(void **state)
{
	(void)state;
	for (int iter = 0; iter < 3000; iter++) {
		char a[MAXL * 3 + 1], b[MAXL * 3 + 1];
		const char *la[MAXL], *lb[MAXL];
		size_t na, nb, ne, changes, ia = 0, ib = 0, nchg = 0;
		struct srt_diff_edit *e;
		unsigned ctx = rnd(4);
		char *d, *patched;

		random_text(a, &na, la);
		if (rnd(4) == 0) {
			/* b is a with a few edits: the common case for specs */
			memcpy(lb, la, na * sizeof(*la));
			nb = na;
			strcpy(b, a);
			if (nb && rnd(2)) {
				lb[rnd((unsigned)nb)] = "z";
				b[0] = '\0';
				for (size_t i = 0; i < nb; i++) {
					strcat(b, lb[i]);
					strcat(b, "\n");
				}
			}
		} else {
			random_text(b, &nb, lb);
		}
		changes = srt_diff_lines(a, b, &e, &ne);
		assert_int_equal(changes, na + nb - 2 * lcs(la, na, lb, nb));
		for (size_t i = 0; i < ne; i++) {
			switch (e[i].op) {
			case SRT_DIFF_EQUAL:
				assert_int_equal(e[i].a, ia);
				assert_int_equal(e[i].b, ib);
				assert_string_equal(la[ia], lb[ib]);
				ia++;
				ib++;
				break;
			case SRT_DIFF_DELETE:
				assert_int_equal(e[i].a, ia);
				ia++;
				nchg++;
				break;
			case SRT_DIFF_INSERT:
				assert_int_equal(e[i].b, ib);
				ib++;
				nchg++;
				break;
			}
		}
		assert_int_equal(ia, na);
		assert_int_equal(ib, nb);
		assert_int_equal(nchg, changes);
		free(e);

		d = udiff(a, b, ctx);
		assert_int_equal(!*d, !changes);
		patched = patch(a, d);
		if (strcmp(patched, b))
			fail_msg("patch failed (context %u)\n--- a\n%s--- b\n%s--- diff\n%s", ctx,
				 a, b, d);
		free(patched);
		free(d);
	}
}

/* Past SRT_DIFF_MAX_EDITS: still a correct (if not minimal) diff. */
static void test_too_many_edits(void **state)
{
	struct srt_buf a, b;
	struct srt_diff_edit *e;
	size_t ne, n = SRT_DIFF_MAX_EDITS + 500, changes;

	(void)state;
	srt_buf_init(&a);
	srt_buf_init(&b);
	srt_buf_puts(&a, "same\n");
	srt_buf_puts(&b, "same\n");
	for (size_t i = 0; i < n; i++) {
		srt_buf_printf(&a, "a%zu\n", i);
		srt_buf_printf(&b, "b%zu\n", i);
	}
	srt_buf_puts(&a, "tail\n");
	srt_buf_puts(&b, "tail\n");
	changes = srt_diff_lines(a.data, b.data, &e, &ne);
	assert_int_equal(changes, 2 * n);
	assert_int_equal(ne, 2 * n + 2);
	assert_int_equal(e[0].op, SRT_DIFF_EQUAL);
	assert_int_equal(e[1].op, SRT_DIFF_DELETE);
	assert_int_equal(e[1 + n].op, SRT_DIFF_INSERT);
	assert_int_equal(e[ne - 1].op, SRT_DIFF_EQUAL);
	assert_int_equal(e[ne - 1].a, n + 1);
	free(e);
	srt_buf_release(&a);
	srt_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_equal),
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_too_many_edits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
