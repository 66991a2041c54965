-- 0001_init: desired state (recipes, campaigns), observed state (runs, their
-- conditions, services, workers) and the event history.
-- Times are Unix milliseconds (INTEGER). Text enums are checked.

CREATE TABLE recipes (
    id           INTEGER PRIMARY KEY,
    uid          TEXT    NOT NULL UNIQUE,          -- stable across generations
    name         TEXT    NOT NULL UNIQUE,
    spec         TEXT    NOT NULL,                 -- canonical JSON (sorted keys, compact)
    spec_hash    TEXT    NOT NULL,                 -- sha256 of spec, hex
    generation   INTEGER NOT NULL CHECK (generation >= 1),
    source_file  TEXT,
    source_yaml  TEXT,                             -- the YAML as last applied
    created_at   INTEGER NOT NULL,
    applied_at   INTEGER NOT NULL,                 -- last apply that changed or confirmed it
    deleted_at   INTEGER                           -- set by `srtctl delete`; the controller cancels
) STRICT;

CREATE TABLE runs (
    id             INTEGER PRIMARY KEY,
    uid            TEXT    NOT NULL UNIQUE,
    recipe_id      INTEGER NOT NULL REFERENCES recipes(id),
    name           TEXT    NOT NULL UNIQUE,        -- <recipe>-<generation>-<attempt>
    generation     INTEGER NOT NULL,
    attempt        INTEGER NOT NULL CHECK (attempt >= 1),
    phase          TEXT    NOT NULL CHECK (phase IN ('Pending', 'Submitted', 'Starting', 'Ready',
                                   'Degraded', 'Succeeded', 'Failed', 'Cancelling', 'Cancelled')),
    job_name       TEXT    NOT NULL,               -- deterministic, set before submission
    job_comment    TEXT    NOT NULL,               -- srtctl:<run uid>:<attempt>
    slurm_job_id   INTEGER,                        -- NULL until slurmrestd answered
    slurm_state    TEXT,
    exit_code      INTEGER,
    run_dir        TEXT,
    message        TEXT,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    started_at     INTEGER,
    finished_at    INTEGER,
    UNIQUE (recipe_id, generation, attempt)
) STRICT;
CREATE INDEX runs_recipe ON runs (recipe_id, generation, attempt);
CREATE INDEX runs_job ON runs (slurm_job_id);

CREATE TABLE run_conditions (
    run_id               INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    type                 TEXT    NOT NULL,         -- Submitted, MasterReady, WorkersReady, Ready, ...
    status               TEXT    NOT NULL CHECK (status IN ('True', 'False', 'Unknown')),
    reason               TEXT,
    message              TEXT,
    observed_generation  INTEGER NOT NULL,
    last_transition_at   INTEGER NOT NULL,
    PRIMARY KEY (run_id, type)
) STRICT, WITHOUT ROWID;

CREATE TABLE services (
    id             INTEGER PRIMARY KEY,
    run_id         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    name           TEXT    NOT NULL,               -- instance: <service> or <service>_<node>
    service        TEXT    NOT NULL,               -- the recipe's service name
    type           TEXT    NOT NULL,
    node           TEXT,
    endpoint       TEXT,                           -- host:port clients are given
    state          TEXT    NOT NULL,               -- Pending, Starting, Ready, Unhealthy, CrashLoopBackOff, Failed, Stopped
    restarts       INTEGER NOT NULL DEFAULT 0,
    last_probe     TEXT,
    last_probe_at  INTEGER,
    message        TEXT,
    started_at     INTEGER,
    updated_at     INTEGER NOT NULL,
    UNIQUE (run_id, name)
) STRICT;

CREATE TABLE workers (
    id          INTEGER PRIMARY KEY,
    run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    role        TEXT    NOT NULL CHECK (role IN ('prefill', 'decode', 'agg')),
    idx         INTEGER NOT NULL,
    node        TEXT,
    ip          TEXT,
    env_hash    TEXT,                              -- sha256 of the stamped env
    state       TEXT    NOT NULL,
    restarts    INTEGER NOT NULL DEFAULT 0,
    message     TEXT,
    started_at  INTEGER,
    updated_at  INTEGER NOT NULL,
    UNIQUE (run_id, role, idx)
) STRICT;

CREATE TABLE events (
    id          INTEGER PRIMARY KEY,
    type        TEXT    NOT NULL CHECK (type IN ('Normal', 'Warning')),
    reason      TEXT    NOT NULL,                  -- CamelCase
    kind        TEXT    NOT NULL,                  -- recipe, run, service, worker, campaign
    name        TEXT    NOT NULL,
    message     TEXT    NOT NULL,
    count       INTEGER NOT NULL DEFAULT 1 CHECK (count >= 1),
    first_at    INTEGER NOT NULL,
    last_at     INTEGER NOT NULL,
    source      TEXT    NOT NULL DEFAULT 'cli'     -- cli, controller, agent
) STRICT;
-- `events --for KIND/NAME --since D` and the dedup lookup of an identical event.
CREATE INDEX events_object ON events (kind, name, last_at);
-- `events --since D` without an object, and pruning.
CREATE INDEX events_time ON events (last_at);

-- Agent events already ingested, per run (exactly once across controller restarts).
CREATE TABLE ingest_cursors (
    run_id   INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    last_seq INTEGER NOT NULL
) STRICT;

CREATE TABLE campaigns (
    id          INTEGER PRIMARY KEY,
    uid         TEXT    NOT NULL UNIQUE,
    name        TEXT    NOT NULL UNIQUE,
    spec        TEXT    NOT NULL,
    state       TEXT    NOT NULL DEFAULT 'Pending',
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    deleted_at  INTEGER
) STRICT;
