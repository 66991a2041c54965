-- 0003_notifications: the notifications srtctl owes the cluster's `notify:`
-- command (issue #17).  Intent before effect: the triggers below insert a
-- pending notification in the same transaction as the state change it
-- reports (a run becoming Failed, a service entering CrashLoopBackOff), so
-- a controller that crashes right after the change still delivers it.  The
-- controller's notifier (notify/) delivers pending rows at least once; the
-- event_id is deterministic, so a change recorded twice is one notification,
-- and the command receives it (in the JSON and as SRTCTL_EVENT_ID) to drop
-- duplicate deliveries.

CREATE TABLE notifications (
    id               INTEGER PRIMARY KEY,
    event_id         TEXT    NOT NULL UNIQUE,
    reason           TEXT    NOT NULL,          -- RunFailed, ServiceCrashLoopBackOff
    kind             TEXT    NOT NULL,          -- run, service
    name             TEXT    NOT NULL,
    payload          TEXT    NOT NULL,          -- the JSON event the command reads on stdin
    state            TEXT    NOT NULL DEFAULT 'Pending'
                     CHECK (state IN ('Pending', 'Delivered', 'Abandoned')),
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  INTEGER NOT NULL,          -- Unix ms; due when <= now
    last_error       TEXT,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL
) STRICT;
CREATE INDEX notifications_due ON notifications (state, next_attempt_at);

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
END;

-- A service enters CrashLoopBackOff: once per (run, instance, restart count).
-- The view makes the notification of a service row; the two triggers (an
-- upsert inserts or updates) select from it.
CREATE VIEW service_crashloop_notifications AS
SELECT s.id AS service_id,
       'service-crashloop:' || r.uid || ':' || s.name || ':' || s.restarts AS event_id,
       r.name || '/' || s.name AS name,
       json_object('id', 'service-crashloop:' || r.uid || ':' || s.name || ':' || s.restarts,
                   'reason', 'ServiceCrashLoopBackOff', 'kind', 'service',
                   'name', r.name || '/' || s.name, 'run', r.name, 'service', s.service,
                   'node', s.node, 'restarts', s.restarts, 'message', s.message,
                   'at', s.updated_at) AS payload,
       s.updated_at AS at
FROM services s JOIN runs r ON r.id = s.run_id;

CREATE TRIGGER notify_service_crashloop_update AFTER UPDATE OF state ON services
WHEN NEW.state = 'CrashLoopBackOff' AND OLD.state <> 'CrashLoopBackOff'
BEGIN
    INSERT OR IGNORE INTO notifications
        (event_id, reason, kind, name, payload, next_attempt_at, created_at, updated_at)
    SELECT event_id, 'ServiceCrashLoopBackOff', 'service', name, payload, at, at, at
    FROM service_crashloop_notifications WHERE service_id = NEW.id;
END;

CREATE TRIGGER notify_service_crashloop_insert AFTER INSERT ON services
WHEN NEW.state = 'CrashLoopBackOff'
BEGIN
    INSERT OR IGNORE INTO notifications
        (event_id, reason, kind, name, payload, next_attempt_at, created_at, updated_at)
    SELECT event_id, 'ServiceCrashLoopBackOff', 'service', name, payload, at, at, at
    FROM service_crashloop_notifications WHERE service_id = NEW.id;
END;
