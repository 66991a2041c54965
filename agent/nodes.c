/*
 * agent/nodes.c: the allocation's nodes and their IPs.
 *
 * This file owns node discovery inside the allocation: hostnames in
 * SLURM's order from `scontrol show hostnames`, and each node's IP
 * resolved on that node itself by a tiny `srun --overlap` step running
 * srt_agent_ip_program(), all steps in parallel and bounded by one timeout.
 */
#include "agent/agent.h"

#include <stdlib.h>
#include <string.h>

/* Prints one IP of the node it runs on: $1 is the interface, or empty. */
static const char resolve_ip_prog[] =
	"if [ -n \"$1\" ]; then\n"
	"\tip -4 -o addr show dev \"$1\" | { read -r _ _ _ addr _ && echo \"${addr%%/*}\"; }\n"
	"else\n"
	"\thostname -I | { read -r addr _ && echo \"$addr\"; }\n"
	"fi";

const char *srt_agent_ip_program(void)
{
	return resolve_ip_prog;
}

/* Split text into its non-empty lines (malloc'd strings). */
static size_t lines(const char *text, char ***out)
{
	size_t n = 0, cap = 8;
	char **v = srt_xcalloc(cap, sizeof(*v));

	for (const char *p = text; *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		while (len && (p[len - 1] == '\r' || p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (len) {
			if (n + 1 >= cap) {
				cap *= 2;
				v = srt_xrealloc(v, cap * sizeof(*v));
			}
			v[n++] = srt_xstrndup(p, len);
		}
		p = e ? e + 1 : p + strlen(p);
	}
	*out = v;
	return n;
}

/* The first word of the IP step's output, when it looks like an address. */
static char *first_addr(const char *text)
{
	size_t len;

	text += strspn(text, " \t\r\n");
	len = strcspn(text, " \t\r\n");
	if (!len || len > 45 || strspn(text, "0123456789abcdefABCDEF.:") < len)
		return NULL;
	return srt_xstrndup(text, len);
}

int srt_agent_nodes_resolve(struct srt_agent_nodes *out, const char *nodelist, const char *iface,
			    size_t need, int timeout_ms, int cancel_fd, struct srt_error *err)
{
	const char *scontrol[] = { "scontrol", "show", "hostnames", nodelist, NULL };
	struct srt_agent_cmd sc = { scontrol, { NULL, 0, 0 }, 0, 0, -1 };
	struct srt_agent_cmd *steps = NULL;
	const char ***argvs = NULL;
	int64_t deadline = srt_monotonic_ms() + timeout_ms;
	int rc = -1, r;

	memset(out, 0, sizeof(*out));
	if (!nodelist || !*nodelist)
		return srt_error_set(err, "SLURM_JOB_NODELIST is not set: srtctl agent runs inside "
					  "a SLURM allocation (the batch script starts it)");
	r = srt_agent_run_cmds(&sc, 1, timeout_ms, cancel_fd, err);
	if (r < 0) {
		srt_buf_release(&sc.out);
		return r == -2 ? -2 : srt_error_prefix(err, "scontrol show hostnames");
	}
	if (sc.status != 0) {
		srt_error_set(err,
			      "'scontrol show hostnames %s' %s; check that scontrol is on PATH "
			      "on the first node",
			      nodelist, sc.status < 0 ? "timed out" : "failed");
		srt_buf_release(&sc.out);
		return -1;
	}
	out->n = lines(sc.out.data, &out->hosts);
	srt_buf_release(&sc.out);
	if (out->n < need) {
		srt_error_set(err,
			      "the allocation has %zu node(s) (%s) but the plan needs %zu; submit "
			      "the job with --nodes=%zu",
			      out->n, nodelist, need, need);
		goto out;
	}
	out->ips = srt_xcalloc(out->n + 1, sizeof(*out->ips));
	steps = srt_xcalloc(need + 1, sizeof(*steps));
	argvs = srt_xcalloc(need + 1, sizeof(*argvs));
	for (size_t i = 0; i < need; i++) {
		const char **av = srt_xcalloc(12, sizeof(*av));

		av[0] = "srun";
		av[1] = "--overlap";
		av[2] = "--nodes=1";
		av[3] = "--ntasks=1";
		av[4] = srt_xasprintf("--nodelist=%s", out->hosts[i]);
		av[5] = "--job-name=srtctl-ip";
		av[6] = "bash";
		av[7] = "-c";
		av[8] = srt_agent_ip_program();
		av[9] = "srtctl-ip";
		av[10] = iface ? iface : "";
		argvs[i] = av;
		steps[i].argv = av;
	}
	{
		int64_t left = deadline - srt_monotonic_ms();

		r = srt_agent_run_cmds(steps, need, left > 1000 ? (int)left : 1000, cancel_fd, err);
	}
	if (r < 0) {
		if (r != -2)
			srt_error_prefix(err, "resolving node IPs");
		rc = r;
		goto out;
	}
	for (size_t i = 0; i < need; i++) {
		out->ips[i] = steps[i].status == 0 ? first_addr(steps[i].out.data) : NULL;
		if (!out->ips[i]) {
			srt_error_set(err,
				      "could not resolve the IP of node %s (%s%s%s); set "
				      "runtime.network_interface in srtslurm.yaml to an interface "
				      "every node has",
				      out->hosts[i],
				      steps[i].status < 0 ? "the step timed out" :
				      steps[i].status	  ? "the step failed" :
							    "no address printed",
				      iface ? ", interface " : ", first address of hostname -I",
				      iface ? iface : "");
			goto out;
		}
	}
	rc = 0;
out:
	for (size_t i = 0; steps && i < need; i++)
		srt_buf_release(&steps[i].out);
	for (size_t i = 0; argvs && i < need; i++) {
		if (argvs[i])
			free((char *)argvs[i][4]);
		free(argvs[i]);
	}
	free(argvs);
	free(steps);
	if (rc < 0)
		srt_agent_nodes_release(out);
	return rc;
}

void srt_agent_nodes_release(struct srt_agent_nodes *nodes)
{
	if (!nodes)
		return;
	for (size_t i = 0; i < nodes->n; i++) {
		free(nodes->hosts ? nodes->hosts[i] : NULL);
		free(nodes->ips ? nodes->ips[i] : NULL);
	}
	free(nodes->hosts);
	free(nodes->ips);
	memset(nodes, 0, sizeof(*nodes));
}
