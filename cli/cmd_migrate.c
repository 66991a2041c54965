/*
 * cli/cmd_migrate.c: `srtctl migrate -f FILE|DIR [-o OUT | --in-place]`.
 *
 * Reads v1 recipes, rewrites them in the v2 layout (recipe/migrate.c),
 * writes them as YAML (recipe/yemit.c) and runs the result through the
 * same compiler `srtctl validate` uses, so a migrated file that would not
 * validate is reported and, with --in-place, never replaces the original.
 * Files are written atomically: a temporary file in the target directory,
 * then rename(2).  --in-place first keeps the original as FILE.v1.bak and
 * refuses to run when that backup already exists.
 */
#include "cli/cli.h"
#include "util/strutil.h"
#include "recipe/campaign.h"
#include "recipe/migrate.h"
#include "recipe/variants.h"
#include "recipe/yemit.h"
#include "util/buf.h"
#include "util/fdio.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BACKUP_SUFFIX ".v1.bak"
#define MAX_INPUT_BYTES (16u * 1024u * 1024u)

static const char usage_text[] =
	"usage: srtctl migrate -f FILE|DIR [-o OUT | --in-place]\n"
	"\n"
	"Rewrite recipes written in the v1 layout (backend:, resources.<mode>_nodes, ...)\n"
	"into the v2 layout (engine, roles, services). The result is checked like\n"
	"'srtctl validate' would. A result that does not validate is reported (exit 1):\n"
	"--in-place then leaves the file unchanged; to stdout or -o it is still written\n"
	"so you can finish it by hand. Comments of the v1 file are not carried over.\n"
	"A recipe with srt-slurm's sweep: section (v1 or v2) becomes a campaign\n"
	"(kind: Campaign): the recipe is its template, each sweep parameter an axis at\n"
	"the paths where \"{name}\" stands, benchmark isl/osl/concurrencies its load;\n"
	"`srtctl apply` runs it as one job per combination. A sweep a campaign cannot\n"
	"say (a placeholder inside a longer string, a swept benchmark setting) is\n"
	"written as a variant file instead: zip_override_sweep holds one variant per\n"
	"combination, each one job, as srt-slurm ran them (with a warning saying why).\n"
	"A sweep in a variant file's section is refused.\n"
	"A recipe (v1 or v2) whose benchmark is sa-bench, which srt-slurm runs inside\n"
	"the job, becomes a campaign of one deployment: the recipe its template, the\n"
	"benchmark (isl, osl, concurrencies) its load. One a load cannot carry (no\n"
	"isl/osl) stays a recipe that runs no benchmark, with a warning.\n"
	"Where v1 meant something v2 cannot say (a vLLM connector srt-slurm passed\n"
	"verbatim), migrate refuses: exit 1, nothing written. Where\n"
	"the v2 spelling differs (env precedence, connector flags, master flags and\n"
	"placement), it writes the v1 behaviour and warns.\n"
	"\n"
	"Options:\n"
	"  -f, --filename PATH   v1 recipe file, directory (every *.yaml/*.yml below it), or\n"
	"                        - for stdin\n"
	"  -o, --output OUT      write to OUT instead of stdout (a directory when PATH is one;\n"
	"                        subdirectories are mirrored); - is stdout\n"
	"  -i, --in-place        replace each file, keeping the original as FILE" BACKUP_SUFFIX "\n"
	"  -h, --help            show this help\n"
	"\n"
	"Without -o or --in-place the migrated YAML goes to stdout (one file only).\n"
	"Exit codes: 0 migrated, 1 invalid input or the result does not validate,\n"
	"2 usage or I/O error (including an existing backup).\n"
	"\n"
	"Examples:\n"
	"  srtctl migrate -f old/recipe.yaml                   # print the v2 recipe\n"
	"  srtctl migrate -f old/recipe.yaml -o recipe.yaml    # write it to a new file\n"
	"  srtctl migrate -f recipes/ --in-place               # rewrite a directory, with backups\n"
	"  srtctl migrate -f recipes/ -o recipes-v2/           # write a migrated copy of each file\n"
	"  srtctl migrate -f sweep.yaml -o sweep.campaign.yaml # a sweep recipe as a campaign\n"
	"  srtctl migrate -f bench.yaml -o bench.campaign.yaml # an sa-bench recipe as a campaign\n";

struct migrate_opts {
	const char *input;
	const char *output;
	bool in_place;
	bool input_is_dir;
	bool output_is_dir;
	struct srt_cluster cluster;
};

static int worst(int a, int b)
{
	return a > b ? a : b;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/*
 * Where -o DIR puts `path`: for a directory input, the same place relative to
 * -o as `path` has relative to -f (its directories created); else DIR/name.
 * Returns the malloc'd path, or NULL after printing why.
 */
static char *output_path(const struct migrate_opts *o, const char *path)
{
	size_t ilen = strlen(o->input);
	const char *rel;
	char *dest;

	if (!strcmp(path, "-"))
		return srt_xasprintf("%s/stdin.yaml", o->output);
	if (!o->input_is_dir || strncmp(path, o->input, ilen))
		return srt_xasprintf("%s/%s", o->output, base_name(path));
	rel = path + ilen;
	while (*rel == '/')
		rel++;
	dest = srt_xasprintf("%s/%s", o->output, rel);
	for (char *p = dest + strlen(o->output) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(dest, 0755) != 0 && errno != EEXIST) {
			fprintf(stderr, "srtctl migrate: cannot create directory '%s': %s\n", dest,
				strerror(errno));
			free(dest);
			return NULL;
		}
		*p = '/';
	}
	return dest;
}

/* Read a whole file ("-" is stdin).  Returns 0, or -1 after printing why. */
static int read_all(const char *path, struct srt_buf *out)
{
	bool is_stdin = !strcmp(path, "-");
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	char chunk[65536];
	size_t n;
	int rc = -1;

	if (!f) {
		fprintf(stderr, "srtctl migrate: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (out->len + n > MAX_INPUT_BYTES) {
			fprintf(stderr,
				"srtctl migrate: '%s' is larger than %u MiB; is it really a recipe?\n",
				path, MAX_INPUT_BYTES / (1024u * 1024u));
			goto out;
		}
		srt_buf_append(out, chunk, n);
	}
	if (ferror(f)) {
		fprintf(stderr, "srtctl migrate: cannot read '%s': %s\n", path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (!is_stdin)
		fclose(f);
	return rc;
}

/*
 * Write `data` to `path` atomically: a temporary file next to it, fsync,
 * then rename over it.  `mode` is the new file's permission bits.
 */
static int write_atomic(const char *path, const char *data, size_t len, mode_t mode)
{
	char *tmp = srt_xasprintf("%s.tmp.XXXXXX", path);
	int fd = -1, rc = -1;

	fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "srtctl migrate: cannot create a temporary file next to '%s': %s\n",
			path, strerror(errno));
		goto out;
	}
	if (fchmod(fd, mode) != 0 || srt_write_all(fd, data, len) != 0 || fsync(fd) != 0) {
		fprintf(stderr, "srtctl migrate: cannot write '%s': %s\n", tmp, strerror(errno));
		goto out;
	}
	if (close(fd) != 0) {
		fd = -1;
		fprintf(stderr, "srtctl migrate: cannot write '%s': %s\n", tmp, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) != 0) {
		fprintf(stderr, "srtctl migrate: cannot replace '%s': %s\n", path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (rc != 0)
		unlink(tmp);
	free(tmp);
	return rc;
}

/*
 * May `path` be replaced by a migrated file?  It must be absent or a
 * regular file (lstat: a symbolic link is refused, never replaced) that
 * this user may write and that has a write permission bit (root may write
 * anything: a file without any w bit is still taken as read-only).
 * Returns 0, or -1 after printing why and what to do.
 */
static int check_replaceable(const char *path)
{
	struct stat st;

	if (lstat(path, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "srtctl migrate: cannot check '%s': %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr,
			"srtctl migrate: '%s' is %s, not a regular file; it was left unchanged: "
			"give a path that does not exist or a regular file%s\n",
			path, srt_file_kind(st.st_mode),
			S_ISLNK(st.st_mode) ? " (or the link's target itself)" : "");
		return -1;
	}
	if (!(st.st_mode & 0222) || faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) != 0) {
		fprintf(stderr,
			"srtctl migrate: '%s' is read-only (mode %04o); it was left unchanged: "
			"make it writable (chmod u+w) or choose another path\n",
			path, (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

/* Create `path` holding `data`; fails when it already exists. */
static int write_backup(const char *path, const char *data, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);

	if (fd < 0) {
		fprintf(stderr, "srtctl migrate: cannot create backup '%s': %s\n", path,
			strerror(errno));
		return -1;
	}
	if (srt_write_all(fd, data, len) != 0 || fsync(fd) != 0) {
		fprintf(stderr, "srtctl migrate: cannot write backup '%s': %s\n", path,
			strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	if (close(fd) != 0) {
		fprintf(stderr, "srtctl migrate: cannot write backup '%s': %s\n", path,
			strerror(errno));
		unlink(path);
		return -1;
	}
	return 0;
}

/*
 * Migrate the bytes of one file into `out` (header comment + YAML) and
 * check the result with the compiler; every diagnostic is printed.
 * Returns 0 when `out` holds a migrated recipe (*valid says whether it
 * passed the check), or -1 when the input could not be migrated.
 */
/*
 * Emit the campaign `camp` after the header already in `out`, and check it
 * as `apply` would (parse and expand every deployment): *valid.  0, or -1
 * when it cannot be written as YAML (an error in d).
 */
static int campaign_out(struct migrate_opts *o, const char *display, const struct srt_ynode *camp,
			struct srt_buf *out, bool *valid, struct srt_diags *d)
{
	struct srt_campaign_plan plan = { 0 };
	struct srt_ydoc *check;
	struct srt_campaign *c;
	char *checked_name;

	if (srt_yemit(camp, out) != 0) {
		srt_diags_add(d, SRT_DIAG_ERROR, display, 0, 0, NULL,
			      "cannot write the campaign as YAML; simplify the recipe");
		return -1;
	}
	checked_name = srt_xasprintf("%s (campaign)", display);
	check = srt_ydoc_parse(out->data, out->len, checked_name, d);
	c = check ? srt_campaign_parse(check, d) : NULL;
	*valid = c && !d->nerrors &&
		 srt_campaign_expand(c, check, c->template_node, &o->cluster, &plan, d) == 0;
	srt_campaign_plan_release(&plan);
	srt_ydoc_free(check);
	free(checked_name);
	return 0;
}

/*
 * A recipe with srt-slurm's `sweep:` becomes a campaign (kind: Campaign)
 * whose template is the recipe: write it to `out` and check it as `apply`
 * would (parse and expand every deployment).  Returns 0 (with *valid).  When
 * a campaign cannot say the sweep, returns 1 with *variants set to the
 * variant file that runs one job per combination as srt-slurm did (the
 * caller writes and checks it as a migrated recipe), or -1 when neither can
 * (errors in d; nothing written).
 */
static int sweep_campaign(struct migrate_opts *o, const char *path, struct srt_ydoc *doc,
			  const struct srt_ynode *root, struct srt_buf *out, bool *valid,
			  struct srt_diags *d, struct srt_ynode **variants)
{
	const char *display = !strcmp(path, "-") ? "<stdin>" : path;
	struct srt_ynode *camp;
	struct srt_diags cd;
	size_t before;

	srt_diags_init(&cd);
	camp = srt_campaign_from_sweep(doc, root, display, &cd);
	if (!camp) {
		const struct srt_diag *why = NULL;

		for (size_t i = 0; i < cd.n && !why; i++)
			if (cd.items[i].level == SRT_DIAG_ERROR)
				why = &cd.items[i];
		*variants = srt_sweep_as_variants(doc, root, display, d);
		if (*variants && why)
			srt_diags_add(d, SRT_DIAG_WARNING, why->file, why->line, why->col, "sweep",
				      "written as a variant file, not a campaign, because a "
				      "campaign cannot say this sweep (%s): zip_override_sweep "
				      "holds one variant per combination, each one job running "
				      "the recipe's own benchmark, as srt-slurm submitted them",
				      why->msg);
		srt_diags_release(&cd);
		return *variants ? 1 : -1;
	}
	for (size_t i = 0; i < cd.n; i++)
		srt_diags_add(d, cd.items[i].level, cd.items[i].file, cd.items[i].line,
			      cd.items[i].col, cd.items[i].path, "%s", cd.items[i].msg);
	srt_diags_release(&cd);
	before = d->nerrors;
	srt_sweep_exclude_unfit(doc, camp, srt_ynode_get(root, "sweep"), display, &o->cluster, d);
	if (d->nerrors != before)
		return -1;
	srt_buf_printf(out,
		       "# A campaign written by srtctl migrate from %s, whose 'sweep:' made\n"
		       "# srt-slurm submit one job per combination: each combination is a\n"
		       "# deployment here, and the benchmark's load runs inside each one.\n",
		       !strcmp(path, "-") ? "stdin" : base_name(path));
	return campaign_out(o, display, camp, out, valid, d);
}

/*
 * A recipe whose benchmark is srt-slurm's sa-bench (no sweep): srt-slurm
 * runs the benchmark inside the job, so the recipe becomes a campaign of
 * one deployment whose load is that benchmark (srt_campaign_from_benchmark),
 * written to `out` when it checks as `apply` would.  Returns 0 (written,
 * *valid true), 1 when the benchmark is not sa-bench or a campaign cannot
 * carry it (the caller writes the recipe; a warning in d says why), -1 on
 * a write error.
 */
static int benchmark_campaign(struct migrate_opts *o, const char *path, struct srt_ydoc *doc,
			      const struct srt_ynode *root, struct srt_buf *out, bool *valid,
			      struct srt_diags *d)
{
	const char *display = !strcmp(path, "-") ? "<stdin>" : path;
	const struct srt_ynode *at = srt_ynode_get(root, "benchmark");
	struct srt_ynode *camp;
	struct srt_buf text;
	struct srt_diags cd;
	const char *why = NULL;
	int rc;

	srt_diags_init(&cd);
	srt_buf_init(&text);
	camp = srt_campaign_from_benchmark(doc, root, display, &cd);
	if (!camp && !cd.nerrors) {
		srt_diags_release(&cd);
		srt_buf_release(&text);
		return 1;
	}
	srt_buf_printf(&text,
		       "# A campaign written by srtctl migrate from %s.\n"
		       "# srt-slurm runs its sa-bench benchmark inside the job; srtctl runs it\n"
		       "# as a campaign's load: the recipe is the template (one deployment, no\n"
		       "# axes), each concurrency a point (srtctl get points, srtctl report).\n",
		       !strcmp(path, "-") ? "stdin" : base_name(path));
	rc = camp ? campaign_out(o, display, camp, &text, valid, &cd) : 1;
	for (size_t i = 0; i < cd.n && !why; i++)
		if (cd.items[i].level == SRT_DIAG_ERROR)
			why = srt_arena_strdup(&doc->arena, cd.items[i].msg);
	if (rc == 0 && *valid && !why) {
		for (size_t i = 0; i < cd.n; i++)
			srt_diags_add(d, cd.items[i].level, cd.items[i].file, cd.items[i].line,
				      cd.items[i].col, cd.items[i].path, "%s", cd.items[i].msg);
		srt_buf_append(out, text.data, text.len);
	} else if (rc >= 0) {
		*valid = false;
		rc = 1;
		srt_diags_add(d, SRT_DIAG_WARNING, display, at->line, at->col, "benchmark",
			      "srt-slurm runs this sa-bench benchmark inside the job, and srtctl "
			      "runs it as a campaign's load; a campaign cannot carry it (%s): the "
			      "migrated recipe runs no benchmark",
			      why ? why : "it does not check");
	}
	srt_diags_release(&cd);
	srt_buf_release(&text);
	return rc;
}

static int migrate_bytes(struct migrate_opts *o, const char *path, const struct srt_buf *in,
			 struct srt_buf *out, bool *valid)
{
	const char *display = !strcmp(path, "-") ? "<stdin>" : path;
	struct srt_ydoc *v1 = NULL, *v2 = NULL, *res;
	struct srt_ynode *variants = NULL;
	struct srt_compiled comp = { 0 };
	struct srt_diags d;
	char *checked_name = NULL;
	int rc = -1;

	*valid = false;
	srt_diags_init(&d);
	v1 = srt_ydoc_parse(in->data, in->len, display, &d);
	if (!v1)
		goto out;
	if (v1->root && v1->root->kind == SRT_Y_MAP && srt_ynode_get(v1->root, "sweep") &&
	    !srt_recipe_doc_is_v1(v1->root) && !srt_variants_is_variant_doc(v1->root)) {
		/* A v2 recipe with a sweep: only the campaign (or variants) is written. */
		rc = sweep_campaign(o, path, v1, v1->root, out, valid, &d, &variants);
		if (rc != 1)
			goto out;
		res = v1;
	} else if (v1->root && v1->root->kind == SRT_Y_MAP && !srt_recipe_doc_is_v1(v1->root) &&
		   !srt_variants_is_variant_doc(v1->root) &&
		   (rc = benchmark_campaign(o, path, v1, v1->root, out, valid, &d)) != 1) {
		/* A v2 recipe with srt-slurm's sa-bench: its campaign. */
		goto out;
	} else {
		v2 = srt_migrate_v1(v1, &d);
		if (!v2)
			goto out;
		res = v2;
		if (v2->root && srt_ynode_get(v2->root, "sweep")) {
			rc = sweep_campaign(o, path, v2, v2->root, out, valid, &d, &variants);
			if (rc != 1)
				goto out;
		} else if (v2->root &&
			   (rc = benchmark_campaign(o, path, v2, v2->root, out, valid, &d)) != 1) {
			goto out;
		}
	}
	rc = -1;
	if (variants) {
		res->root = variants;
		srt_buf_printf(
			out,
			"# Written by srtctl migrate from %s, whose 'sweep:' made srt-slurm\n"
			"# submit one job per combination: each is a variant here\n"
			"# (zip_override_sweep), one job each.\n",
			!strcmp(path, "-") ? "stdin" : base_name(path));
	} else {
		srt_buf_printf(out, "# Migrated to the v2 layout by srtctl migrate from %s.\n",
			       !strcmp(path, "-") ? "stdin" : base_name(path));
	}
	if (srt_yemit(res->root, out) != 0) {
		srt_diags_add(&d, SRT_DIAG_ERROR, display, 0, 0, NULL,
			      "cannot write the migrated recipe as YAML (nested deeper than %u "
			      "levels, or a string that is not UTF-8); simplify the recipe",
			      SRT_YAML_MAX_DEPTH);
		goto out;
	}
	/* Diagnostics of the check point into the migrated text, not the v1 file. */
	checked_name = srt_xasprintf("%s (migrated)", display);
	*valid = srt_compile_bytes_named(out->data, out->len, checked_name, path, &o->cluster,
					 &comp, &d) == 0;
	rc = 0;
out:
	srt_diags_print(&d, stderr);
	srt_diags_release(&d);
	srt_compiled_release(&comp);
	free(checked_name);
	srt_ydoc_free(v2);
	srt_ydoc_free(v1);
	return rc;
}

/*
 * Migrate one file to stdout, to a file or directory, or in place.  A
 * result that does not validate never replaces the original (--in-place);
 * to stdout or -o it is still written, for the user to finish by hand.
 */
static int migrate_one(struct migrate_opts *o, const char *path)
{
	struct srt_buf in, out;
	char *backup = NULL, *dest = NULL, *real = NULL;
	struct stat st;
	mode_t mode = 0644;
	bool valid = false;
	int rc = SRT_EXIT_USAGE;

	srt_buf_init(&in);
	srt_buf_init(&out);
	if (o->in_place) {
		/* A link is followed to its target, which is migrated; the link stays. */
		if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
			real = realpath(path, NULL);
			if (!real) {
				fprintf(stderr,
					"srtctl migrate: cannot resolve the link '%s': %s; it was "
					"left unchanged\n",
					path, strerror(errno));
				goto out;
			}
			path = real;
		}
		if (check_replaceable(path) != 0)
			goto out;
		backup = srt_xasprintf("%s%s", path, BACKUP_SUFFIX);
		if (lstat(backup, &st) == 0) {
			fprintf(stderr,
				"srtctl migrate: backup '%s' already exists, so '%s' was probably "
				"migrated before; remove or rename the backup to migrate again\n",
				backup, path);
			goto out;
		}
	}
	if (read_all(path, &in) != 0)
		goto out;
	if (migrate_bytes(o, path, &in, &out, &valid) != 0) {
		rc = SRT_EXIT_INVALID;
		goto out;
	}
	if (!valid && o->in_place) {
		fprintf(stderr,
			"srtctl migrate: the migrated '%s' does not validate (see above), so the "
			"file was left unchanged; fix the v1 recipe and run again, or migrate with "
			"-o and fix the output by hand\n",
			path);
		rc = SRT_EXIT_INVALID;
		goto out;
	}
	if (o->in_place) {
		if (stat(path, &st) == 0)
			mode = st.st_mode & 07777;
		if (write_backup(backup, in.data, in.len, mode) != 0)
			goto out;
		if (write_atomic(path, out.data, out.len, mode) != 0)
			goto out;
		fprintf(stderr, "migrated %s (original kept as %s)\n", path, backup);
	} else if (o->output) {
		mode_t mask = umask(0);

		umask(mask);
		mode = 0666 & ~mask;
		dest = o->output_is_dir ? output_path(o, path) : srt_xstrdup(o->output);
		if (!dest || check_replaceable(dest) != 0 ||
		    write_atomic(dest, out.data, out.len, mode) != 0)
			goto out;
		fprintf(stderr, "migrated %s -> %s\n", path, dest);
	} else if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
		fprintf(stderr, "srtctl migrate: cannot write to stdout: %s\n", strerror(errno));
		goto out;
	}
	rc = SRT_EXIT_OK;
	if (!valid) {
		fprintf(stderr,
			"srtctl migrate: the migrated '%s' does not validate (see above); it was "
			"written anyway: fix it by hand (or fix the v1 recipe and run again)\n",
			path);
		rc = SRT_EXIT_INVALID;
	}
out:
	free(backup);
	free(dest);
	free(real);
	srt_buf_release(&in);
	srt_buf_release(&out);
	return rc;
}

/* Decide whether -o names a directory; create it for a directory input. */
static int prepare_output(struct migrate_opts *o)
{
	struct stat st;

	if (!o->output)
		return 0;
	if (o->input_is_dir) {
		if (stat(o->output, &st) == 0 && !S_ISDIR(st.st_mode)) {
			srt_cli_usage_error("migrate",
					    "'%s' is a file, but -f names a directory; give -o a "
					    "directory",
					    o->output);
			return -1;
		}
		if (mkdir(o->output, 0755) != 0 && errno != EEXIST) {
			fprintf(stderr, "srtctl migrate: cannot create directory '%s': %s\n",
				o->output, strerror(errno));
			return -1;
		}
		o->output_is_dir = true;
		return 0;
	}
	o->output_is_dir = stat(o->output, &st) == 0 && S_ISDIR(st.st_mode);
	return 0;
}

int srt_cmd_migrate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "filename", required_argument, NULL, 'f' },
		{ "file", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "in-place", no_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct migrate_opts o = { 0 };
	char **files = NULL;
	size_t nfiles = 0;
	bool cluster_loaded = false;
	struct stat st;
	int c, rc = SRT_EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "f:o:ih", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (o.input)
				return srt_cli_usage_error("migrate", "give -f only once");
			o.input = optarg;
			break;
		case 'o':
			/* "-" is stdout, as "-f -" is stdin. */
			o.output = strcmp(optarg, "-") ? optarg : NULL;
			break;
		case 'i':
			o.in_place = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return SRT_EXIT_OK;
		default:
			return srt_cli_usage_error("migrate", "unknown option");
		}
	}
	if (optind < argc)
		return srt_cli_usage_error("migrate", "unexpected argument '%s' (use -f FILE)",
					   argv[optind]);
	if (!o.input)
		return srt_cli_usage_error("migrate", "no recipe given; use -f FILE|DIR");
	if (o.in_place && o.output)
		return srt_cli_usage_error("migrate", "-o and --in-place cannot be used together");
	if (o.in_place && !strcmp(o.input, "-"))
		return srt_cli_usage_error("migrate", "--in-place needs a file, not stdin");
	o.input_is_dir = strcmp(o.input, "-") && stat(o.input, &st) == 0 && S_ISDIR(st.st_mode);

	if (srt_cli_expand_path("migrate", o.input, &files, &nfiles) != 0)
		return SRT_EXIT_USAGE;
	if (nfiles > 1 && !o.in_place && !o.output) {
		rc = srt_cli_usage_error("migrate",
					 "'%s' holds %zu recipes; give -o DIR to write them there "
					 "or --in-place to rewrite them",
					 o.input, nfiles);
		goto out;
	}
	if (prepare_output(&o) != 0) {
		rc = SRT_EXIT_USAGE;
		goto out;
	}
	if (srt_cli_load_cluster("migrate", &o.cluster, false) != 0) {
		rc = SRT_EXIT_INVALID;
		goto out;
	}
	cluster_loaded = true;
	for (size_t i = 0; i < nfiles; i++)
		rc = worst(rc, migrate_one(&o, files[i]));
out:
	if (cluster_loaded)
		srt_cluster_release(&o.cluster);
	srt_cli_free_files(files, nfiles);
	return rc;
}
