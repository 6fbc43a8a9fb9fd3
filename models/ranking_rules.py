"""Ranking rule sets: how a federation turns final standings into ranking points.

A rule set is data, versioned like the federation's own regulations (name, version, effective
from), written as TOML and validated here. Every option is a field; nothing a federation decides
is hard-coded in `pipelines.ranking`. Formulas and the federations' published rules:
`ranking-notes.md` beside the design documents.
"""

from __future__ import annotations

import hashlib
import tomllib
from datetime import date
from itertools import pairwise
from pathlib import Path
from typing import Annotated, Literal, Self

import orjson
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from models.cron import check_cron

_FROZEN = ConfigDict(frozen=True, extra="forbid")

Rounding = Literal["none", "ceil", "floor", "half_up"]
"""How a computed number becomes a published one: up, down, half away from zero, or kept."""


class RoundingRule(BaseModel):
    """A named rounding to a number of decimals (rule sets name their rounding; EBU's 13-or-14)."""

    model_config = _FROZEN

    mode: Rounding = "none"
    """none keeps full precision; ceil, floor and half_up round to `decimals`."""
    decimals: int = Field(default=0, ge=0, le=6)
    """Decimals kept when rounding."""


class LinearCurve(BaseModel):
    """Linear to a share of the field (SBU): award(p) = max / n × (n − p + 1), n = ceil(field × award_to)."""

    model_config = _FROZEN

    kind: Literal["linear"] = "linear"
    award_to: float = Field(gt=0, le=1)
    """Share of the field that scores."""
    awards_rounding: Literal["ceil", "floor", "half_up"] = "ceil"
    """How field × award_to becomes a whole number of awards."""


class TableCurve(BaseModel):
    """An explicit table of awards by place (WBF championships); places past the table score 0."""

    model_config = _FROZEN

    kind: Literal["table"] = "table"
    awards: tuple[float, ...] = Field(min_length=1)
    """Award for places 1, 2, ... (non-increasing); the category's `base` multiplies them when
    `scaled` is true."""
    scaled: bool = False
    """Multiply the table by the category base (a table of shares instead of points)."""

    @model_validator(mode="after")
    def _non_increasing(self) -> Self:
        if any(b > a for a, b in pairwise(self.awards)):
            raise ValueError("table awards must not increase with a worse place")
        return self


class AbfCurve(BaseModel):
    """ABF masterpoints: the winner's award grows exponentially with tables and sessions.

    Session (one session): Mitchell 0.02·W·T up to 30 tables, W·(1 − e^(−T/32)) above; Howell
    0.04·W·T up to 15, W·(1 − e^(−T/16)) above. Event (several sessions):
    4.2·W·[1 − e^(−T(S−1)/105) + 0.65·e^(−800/(T(S−1)))]. Places: 2nd = `second_share` of the
    winner, k-th (k ≥ 3) = winner / (k − 1). W is the category's base.
    """

    model_config = _FROZEN

    kind: Literal["abf"] = "abf"
    second_share: float = Field(default=0.7, gt=0, le=1)
    """Second place as a share of the winner's award."""
    pairs_depth: float = Field(default=0.5, gt=0, le=1)
    """Share of a ranking's pairs or individuals that score, rounded down."""
    teams_depth: float = Field(default=1 / 3, gt=0, le=1)
    """Share of the teams that score, rounded up."""


class BandedCurve(BaseModel):
    """Piecewise linear in the place (PZBS): f passes through (share of field, share of first)
    breakpoints; the award for place k is f(k − 1), rounded, with a floor.

    The first place award is the category's base, or with `first_place = "pzbs"` PZBS's
    ceil((ΣWK / P) × base + 0.05 × P), P = field × players per contestant.
    """

    model_config = _FROZEN

    kind: Literal["banded"] = "banded"
    breakpoints: tuple[tuple[float, float], ...] = ((0.0, 1.0), (0.02, 0.9), (0.2, 0.2), (0.5, 0.0))
    """(x as a share of the field, award as a share of first place); x increasing, from 0."""
    first_place: Literal["base", "pzbs"] = "base"
    """Where first place's award comes from."""
    title_coefficient: float = Field(default=1.0, ge=0)
    """PZBS: the title coefficient (WK) assumed per player when the member list carries none."""
    rounding: Rounding = "ceil"
    """Rounding of each place's award (to whole points)."""
    floor: float = Field(default=0, ge=0)
    """Smallest award."""
    floor_to_share: float = Field(default=1.0, ge=0, le=1)
    """Places up to this share of the field get at least `floor` (1.0 = every place)."""
    online_floor: float | None = Field(default=None, ge=0)
    """Smallest award in online events (PZBS rule 3.1: 0, no floor); None = `floor`."""

    @model_validator(mode="after")
    def _increasing(self) -> Self:
        xs = [x for x, _ in self.breakpoints]
        if len(xs) < 2 or xs[0] != 0 or any(b <= a for a, b in pairwise(xs)):
            raise ValueError("breakpoints need at least two points, from x = 0, x increasing")
        ys = [y for _, y in self.breakpoints]
        if any(b > a for a, b in pairwise(ys)):
            raise ValueError("breakpoint awards must not increase with a worse place")
        return self


class AcblCurve(BaseModel):
    """ACBL: first overall = B × R × S × M × P × T; other places a share of first.

    B = (tables + 10) / 60 up to 60 tables, log10(tables / 4) above; R is the category's base;
    S by sessions; M, P, T are `further_factor`. Restricted events get `restricted_factors`.
    """

    model_config = _FROZEN

    kind: Literal["acbl"] = "acbl"
    session_factors: tuple[float, ...] = (1.0, 1.5, 2.0, 2.5, 3.0)
    """S for 1, 2, 3, ... sessions (the last value for more)."""
    further_factor: float = Field(default=1.0, gt=0)
    """M × P × T (limit, event type and further factors) when the preset knows them."""
    place_ratio: float = Field(default=0.75, gt=0, le=1)
    """Each place's award as a share of the one above it (not in ranking-notes: configurable)."""
    award_to: float = Field(default=0.4, gt=0, le=1)
    """Share of the field that scores, rounded up (not in ranking-notes: configurable)."""
    restricted_factors: tuple[float, ...] = (1.0, 0.8, 0.7)
    """Factor for events with 0, 1 or 2 restrictions (gender, age)."""


class EbuCurve(BaseModel):
    """EBU master points (Licensing and Master Points Handbook): the winner's award is a rate per
    full table, by the boards the event played, times the status's scale; awards go to a share of
    the contestants on full tables; each place is the winner's award divided by the number of
    awards less than the place above; no award is below the status's minimum.

    Worked example (scale F, club, an individual of 6 full tables, 18-35 boards): rate 4 -> the
    winner 24; a third of 24 players -> 8 awards; 24 / 8 = 3 a place: 24, 21, 18, 15, 12, 9, 6, and
    6 (the club minimum, not 3). The category's `base` is the status's minimum award (club 6,
    then 9, 12, 18, 24); a status above club scales the rates by base / 6.
    """

    model_config = _FROZEN

    kind: Literal["ebu"] = "ebu"
    rates: tuple[tuple[int, float], ...] = ((0, 2.0), (18, 4.0), (36, 6.0))
    """(fewest boards, award per full table at club status), by ascending boards: the band the
    event's boards fall in gives the rate."""
    award_to: float = Field(default=1 / 3, gt=0, le=1)
    """Share of the contestants on full tables that score."""
    awards_rounding: Literal["ceil", "floor", "half_up"] = "floor"
    """How that share becomes a whole number of awards (half tables are ignored)."""
    club_minimum: float = Field(default=6, gt=0)
    """The club status's minimum award: the unit the category bases are read against."""

    @model_validator(mode="after")
    def _ascending(self) -> Self:
        if not self.rates or self.rates[0][0] != 0 or any(b[0] <= a[0] for a, b in pairwise(self.rates)):
            raise ValueError("rates start at 0 boards and go up by boards")
        return self


Curve = Annotated[LinearCurve | TableCurve | AbfCurve | BandedCurve | AcblCurve | EbuCurve,
                  Field(discriminator="kind")]
"""An award curve: points for a place in one event's standings."""


class Category(BaseModel):
    """What an event's ranking category means to the rule set."""

    model_config = _FROZEN

    base: float = Field(gt=0)
    """The curve's scale: max award (linear), W (ABF), R (ACBL), weight (PZBS), multiplier (table)."""
    award_kind: str = "default"
    """Which decay applies to its awards (regional, national, master, placing, ...)."""
    weight: float = Field(default=1.0, ge=0)
    """Multiplies every award of the category."""
    online: bool = False
    """Online event: awards × min(1, boards / `online_boards`)."""
    restrictions: int = Field(default=0, ge=0, le=2)
    """Gender- or age-restricted (1), or both (2): ACBL's restricted factors."""


class EventWeight(BaseModel):
    """What scales an event's awards beyond its curve."""

    model_config = _FROZEN

    online_boards: int = Field(default=27, ge=1)
    """Online events are worth min(1, boards / this) (PZBS rule 3.1)."""
    online_rounding: RoundingRule = RoundingRule(mode="ceil")
    """Rounding after the online factor (PZBS: up to a whole point)."""
    online_scales: Literal["award", "first_place"] = "award"
    """What the online factor multiplies: each award, or (banded curves) first place before the
    curve is drawn from it (PZBS rule 3.1: PZ × min(1, boards / 27), rounded up)."""
    min_field: int = Field(default=1, ge=1)
    """Rankings with fewer contestants than this earn nothing."""
    session_weights: tuple[float, ...] = ()
    """Extra factor by number of sessions (1, 2, ...; the last value for more); empty = 1."""
    team_factor: float = Field(default=1.0, gt=0)
    """Factor on team events' awards (PZBS rule 4: 1.25)."""


class TieRule(BaseModel):
    """Tied contestants share the mean of the awards of the places they occupy."""

    model_config = _FROZEN

    rounding: RoundingRule = RoundingRule()
    """Rounding of a tied share (SBU: up to a whole point)."""


class TeamAwardRule(BaseModel):
    """Which members of a team get its award."""

    model_config = _FROZEN

    min_board_share: float = Field(default=0.0, ge=0, le=1)
    """A member who played at least this share of the team's boards gets the full award."""
    below: Literal["pro_rata", "nothing"] = "nothing"
    """Members below the share: award × played / required, or nothing."""
    large_team_share: bool = False
    """ABF: a team of n > 4 players shares as 4 / n each."""


class MatchPoints(BaseModel):
    """Points for each match a team wins (or draws) in an event's matches by round, on top of the
    place award: the WBF's round-robin master points (6 a match won, 3 a tied match).

    A match is won when the team has more victory points in it than its opponent (more IMPs where
    the session converts to none), drawn when they have as many. Each member of the team gets them
    times the share of the unit's award the rule set's `teams` rule gives the member (boards sat).
    """

    model_config = _FROZEN

    per_match_won: float = Field(gt=0)
    """Points for a match won."""
    per_match_drawn: float = Field(default=0.0, ge=0)
    """Points for a drawn match (tied on VPs, or on IMPs without a VP scale)."""
    scaled: bool = False
    """Multiply by the event's category base (as a scaled table multiplies places)."""
    award_kind: str | None = None
    """Which decay applies to them; None = the category's `award_kind`."""
    scorings: tuple[Literal["VP_TEAMS", "IMP_TEAMS"], ...] = Field(default=("VP_TEAMS",), min_length=1)
    """Sessions whose matches count, by scoring: a round robin or Swiss converts its matches to VPs
    (`VP_TEAMS`); knockout matches are IMP_TEAMS sessions."""
    categories: tuple[str, ...] = ()
    """Categories whose events give them; empty = every category."""

    @model_validator(mode="after")
    def _draw_not_above_win(self) -> Self:
        if self.per_match_drawn > self.per_match_won:
            raise ValueError("per_match_drawn must not exceed per_match_won")
        return self


class NoDecay(BaseModel):
    """The award keeps its value (WBF placing points, EBU local points)."""

    model_config = _FROZEN

    kind: Literal["none"] = "none"


class StepDecay(BaseModel):
    """A factor for each full year of the award's age; older awards are worth nothing (PZBS, NBB)."""

    model_config = _FROZEN

    kind: Literal["steps"] = "steps"
    factors: tuple[float, ...] = Field(min_length=1)
    """Factor in the award's first, second, ... year (non-increasing, each in [0, 1])."""

    @model_validator(mode="after")
    def _non_increasing(self) -> Self:
        if any(not 0 <= f <= 1 for f in self.factors) or any(
                b > a for a, b in pairwise(self.factors)):
            raise ValueError("decay factors must lie in [0, 1] and not increase with age")
        return self


class ExponentialDecay(BaseModel):
    """A fixed share lost per full year of age: factor (1 − rate)^years (WBF 15 %, EBU gold 20 %)."""

    model_config = _FROZEN

    kind: Literal["exponential"] = "exponential"
    rate: float = Field(gt=0, lt=1)
    """Share lost per full year."""


class WindowDecay(BaseModel):
    """Awards count in full for `years` full years, then not at all."""

    model_config = _FROZEN

    kind: Literal["window"] = "window"
    years: int = Field(ge=1)
    """How many full years an award counts."""


Decay = Annotated[NoDecay | StepDecay | ExponentialDecay | WindowDecay, Field(discriminator="kind")]
"""How an award's value falls with its age at the edition date."""


class AgeBand(BaseModel):
    """An age band of a sub-ranking: ages (edition year − birth year) from `min_age` to `max_age`."""

    model_config = _FROZEN

    label: str
    """Shown in the ranking (junior, senior, ...)."""
    min_age: int = Field(default=0, ge=0)
    """Youngest age in the band."""
    max_age: int = Field(default=200, ge=0)
    """Oldest age in the band."""


class SubRankings(BaseModel):
    """Rankings within groups of players, from the same points."""

    model_config = _FROZEN

    by: tuple[Literal["gender", "age_band", "region", "club"], ...] = ()
    """Groupings published beside the main ranking."""
    age_bands: tuple[AgeBand, ...] = ()
    """Bands for `age_band` (a player in several bands is placed in each)."""


class Publication(BaseModel):
    """When editions of the ranking are published: what a scheduler (the `publish_ranking` DAG) runs on."""

    model_config = _FROZEN

    schedule: str = "0 6 1 * *"
    """Cron expression in UTC: five fields (minute hour day-of-month month day-of-week), or an Airflow
    preset (`@weekly`, `@monthly`, `@quarterly`, ...). Default: monthly, 06:00 UTC on the 1st. Each
    scheduled edition is as of its run's time, so a rerun publishes nothing new."""

    @field_validator("schedule")
    @classmethod
    def _cron(cls, value: str) -> str:
        return check_cron(value)


class Title(BaseModel):
    """A rank a player holds from a total of points on (ACBL's Junior Master ... Life Master)."""

    model_config = _FROZEN

    label: str = Field(min_length=1)
    """The rank's name."""
    min_points: float = Field(ge=0)
    """The published total from which a player holds it."""


class RuleSet(BaseModel):
    """A versioned ranking rule set."""

    model_config = _FROZEN

    name: str = Field(min_length=1)
    """Rule set name (stays across versions)."""
    version: str = Field(min_length=1)
    """Version of the rules (the federation's own numbering)."""
    effective_from: date
    """Date the version takes effect."""
    federation: str | None = None
    """Whose members a player is matched against by name; None = any federation's."""
    source: str = ""
    """Where the rules are published, and what the preset could not find."""
    curve: Curve
    """Points for a place."""
    categories: dict[str, Category] = Field(min_length=1)
    """Ranking categories by name (the tournament's `category`)."""
    default_category: str
    """Category of a tournament registered without one."""
    weight: EventWeight = EventWeight()
    """Event weight."""
    ties: TieRule = TieRule()
    """Tied places."""
    teams: TeamAwardRule = TeamAwardRule()
    """Team members' awards."""
    decay: dict[str, Decay] = Field(default_factory=dict)
    """Decay by award kind; a kind not listed does not decay."""
    points_divisor: float = Field(default=1.0, gt=0)
    """The published total is the sum of points divided by this (PZBS: 100)."""
    points_rounding: RoundingRule = RoundingRule(mode="half_up", decimals=2)
    """Rounding of the published totals, once: awards' points are summed exact, and players are
    placed on the exact total (two totals shown alike may hold different places)."""
    sub_rankings: SubRankings = SubRankings()
    """Sub-rankings."""
    publication: Publication = Publication()
    """When editions are published (not part of `content_hash`: it changes when, not what)."""
    match_points: MatchPoints | None = None
    """Points per team match won or drawn (`[match_points]`); None = none. Left out of
    `content_hash` when None, so rule sets without them keep the hash they always had."""
    titles: tuple[Title, ...] = ()
    """Ranks by published total, lowest first (the `ranking_titles` view); they name places and
    points, they do not change them, so they are not part of `content_hash`."""

    @field_validator("titles")
    @classmethod
    def _titles_ascending(cls, titles: tuple[Title, ...]) -> tuple[Title, ...]:
        if any(b.min_points <= a.min_points for a, b in pairwise(titles)):
            raise ValueError("titles must be listed lowest first, each needing more points than the one before")
        return titles

    @model_validator(mode="after")
    def _default_category_known(self) -> Self:
        if self.weight.online_scales == "first_place" and not isinstance(self.curve, BandedCurve):
            raise ValueError("weight.online_scales = 'first_place' needs a banded curve")
        if self.default_category not in self.categories:
            raise ValueError(f"default_category {self.default_category!r} is not among the categories "
                             f"{sorted(self.categories)}")
        unknown = sorted(set(self.match_points.categories) - set(self.categories)) if self.match_points else []
        if unknown:
            raise ValueError(f"match_points.categories {unknown} are not among the categories "
                             f"{sorted(self.categories)}")
        return self

    @classmethod
    def from_toml(cls, path: str | Path) -> RuleSet:
        """Validate a rule set file."""
        with Path(path).open("rb") as handle:
            return cls.model_validate(tomllib.load(handle))

    @classmethod
    def from_toml_text(cls, text: str) -> RuleSet:
        """Validate a rule set given as TOML text."""
        return cls.model_validate(tomllib.loads(text))

    def canonical_json(self) -> bytes:
        """The rules that decide the ranking as canonical JSON (sorted keys): what the hash is taken of.

        The publication schedule is left out: it decides when editions appear, not what they say,
        so moving it keeps the hash (and the hashes of editions published before it existed). So are
        the titles: they name totals, they do not change them. Match points are left out only when
        there are none: a rule set written before they existed keeps its hash.
        """
        left_out = {"publication", "titles"} | ({"match_points"} if self.match_points is None else set())
        return orjson.dumps(self.model_dump(mode="json", exclude=left_out), option=orjson.OPT_SORT_KEYS)

    def content_hash(self) -> str:
        """SHA-256 of the canonical JSON: two rule sets with the same hash rank identically."""
        return hashlib.sha256(self.canonical_json()).hexdigest()

    def category(self, name: str | None) -> Category:
        """The category an event belongs to (unknown or missing names get the default)."""
        return self.categories.get(name or "", self.categories[self.default_category])
