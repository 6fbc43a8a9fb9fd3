"""A ranking edition: the log up to a position, as of a time, under one rule set.

`compute_edition` is a pure function of (events, rule set, position, as-of): it reads no clock,
and its canonical output (`output_bytes`) is the same bytes every time it is rebuilt. Each
tournament's awards before merges and decay (`tournament_awards`) are taken from those kept by an
earlier edition wherever its inputs have not moved since (`pipelines.ranking.kept`), and computed
for the others; merges, decay and the ranking then run over every award at once.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import logging
from dataclasses import dataclass
from datetime import date, datetime
from functools import cached_property

import polars as pl

from models.ranking_rules import RuleSet
from pipelines.base.neutralise import spreadsheet_safe
from pipelines.log.store import EventStore, to_epoch_us
from pipelines.ranking.awards import (
    AWARD_COLUMNS,
    award_dates,
    decayed,
    player_awards,
    unit_awards,
    unit_corrections,
)
from pipelines.ranking.curves import round_rule
from pipelines.ranking.inputs import RankingInputs, log_head, read_inputs
from pipelines.ranking.kept import (
    KeptAwards,
    TournamentAwards,
    changed_events,
    fresh,
    read_kept,
    save_kept,
)
from pipelines.ranking.matches import TEAM_MATCH, read_team_matches, with_match_points
from pipelines.ranking.players import contestant_players, merged_ids, resolve_players, unmatched_players
from pipelines.ranking.standings_source import StandingsReader, StandingsSnapshot, read_standings
from pipelines.ranking.units import ranking_units

log = logging.getLogger(__name__)

RANKING_COLUMNS = ["place", "player_id", "name", "club", "region", "gender", "birth_year", "points", "awards"]
"""The published ranking, one row per player with points."""
SUB_RANKING_COLUMNS = ["grouping", "group", "place", "player_id", "points"]
"""Sub-rankings in long form: one row per player per group the player belongs to."""
_CSV_FLOAT_PRECISION = 6
_SUM_DECIMALS = 9
"""Awards' points are summed as whole units of this decimal."""
_EXACT_DECIMALS = 6
"""Totals are placed on this many decimals."""
_AWARDS_ORDER = ["player_id", "event_id", "session_id", "section", "direction", "contestant_id", "team_match",
                 "original_id", "player_name"]
"""The canonical order of award rows (every key of a row: no two rows share it)."""
_EDITION_ONLY = ("player_id", "age_years", "decay", "points")
KEPT_AWARD_COLUMNS = [name for name in AWARD_COLUMNS if name not in _EDITION_ONLY]
"""An award row before merges and decay: what a tournament gives whatever the edition's date."""


@dataclass(frozen=True)
class RankingEdition:
    """A computed edition and everything needed to explain it."""

    rules: RuleSet
    position: int
    as_of: datetime
    award_rows: pl.DataFrame
    """`AWARD_COLUMNS` in no set order (`awards` has them in the canonical one)."""
    ranking: pl.DataFrame
    """`RANKING_COLUMNS`, by place."""
    sub_rankings: pl.DataFrame
    """`SUB_RANKING_COLUMNS`."""
    provisional: pl.DataFrame
    """Sessions left out because they were not final at `as_of`."""
    unmatched: pl.DataFrame
    """Players of the events that no member was found for."""
    corrections: pl.DataFrame
    """Applied corrections behind the awards: correction_id, event_id, session_id, reason, requested_by."""
    merges: pl.DataFrame
    """Identity merges in force: kept_id, merged_id, reason."""
    deadlines: pl.DataFrame = dataclasses.field(default_factory=lambda: pl.DataFrame(
        schema={"event_id": pl.String, "session_id": pl.String, "deadline_us": pl.Int64}))
    """Each published session's Law 79C deadline: event_id, session_id, deadline_us."""

    @cached_property
    def awards(self) -> pl.DataFrame:
        """`AWARD_COLUMNS`: every award of every matched player, with how its points now were reached,
        in the canonical order (sorted when first asked: an edition only printed never needs it)."""
        return self.award_rows.sort(_AWARDS_ORDER)

    def output_bytes(self) -> dict[str, bytes]:
        """The canonical CSV of ranking, sub-rankings and awards (what an edition's hash covers), text
        cells a spreadsheet would run as a formula prefixed with `'` (`pipelines.base.neutralise`)."""
        return dict(self._output_bytes)

    @cached_property
    def _output_bytes(self) -> dict[str, bytes]:
        # Written once per edition: a decade's awards are a quarter of a gigabyte of CSV, and the
        # CLI both writes and hashes them. Written as bytes: a str would be copied again to encode it.
        # A rule set without match points writes no `team_match` column: its editions keep the bytes
        # (and the hashes) they were published with before the column existed.
        awards = self.awards if self.rules.match_points is not None else self.awards.drop(TEAM_MATCH)
        return {name: _csv(frame) for name, frame in (("ranking", self.ranking), ("sub_rankings", self.sub_rankings),
                                                      ("awards", awards))}

    def output_sha256(self) -> str:
        """SHA-256 over the canonical outputs in a fixed order."""
        digest = hashlib.sha256()
        for name, data in sorted(self.output_bytes().items()):
            digest.update(name.encode() + b"\0" + data + b"\0")
        return digest.hexdigest()


class UnknownCategoryError(ValueError):
    """A tournament registered with a ranking category the rule set does not have."""


def compute_edition(store: EventStore, rules: RuleSet, *, as_of: datetime, up_to: int | None = None,
                    standings: StandingsReader = read_standings, keep: bool = False,
                    check_categories: bool = True) -> RankingEdition:
    """The edition of `rules` over the events at positions <= `up_to` (default: the whole log)
    that had happened by `as_of`; `standings` reads them (`replay_standings` is the reference).

    With the default reader, tournaments whose inputs did not move since the awards kept for `rules`
    are taken from them (`pipelines.ranking.kept`); another reader computes every tournament. `keep`
    writes this edition's awards for the next one (derived rows; skipped when the store is busy).
    A tournament whose category the rule set does not know raises `UnknownCategoryError`, unless
    `check_categories` is false (a rebuild reproduces what was published, whatever it was).
    """
    position = log_head(store) if up_to is None else up_to
    as_of_us = to_epoch_us(as_of)
    reusable = standings is read_standings
    kept = read_kept(store, rules) if reusable else None
    changed = None if kept is None else changed_events(store, kept, up_to=position, as_of_us=as_of_us)
    inputs = read_inputs(store, up_to=position, as_of_us=as_of_us, events=changed, federation=rules.federation)
    if check_categories:
        require_known_categories(inputs.tournaments, rules)
    matches = (read_team_matches(store, up_to=position, as_of_us=as_of_us, sessions=inputs.sessions,
                                 rules=rules.match_points) if rules.match_points is not None else None)
    if changed is None:
        part = tournament_awards(standings(store, up_to=position, as_of_us=as_of_us), inputs, rules, matches)
        current, updated = part, fresh(part, position=position, as_of_us=as_of_us)
    else:
        assert kept is not None
        log.info("ranking: %d tournament(s) recomputed, the others' awards as kept at log position %d",
                 len(changed), kept.position)
        # Nothing moved: no tournament to read.
        part = (tournament_awards(read_standings(store, up_to=position, as_of_us=as_of_us, events=changed), inputs,
                                  rules, matches) if changed else kept.base.cleared())
        current = kept.current().without(changed).plus(part)
        updated = kept.updated(changed, part, position=position, as_of_us=as_of_us)
    if keep and reusable and _moved(kept, updated, changed):
        save_kept(store, rules, updated)
    return _edition(current, inputs, rules, position, as_of)


def _moved(kept: KeptAwards | None, updated: KeptAwards, changed: list[str] | None) -> bool:
    """Whether the kept rows would change (a new stamp, or tournaments recomputed)."""
    return kept is None or bool(changed) or changed is None or (kept.position, kept.as_of_us) != (
        updated.position, updated.as_of_us)


def tournament_awards(snapshot: StandingsSnapshot, inputs: RankingInputs, rules: RuleSet,
                      matches: pl.DataFrame | None = None) -> TournamentAwards:
    """The awards of the tournaments in `snapshot` and `inputs` (all of them, or some), before
    identity merges and decay: units, curve awards, weights, players' shares, the match points of
    `matches` (`pipelines.ranking.matches.MATCH_COLUMNS`, when the rule set gives them), dates,
    corrections."""
    units = ranking_units(snapshot, inputs.tournaments)
    _warn_unknown_categories(inputs.tournaments, rules)
    players = resolve_players(contestant_players(inputs.contestants), inputs, rules.federation)
    contestant = unit_awards(units, inputs, rules)
    per_player = with_match_points(player_awards(contestant, units, players, snapshot.standings, rules, inputs.lineups),
                                   matches, units, rules)
    dated = (per_player.join(award_dates(units, inputs, snapshot.windows), on=["event_id", "unit_session"], how="left")
             .join(unit_corrections(units, snapshot.corrections), on=["event_id", "unit_session"], how="left"))
    awards = (dated.rename({"unit_session": "session_id", "rank": "place"})
              .with_columns(corrections=pl.col("corrections").fill_null("")).select(KEPT_AWARD_COLUMNS))
    deadlines = (snapshot.windows.select("event_id", "session_id", "deadline_us")
                 if "deadline_us" in snapshot.windows.columns else
                 pl.DataFrame(schema={"event_id": pl.String, "session_id": pl.String, "deadline_us": pl.Int64}))
    return TournamentAwards(awards=awards, unmatched=unmatched_players(players), provisional=units.provisional,
                            corrections=_applied_corrections(snapshot.corrections), deadlines=deadlines)


def _edition(kept: TournamentAwards, inputs: RankingInputs, rules: RuleSet, position: int,
             as_of: datetime) -> RankingEdition:
    """The edition from every tournament's awards: merges, decay at `as_of`, the ranking."""
    with_ids = kept.awards.with_columns(player_id=merged_ids(pl.col("original_id"), inputs.merges))
    awards = decayed(with_ids, rules, as_of.date()).select(AWARD_COLUMNS)
    totals = player_totals(awards, inputs.members, rules)
    return RankingEdition(
        rules=rules, position=position, as_of=as_of, award_rows=awards, ranking=totals.select(RANKING_COLUMNS),
        sub_rankings=sub_rankings(totals, rules, as_of.date()),
        provisional=kept.provisional.sort(["event_id", "session_id"]),
        unmatched=kept.unmatched.sort("event_id", "player_name"),
        corrections=kept.corrections.sort("correction_id"),
        merges=inputs.merges.select("kept_id", "merged_id", "reason"),
        deadlines=kept.deadlines,
    )


def _csv(frame: pl.DataFrame) -> bytes:
    # Names and ids come from member lists and files: a cell a spreadsheet would run as a formula
    # is written as text, in the bytes the edition's hash covers.
    sink = io.BytesIO()
    spreadsheet_safe(frame).write_csv(sink, float_precision=_CSV_FLOAT_PRECISION)
    return sink.getvalue()


def _unknown_categories(tournaments: pl.DataFrame, rules: RuleSet) -> pl.DataFrame:
    return tournaments.filter(pl.col("category").is_not_null() & ~pl.col("category").is_in(list(rules.categories)))


def require_known_categories(tournaments: pl.DataFrame, rules: RuleSet) -> None:
    """Raise `UnknownCategoryError` naming the tournaments whose category `rules` does not know, and
    the categories it does (an event ranked at a category nobody chose would publish wrong points)."""
    unknown = _unknown_categories(tournaments, rules)
    if unknown.height:
        listed = ", ".join(f"{e} ({c!r})" for e, c in unknown.select("event_id", "category").head(10).iter_rows())
        raise UnknownCategoryError(
            f"{unknown.height} tournament(s) have a ranking category that {rules.name} {rules.version} does not "
            f"have: {listed}; its categories are {', '.join(sorted(rules.categories))} (register the event "
            "again with `--category`)")


def _warn_unknown_categories(tournaments: pl.DataFrame, rules: RuleSet) -> None:
    unknown = _unknown_categories(tournaments, rules)
    if unknown.height:
        listed = ", ".join(f"{e} ({c})" for e, c in unknown.select("event_id", "category").head(10).iter_rows())
        log.warning("%d tournament(s) have a category %s %s does not know, ranked as %r: %s", unknown.height,
                    rules.name, rules.version, rules.default_category, listed)


def rank_players(awards: pl.DataFrame, members: pl.DataFrame, rules: RuleSet) -> pl.DataFrame:
    """Players with points, by place; tied players share the best place (see `player_totals`)."""
    return player_totals(awards, members, rules).select(RANKING_COLUMNS)


def player_totals(awards: pl.DataFrame, members: pl.DataFrame, rules: RuleSet) -> pl.DataFrame:
    """`RANKING_COLUMNS` and `exact`, by place: a player's total is the sum of the exact points of
    their awards (divided by the rule set's divisor), placed on that exact total, and rounded once,
    by `points_rounding`, for display. Rounding each award first, or placing on the rounded total,
    would rank what is not shown (33.33 + 33.33 below 66.67; 24.5 and 25 PKL both 0.25)."""
    # Points are summed as whole units of 10^-9: an integer sum does not depend on the order the
    # rows are added in, so every rebuild gives the same total to the bit. Places compare totals to
    # 10^-6, so that thirds added up (33.333333333 + 33.333333333) tie with the 66.666666667 they make.
    unit = 10.0 ** _SUM_DECIMALS
    # Whole units computed over the column first: inside `agg` the expression would run group by group.
    totals = awards.select("player_id", _units=(pl.col("points") * unit).round().cast(pl.Int64)).group_by(
        "player_id").agg(pl.col("_units").sum(), awards=pl.len().cast(pl.Int64))
    exact = pl.col("_units") / unit / rules.points_divisor
    details = members.select(player_id="federation_id", name="name", club="club", region="region",
                             gender="gender", birth_year="birth_year")
    return (
        totals.with_columns(exact=exact.round(_EXACT_DECIMALS)).filter(pl.col("exact") > 0)
        .with_columns(points=round_rule(pl.col("exact"), rules.points_rounding))
        .join(details, on="player_id", how="left")
        .with_columns(place=pl.col("exact").rank("min", descending=True).cast(pl.Int64))
        .select(*RANKING_COLUMNS, "exact")
        .sort(["place", "player_id"])
    )


def sub_rankings(ranking: pl.DataFrame, rules: RuleSet, edition_date: date) -> pl.DataFrame:
    """Places within each grouping the rule set publishes (gender, age band, region, club), on the
    exact totals when `ranking` has them (`player_totals`), else on the points shown."""
    if "exact" not in ranking.columns:
        ranking = ranking.with_columns(exact=pl.col("points"))
    parts = []
    for grouping in rules.sub_rankings.by:
        if grouping == "age_band":
            age = edition_date.year - pl.col("birth_year")
            for band in rules.sub_rankings.age_bands:
                members = ranking.filter(age.is_between(band.min_age, band.max_age))
                parts.append(members.select(grouping=pl.lit("age_band"), group=pl.lit(band.label),
                                            player_id="player_id", points="points", exact="exact"))
        else:
            parts.append(ranking.filter(pl.col(grouping).is_not_null()).select(
                grouping=pl.lit(grouping), group=pl.col(grouping).cast(pl.String), player_id="player_id",
                points="points", exact="exact"))
    if not parts:
        return pl.DataFrame(schema={"grouping": pl.String, "group": pl.String, "place": pl.Int64,
                                    "player_id": pl.String, "points": pl.Float64})
    return (
        pl.concat(parts)
        .with_columns(place=pl.col("exact").rank("min", descending=True).over("grouping", "group").cast(pl.Int64))
        .select(SUB_RANKING_COLUMNS)
        .sort(["grouping", "group", "place", "player_id"])
    )


def _applied_corrections(corrections: pl.DataFrame) -> pl.DataFrame:
    columns = ["correction_id", "event_id", "session_id", "reason", "requested_by"]
    if corrections.is_empty() or "applied" not in corrections.columns:
        return pl.DataFrame(schema=dict.fromkeys(columns, pl.String))
    return corrections.filter(pl.col("applied")).select(columns).sort("correction_id")
