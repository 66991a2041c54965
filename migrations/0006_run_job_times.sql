-- 0006_run_job_times: when SLURM says a run's job started and ended (the
-- listing's start_time and end_time, in ms), as opposed to when srtctl first
-- saw it running or ended (runs.started_at / finished_at, one pass late at
-- best, never for a job that started and ended between two passes).  A
-- campaign's node-hours are counted from these when they are known.

ALTER TABLE runs ADD COLUMN job_started_at INTEGER;
ALTER TABLE runs ADD COLUMN job_ended_at INTEGER;
