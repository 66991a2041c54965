/*
 * slurm/directives.c: sbatch directives as slurmrestd job description fields.
 *
 * slurmrestd does not read #SBATCH lines: every job option has to be a field
 * of the job description, and the fields differ between API versions
 * (v0.0.38 has gpus_per_node, cpus_per_gpu and memory_per_gpu; from v0.0.40
 * on they are TRES strings: tres_per_node "gres/gpu:4", cpus_per_tres
 * "gres/gpu:16", memory_per_tres "gres/gpu:MB").  This file owns the one
 * table of the directives srtctl passes on, the checks of their values, and
 * their encoding for each API version.  Fields from the OpenAPI documents of
 * each version (v0.0.38 served by Slurm 22.05.8; v0.0.40-v0.0.42 published
 * for 23.11-24.11).  docs/recipe-reference.md shows the table to users.
 */
#include "slurm/internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a directive's value must look like. */
enum dkind {
	K_STR,	/* any non-empty text */
	K_UINT, /* a whole number >= 1 */
	K_MEM,	/* N[K|M|G|T] (MB when no unit), N >= 0 */
	K_GPUS, /* [type:]N, N >= 1 */
	K_GRES, /* name[:type]:N[,...] */
	K_FLAG, /* no value */
	K_MAIL, /* a comma list of mail types */
	K_SWITCHES, /* count[@max-time], count >= 1 */
};

/* How a value becomes a field. */
enum denc {
	E_NONE,	     /* the API version has no field for it */
	E_STR,	     /* "field": "value" */
	E_INT,	     /* "field": N */
	E_INT_NUM,   /* "field": {"set": true, "infinite": false, "number": N} */
	E_MB,	     /* "field": megabytes */
	E_MB_NUM,    /* "field": {"set": true, "infinite": false, "number": megabytes} */
	E_GPU_TRES,  /* "field": "gres/gpu:value" (joined with "," to what is there) */
	E_GPU_MB,    /* "field": "gres/gpu:megabytes" */
	E_GRES_TRES, /* "field": each of "a:1,b:2" as "gres/a:1,gres/b:2" */
	E_TRUE,	     /* "field": true */
	E_FALSE,     /* "field": false */
	E_MAIL_STR,  /* "field": "END,FAIL" */
	E_MAIL_LIST, /* "field": ["END", "FAIL"] */
	E_CSV,	     /* "field": ["value"] (a csv_string) */
	E_SWITCHES,  /* "field": {"set", "number": count}, "wait_for_switch": seconds */
};

struct dentry {
	const char *name;  /* the long option */
	char letter;	   /* the short option, or 0 */
	const char *group; /* one directive of a group per job (NULL: the name) */
	enum dkind kind;
	enum denc e38;
	const char *f38;
	enum denc e40;
	const char *f40;
	int min40; /* the first v0.0.4x minor that has f40 */
};

/* Sorted by name.  Keep docs/recipe-reference.md ("Job directives") in step. */
static const struct dentry table[] = {
	{ "constraint", 'C', NULL, K_STR, E_STR, "constraints", E_STR, "constraints", 40 },
	{ "cpus-per-gpu", 0, NULL, K_UINT, E_STR, "cpus_per_gpu", E_GPU_TRES, "cpus_per_tres", 40 },
	{ "cpus-per-task", 'c', NULL, K_UINT, E_INT, "cpus_per_task", E_INT, "cpus_per_task", 40 },
	{ "dependency", 'd', NULL, K_STR, E_STR, "dependency", E_STR, "dependency", 40 },
	{ "exclude", 'x', NULL, K_STR, E_NONE, NULL, E_CSV, "excluded_nodes", 40 },
	{ "gpus", 'G', NULL, K_GPUS, E_STR, "gpus", E_GPU_TRES, "tres_per_job", 40 },
	{ "gpus-per-node", 0, "gpus-per-node/gres", K_GPUS, E_STR, "gpus_per_node", E_GPU_TRES,
	  "tres_per_node", 40 },
	{ "gres", 0, "gpus-per-node/gres", K_GRES, E_STR, "gres", E_GRES_TRES, "tres_per_node",
	  40 },
	{ "mail-type", 0, NULL, K_MAIL, E_MAIL_STR, "mail_type", E_MAIL_LIST, "mail_type", 40 },
	{ "mail-user", 0, NULL, K_STR, E_STR, "mail_user", E_STR, "mail_user", 40 },
	{ "mem", 0, "mem/mem-per-cpu/mem-per-gpu", K_MEM, E_MB, "memory_per_node", E_MB_NUM,
	  "memory_per_node", 40 },
	{ "mem-per-cpu", 0, "mem/mem-per-cpu/mem-per-gpu", K_MEM, E_MB, "memory_per_cpu", E_MB_NUM,
	  "memory_per_cpu", 40 },
	{ "mem-per-gpu", 0, "mem/mem-per-cpu/mem-per-gpu", K_MEM, E_MB, "memory_per_gpu", E_GPU_MB,
	  "memory_per_tres", 40 },
	/* Slurm 22.05 ignores v0.0.38's "requeue": false (the job keeps JobRequeue's 1). */
	{ "no-requeue", 0, "requeue/no-requeue", K_FLAG, E_NONE, NULL, E_FALSE, "requeue", 40 },
	{ "nodelist", 'w', NULL, K_STR, E_NONE, NULL, E_CSV, "required_nodes", 40 },
	{ "qos", 'q', NULL, K_STR, E_STR, "qos", E_STR, "qos", 40 },
	{ "requeue", 0, "requeue/no-requeue", K_FLAG, E_TRUE, "requeue", E_TRUE, "requeue", 40 },
	{ "reservation", 0, NULL, K_STR, E_STR, "reservation", E_STR, "reservation", 40 },
	{ "segment", 0, NULL, K_UINT, E_NONE, NULL, E_INT_NUM, "segment_size", 41 },
	{ "switches", 0, NULL, K_SWITCHES, E_NONE, NULL, E_SWITCHES, "required_switches", 40 },
};
#define NTABLE (sizeof(table) / sizeof(table[0]))

/* Mail types: sbatch's words, and what v0.0.40+ takes for each (NULL: several / none). */
static const struct {
	const char *word, *v40;
} mail_types[] = {
	{ "NONE", NULL },
	{ "BEGIN", "BEGIN" },
	{ "END", "END" },
	{ "FAIL", "FAIL" },
	{ "REQUEUE", "REQUEUE" },
	{ "ALL", NULL },
	{ "INVALID_DEPEND", "INVALID_DEPENDENCY" },
	{ "STAGE_OUT", "STAGE_OUT" },
	{ "TIME_LIMIT", "TIME=100%" },
	{ "TIME_LIMIT_90", "TIME=90%" },
	{ "TIME_LIMIT_80", "TIME=80%" },
	{ "TIME_LIMIT_50", "TIME=50%" },
	{ "ARRAY_TASKS", "ARRAY_TASKS" },
};
#define NMAIL (sizeof(mail_types) / sizeof(mail_types[0]))
/* What ALL means (sbatch: BEGIN, END, FAIL, INVALID_DEPEND, REQUEUE, STAGE_OUT). */
static const char *const mail_all[] = { "BEGIN",   "END",	"FAIL", "INVALID_DEPENDENCY",
					"REQUEUE", "STAGE_OUT", NULL };

static const struct dentry *find(const char *name)
{
	for (size_t i = 0; i < NTABLE; i++)
		if (!strcmp(name, table[i].name) ||
		    (table[i].letter && name[0] == table[i].letter && !name[1]))
			return &table[i];
	return NULL;
}

/* "123" -> 123; -1 for anything else (empty, signs, junk, overflow). */
static long long whole(const char *s, size_t len)
{
	long long v = 0;

	if (!len)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]) || v > (1LL << 40))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* sbatch's memory size: N with an optional K, M, G or T (M by default) -> MB; -1 if bad. */
static long long megabytes(const char *s)
{
	size_t len = strlen(s);
	long long n;
	int shift = 0; /* to MB: K -> /1024 (rounded up), G -> *1024, T -> *1024^2 */

	if (len && strchr("KkMmGgTt", s[len - 1])) {
		switch (toupper((unsigned char)s[len - 1])) {
		case 'K':
			shift = -10;
			break;
		case 'G':
			shift = 10;
			break;
		case 'T':
			shift = 20;
			break;
		default:
			break;
		}
		len--;
	}
	n = whole(s, len);
	if (n < 0)
		return -1;
	if (shift < 0)
		return (n + 1023) / 1024;
	return n << shift;
}

/*
 * sbatch's time as seconds (Slurm's time_str2secs): M, M:S, H:M:S, D-H,
 * D-H:M or D-H:M:S.  -1 if bad.
 */
static long long seconds(const char *s, size_t len)
{
	long long part[3] = { 0, 0, 0 }, days = -1;
	const char *dash = memchr(s, '-', len);
	size_t n = 0;

	if (dash) {
		days = whole(s, (size_t)(dash - s));
		if (days < 0 || days > 36500)
			return -1;
		len -= (size_t)(dash - s) + 1;
		s = dash + 1;
	}
	for (;;) {
		const char *c = memchr(s, ':', len);
		size_t l = c ? (size_t)(c - s) : len;

		if (n == 3 || (part[n] = whole(s, l)) < 0 || part[n] > 1000000)
			return -1;
		n++;
		if (!c)
			break;
		s = c + 1;
		len -= l + 1;
	}
	if (days >= 0) /* D-H, D-H:M, D-H:M:S */
		return days * 86400 + part[0] * 3600 + part[1] * 60 + part[2];
	if (n == 3) /* H:M:S */
		return part[0] * 3600 + part[1] * 60 + part[2];
	return part[0] * 60 + part[1]; /* M, M:S */
}

/* count[@max-time], 1 <= count < 2^32 - 1 (sbatch --switches); *wait -1 when not given. */
static bool switches_ok(const char *s, long long *count, long long *wait)
{
	size_t at = strcspn(s, "@");

	*count = whole(s, at);
	*wait = s[at] ? seconds(s + at + 1, strlen(s + at + 1)) : -1;
	return *count >= 1 && *count < 0xfffffffeLL && (!s[at] || *wait >= 0);
}

/* [type:]N with N >= 1. */
static bool gpu_count_ok(const char *s)
{
	const char *c = strrchr(s, ':');
	const char *n = c ? c + 1 : s;

	if (c && (c == s || strchr(s, ':') != c))
		return false;
	return whole(n, strlen(n)) >= 1;
}

/* name[:type][:N] items, comma-separated, of letters, digits, '_', '-', '.', '/'. */
static bool gres_ok(const char *s)
{
	if (!*s || *s == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		return false;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr(":,_-./", *p))
			return false;
	return true;
}

static const char *mail_v40(const char *word, size_t len, bool *known)
{
	for (size_t i = 0; i < NMAIL; i++) {
		if (strlen(mail_types[i].word) == len &&
		    !strncasecmp(word, mail_types[i].word, len)) {
			*known = true;
			return mail_types[i].v40;
		}
	}
	*known = false;
	return NULL;
}

static bool mail_ok(const char *s)
{
	const char *p = s;

	if (!*s)
		return false;
	for (;;) {
		size_t len = strcspn(p, ",");
		bool known;

		(void)mail_v40(p, len, &known);
		if (!known)
			return false;
		if (!p[len])
			return true;
		p += len + 1;
	}
}

static int bad_value(struct srt_error *err, const char *name, const char *value, const char *want)
{
	return srt_slurm_fail(err, SRT_SLURM_EINVAL, "directive --%s: '%s' is not %s", name, value,
			      want);
}

int srt_slurm_directive_check(const char *name, const char *value, const char **canon,
			      const char **group, struct srt_error *err)
{
	const struct dentry *d;

	while (*name == '-')
		name++;
	d = find(name);
	if (!d) {
		struct srt_buf b;
		int rc;

		srt_buf_init(&b);
		for (size_t i = 0; i < NTABLE; i++)
			srt_buf_printf(&b, "%s%s", i ? ", " : "", table[i].name);
		rc = srt_slurm_fail(
			err, SRT_SLURM_EINVAL,
			"srtctl cannot pass the sbatch option --%s to SLURM: slurmrestd "
			"does not read #SBATCH lines, and srtctl sends only the options "
			"it maps to job description fields (%s); remove it, or ask for "
			"it to be added to that table (slurm/directives.c)",
			name, b.data);
		srt_buf_release(&b);
		return rc;
	}
	if (canon)
		*canon = d->name;
	if (group)
		*group = d->group ? d->group : d->name;
	if (!value)
		value = "";
	if (d->kind == K_FLAG) {
		if (*value)
			return bad_value(err, d->name, value,
					 "valid: the option takes no value (write it with an "
					 "empty value or null)");
		return 0;
	}
	if (!*value)
		return srt_slurm_fail(err, SRT_SLURM_EINVAL, "directive --%s needs a value",
				      d->name);
	switch (d->kind) {
	case K_UINT:
		if (whole(value, strlen(value)) < 1)
			return bad_value(err, d->name, value, "a whole number of at least 1");
		break;
	case K_MEM:
		if (megabytes(value) < 0)
			return bad_value(err, d->name, value,
					 "a memory size (a whole number with an optional unit K, "
					 "M, G or T; M by default)");
		break;
	case K_GPUS:
		if (!gpu_count_ok(value))
			return bad_value(err, d->name, value,
					 "a GPU count ('4', or with a type, 'h100:4')");
		break;
	case K_GRES:
		if (!gres_ok(value))
			return bad_value(err, d->name, value,
					 "a gres list ('gpu:4', 'gpu:h100:4,nic:1')");
		break;
	case K_MAIL:
		if (!mail_ok(value))
			return bad_value(
				err, d->name, value,
				"a list of mail types (NONE, BEGIN, END, FAIL, REQUEUE, "
				"ALL, INVALID_DEPEND, STAGE_OUT, TIME_LIMIT, TIME_LIMIT_90, "
				"TIME_LIMIT_80, TIME_LIMIT_50, ARRAY_TASKS)");
		break;
	case K_SWITCHES: {
		long long count, wait;

		if (!switches_ok(value, &count, &wait))
			return bad_value(err, d->name, value,
					 "a switch count with an optional longest wait ('2', or "
					 "'2@1:00:00' to wait at most an hour for them)");
		break;
	}
	default:
		if (strpbrk(value, "\n\r"))
			return bad_value(err, d->name, value, "one line");
		break;
	}
	return 0;
}

static json_t *number_struct(long long n)
{
	return json_pack("{s:b, s:b, s:I}", "set", 1, "infinite", 0, "number", (json_int_t)n);
}

/* obj[field] = text, or obj[field] + "," + text when it holds a string already. */
static void put_joined(json_t *job, const char *field, const char *text)
{
	const char *old = json_string_value(json_object_get(job, field));

	if (old && *old) {
		char *j = srt_xasprintf("%s,%s", old, text);

		json_object_set_new(job, field, json_string(j));
		free(j);
	} else {
		json_object_set_new(job, field, json_string(text));
	}
}

static void encode(enum denc e, const char *field, const char *value, json_t *job)
{
	char *s = NULL;

	switch (e) {
	case E_NONE:
		break;
	case E_STR:
		json_object_set_new(job, field, json_string(value));
		break;
	case E_INT:
		json_object_set_new(job, field, json_integer(whole(value, strlen(value))));
		break;
	case E_INT_NUM:
		json_object_set_new(job, field, number_struct(whole(value, strlen(value))));
		break;
	case E_MB:
		json_object_set_new(job, field, json_integer(megabytes(value)));
		break;
	case E_MB_NUM:
		json_object_set_new(job, field, number_struct(megabytes(value)));
		break;
	case E_GPU_TRES:
		s = srt_xasprintf("gres/gpu:%s", value);
		put_joined(job, field, s);
		break;
	case E_GPU_MB:
		s = srt_xasprintf("gres/gpu:%lld", megabytes(value));
		put_joined(job, field, s);
		break;
	case E_GRES_TRES: {
		struct srt_buf b;

		srt_buf_init(&b);
		for (const char *p = value; *p;) {
			size_t len = strcspn(p, ",");

			srt_buf_printf(&b, "%s%s%.*s", b.len ? "," : "",
				       strncmp(p, "gres/", 5) ? "gres/" : "", (int)len, p);
			p += len + (p[len] ? 1 : 0);
		}
		put_joined(job, field, b.data);
		srt_buf_release(&b);
		break;
	}
	case E_TRUE:
	case E_FALSE:
		json_object_set_new(job, field, json_boolean(e == E_TRUE));
		break;
	case E_MAIL_STR:
		s = srt_xstrdup(value);
		for (char *p = s; *p; p++)
			*p = (char)toupper((unsigned char)*p);
		json_object_set_new(job, field, json_string(s));
		break;
	case E_MAIL_LIST: {
		json_t *a = json_array();

		for (const char *p = value; *p;) {
			size_t len = strcspn(p, ",");
			bool known;
			const char *w = mail_v40(p, len, &known);

			if (w) {
				json_array_append_new(a, json_string(w));
			} else if (len == 3 && !strncasecmp(p, "ALL", 3)) {
				for (size_t i = 0; mail_all[i]; i++)
					json_array_append_new(a, json_string(mail_all[i]));
			}
			p += len + (p[len] ? 1 : 0);
		}
		json_object_set_new(job, field, a);
		break;
	}
	case E_CSV:
		json_object_set_new(job, field, json_pack("[s]", value));
		break;
	case E_SWITCHES: {
		long long count, wait;

		(void)switches_ok(value, &count, &wait);
		json_object_set_new(job, field, number_struct(count));
		if (wait >= 0)
			json_object_set_new(job, "wait_for_switch", json_integer(wait));
		break;
	}
	}
	free(s);
}

int srt_slurm_directives_encode(const struct srt_slurm_api *api,
				const struct srt_slurm_directive *dv, size_t n, json_t *job,
				struct srt_error *err)
{
	for (size_t i = 0; i < n; i++) {
		const struct dentry *d;
		const char *canon;
		enum denc e;
		int rc;

		rc = srt_slurm_directive_check(dv[i].name, dv[i].value, &canon, NULL, err);
		if (rc != 0)
			return rc;
		d = find(canon);
		e = api->minor == 38 ? d->e38 : api->minor >= d->min40 ? d->e40 : E_NONE;
		if (e == E_NONE) {
			if (dv[i].optional)
				continue;
			return srt_slurm_fail(
				err, SRT_SLURM_EINVAL,
				"directive --%s cannot be sent through slurmrestd API %s: its job "
				"description has no field for it, or Slurm ignores it (%s has it); "
				"remove the directive, or use a Slurm whose slurmrestd speaks that",
				d->name, api->version,
				d->min40 > 40 ? "v0.0.41 (Slurm 24.05) and later" :
						"v0.0.40 (Slurm 23.11) and later");
		}
		encode(e, api->minor == 38 ? d->f38 : d->f40, dv[i].value ? dv[i].value : "", job);
	}
	return 0;
}
