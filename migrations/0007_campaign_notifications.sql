-- 0007_campaign_notifications: the cluster's `notify:` command also hears
-- when a campaign ends by itself (issue #17): Done (every point finished),
-- Stopped (policy.maxFailedPoints reached) or OutOfBudget
-- (policy.budget.nodeHours spent).  As in 0003, the trigger inserts the
-- notification in the transaction of the state change; its event id names
-- the campaign and the moment of the change, so a campaign that is retried
-- and ends again is notified again, and one change is one notification.

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
END;
