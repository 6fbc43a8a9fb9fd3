"""What changed between two ranking editions, and why, award by award.

Awards are matched by the member found in the file (`original_id`) and the unit and contestant
they were earned in (and, for match points, the match). Each difference gets one reason, checked in
this order: an award that is new (or a player linked: unmatched in the old edition), one that is
gone, an identity merge (the points move to the id kept), a correction behind the unit that changed
the award (named, and marked when it was back-dated), a new rule version, and decay (same award,
less left of it). A place shared with others reads `1 (tied)`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import polars as pl

from pipelines.log.fields import PayloadField, payload_fields
from pipelines.log.reads import claimed_and_recorded_times
from pipelines.log.store import EventStore
from pipelines.ranking.edition import RankingEdition
from pipelines.replay.audit import iso

AWARD_KEY = ["original_id", "event_id", "session_id", "section", "direction", "contestant_id", "team_match"]
_KEPT = ["player_id", "player_name", "event_name", "place", "tied", "field", "award", "decay", "points",
         "corrections"]
REASON_COLUMNS = ["player_id", "reason", "points_change", "detail"]


@dataclass(frozen=True)
class RankingDiff:
    """Who moved between two editions (`moves`) and, award by award, why (`reasons`)."""

    old_label: str
    new_label: str
    moves: pl.DataFrame
    """player_id, name, place_old, place_new, points_old, points_new: players whose place or points changed."""
    reasons: pl.DataFrame
    """`REASON_COLUMNS`: each changed award, in published points (after the rule set's divisor)."""
    rules_changed: str | None
    """'name version -> name version' when the editions use different rule sets."""

    def lines(self) -> list[str]:
        """The diff as a person reads it: a line per player, then that player's reasons."""
        out = [f"{self.old_label} -> {self.new_label}"]
        if self.rules_changed:
            out.append(f"  rule set: {self.rules_changed}")
        out.append(f"{self.moves.height} player(s) moved")
        by_player = self.reasons.partition_by("player_id", as_dict=True, maintain_order=True)
        for move in self.moves.iter_rows(named=True):  # display only: one line per person moved
            out.append(f"  {move['player_id']} {move['name'] or ''}: place {_show(move['place_old'])} -> "
                       f"{_show(move['place_new'])}, points {_show(move['points_old'])} -> {_show(move['points_new'])}")
            for reason in by_player.get((move["player_id"],), pl.DataFrame()).iter_rows(named=True):
                out.append(f"      {reason['points_change']:+.2f} {reason['reason']}: {reason['detail']}")
        return out


def diff_rankings(old: RankingEdition, new: RankingEdition, *, old_label: str, new_label: str,
                  back_dated: Mapping[str, str] | None = None) -> RankingDiff:
    """Every player whose place or points differ, with an itemised reason for each award change;
    a correction in `back_dated` (`back_dated_corrections`) is marked so where it is named."""
    moves = _moves(old.ranking, new.ranking)
    rules_changed = None
    if old.rules.content_hash() != new.rules.content_hash():
        rules_changed = f"{old.rules.name} {old.rules.version} -> {new.rules.name} {new.rules.version}"
    reasons = _reasons(old, new, rules_changed, back_dated or {})
    return RankingDiff(old_label, new_label, moves, reasons, rules_changed)


def back_dated_corrections(store: EventStore, edition: RankingEdition) -> dict[str, str]:
    """The corrections behind `edition` that claim a time inside their session's Law 79C period but
    reached the log only after it ended (as `audit` flags them), each with what it claims and when
    it was recorded."""
    ids = edition.corrections["correction_id"].to_list()
    if not ids or not store.exists():
        return {}
    with store.reader() as con:
        requests = payload_fields(con, ["ScoreCorrectionRequested"],
                                  [PayloadField(name, name) for name in ("correction_id", "event_id", "session_id")])
        times = claimed_and_recorded_times(con, ["ScoreCorrectionRequested"])
    received = requests.join(times, on="position")
    late = (received.filter(pl.col("correction_id").is_in(ids))
            .join(edition.deadlines, on=["event_id", "session_id"])
            .filter((pl.col("claimed_us") < pl.col("deadline_us")) & (pl.col("recorded_us") >= pl.col("deadline_us"))))
    return {row["correction_id"]: f"back-dated: claims {iso(row['claimed_us'])}, inside the period that ended "
                                  f"{iso(row['deadline_us'])}, recorded {iso(row['recorded_us'])}"
            for row in late.iter_rows(named=True)}


def _moves(old: pl.DataFrame, new: pl.DataFrame) -> pl.DataFrame:
    joined = old.select("player_id", "name", "place", "points").join(
        new.select("player_id", "name", "place", "points"), on="player_id", how="full", coalesce=True,
        suffix="_new")
    changed = pl.col("place").ne_missing(pl.col("place_new")) | pl.col("points").ne_missing(pl.col("points_new"))
    return joined.filter(changed).select(
        "player_id", name=pl.coalesce("name_new", "name"), place_old="place", place_new="place_new",
        points_old="points", points_new="points_new",
    ).sort(pl.col("place_new").fill_null(1 << 62), "player_id")


def _reasons(old: RankingEdition, new: RankingEdition, rules_changed: str | None,
             back_dated: Mapping[str, str]) -> pl.DataFrame:
    def side(edition: RankingEdition) -> pl.DataFrame:
        return edition.awards.select(*AWARD_KEY, *_KEPT).with_columns(
            share=pl.col("points") / edition.rules.points_divisor)

    joined = side(old).join(side(new), on=AWARD_KEY, how="full", coalesce=True, suffix="_new", nulls_equal=True)
    different = (pl.col("player_id").ne_missing(pl.col("player_id_new"))
                 | pl.col("share").ne_missing(pl.col("share_new")))
    rows: list[Reason] = []
    corrections = _correction_reasons(new, back_dated)
    both = _units(old) & _units(new) if rules_changed else set()
    unmatched = set(old.unmatched.select("event_id", "player_name").iter_rows())
    for row in joined.filter(different).iter_rows(named=True):  # the changed awards only: a few per edition
        unit_in_both = (row["event_id"], row["session_id"], row["section"], row["direction"]) in both
        was_unmatched = (row["event_id"], row["player_name_new"]) in unmatched
        rows += _explain(row, corrections, rules_changed if unit_in_both else None, was_unmatched)
    frame = pl.DataFrame(rows, schema={"player_id": pl.String, "reason": pl.String, "points_change": pl.Float64,
                                       "detail": pl.String}, orient="row")
    # An award worth nothing in both editions (a place past the curve) moves nobody.
    return frame.filter(pl.col("points_change") != 0).sort("player_id", "reason", "detail", "points_change")


def _units(edition: RankingEdition) -> set[tuple[object, ...]]:
    return set(edition.awards.select("event_id", "session_id", "section", "direction").unique().iter_rows())


def _correction_reasons(edition: RankingEdition, back_dated: Mapping[str, str]) -> dict[str, str]:
    def said(row: dict[str, str]) -> str:
        mark = f"; {back_dated[row['correction_id']]}" if row["correction_id"] in back_dated else ""
        return f"{row['correction_id']} ({row['reason']}, by {row['requested_by']}{mark})"

    return {row["correction_id"]: said(row) for row in edition.corrections.iter_rows(named=True)}


Reason = tuple[object, str, float, str]


def _explain(row: dict[str, object], corrections: dict[str, str], rules_changed: str | None,
             was_unmatched: bool) -> list[Reason]:
    what = f"{row['event_name_new'] or row['event_name']} {row['session_id'] or ''} {row['direction']} " \
           f"{row['contestant_id']}".replace("  ", " ")
    if row["team_match"] is not None:
        return _explain_match(row, what, corrections, rules_changed, was_unmatched)
    old_share, new_share = _num(row["share"]), _num(row["share_new"])
    old_place, new_place = _place(row["place"], row["tied"]), _place(row["place_new"], row["tied_new"])
    if rules_changed and (row["player_id"] is None or row["player_id_new"] is None):
        player = row["player_id_new"] or row["player_id"]
        return [(player, "rule version", new_share - old_share,
                 f"{rules_changed}: {what} award {_pts(row['award'])} -> {_pts(row['award_new'])}")]
    if row["player_id"] is None and was_unmatched:
        return [(row["player_id_new"], "player linked", new_share,
                 f"{row['player_name_new']} (unmatched before) is {row['original_id']}: {what}, place {new_place} "
                 f"of {row['field_new']}, {_pts(row['points_new'])} points")]
    if row["player_id"] is None:
        return [(row["player_id_new"], "new award", new_share,
                 f"{what}: place {new_place} of {row['field_new']}, {_pts(row['points_new'])} points")]
    if row["player_id_new"] is None:
        return [(row["player_id"], "award withdrawn", -old_share, f"{what}: was place {row['place']}")]
    if row["player_id"] != row["player_id_new"]:
        merge = f"{row['player_id']} merged into {row['player_id_new']}: {what}"
        return [(row["player_id"], "identity merge", -old_share, merge),
                (row["player_id_new"], "identity merge", new_share, merge)]
    added = sorted(set(str(row["corrections_new"] or "").split()) - set(str(row["corrections"] or "").split()))
    delta = new_share - old_share
    if added and row["award"] != row["award_new"]:
        named = "; ".join(corrections.get(c, c) for c in added)
        return [(row["player_id"], "correction", delta,
                 f"{named} changed {what}: place {old_place} -> {new_place}")]
    if rules_changed and row["award"] != row["award_new"]:
        return [(row["player_id"], "rule version", delta,
                 f"{rules_changed}: {what} award {_pts(row['award'])} -> {_pts(row['award_new'])}")]
    if row["award"] != row["award_new"]:
        return [(row["player_id"], "recomputed", delta, f"{what}: place {old_place} -> {new_place}")]
    return [(row["player_id"], "decay", delta,
             f"{what}: {_pct(row['decay'])} -> {_pct(row['decay_new'])} of {_pts(row['award'])}")]


def _explain_match(row: dict[str, object], what: str, corrections: dict[str, str], rules_changed: str | None,
                   was_unmatched: bool) -> list[Reason]:
    """A match-points row's change: the same reasons as a place award's, naming the match."""
    match = f"{what}, match points for {row['team_match']}"
    old_share, new_share = _num(row["share"]), _num(row["share_new"])
    if row["player_id"] is None:
        reason = "player linked" if was_unmatched else ("rule version" if rules_changed else "new award")
        return [(row["player_id_new"], reason, new_share, f"{match}: {_pts(row['points_new'])} points")]
    if row["player_id_new"] is None:
        reason = "rule version" if rules_changed else "award withdrawn"
        return [(row["player_id"], reason, -old_share, f"{match}: no longer won or drawn")]
    if row["player_id"] != row["player_id_new"]:
        merge = f"{row['player_id']} merged into {row['player_id_new']}: {match}"
        return [(row["player_id"], "identity merge", -old_share, merge),
                (row["player_id_new"], "identity merge", new_share, merge)]
    added = sorted(set(str(row["corrections_new"] or "").split()) - set(str(row["corrections"] or "").split()))
    delta = new_share - old_share
    if row["award"] != row["award_new"]:
        if added:
            named = "; ".join(corrections.get(c, c) for c in added)
            return [(row["player_id"], "correction", delta, f"{named} changed {match}: "
                     f"{_pts(row['award'])} -> {_pts(row['award_new'])}")]
        reason = "rule version" if rules_changed else "recomputed"
        return [(row["player_id"], reason, delta, f"{match}: {_pts(row['award'])} -> {_pts(row['award_new'])}")]
    return [(row["player_id"], "decay", delta,
             f"{match}: {_pct(row['decay'])} -> {_pct(row['decay_new'])} of {_pts(row['award'])}")]


def _place(place: object, tied: object) -> str:
    """A place as the diff shows it: `1`, or `1 (tied)` when contestants share it."""
    return f"{place} (tied)" if tied else str(place)


def _num(value: object) -> float:
    return float(value) if isinstance(value, int | float) else 0.0


def _pts(value: object) -> str:
    return f"{_num(value):.2f}".rstrip("0").rstrip(".")


def _pct(value: object) -> str:
    return f"{_num(value) * 100:.0f} %"


def _show(value: object) -> str:
    return "-" if value is None else _pts(value) if isinstance(value, float) else str(value)
