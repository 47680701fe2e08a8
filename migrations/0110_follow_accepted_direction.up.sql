-- FollowAccepted had two opposite meanings (the original's bug): "a local user accepted a
-- follower" (the social use case) and "a remote actor accepted a local user's follow" (an
-- inbound Accept). Its payload now says which in data.direction ('incoming' or 'outgoing').
-- Existing rows are labelled from the follows table: a row is outgoing when the owner follows the
-- remote requester and the requester does not follow the owner; every other row is incoming.
-- A mutual follow cannot be told apart from the payload alone and is labelled incoming, the
-- safe side: an incoming label at worst answers a follow that is already answered, an outgoing
-- one would leave a follower waiting for an Accept that never comes.
UPDATE event_queue SET payload = json_set(payload, '$.data.direction', 'outgoing')
WHERE event_type = 'FollowAccepted' AND json_valid(payload)
  AND json_extract(payload, '$.data.direction') IS NULL
  AND json_extract(payload, '$.data.requester_kind') = 'remote'
  AND EXISTS (SELECT 1 FROM follows
              WHERE follower_kind = 'local' AND follower_id = json_extract(event_queue.payload, '$.data.owner_id')
                AND target_kind = 'remote' AND target_id = json_extract(event_queue.payload, '$.data.requester_id'))
  AND NOT EXISTS (SELECT 1 FROM follows
                  WHERE follower_kind = 'remote' AND follower_id = json_extract(event_queue.payload, '$.data.requester_id')
                    AND target_kind = 'local' AND target_id = json_extract(event_queue.payload, '$.data.owner_id'));

UPDATE event_queue SET payload = json_set(payload, '$.data.direction', 'incoming')
WHERE event_type = 'FollowAccepted' AND json_valid(payload)
  AND json_extract(payload, '$.data.direction') IS NULL;
