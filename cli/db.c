/* cli/db.c: finding and opening the state database for the verbs (`--db`). */
#include "cli/cli.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/shell.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *srt_cli_db_path(const char *db_arg)
{
	return srt_store_default_path(db_arg && *db_arg ? db_arg : NULL);
}

int srt_cli_db_open(const char *verb, const char *path, int flags, struct srt_store **out)
{
	struct srt_error err;
	struct stat st;

	*out = NULL;
	if (!(flags & SRT_STORE_CREATE) && stat(path, &st) != 0 && errno == ENOENT)
		return 1;
	srt_error_clear(&err);
	if (srt_store_open(out, path, flags, NULL, &err) != 0) {
		fprintf(stderr, "srtctl %s: %s\n", verb, err.msg);
		*out = NULL;
		return -1;
	}
	return 0;
}

void srt_cli_db_missing(const char *verb, const char *path)
{
	fprintf(stderr,
		"srtctl %s: no state database at %s yet; `srtctl apply -f RECIPE` creates it\n",
		verb, path);
}

void srt_cli_controller_note(const char *path)
{
	struct srt_buf cmd;
	char *abs;

	if (srt_store_lock_is_held(path))
		return;
	/* The command must work from any directory: name the database absolutely. */
	abs = realpath(path, NULL);
	srt_buf_init(&cmd);
	srt_shell_word(&cmd, abs ? abs : path);
	fprintf(stderr,
		"note: no controller is running for %s; start one with: srtctl controller "
		"--db %s\n",
		abs ? abs : path, cmd.data);
	srt_buf_release(&cmd);
	free(abs);
}
