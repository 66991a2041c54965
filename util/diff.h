/*
 * util/diff.h: line diffs in the unified format (`diff -u`).
 *
 * srt_diff_unified() compares two texts line by line with Myers' O((N+M)D)
 * algorithm, which finds a shortest edit script, and writes the hunks with
 * `context` lines around each change, as GNU diff does.  When the edit
 * distance exceeds SRT_DIFF_MAX_EDITS the texts are reported as one hunk that
 * replaces every line (still a correct diff, just not a minimal one), which
 * bounds time and memory on pathological inputs.
 */
#ifndef SRT_UTIL_DIFF_H
#define SRT_UTIL_DIFF_H

#include <stddef.h>

#include "util/buf.h"

#define SRT_DIFF_MAX_EDITS 2000u

enum srt_diff_op {
	SRT_DIFF_EQUAL,
	SRT_DIFF_DELETE,
	SRT_DIFF_INSERT
};

struct srt_diff_edit {
	enum srt_diff_op op;
	/*
	 * 0-based line numbers.  EQUAL: the line in a and in b.  DELETE: the
	 * line of a, and b is where in b it would have been.  INSERT: the line
	 * of b, and a is the line of a it goes before.
	 */
	size_t a, b;
};

/*
 * The edit script turning the lines of `a` into the lines of `b`: every line
 * of a appears once as EQUAL or DELETE, every line of b once as EQUAL or
 * INSERT, in order.  *edits is malloc'd (caller frees); *nedits its length.
 * Returns the number of DELETE plus INSERT edits (0 when the texts are equal).
 */
size_t srt_diff_lines(const char *a, const char *b, struct srt_diff_edit **edits, size_t *nedits);

/*
 * Append a unified diff of `a` against `b` to `out`: "--- label_a",
 * "+++ label_b", then "@@ -l,s +l,s @@" hunks with `context` lines of
 * context.  Nothing is appended when the texts are equal.  A last line
 * without a newline is followed by "\ No newline at end of file".
 * Returns the number of changed lines (0 when equal).
 */
size_t srt_diff_unified(const char *a, const char *b, const char *label_a, const char *label_b,
			unsigned context, struct srt_buf *out);

#endif
