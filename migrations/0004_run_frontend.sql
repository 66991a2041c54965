-- 0004_run_frontend: where a run's frontend serves (issue #14), shown by
-- `srtctl get runs -o wide` and `srtctl describe run`.
--   frontend_url_planned  the plan's frontend URL with its placeholders
--                         ("http://<prefill_node_0_ip>:8000"), written by the
--                         controller with plan.json; NULL: the plan has no
--                         frontend (or the run predates this migration).
--   frontend_url          the URL as the agent bound it to the allocation's
--                         IPs (status.json "frontend_url"), checked by the
--                         controller before it is stored; NULL until known.
-- Both are bounded here too, whoever writes them (frontend_url: SRT_RUNDIR_URL_MAX).

ALTER TABLE runs ADD COLUMN frontend_url_planned TEXT
    CHECK (frontend_url_planned IS NULL OR length(frontend_url_planned) <= 1024);
ALTER TABLE runs ADD COLUMN frontend_url TEXT
    CHECK (frontend_url IS NULL OR length(frontend_url) <= 256);
