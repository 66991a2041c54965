/*
 * agent/ray.c: what the agent reads of a Ray cluster.
 *
 * A `type: ray` service's head is ready once its dashboard's node summary
 * (`GET /nodes?view=summary`, Ray's dashboard API) lists every member of
 * the cluster ALIVE: {"result": true, "data": {"summary": [{"raylet":
 * {"state": "ALIVE", ...}, ...}, ...]}}.  Dead nodes stay in the summary
 * with state DEAD, so the count is of ALIVE raylets, not of entries.
 * A pure function of the body: unit-tested without sockets.
 */
#include "agent/agent.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

bool srt_agent_ray_alive(const char *body, size_t len, const void *want, char *detail, size_t size)
{
	int need = want ? *(const int *)want : 1;
	json_error_t jerr;
	json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
	const json_t *summary;
	size_t alive = 0, i;
	json_t *node;

	if (!root) {
		snprintf(detail, size, "the node summary is not JSON (%s)", jerr.text);
		return false;
	}
	summary = json_object_get(json_object_get(root, "data"), "summary");
	if (!json_is_array(summary)) {
		snprintf(detail, size, "the reply has no data.summary list of Ray nodes");
		json_decref(root);
		return false;
	}
	json_array_foreach(summary, i, node)
	{
		const char *st = json_string_value(
			json_object_get(json_object_get(node, "raylet"), "state"));

		if (st && !strcmp(st, "ALIVE"))
			alive++;
	}
	snprintf(detail, size, "%zu of %d Ray nodes ALIVE", alive, need);
	json_decref(root);
	return alive >= (size_t)need;
}
