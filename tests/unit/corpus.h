/*
 * tests/unit/corpus.h: where the real-recipe corpus is, for the unit tests
 * that read it.
 *
 * The corpus lives outside the repository; ctest passes its directory in
 * $SRT_CORPUS_DIR (tests/CMakeLists.txt).  A test that needs it calls
 * corpus_path(), which skips the test (cmocka skip()) with a notice naming
 * the path when the directory is absent, so a checkout without the corpus
 * still passes its other tests.
 */
#ifndef SRT_TESTS_UNIT_CORPUS_H
#define SRT_TESTS_UNIT_CORPUS_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/*
 * $SRT_CORPUS_DIR + "/" + rel in buf (rel may be "" for the directory
 * itself).  Skips the calling test when that path does not exist.
 */
static inline const char *corpus_path(char *buf, size_t size, const char *rel)
{
	const char *dir = getenv("SRT_CORPUS_DIR");
	struct stat st;

	if (!dir || !*dir) {
		printf("corpus not found at (unset) (set SRT_CORPUS_DIR)\n");
		skip();
	}
	snprintf(buf, size, "%s%s%s", dir, *rel ? "/" : "", rel);
	if (stat(buf, &st) != 0) {
		printf("corpus not found at %s (set SRT_CORPUS_DIR)\n", buf);
		skip();
	}
	return buf;
}

#endif
