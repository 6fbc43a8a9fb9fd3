"""The analysts' SQL views over the log: the ranking's members, editions and titles.

Analysts query them by name in the analytics store (`bridgeledger sql`); the ranking creates them
(`pipelines.ranking.publish.write_views`) beside its own tables' views. They read payload JSON as
stored, right only while their events are at their first schema version: the day one is bumped,
tests/log/test_fields.py fails, and the view must then read rows kept upcast (a derived table).
`ranking_titles` joins the ranking's table `projection_ranking`, which must exist first.
"""

from __future__ import annotations

RANKING_LOG_VIEWS_SQL = """
CREATE OR REPLACE VIEW members AS
SELECT federation_id, name, club, gender, birth_year, region, federation, registered_at, position FROM (
    SELECT payload->>'$.federation_id' AS federation_id, payload->>'$.name' AS name,
           payload->>'$.club' AS club, payload->>'$.gender' AS gender,
           TRY_CAST(payload->>'$.birth_year' AS INTEGER) AS birth_year, payload->>'$.region' AS region,
           payload->>'$.federation' AS federation, occurred_at AS registered_at, position,
           row_number() OVER (PARTITION BY payload->>'$.federation', payload->>'$.federation_id'
                              ORDER BY position DESC) AS latest
    FROM events WHERE type = 'MemberRegistered')
WHERE latest = 1;
CREATE OR REPLACE VIEW ranking_editions AS
SELECT payload->>'$.edition' AS edition, payload->>'$.rule_set' AS rule_set,
       payload->>'$.rule_version' AS rule_version, payload->>'$.rule_hash' AS rule_hash,
       payload->>'$.as_of' AS as_of, CAST(payload->>'$.position' AS BIGINT) AS log_position,
       payload->>'$.output_sha256' AS output_sha256, occurred_at AS published_at, position AS event_position
FROM events WHERE type = 'RankingPublished';
CREATE OR REPLACE VIEW ranking_titles AS
WITH titles AS (
    SELECT edition, t.label AS title, t.min_points AS min_points FROM (
        SELECT payload->>'$.edition' AS edition,
               unnest(from_json(coalesce(payload->'$.rules.titles', '[]'),
                                '[{"label": "VARCHAR", "min_points": "DOUBLE"}]')) AS t
        FROM events WHERE type = 'RankingPublished'))
SELECT r.edition, r.place, r.player_id, r.name, r.points, arg_max(t.title, t.min_points) AS title
FROM projection_ranking r LEFT JOIN titles t ON t.edition = r.edition AND t.min_points <= r.points
GROUP BY r.edition, r.place, r.player_id, r.name, r.points;
"""
"""`members` (each member's latest registration), `ranking_editions` (each published edition) and
`ranking_titles` (each ranked player's title in an edition, from the rule set it published)."""
