/*
 * cli/specs.c: from recipe files to canonical specs, for `apply` and `diff`.
 *
 * Each file is read once into memory and compiled from those bytes, so the
 * YAML text stored with a recipe is exactly the text that was validated.
 * Every file is compiled before the caller writes anything: one invalid
 * recipe anywhere stops the whole apply.
 */
#include "cli/cli.h"
#include "recipe/canon.h"
#include "util/buf.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Read a whole file ("-" is stdin) into *text.  Returns 0, or -1 after printing why not. */
static int read_text(const char *verb, const char *path, struct srt_buf *text)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	char chunk[65536];
	size_t n;
	int rc = 0;

	if (!f) {
		fprintf(stderr, "srtctl %s: cannot read %s: %s\n", verb, path, strerror(errno));
		return -1;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		srt_buf_append(text, chunk, n);
	if (ferror(f)) {
		fprintf(stderr, "srtctl %s: cannot read %s: %s\n", verb,
			f == stdin ? "standard input" : path, strerror(errno));
		rc = -1;
	}
	if (f != stdin)
		fclose(f);
	return rc;
}

static char *absolute(const char *path)
{
	char *abs;

	if (!strcmp(path, "-"))
		return srt_xstrdup("-");
	abs = realpath(path, NULL);
	return abs ? abs : srt_xstrdup(path);
}

static void add_spec(struct srt_cli_specs *out, size_t *cap, const struct srt_cli_spec *sp)
{
	if (out->n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		out->v = srt_xrealloc(out->v, *cap * sizeof(*out->v));
	}
	out->v[out->n++] = *sp;
}

/*
 * Is the text a campaign (1, *doc gets its parsed document), a recipe (0),
 * or neither (-1: a YAML error or an unknown kind, in d)?  Only a document
 * that names a `kind` is parsed here; recipes are compiled from the text as
 * before.
 */
static int campaign_or_recipe(const char *file, const char *yaml, size_t len, struct srt_diags *d,
			      struct srt_ydoc **doc)
{
	struct srt_diags local;
	int kind;

	*doc = NULL;
	if (!strstr(yaml, "kind"))
		return 0;
	srt_diags_init(&local);
	*doc = srt_ydoc_parse(yaml, len, file, &local);
	if (!*doc) {
		/* Let the recipe compiler report it, as for any recipe. */
		srt_diags_release(&local);
		return 0;
	}
	kind = srt_campaign_doc_kind(*doc, &local);
	srt_diags_take(d, &local);
	srt_diags_release(&local);
	if (kind <= 0) {
		srt_ydoc_free(*doc);
		*doc = NULL;
	}
	return kind;
}

/* Parse and expand a campaign document (doc, taken).  Returns the number of errors. */
static size_t load_campaign(const char *file, char *yaml, struct srt_ydoc *doc,
			    const struct srt_cluster *cluster, struct srt_cli_specs *out,
			    struct srt_diags *d)
{
	size_t before = d->nerrors;
	struct srt_cli_campaign cc = { 0 };
	const struct srt_ynode *troot;
	const char *tpath;

	cc.doc = doc;
	cc.c = srt_campaign_parse(doc, d);
	if (!cc.c || d->nerrors != before)
		goto fail;
	tpath = srt_campaign_template_path(cc.c);
	if (tpath) {
		cc.tdoc = srt_ydoc_load_file(tpath, d);
		if (!cc.tdoc) {
			const struct srt_ynode *t = srt_ynode_get(doc->root, "template");

			srt_diags_add(d, SRT_DIAG_ERROR, file, t->line, t->col, "template",
				      "cannot read the template '%s' (a path relative to this "
				      "file); fix the path or write the recipe inline",
				      tpath);
			goto fail;
		}
		troot = cc.tdoc->root;
	} else {
		troot = cc.c->template_node;
	}
	if (srt_campaign_expand(cc.c, cc.tdoc ? cc.tdoc : doc, troot, cluster, &cc.plan, d))
		goto fail;
	cc.name = srt_xstrdup(cc.c->name);
	cc.file = srt_xstrdup(file);
	cc.source = absolute(file);
	cc.yaml = yaml;
	out->campaigns =
		srt_xrealloc(out->campaigns, (out->ncampaigns + 1) * sizeof(*out->campaigns));
	out->campaigns[out->ncampaigns++] = cc;
	return 0;
fail:
	srt_campaign_plan_release(&cc.plan);
	srt_ydoc_free(cc.tdoc);
	srt_ydoc_free(doc);
	return d->nerrors - before ? d->nerrors - before : 1;
}

/* Compile one file (the variants `selector` picks) and add its recipes.  Returns the number of errors. */
static size_t load_file(const char *verb, const char *file, const char *selector,
			const struct srt_cluster *cluster, struct srt_cli_specs *out, size_t *cap,
			bool *io_error)
{
	struct srt_buf text;
	struct srt_compiled comp;
	struct srt_diags d;
	struct srt_ydoc *doc = NULL;
	size_t nerr, len;
	char *yaml;
	int kind;

	srt_buf_init(&text);
	if (read_text(verb, file, &text) != 0) {
		srt_buf_release(&text);
		*io_error = true;
		return 1;
	}
	srt_diags_init(&d);
	len = text.len;
	yaml = srt_buf_detach(&text);
	out->texts = srt_xrealloc(out->texts, (out->ntexts + 1) * sizeof(*out->texts));
	out->texts[out->ntexts++] = yaml;
	kind = selector ? 0 : campaign_or_recipe(file, yaml, len, &d, &doc);
	if (kind != 0) {
		nerr = kind > 0 ? load_campaign(file, yaml, doc, cluster, out, &d) : d.nerrors;
		srt_diags_print(&d, stderr);
		srt_diags_release(&d);
		return nerr;
	}
	nerr = srt_compile_bytes_selected(yaml, len, file, selector, cluster, &comp, &d);
	for (size_t i = 0; !nerr && i < comp.n; i++) {
		const struct srt_recipe *r = comp.recipes[i];
		struct srt_cli_spec sp = { 0 };
		struct srt_error err;

		if (!r->name || !*r->name) {
			srt_diags_add(&d, SRT_DIAG_ERROR, file, 1, 1, "name",
				      "the recipe has no name; add 'name: NAME'");
			nerr++;
			continue;
		}
		sp.spec = srt_canon_spec(r->root, &err);
		if (!sp.spec) {
			srt_diags_add(&d, SRT_DIAG_ERROR, file, 1, 1, "", "recipe '%s': %s",
				      r->name, err.msg);
			nerr++;
			continue;
		}
		sp.name = srt_xstrdup(r->name);
		sp.file = srt_xstrdup(file);
		sp.source = absolute(file);
		sp.yaml = yaml;
		add_spec(out, cap, &sp);
	}
	if (!nerr && !comp.n) {
		srt_diags_add(&d, SRT_DIAG_ERROR, file, 1, 1, "", "the file holds no recipe");
		nerr++;
	}
	srt_diags_print(&d, stderr);
	srt_diags_release(&d);
	srt_compiled_release(&comp);
	return nerr;
}

int srt_cli_campaign_check(const char *verb, const char *file, const struct srt_cluster *cluster,
			   struct srt_cli_campaign_check *out)
{
	struct srt_cli_specs specs = { 0 };
	struct srt_buf text;
	struct srt_diags d;
	struct srt_ydoc *doc = NULL;
	size_t len;
	char *yaml;
	int kind;

	memset(out, 0, sizeof(*out));
	srt_buf_init(&text);
	if (!strcmp(file, "-") || read_text(verb, file, &text) != 0) {
		srt_buf_release(&text);
		return 0; /* the recipe compiler reads it and says what is wrong */
	}
	len = text.len;
	yaml = srt_buf_detach(&text);
	srt_diags_init(&d);
	kind = campaign_or_recipe(file, yaml, len, &d, &doc);
	if (kind <= 0) {
		srt_diags_release(&d);
		srt_ydoc_free(doc);
		free(yaml);
		return 0;
	}
	out->nerrors = load_campaign(file, yaml, doc, cluster, &specs, &d);
	out->nwarnings = d.nwarnings;
	srt_diags_print(&d, stderr);
	srt_diags_release(&d);
	if (specs.ncampaigns) {
		const struct srt_cli_campaign *c = &specs.campaigns[0];

		out->name = srt_xstrdup(c->name);
		out->ndeployments = c->plan.ndeployments;
		out->npoints = c->plan.npoints;
		out->specs = srt_xcalloc(out->ndeployments + 1, sizeof(*out->specs));
		for (size_t i = 0; i < out->ndeployments; i++)
			out->specs[i] = srt_xstrdup(c->plan.deployments[i].spec);
	}
	srt_cli_specs_release(&specs);
	free(yaml);
	return 1;
}

void srt_cli_campaign_check_release(struct srt_cli_campaign_check *c)
{
	for (size_t i = 0; c->specs && i < c->ndeployments; i++)
		free(c->specs[i]);
	free(c->specs);
	free(c->name);
	memset(c, 0, sizeof(*c));
}

int srt_cli_specs_load(const char *verb, char *const *paths, size_t npaths,
		       struct srt_cli_specs *out)
{
	struct srt_cluster cluster;
	size_t cap = 0, nerr = 0, nstdin = 0;
	bool io_error = false;
	int rc;

	memset(out, 0, sizeof(*out));
	for (size_t p = 0; p < npaths; p++)
		if (!strcmp(paths[p], "-"))
			nstdin++;
	if (nstdin > 1)
		return srt_cli_usage_error(verb, "'-f -' (standard input) can be given only once");
	rc = srt_cli_load_cluster(verb, &cluster, true);
	if (rc != SRT_EXIT_OK)
		return rc;
	/* what apply records is resolved; an unset variable refuses it there */
	cluster.env = srt_cli_getenv;
	cluster.env_strict = !strcmp(verb, "apply");
	for (size_t p = 0; p < npaths; p++) {
		char **files, *selector;
		size_t nfiles;

		if (srt_cli_expand_path_sel(verb, paths[p], &files, &nfiles, &selector) != 0) {
			io_error = true;
			continue;
		}
		for (size_t i = 0; i < nfiles; i++)
			nerr += load_file(verb, files[i], selector, &cluster, out, &cap, &io_error);
		srt_cli_free_files(files, nfiles);
		free(selector);
	}
	srt_cluster_release(&cluster);
	for (size_t i = 0; i < out->n; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(out->v[i].name, out->v[j].name)) {
				fprintf(stderr,
					"srtctl %s: recipe '%s' is defined twice, in %s and in %s; "
					"give one of them another 'name:'\n",
					verb, out->v[i].name, out->v[j].file, out->v[i].file);
				nerr++;
				break;
			}
	for (size_t i = 0; i < out->ncampaigns; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(out->campaigns[i].name, out->campaigns[j].name)) {
				fprintf(stderr,
					"srtctl %s: campaign '%s' is defined twice, in %s and in %s; "
					"give one of them another 'name:'\n",
					verb, out->campaigns[i].name, out->campaigns[j].file,
					out->campaigns[i].file);
				nerr++;
				break;
			}
	if (io_error)
		return SRT_EXIT_USAGE;
	return nerr ? SRT_EXIT_INVALID : SRT_EXIT_OK;
}

void srt_cli_specs_release(struct srt_cli_specs *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].file);
		free(s->v[i].source);
		free(s->v[i].spec);
	}
	free(s->v);
	for (size_t i = 0; i < s->ncampaigns; i++) {
		struct srt_cli_campaign *c = &s->campaigns[i];

		free(c->name);
		free(c->file);
		free(c->source);
		srt_campaign_plan_release(&c->plan);
		srt_ydoc_free(c->tdoc);
		srt_ydoc_free(c->doc);
	}
	free(s->campaigns);
	for (size_t i = 0; i < s->ntexts; i++)
		free(s->texts[i]);
	free(s->texts);
	memset(s, 0, sizeof(*s));
}
