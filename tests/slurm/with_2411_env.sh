#!/usr/bin/env bash
# tests/slurm/with_2411_env.sh CMD [ARG...]: run CMD against the 24.11 flavour
# of scripts/slurm-local, with the variables of its `env` under their usual
# names (SRT_SLURMRESTD_URL, SLURM_JWT, SRT_SLURM_NODE_IPS, ...), so that one
# test script serves both flavours.
#
# Where they come from, first match wins:
#   1. SRT2411_<NAME> variables (scripts/test exports the 24.11 env under that
#      prefix, beside the native flavour's env under the plain names);
#   2. `scripts/slurm-local --release 24.11 env`, when that cluster is up.
# The native flavour's variables are removed first.  With neither, CMD runs
# without them: the tests then skip (exit 77), or fail when SRT_E2E_REQUIRED=1.
set -euo pipefail

[ $# -ge 1 ] || {
	echo "usage: with_2411_env.sh CMD [ARG...]" >&2
	exit 2
}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# What `slurm-local env` prints (either flavour).
NAMES=(SRT_SLURMRESTD_URL SRTCTL_SLURMRESTD_URL SLURM_JWT SRT_SLURM_USER SRT_SLURM_TOKEN_FILE SLURM_CONF
	SRT_SLURM_NODES SRT_SLURM_NODE_IPS SRT_SLURM_HOST_IP SRT_SLURM_PARTITION
	SRT_SLURM_JOBS_DIR SRT_SLURM_MIN_JOB_AGE SRT_SLURM_RELEASE SRT_SLURM_CHROOT
	SRT_SLURMRESTD_SOCKET SRT_SLURM_GPUS_PER_NODE SRT_SLURM_QOS)

if [ -n "${SRT2411_SRT_SLURMRESTD_URL:-}" ]; then
	unset "${NAMES[@]}"
	for v in "${NAMES[@]}"; do
		p=SRT2411_$v
		if [ -n "${!p:-}" ]; then export "$v=${!p}"; fi
	done
elif "$root/scripts/slurm-local" --release 24.11 status >/dev/null 2>&1; then
	unset "${NAMES[@]}"
	env_lines=$("$root/scripts/slurm-local" --release 24.11 env)
	eval "$env_lines"
else
	unset "${NAMES[@]}"
	echo "with_2411_env.sh: the 24.11 flavour is not up and SRT2411_SRT_SLURMRESTD_URL is not set" \
		"(scripts/slurm-local --release 24.11 up)" >&2
fi
exec "$@"
