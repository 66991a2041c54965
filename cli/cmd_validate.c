/* cli/cmd_validate.c: `srtctl validate -f FILE|DIR [-o json]`. */
#include "cli/cli.h"

#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: srtctl validate -f FILE|DIR [-f ...] [-o text|json]\n"
	"\n"
	"Check recipes against the v2 schema and every cross-field rule (Mooncake wiring,\n"
	"ports srtctl owns, placements, ...). Problems are reported as\n"
	"FILE:LINE:COL: KEY.PATH: message. A directory means every *.yaml and *.yml file\n"
	"in it and below it (sorted; hidden entries skipped). A campaign (kind: Campaign)\n"
	"is expanded as apply does: every deployment it lists is checked as a recipe.\n"
	"\n"
	"Options:\n"
	"  -f, --filename PATH   recipe file, directory, or - for stdin (repeatable);\n"
	"                        FILE:SELECTOR picks variants of a variant file: base,\n"
	"                        override_<s>, zip_override_<g>, zip_override_<g>[N], or a glob\n"
	"  -o, --output FORMAT   text (default) or json\n"
	"  -h, --help            show this help\n"
	"\n"
	"Exit codes: 0 all valid (warnings allowed), 1 a recipe is invalid, 2 usage or I/O.\n"
	"\n"
	"Examples:\n"
	"  srtctl validate -f recipes/qwen3-mooncake.yaml\n"
	"  srtctl validate -f recipes/ -o json\n";

static json_t *diag_json(const struct srt_diag *g)
{
	return json_pack("{s:s?, s:i, s:i, s:s?, s:s, s:s}", "file", g->file, "line", (int)g->line,
			 "column", (int)g->col, "path", g->path, "message", g->msg, "level",
			 g->level == SRT_DIAG_ERROR ? "error" : "warning");
}

int srt_cmd_validate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "filename", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum srt_output fmt = SRT_OUT_TEXT;
	const char **paths = NULL;
	size_t npaths = 0, nvalid = 0, ninvalid = 0;
	struct srt_cluster cluster;
	json_t *jfiles = NULL;
	int c, rc = SRT_EXIT_OK;

	paths = calloc((size_t)argc + 1, sizeof(*paths));
	if (!paths)
		return SRT_EXIT_USAGE;
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			paths[npaths++] = optarg;
			break;
		case 'o':
			if (srt_cli_parse_output("validate", optarg, &fmt, false) != 0) {
				free(paths);
				return SRT_EXIT_USAGE;
			}
			break;
		case 'h':
			fputs(usage_text, stdout);
			free(paths);
			return SRT_EXIT_OK;
		default:
			free(paths);
			return srt_cli_usage_error("validate", "unknown option");
		}
	}
	if (optind < argc) {
		free(paths);
		return srt_cli_usage_error("validate", "unexpected argument '%s' (use -f FILE)",
					   argv[optind]);
	}
	if (!npaths) {
		free(paths);
		return srt_cli_usage_error("validate", "no recipe given; use -f FILE|DIR");
	}
	if (srt_cli_load_cluster("validate", &cluster, false) != 0) {
		free(paths);
		return SRT_EXIT_INVALID;
	}
	cluster.env = srt_cli_getenv; /* srt-slurm's $VARs, as apply will resolve them */
	if (fmt == SRT_OUT_JSON)
		jfiles = json_array();

	for (size_t p = 0; p < npaths; p++) {
		char **files, *selector;
		size_t nfiles;

		if (srt_cli_expand_path_sel("validate", paths[p], &files, &nfiles, &selector) !=
		    0) {
			rc = SRT_EXIT_USAGE;
			continue;
		}
		for (size_t i = 0; i < nfiles; i++) {
			struct srt_cli_campaign_check cc;
			struct srt_compiled comp;
			struct srt_diags d;
			size_t nerr;

			if (!selector &&
			    srt_cli_campaign_check("validate", files[i], &cluster, &cc)) {
				if (cc.nerrors) {
					ninvalid++;
					rc = rc == SRT_EXIT_OK ? SRT_EXIT_INVALID : rc;
				} else {
					nvalid++;
				}
				if (fmt == SRT_OUT_JSON)
					json_array_append_new(
						jfiles,
						json_pack("{s:s, s:b, s:s?, s:I, s:I}", "file",
							  files[i], "valid", !cc.nerrors,
							  "campaign", cc.name, "deployments",
							  (json_int_t)cc.ndeployments, "points",
							  (json_int_t)cc.npoints));
				else if (!cc.nerrors)
					printf("%s: campaign '%s' is valid (%zu deployment%s, %zu "
					       "point%s)%s\n",
					       files[i], cc.name, cc.ndeployments,
					       cc.ndeployments == 1 ? "" : "s", cc.npoints,
					       cc.npoints == 1 ? "" : "s",
					       cc.nwarnings ? " with warnings" : "");
				srt_cli_campaign_check_release(&cc);
				continue;
			}
			srt_diags_init(&d);
			nerr = srt_compile_file_selected(files[i], selector, &cluster, &comp, &d);
			if (nerr)
				ninvalid++;
			else
				nvalid++;
			if (fmt == SRT_OUT_JSON) {
				json_t *jr = json_array(), *je = json_array(), *jw = json_array();

				for (size_t k = 0; k < comp.n; k++)
					json_array_append_new(jr,
							      json_string(comp.recipes[k]->name));
				for (size_t k = 0; k < d.n; k++)
					json_array_append_new(
						d.items[k].level == SRT_DIAG_ERROR ? je : jw,
						diag_json(&d.items[k]));
				json_array_append_new(jfiles,
						      json_pack("{s:s, s:b, s:o, s:o, s:o}", "file",
								files[i], "valid", !nerr, "recipes",
								jr, "errors", je, "warnings", jw));
			} else {
				srt_diags_print(&d, stderr);
				if (!nerr) {
					for (size_t k = 0; k < comp.n; k++) {
						const struct srt_recipe *r = comp.recipes[k];

						printf("%s: recipe '%s' is valid (engine %s, %zu "
						       "service%s)%s\n",
						       files[i], r->name ? r->name : "?",
						       srt_engine_name(r->engine), r->nservices,
						       r->nservices == 1 ? "" : "s",
						       d.nwarnings ? " with warnings" : "");
					}
				}
			}
			if (nerr && rc == SRT_EXIT_OK)
				rc = SRT_EXIT_INVALID;
			srt_compiled_release(&comp);
			srt_diags_release(&d);
		}
		srt_cli_free_files(files, nfiles);
		free(selector);
	}
	if (fmt == SRT_OUT_JSON) {
		json_t *top = json_pack("{s:b, s:i, s:i, s:o}", "valid", rc == SRT_EXIT_OK,
					"valid_files", (int)nvalid, "invalid_files", (int)ninvalid,
					"files", jfiles);

		json_dumpf(top, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(top);
	} else if (nvalid + ninvalid > 1) {
		printf("%zu file(s) valid, %zu invalid\n", nvalid, ninvalid);
	}
	srt_cluster_release(&cluster);
	free(paths);
	return rc;
}
