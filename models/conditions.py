"""Conditions of contest: how an event is scored, as the organiser published it (Law 78D, Law 80B2).

Federations differ on almost every scoring detail, so nothing here is hard-coded in the scorer:
every option is a field, and every field defaults to what the Laws (or, where they are silent,
the WBF) prescribe. A file is validated from TOML (`ConditionsOfContest.from_toml`) or from the
`TournamentRegistered.conditions` payload (`ConditionsOfContest.model_validate`).

`conditions_from_scoring_tag` maps a file's own statement (PBN `Scoring` tag, USEBIO `EVENT_TYPE`,
LIN `vg` letter) to conditions, for files that arrive without a conditions document.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, Self
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

_FROZEN = ConfigDict(frozen=True, extra="forbid")

ScoringMethod = Literal["MP", "BUTLER", "CROSS_IMP", "TOTAL", "IMP_TEAMS", "VP_TEAMS"]
"""MP pairs (Law 78A); IMP pairs against a datum (Butler); IMP pairs across the field (cross-IMPs);
total points (Law 78C); IMP team matches (Law 78B); Swiss / round-robin teams in victory points (78D)."""

FieldLayout = Literal["two_field", "one_field", "barometer"]
"""two_field: NS and EW ranked separately (Mitchell). one_field: one ranking (Howell).
barometer: one ranking, every table plays the same boards in the same round (scored as one_field)."""

TieBreak = Literal["head_to_head_vp", "head_to_head_imps", "imp_quotient", "imp_margin", "head_to_head_mp"]
"""Tie-break criteria, applied in the order given: the CBAI / WBF GCOC cascade for teams; for pairs,
`head_to_head_mp`, the direct encounters among the tied pairs (2 points for each tied pair beaten on
the matchpoints of the boards they played against each other, 1 for a draw: Magic Contest's
`Tiebreak` column, FFB). Pairs sessions apply only the pairs criterion, teams only the others."""

SCORING_METHODS: tuple[ScoringMethod, ...] = ("MP", "BUTLER", "CROSS_IMP", "TOTAL", "IMP_TEAMS", "VP_TEAMS")
"""Every scoring method, in the spelling of `SessionScheduled.scoring`."""


class UnsupportedScoringError(ValueError):
    """A file states a scoring method that bridgeledger does not score (Chicago, BAM, rubber...)."""


class MatchpointRules(BaseModel):
    """Law 78A matchpointing and factoring for boards with fewer comparable results."""

    model_config = _FROZEN

    scale: Literal["2/1/0", "1/0.5/0"] = "2/1/0"
    """Units per comparison beaten / tied / lost: 2/1/0 (WBF, EBU) or 1/½/0 (Law 78A footnote, ACBL)."""
    factoring: Literal["neuberg", "ratio", "average", "none"] = "neuberg"
    """How a group of n < N comparable results is scaled to N: Neuberg (WBF/EBU/ACBL since 1991),
    the legacy simple ratio top_N/top_n (not Neuberg; some club programs), 'average' (each missing
    comparison counts as a tie: MP_n + (top_N - top_n) / 2, the old manual method that ScoreBridge
    and some EBU-world club programs still use), or none (BBO: each board on its own top)."""
    factoring_basis: Literal["section", "board"] = "section"
    """What N is: 'section' = the most results any board has in the section (all boards share one
    top, EBU/Compscore totals); 'board' = the rows on this board, artificial ones included
    (Magic Contest and Compscore per-board MPs)."""
    compare_across_sections: bool = False
    """Matchpoint each board across all sections of the session instead of within its section."""
    display_basis: Literal["section", "board"] | None = None
    """What N the per-board matchpoints shown in `board_scores` use; None = the factoring basis.
    Compscore prints each board on its own top but totals the boards factored to the section's top
    ('board' here with factoring_basis 'section')."""


class ButlerRules(BaseModel):
    """IMP pairs against a datum (Butler)."""

    model_config = _FROZEN

    statistic: Literal["mean", "median"] = "mean"
    """Datum statistic: PBN modifiers `Mean` / `Median`."""
    trim: Literal["none", "count", "fraction", "whole_fraction", "acbl", "bridge_scorer"] = "none"
    """Results left out of the datum at each end: none (WBF championships); `trim_count` results
    (PBN `Butler-2` = 1 each end); a `trim_fraction` of them, fractionally; 'whole_fraction' =
    floor(`trim_fraction` x n) whole results (JFR Pary's IMP pairs, see below); 'acbl' = 5 % each
    end (ACBLscore default); 'bridge_scorer' = ceil((n-10)/15)+1 each end when n > 3.

    JFR Pary (Polish club program) publishes a datum close to the median. No manual states its rule;
    'whole_fraction' with `trim_fraction` 0.4875 and rounding 'toward_zero' reproduces every datum of
    one published JFR Pary 4.1 event (30 boards of 38 to 41 results; jarekczek/pbntools test data),
    and nothing simpler does: dropping n//2 - 1 at each end misses two boards of 39 results, the
    median misses five boards of 41. The 30 boards fix the fraction only to [0.4872, 0.4878)."""
    trim_count: int = Field(default=1, ge=0)
    """Results dropped at each end when trim = 'count'."""
    trim_fraction: float = Field(default=0.1, ge=0, lt=0.5)
    """Share of the results dropped at each end when trim = 'fraction'."""
    rounding: Literal["half_away_from_zero", "half_up", "half_even", "toward_zero", "none"] = "half_away_from_zero"
    """Datum rounded to the nearest 10, an exact 5 going away from zero (Magic Contest: -85 -> -90),
    up towards +infinity (bridge-scorer), or to the even ten (ACBLscore: 425 -> 420); cut to the
    ten toward zero (JFR Pary: 66.7 -> 60, -96.7 -> -90); or not rounded."""
    rank_by: Literal["total", "per_board"] = "total"
    """Standings ranked on the IMP total or on IMPs per board played."""


class CrossImpRules(BaseModel):
    """IMP pairs across the field (cross-IMPs): each result IMPed against every other one."""

    model_config = _FROZEN

    divisor: Literal["sum", "n-1", "n"] = "n-1"
    """Normalisation of the sum of IMPs: none (ACBL 'Total IMPs', PBN `Cross`), the number of
    comparisons (average, ACBL/BBO/EBU, PBN `Cross2`) or the number of scores (PBN `Cross1`)."""
    cap: int | None = Field(default=None, ge=1, le=24)
    """Cap on each comparison in IMPs; None = no cap. Polish clubs' 'Cavendish uśredniony' caps at 17
    (every difference of 1500 or more counts 17: turniejebrydza.pl, 'Zasady liczenia turniejów na
    IMPy'); no KoPS manual stating it was found, so no program convention sets it."""


class DiscreteVPTable(BaseModel):
    """A discrete IMP-to-VP table for a range of match lengths (Law 78D)."""

    model_config = _FROZEN

    min_boards: int = Field(default=1, ge=1)
    """Shortest match (in boards) the table is for."""
    max_boards: int | None = Field(default=None, ge=1)
    """Longest match the table is for; None = no limit."""
    draw: float = 10
    """VPs to each side when the margin is below the first bound."""
    total: float = 20
    """VPs shared by the two sides (the loser gets total minus the winner's)."""
    lower_bounds: tuple[float, ...]
    """Smallest IMP margin worth draw+1, draw+2, ... VPs to the winner, non-decreasing."""

    @model_validator(mode="after")
    def _check_bounds(self) -> Self:
        if any(b > a for a, b in zip(self.lower_bounds[1:], self.lower_bounds, strict=False)):
            raise ValueError("lower_bounds must be non-decreasing")
        if self.draw + len(self.lower_bounds) > self.total:
            raise ValueError("draw + number of bounds exceeds the VP total")
        return self


SEED001_24_BOARDS = DiscreteVPTable(
    min_boards=24, max_boards=24, lower_bounds=(3, 7, 12, 17, 22, 28, 34, 40, 47, 55)
)
"""Seed 001's example 24-board 20-VP table: 0-2 10-10, 3-6 11-9, ..., 47-54 19-1, 55+ 20-0."""

ACBL_20_VP: tuple[DiscreteVPTable, ...] = (
    DiscreteVPTable(min_boards=1, max_boards=8, lower_bounds=(1, 3, 5, 8, 11, 14, 17, 20, 24, 28)),
    DiscreteVPTable(min_boards=9, max_boards=11, lower_bounds=(1, 3, 6, 10, 14, 18, 22, 26, 31, 36)),
    DiscreteVPTable(min_boards=12, max_boards=15, lower_bounds=(1, 4, 7, 11, 15, 20, 25, 30, 36, 42)),
    DiscreteVPTable(min_boards=16, max_boards=20, lower_bounds=(2, 5, 9, 14, 19, 25, 32, 39, 47, 56)),
    DiscreteVPTable(min_boards=21, max_boards=27, lower_bounds=(3, 7, 12, 18, 25, 33, 42, 51, 61, 72)),
    DiscreteVPTable(min_boards=28, max_boards=36, lower_bounds=(4, 9, 15, 22, 30, 39, 49, 60, 72, 85)),
)
"""ACBL discrete 20-VP scale by match length (Shearer's table and bridgehands.com agree)."""

VP_PRESETS: dict[str, tuple[DiscreteVPTable, ...]] = {
    "seed001_24": (SEED001_24_BOARDS,),
    "acbl_20": ACBL_20_VP,
}
"""Named discrete scales a conditions file may refer to with `preset`."""


class VictoryPointRules(BaseModel):
    """Conversion of a match's IMP margin to victory points (Law 78D)."""

    model_config = _FROZEN

    scale: Literal["wbf_2013", "discrete", "none"] = "wbf_2013"
    """WBF 2013 continuous 20-VP scale, a discrete table, or no VPs (the IMP margin ranks)."""
    preset: Literal["seed001_24", "acbl_20"] | None = None
    """A named discrete table (used when scale = 'discrete' and `tables` is empty)."""
    tables: tuple[DiscreteVPTable, ...] = ()
    """Discrete tables given in the conditions file, chosen by the match's board count."""
    fractional_margin: Literal["interpolate", "round"] = "interpolate"
    """Fractional IMP margins: interpolate linearly between the neighbouring whole margins, or round
    the margin half away from zero first."""

    @model_validator(mode="after")
    def _discrete_needs_a_table(self) -> Self:
        if self.scale == "discrete" and not self.tables and self.preset is None:
            raise ValueError("a discrete VP scale needs `tables` or a `preset`")
        return self

    def discrete_tables(self) -> tuple[DiscreteVPTable, ...]:
        """The discrete tables in force: those given in the file, else the preset's."""
        if self.tables:
            return self.tables
        return VP_PRESETS[self.preset] if self.preset else ()


class ArtificialScores(BaseModel):
    """Law 12C2 artificial adjusted scores."""

    model_config = _FROZEN

    avg_plus_pct: float = Field(default=60, ge=0, le=100)
    """Average-plus in pairs, percent of the board's full top (Law 12C2(a): at least 60 %)."""
    avg_pct: float = Field(default=50, ge=0, le=100)
    """Average in pairs (Law 12C2(a): 50 %)."""
    avg_minus_pct: float = Field(default=40, ge=0, le=100)
    """Average-minus in pairs (Law 12C2(a): at most 40 %)."""
    avg_plus_imps: float = 3
    """Average-plus at IMPs (Law 12C2(b): +3)."""
    avg_imps: float = 0
    """Average at IMPs (0)."""
    avg_minus_imps: float = -3
    """Average-minus at IMPs (Law 12C2(b): -3)."""
    law_12c2c: bool = True
    """Law 12C2(c): a non-offender scoring more than average-plus on the other boards of the session
    (an offender scoring less than average-minus) gets that own score instead."""


class TeamRules(BaseModel):
    """Team play (Law 86)."""

    model_config = _FROZEN

    knockout_averaging: bool = False
    """Law 86B / 12C4: when the two teams' adjusted scores on a board do not balance, each is computed
    separately and the average awarded to both (knockout play)."""
    boards_per_match: int | None = Field(default=None, ge=1)
    """Scheduled length of a match in boards: the VP scale it is converted on (Law 78D), however many
    boards could be compared. None = the boards the match has in the log (played in either room)."""
    fouled_board: Literal["average_plus", "average"] = "average_plus"
    """Law 87C, 86B2(a): a board the two rooms of a match played in different forms (`BoardFouled`
    groups) has no comparison, so it is cancelled and each team gets an artificial adjusted score.
    'average_plus' (the Laws): no contestant is at fault, so each team gets average-plus (Law 12C2(a),
    `artificial.avg_plus_imps`, +3 IMPs by 12C2(b)); 'average': each team gets average
    (`artificial.avg_imps`), where the regulating authority varies the award (Law 12C2(b), 86B3).
    A director's artificial score at either room's table stands instead (86B2(b), (c): a side at fault).
    Rooms that played the same form, fouled or not, are compared as usual (Law 87A)."""


class CarryOver(BaseModel):
    """How session scores carry over into later sessions of a multi-session event."""

    model_config = _FROZEN

    mode: Literal["none", "cumulative"] = "none"
    """none: each session stands alone; cumulative: a session's standings also show the running total."""
    fraction: float = Field(default=1.0, ge=0, le=1)
    """Share of the earlier sessions' score carried forward."""
    session_order: tuple[str, ...] = ()
    """Order of sessions for the running total; empty = by session id."""


class SessionRules(BaseModel):
    """What one session of the event overrides."""

    model_config = _FROZEN

    method: ScoringMethod | None = None
    """Scoring method of this session; None = the event's (or the session schedule's)."""
    field_layout: FieldLayout | None = None
    """Field layout of this session; None = the event's (or the session schedule's)."""


class ConditionsOfContest(BaseModel):
    """Everything the organiser published about how the event is scored."""

    model_config = _FROZEN

    method: ScoringMethod | None = None
    """Scoring method of every session; None = as each session was scheduled."""
    field_layout: FieldLayout | None = None
    """Field layout of every session; None = as each session was scheduled."""
    sessions: dict[str, SessionRules] = Field(default_factory=dict)
    """Per-session overrides, keyed by session id."""
    matchpoints: MatchpointRules = MatchpointRules()
    """Matchpointing (Law 78A) and factoring (Neuberg)."""
    butler: ButlerRules = ButlerRules()
    """Butler datum."""
    cross_imps: CrossImpRules = CrossImpRules()
    """Cross-IMP normalisation."""
    victory_points: VictoryPointRules = VictoryPointRules()
    """IMP-to-VP conversion for team matches."""
    artificial: ArtificialScores = ArtificialScores()
    """Law 12C2 artificial scores."""
    teams: TeamRules = TeamRules()
    """Team play options (Law 86)."""
    board_decimals: int | None = Field(default=None, ge=0, le=6)
    """Published precision of a board's score (matchpoints or IMPs): each is rounded to this many
    decimals, half away from zero, before totals (Magic Contest: 1). None = full precision."""
    unplayed_boards: Literal["omitted", "session_average"] = "omitted"
    """Boards a contestant did not play (byes, sit-outs): left out of its score and percentage, or
    scored at its own average, i.e. its total scaled to the most boards played in its section
    (Compscore; the same as Brenning's step 6, and it leaves the percentage unchanged)."""
    tie_breaks: tuple[TieBreak, ...] = ()
    """Tie-breaks in order; empty = tied contestants share the place (the Laws set none)."""
    correction_period_minutes: float = Field(default=30, ge=0)
    """Law 79C1: corrections accepted until this long after the official score is published."""
    appeal_period_minutes: float = Field(default=30, ge=0)
    """Law 92B: rulings may be requested or appealed until this long after publication."""
    carry_over: CarryOver = CarryOver()
    """Multi-session carry-over."""
    language: str = Field(default="en", pattern=r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$")
    """Language of the event's published pages, as a BCP 47 tag (`en`, `pl`, `fr-CA`)."""
    timezone: str = "UTC"
    """IANA time zone in which published pages show times (`Europe/Warsaw`); the log keeps UTC."""
    category: str | None = Field(default=None, min_length=1)
    """The event's ranking category (`club`, `national`, ...), as the federation's ranking rule set
    names them; registered on the tournament (`TournamentRegistered.category`), not with the scoring
    conditions. None = the rule set's default category."""

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown time zone {value!r}; expected an IANA name like Europe/Warsaw") from exc
        return value

    @classmethod
    def from_toml(cls, path: str | Path) -> ConditionsOfContest:
        """Validate a conditions file written in TOML."""
        with Path(path).open("rb") as handle:
            return cls.model_validate(tomllib.load(handle))

    @classmethod
    def from_toml_text(cls, text: str) -> ConditionsOfContest:
        """Validate conditions given as TOML text."""
        return cls.model_validate(tomllib.loads(text))

    def session_method(self, session_id: str, scheduled: str | None) -> ScoringMethod:
        """The method a session is scored by: its override, else the event's, else as scheduled."""
        override = self.sessions.get(session_id)
        if override is not None and override.method is not None:
            return override.method
        if self.method is not None:
            return self.method
        return _scheduled_method(scheduled)

    def session_layout(self, session_id: str, scheduled: str | None) -> FieldLayout:
        """The field layout of a session: its override, else the event's, else as scheduled."""
        override = self.sessions.get(session_id)
        if override is not None and override.field_layout is not None:
            return override.field_layout
        if self.field_layout is not None:
            return self.field_layout
        if scheduled in ("two_field", "one_field", "barometer"):
            return scheduled  # type: ignore[return-value]
        return "two_field"


def _scheduled_method(scheduled: str | None) -> ScoringMethod:
    method = (scheduled or "MP").strip().upper()
    for known in SCORING_METHODS:
        if method == known:
            return known
    raise UnsupportedScoringError(f"unknown scoring method {scheduled!r}; expected one of {SCORING_METHODS}")


# --- a file's own statement of its scoring -------------------------------------------------------

_USEBIO_EVENT_TYPES: dict[str, dict[str, Any]] = {
    "MP_PAIRS": {"method": "MP"},
    "PAIRS": {"method": "MP"},
    "INDIVIDUAL": {"method": "MP", "field_layout": "one_field"},
    "BUTLER_PAIRS": {"method": "BUTLER"},
    "IMP_PAIRS": {"method": "BUTLER"},
    "CROSS_IMP": {"method": "CROSS_IMP"},
    "CROSS_IMP_PAIRS": {"method": "CROSS_IMP"},
    "AGGREGATE": {"method": "TOTAL"},
    "TOTAL_POINTS": {"method": "TOTAL"},
    "TEAMS_OF_FOUR": {"method": "IMP_TEAMS"},
    "IMP_TEAMS": {"method": "IMP_TEAMS"},
    "KNOCKOUT": {"method": "IMP_TEAMS", "teams": {"knockout_averaging": True}},
    "SWISS_TEAMS": {"method": "VP_TEAMS"},
    "MULTIPLE_TEAMS": {"method": "VP_TEAMS"},
}
# A bare "IMP" (PBN) or "I" (LIN) is IMPs for teams or for pairs: the statement leaves the method to the
# session schedule (ingest knows whether the file has rooms) and only fixes the rules.
_LIN_LETTERS: dict[str, dict[str, Any]] = {"I": {}, "P": {"method": "MP"}}
_UNSUPPORTED = frozenset(
    {"CHICAGO", "RUBBER", "BAM", "INSTANT", "EXPERTS", "EMP", "OLDMP", "IMP_1948", "FACIT",
     "MITCHELL2", "MITCHELL3", "MITCHELL4", "ASCHERMAN", "BASTILLE", "B"}
)


PROGRAM_CONVENTIONS: dict[str, dict[str, Any]] = {
    "compscore": {
        "butler": {"trim": "count", "trim_count": 1},
        "unplayed_boards": "session_average",
        "matchpoints": {"factoring_basis": "section", "display_basis": "board"},
    },
    "magic contest": {"board_decimals": 1},
    "ruter i norge": {"board_decimals": 1},
    "scorebridge": {"matchpoints": {"factoring": "average"}},
    "bbo helper": {"matchpoints": {"factoring": "none"}},
}
"""What known scoring programs do where the Laws leave a choice, keyed by a word of the program's
name (matched case-insensitively at the start of the name). Checked against their published files
(corpus oracles): Compscore trims the highest and lowest score from a Butler datum and factors a
pair's total to the section's top with unplayed boards at its own average; Magic Contest and Ruter
round each board's score to 0.1 before totalling. ScoreBridge counts each missing comparison as a
tie (the 'average' factoring); BBO (its results as the BBO Helper add-on exports them) scores each
board on its own top, with no factoring."""


def conditions_from_file(tag: str | None, program: str | None,
                         tie_breaks: Sequence[str] = ()) -> ConditionsOfContest:
    """Conditions a file states for itself: its scoring statement and the tie-breaks its standings
    say were applied, plus the conventions of the program that wrote it (the statement wins where
    both speak)."""
    stated = conditions_from_scoring_tag(tag).model_dump(exclude_unset=True)
    if tie_breaks:
        stated["tie_breaks"] = tuple(tie_breaks)
    name = (program or "").strip().lower()
    conventions = next((c for key, c in PROGRAM_CONVENTIONS.items() if name.startswith(key)), {})
    return ConditionsOfContest.model_validate(_deep_merge(conventions, stated))


def _deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def conditions_from_scoring_tag(tag: str | None) -> ConditionsOfContest:
    """Conditions stated by a file itself: a PBN `Scoring` tag, a USEBIO `EVENT_TYPE` or a LIN `vg` letter.

    `None` or an empty tag gives the default conditions. A bare `IMP` (or LIN `I`) does not say
    whether teams or pairs played, so it leaves `method` unset: the session schedule decides. Raises
    `UnsupportedScoringError` for methods that are not duplicate scoring bridgeledger implements.
    """
    text = (tag or "").strip().lstrip("#").strip()
    if not text:
        return ConditionsOfContest()
    upper = text.upper()
    if upper in _USEBIO_EVENT_TYPES:
        return ConditionsOfContest.model_validate(_USEBIO_EVENT_TYPES[upper])
    if upper in _LIN_LETTERS:
        return ConditionsOfContest.model_validate(_LIN_LETTERS[upper])
    return ConditionsOfContest.model_validate(_pbn_scoring(text))


def _pbn_scoring(text: str) -> dict[str, Any]:
    fields = [f.strip().upper() for f in text.split(";") if f.strip()]
    unsupported = [f for f in fields if f in _UNSUPPORTED]
    if unsupported:
        raise UnsupportedScoringError(f"scoring {text!r}: {', '.join(unsupported)} is not supported")
    if any(f in ("MP", "MATCHPOINTS") for f in fields):
        return _pbn_matchpoints(fields)
    if any(f in ("IMP", "IMP_1961", "CAVENDISH") for f in fields):
        return _pbn_imps(fields)
    raise UnsupportedScoringError(f"scoring {text!r}: no known basic scoring system (MP, IMP)")


def _pbn_matchpoints(fields: list[str]) -> dict[str, Any]:
    scale = "1/0.5/0" if "MP2" in fields else "2/1/0"
    return {"method": "MP", "matchpoints": {"scale": scale}}


def _pbn_imps(fields: list[str]) -> dict[str, Any]:
    butler_trim = {"BUTLER": "none", "BUTLER-2": "count"}
    for field, trim in butler_trim.items():
        if field in fields:
            statistic = "median" if "MEDIAN" in fields else "mean"
            return {"method": "BUTLER", "butler": {"trim": trim, "trim_count": 1, "statistic": statistic}}
    cross_divisor = {"CROSS": "sum", "CROSS1": "n", "CROSS2": "n-1"}
    for field, divisor in cross_divisor.items():
        if field in fields:
            return {"method": "CROSS_IMP", "cross_imps": {"divisor": divisor}}
    if "CAVENDISH" in fields:
        return {"method": "CROSS_IMP"}
    return {}
