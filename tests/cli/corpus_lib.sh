# tests/cli/corpus_lib.sh: what the tests that read the real-recipe corpus
# share.  Sourced by tests/cli/test_corpus.sh and test_corpus_argv.sh.

# corpus_cluster_yaml [ALIAS=PATH...]: an srtslurm.yaml written the way
# srt-slurm users write theirs (default_*, gpus_per_node, the sbatch
# directive switches, containers and model_paths aliases), on stdout.  Each
# ALIAS=PATH adds a model_paths alias; model_paths comes last so a caller
# may append more top-level keys.
corpus_cluster_yaml() {
	local kv

	cat <<'YAML'
default_account: corpus-acct
default_partition: batch
default_time_limit: "04:00:00"
gpus_per_node: 4
use_gpus_per_node_directive: true
use_segment_sbatch_directive: false
srtctl_root: /shared/srt-slurm
containers:
  latest: /lustre/containers/sglang-latest.sqsh
default_container: latest
model_paths:
  deepseek-r1: /lustre/models/DeepSeek-R1
  dsv4-pro: /lustre/models/DeepSeek-V4-Pro
YAML
	for kv in "$@"; do
		printf '  %s: %s\n' "${kv%%=*}" "${kv#*=}"
	done
}
