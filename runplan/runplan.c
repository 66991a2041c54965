/*
 * runplan/runplan.c: the names of the run plan's vocabulary (runplan.h).
 */
#include "runplan/runplan.h"

const char *srt_proc_kind_name(enum srt_proc_kind k)
{
	switch (k) {
	case SRT_PROC_SERVICE:
		return "service";
	case SRT_PROC_WORKER:
		return "worker";
	case SRT_PROC_FRONTEND:
		return "frontend";
	case SRT_PROC_BENCHMARK:
		return "benchmark";
	}
	return "?";
}

const char *srt_restart_mode_name(enum srt_restart_mode m)
{
	switch (m) {
	case SRT_RESTART_NEVER:
		return "never";
	case SRT_RESTART_ON_FAILURE:
		return "on-failure";
	case SRT_RESTART_ALWAYS:
		return "always";
	}
	return "?";
}
