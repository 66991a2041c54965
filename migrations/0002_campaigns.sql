-- 0002_campaigns: campaigns as applied desired state (generations like
-- recipes), their deployments (one child recipe each) and their points (one
-- benchmark run each) with normalised results.  A campaign row existed in
-- 0001 without a generation; it gains one here.  Times are Unix ms.

ALTER TABLE campaigns ADD COLUMN generation INTEGER NOT NULL DEFAULT 1 CHECK (generation >= 1);
ALTER TABLE campaigns ADD COLUMN spec_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE campaigns ADD COLUMN source_file TEXT;
ALTER TABLE campaigns ADD COLUMN source_yaml TEXT;
ALTER TABLE campaigns ADD COLUMN applied_at INTEGER NOT NULL DEFAULT 0;

-- One row per deployment a generation of the campaign has listed.  Its name
-- is the child recipe's (<campaign>-<8 hex of its axis values>), so a
-- deployment keeps its name when the template changes; removed_at is set
-- when a later generation no longer lists it.
CREATE TABLE campaign_deployments (
    id           INTEGER PRIMARY KEY,
    campaign_id  INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
    name         TEXT    NOT NULL UNIQUE,
    axes         TEXT    NOT NULL,                 -- canonical JSON {path: value}
    spec         TEXT    NOT NULL,                 -- the child recipe, canonical JSON
    spec_hash    TEXT    NOT NULL,
    nodes        INTEGER NOT NULL CHECK (nodes >= 0),
    position     INTEGER NOT NULL,                 -- order in the campaign (1-based)
    generation   INTEGER NOT NULL,                 -- campaign generation that last listed it
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    removed_at   INTEGER
) STRICT;
CREATE INDEX campaign_deployments_campaign ON campaign_deployments (campaign_id, position);

-- One row per point: its id is the sha256 of its deployment's spec hash,
-- the benchmark tool and params, and its load parameters
-- (recipe/campaign.h), so a point that was done stays done across
-- re-applies that keep it.  removed_at: a later generation dropped it
-- (its results are kept).
CREATE TABLE campaign_points (
    id                      INTEGER PRIMARY KEY,
    point_id                TEXT    NOT NULL,
    campaign_id             INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
    deployment_id           INTEGER NOT NULL REFERENCES campaign_deployments(id) ON DELETE CASCADE,
    deployment_spec_hash    TEXT    NOT NULL,
    seq                     INTEGER NOT NULL,      -- order within its deployment (1-based)
    tool                    TEXT    NOT NULL CHECK (tool IN ('vllm-bench', 'sa-bench', 'custom')),
    params                  TEXT    NOT NULL,      -- canonical JSON of benchmark.params
    isl                     INTEGER NOT NULL,
    osl                     INTEGER NOT NULL,
    concurrency             INTEGER NOT NULL,
    prompts                 INTEGER NOT NULL,
    warmup                  INTEGER NOT NULL,
    repeat_idx              INTEGER NOT NULL,
    state                   TEXT    NOT NULL DEFAULT 'pending'
                            CHECK (state IN ('pending', 'running', 'done', 'failed', 'invalid')),
    attempts                INTEGER NOT NULL DEFAULT 0,
    generation              INTEGER NOT NULL,      -- campaign generation that last listed it
    run_name                TEXT,                  -- the run (job) that ran it last
    slurm_job_id            INTEGER,
    message                 TEXT,
    created_at              INTEGER NOT NULL,
    updated_at              INTEGER NOT NULL,
    started_at              INTEGER,
    finished_at             INTEGER,
    removed_at              INTEGER,
    -- results (NULL until ingested)
    completed               INTEGER,
    duration_s              REAL,
    total_input_tokens      INTEGER,
    total_output_tokens     INTEGER,
    request_throughput      REAL,
    output_throughput       REAL,
    total_token_throughput  REAL,
    mean_ttft_ms REAL, median_ttft_ms REAL, p99_ttft_ms REAL,
    mean_tpot_ms REAL, median_tpot_ms REAL, p99_tpot_ms REAL,
    mean_itl_ms  REAL, median_itl_ms  REAL, p99_itl_ms  REAL,
    mean_e2el_ms REAL, median_e2el_ms REAL, p99_e2el_ms REAL,
    errors                  INTEGER,
    raw_json                TEXT,
    raw_path                TEXT,
    raw_sha256              TEXT,
    slo_met                 INTEGER CHECK (slo_met IN (0, 1)),
    UNIQUE (campaign_id, point_id)
) STRICT;
CREATE INDEX campaign_points_deployment ON campaign_points (deployment_id, seq);
CREATE INDEX campaign_points_state ON campaign_points (campaign_id, state);
