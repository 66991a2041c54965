-- 0008_campaign_notify: a campaign's own `notify:` command (issue #17).
--
-- campaigns.notify holds the campaign's notify command as the notifier reads
-- it (notify/notify.h, srt_notify_config_to_json: {"command": [...],
-- "timeout_ms", "backoff_ms", "max_attempts"}), or NULL when the campaign
-- has none.  It is written at apply, with the spec it comes from.
--
-- A notification now has a sink: campaign_id 0 is the cluster's command
-- (srtslurm.yaml notify:), any other id that campaign's command.  One event
-- is one row per sink, so each command gets it once, at least once, with
-- its own attempts and back-off; the event id stays the same for every
-- sink.  The cluster row is inserted as before; a campaign row copies it,
-- with "campaign" added to the payload, when the event belongs to a
-- campaign with a notify command:
--   * the campaign's own end (Done, Stopped, OutOfBudget);
--   * a run of one of its deployments becoming Failed;
--   * a service of such a run entering CrashLoopBackOff.
-- The table is rebuilt because the event id is now unique per sink.

ALTER TABLE campaigns ADD COLUMN notify TEXT;

DROP TRIGGER notify_run_failed;
DROP TRIGGER notify_service_crashloop_update;
DROP TRIGGER notify_service_crashloop_insert;
DROP TRIGGER notify_campaign_end;
DROP INDEX notifications_due;

CREATE TABLE notifications_v8 (
    id               INTEGER PRIMARY KEY,
    campaign_id      INTEGER NOT NULL DEFAULT 0,  -- the sink: 0 the cluster's command
    event_id         TEXT    NOT NULL,
    reason           TEXT    NOT NULL,
    kind             TEXT    NOT NULL,
    name             TEXT    NOT NULL,
    payload          TEXT    NOT NULL,
    state            TEXT    NOT NULL DEFAULT 'Pending'
                     CHECK (state IN ('Pending', 'Delivered', 'Abandoned')),
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  INTEGER NOT NULL,
    last_error       TEXT,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    UNIQUE (campaign_id, event_id)
) STRICT;
INSERT INTO notifications_v8
    (id, campaign_id, event_id, reason, kind, name, payload, state, attempts,
     next_attempt_at, last_error, created_at, updated_at)
SELECT id, 0, event_id, reason, kind, name, payload, state, attempts,
       next_attempt_at, last_error, created_at, updated_at
FROM notifications;
DROP TABLE notifications;
ALTER TABLE notifications_v8 RENAME TO notifications;
CREATE INDEX notifications_due ON notifications (state, next_attempt_at);

-- The campaigns with a notify command that an event of a run belongs to
-- (through the deployment whose child recipe the run runs).
CREATE VIEW run_campaign_sinks AS
SELECT r.id AS run_id, c.id AS campaign_id, c.name AS campaign
FROM runs r
JOIN recipes rc ON rc.id = r.recipe_id
JOIN campaign_deployments d ON d.name = rc.name
JOIN campaigns c ON c.id = d.campaign_id
WHERE c.notify IS NOT NULL;

-- Copy the cluster row of `event_id` to each campaign sink of `run_id`:
-- the triggers below select from this view.
CREATE VIEW notification_campaign_copies AS
SELECT k.run_id AS run_id, k.campaign_id AS campaign_id, n.event_id AS event_id,
       n.reason AS reason, n.kind AS kind, n.name AS name,
       json_set(n.payload, '$.campaign', k.campaign) AS payload,
       n.next_attempt_at AS next_attempt_at, n.created_at AS created_at
FROM notifications n JOIN run_campaign_sinks k
WHERE n.campaign_id = 0;

CREATE TRIGGER notify_run_failed AFTER UPDATE OF phase ON runs
WHEN NEW.phase = 'Failed' AND OLD.phase <> 'Failed'
BEGIN
    INSERT OR IGNORE INTO notifications
        (event_id, reason, kind, name, payload, next_attempt_at, created_at, updated_at)
    VALUES ('run-failed:' || NEW.uid, 'RunFailed', 'run', NEW.name,
            json_object('id', 'run-failed:' || NEW.uid, 'reason', 'RunFailed', 'kind', 'run',
                        'name', NEW.name,
                        'recipe', (SELECT name FROM recipes WHERE id = NEW.recipe_id),
                        'attempt', NEW.attempt, 'phase', NEW.phase,
                        'slurm_job_id', NEW.slurm_job_id, 'exit_code', NEW.exit_code,
                        'message', NEW.message, 'at', NEW.updated_at),
            NEW.updated_at, NEW.updated_at, NEW.updated_at);
    INSERT OR IGNORE INTO notifications
        (campaign_id, event_id, reason, kind, name, payload, next_attempt_at, created_at,
         updated_at)
    SELECT campaign_id, event_id, reason, kind, name, payload, next_attempt_at, created_at,
           created_at
    FROM notification_campaign_copies
    WHERE run_id = NEW.id AND event_id = 'run-failed:' || NEW.uid;
END;

CREATE TRIGGER notify_service_crashloop_update AFTER UPDATE OF state ON services
WHEN NEW.state = 'CrashLoopBackOff' AND OLD.state <> 'CrashLoopBackOff'
BEGIN
    INSERT OR IGNORE INTO notifications
        (event_id, reason, kind, name, payload, next_attempt_at, created_at, updated_at)
    SELECT event_id, 'ServiceCrashLoopBackOff', 'service', name, payload, at, at, at
    FROM service_crashloop_notifications WHERE service_id = NEW.id;
    INSERT OR IGNORE INTO notifications
        (campaign_id, event_id, reason, kind, name, payload, next_attempt_at, created_at,
         updated_at)
    SELECT k.campaign_id, k.event_id, k.reason, k.kind, k.name, k.payload, k.next_attempt_at,
           k.created_at, k.created_at
    FROM notification_campaign_copies k
    JOIN service_crashloop_notifications v ON v.event_id = k.event_id
    WHERE v.service_id = NEW.id AND k.run_id = NEW.run_id;
END;

CREATE TRIGGER notify_service_crashloop_insert AFTER INSERT ON services
WHEN NEW.state = 'CrashLoopBackOff'
BEGIN
    INSERT OR IGNORE INTO notifications
        (event_id, reason, kind, name, payload, next_attempt_at, created_at, updated_at)
    SELECT event_id, 'ServiceCrashLoopBackOff', 'service', name, payload, at, at, at
    FROM service_crashloop_notifications WHERE service_id = NEW.id;
    INSERT OR IGNORE INTO notifications
        (campaign_id, event_id, reason, kind, name, payload, next_attempt_at, created_at,
         updated_at)
    SELECT k.campaign_id, k.event_id, k.reason, k.kind, k.name, k.payload, k.next_attempt_at,
           k.created_at, k.created_at
    FROM notification_campaign_copies k
    JOIN service_crashloop_notifications v ON v.event_id = k.event_id
    WHERE v.service_id = NEW.id AND k.run_id = NEW.run_id;
END;

CREATE TRIGGER notify_campaign_end AFTER UPDATE OF state ON campaigns
WHEN NEW.state IN ('Done', 'Stopped', 'OutOfBudget') AND OLD.state IS NOT NEW.state
BEGIN
    INSERT OR IGNORE INTO notifications
        (event_id, reason, kind, name, payload, next_attempt_at, created_at, updated_at)
    SELECT 'campaign-' || lower(NEW.state) || ':' || NEW.uid || ':' || NEW.updated_at,
           'Campaign' || NEW.state, 'campaign', NEW.name,
           json_object('id', 'campaign-' || lower(NEW.state) || ':' || NEW.uid || ':' ||
                             NEW.updated_at,
                       'reason', 'Campaign' || NEW.state, 'kind', 'campaign',
                       'name', NEW.name, 'state', NEW.state, 'generation', NEW.generation,
                       'message', CASE NEW.state
                           WHEN 'Done' THEN 'every point of the campaign is finished'
                           WHEN 'Stopped' THEN 'policy.maxFailedPoints reached'
                           ELSE 'policy.budget.nodeHours spent' END,
                       'points', json_object('total', count(*),
                           'done', coalesce(sum(p.state = 'done'), 0),
                           'failed', coalesce(sum(p.state = 'failed'), 0),
                           'invalid', coalesce(sum(p.state = 'invalid'), 0),
                           'running', coalesce(sum(p.state = 'running'), 0),
                           'pending', coalesce(sum(p.state = 'pending'), 0)),
                       'at', NEW.updated_at),
           NEW.updated_at, NEW.updated_at, NEW.updated_at
    FROM campaign_points p WHERE p.campaign_id = NEW.id AND p.removed_at IS NULL;
    INSERT OR IGNORE INTO notifications
        (campaign_id, event_id, reason, kind, name, payload, next_attempt_at, created_at,
         updated_at)
    SELECT NEW.id, event_id, reason, kind, name, json_set(payload, '$.campaign', NEW.name),
           next_attempt_at, created_at, created_at
    FROM notifications
    WHERE campaign_id = 0
      AND event_id = 'campaign-' || lower(NEW.state) || ':' || NEW.uid || ':' || NEW.updated_at
      AND NEW.notify IS NOT NULL;
END;
