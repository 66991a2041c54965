-- 0005_campaign_point_counts: every controller pass counts each current
-- deployment's points by state (store/points.c, srt_store_campaign_world).
-- Without this index that count reads the points' rows with their results
-- (raw JSON included): with a 10,000-point campaign, a pass cost 11.5-12.4 ms
-- CPU and 20.9 MiB peak RSS, and about 9.5 ms and 9.4 MiB with it
-- (bench/campaign/bench_campaign).  The count now reads only this index.

CREATE INDEX campaign_points_deployment_state ON campaign_points (deployment_id, removed_at, state);
