"""A federation's member list (CSV) becomes `MemberRegistered` events.

The file has a header row naming its columns, in any order:

| column | required | meaning |
|---|---|---|
| `federation_id` | yes | membership number |
| `name` | yes | the member's name |
| `club` | no | club |
| `gender` | no | F, M or X |
| `birth_year` | no | four digits |
| `region` | no | region or district |

A member is (federation, id): two federations may number their members alike. Re-importing the
same bytes for the same federation is a no-op (the same bytes for another federation are that
federation's list); importing a newer list appends only members that are new or whose details
changed (the latest registration of a federation's id is the one in force).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

import polars as pl

from models.events import MemberRegistered, SourceFileIngested, SourceRef, event_payload
from pipelines.files.ingest import sha256_of, source_stream
from pipelines.log.fields import PayloadField, payload_fields
from pipelines.log.payload_frames import payload_frame
from pipelines.log.store import EventStore, NewEvent, to_epoch_us
from pipelines.ranking.inputs import MEMBER_FIELDS, latest, log_head

MEMBER_COLUMNS = ("federation_id", "name", "club", "gender", "birth_year", "region")
REQUIRED_COLUMNS = ("federation_id", "name")
PARSER_VERSION = "members-csv/1"
_GENDERS: dict[str, Literal["F", "M", "X"]] = {"F": "F", "M": "M", "X": "X", "K": "F", "W": "F"}


class MemberListError(ValueError):
    """A member list row that cannot be read: names the file, line and column."""

    def __init__(self, source: str, line: int, column: int, message: str) -> None:
        super().__init__(f"{source}:{line}:{column}: {message}")
        self.source, self.line, self.column = source, line, column


@dataclass(frozen=True)
class MemberImport:
    """What an import appended."""

    rows: int
    appended: int
    unchanged: int
    already_ingested: bool
    position: int | None


def parse_member_list(text: str, *, source: str, federation: str, sha256: str) -> list[MemberRegistered]:
    """Every row as a `MemberRegistered`; the first bad row raises `MemberListError` (nothing is lost
    silently: a list is imported whole or not at all)."""
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if header is None:
        raise MemberListError(source, 1, 1, f"empty file; expected a header with {', '.join(REQUIRED_COLUMNS)}")
    columns = [h.strip().lower() for h in header]
    _check_header(columns, source)
    members: list[MemberRegistered] = []
    seen: dict[str, int] = {}
    for index, row in enumerate(reader):
        line = reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        member = _member(dict(zip(columns, row, strict=False)), columns, source, line, federation,
                         SourceRef(sha256=sha256, record=index, line=line))
        if member.federation_id in seen:
            raise MemberListError(source, line, columns.index("federation_id") + 1,
                                  f"federation id {member.federation_id} already on line {seen[member.federation_id]}")
        seen[member.federation_id] = line
        members.append(member)
    return members


def _check_header(columns: list[str], source: str) -> None:
    for required in REQUIRED_COLUMNS:
        if required not in columns:
            raise MemberListError(source, 1, 1, f"missing column {required!r}; expected {', '.join(MEMBER_COLUMNS)}")
    unknown = [c for c in columns if c not in MEMBER_COLUMNS]
    if unknown:
        raise MemberListError(source, 1, columns.index(unknown[0]) + 1,
                              f"unknown column {unknown[0]!r}; expected {', '.join(MEMBER_COLUMNS)}")


def _member(cells: dict[str, str], columns: list[str], source: str, line: int, federation: str,
            ref: SourceRef) -> MemberRegistered:
    def column(name: str) -> int:
        return columns.index(name) + 1

    def text(name: str) -> str | None:
        value = cells.get(name, "").strip()
        return value or None

    for required in REQUIRED_COLUMNS:
        if not text(required):
            raise MemberListError(source, line, column(required), f"{required} is empty")
    gender = text("gender")
    if gender is not None and gender.upper() not in _GENDERS:
        raise MemberListError(source, line, column("gender"), f"gender {gender!r}; expected F, M or X")
    year = text("birth_year")
    if year is not None and not (year.isdigit() and len(year) == 4):
        raise MemberListError(source, line, column("birth_year"), f"birth year {year!r}; expected four digits")
    return MemberRegistered(
        federation=federation, federation_id=text("federation_id") or "", name=" ".join((text("name") or "").split()),
        club=text("club"), gender=_GENDERS[gender.upper()] if gender else None,
        birth_year=int(year) if year else None, region=text("region"), source=ref)


def import_member_list(store: EventStore, path: str | Path, *, federation: str, at: datetime,
                       recorded_at: datetime) -> MemberImport:
    """Append the list's new and changed members (one transaction), recorded as of `at`."""
    data = Path(path).read_bytes()
    sha = sha256_of(data)
    stream = member_list_stream(sha, federation)
    if store.exists() and _already_imported(store, sha, federation):
        return MemberImport(0, 0, 0, already_ingested=True, position=None)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise MemberListError(str(path), 1, 1, f"not UTF-8 ({exc.reason} at byte {exc.start})") from exc
    members = parse_member_list(text, source=str(path), federation=federation, sha256=sha)
    changed = _new_or_changed(store, members, at)
    events = [NewEvent(f"members:{federation}", m.type, event_payload(m), at) for m in changed]
    manifest = SourceFileIngested(sha256=sha, name=Path(path).name, format="members-csv",
                                  parser_version=PARSER_VERSION, counts={"MemberRegistered": len(changed)})
    events.append(NewEvent(stream, manifest.type, event_payload(manifest), at))
    result = store.append(events, recorded_at=recorded_at, source_sha256=sha)
    return MemberImport(len(members), len(changed), len(members) - len(changed), False, result.last_position)


def member_list_stream(sha256: str, federation: str) -> str:
    """The stream that records a member list's import for one federation (its manifest)."""
    return f"{source_stream(sha256)}/members:{federation}"


def _already_imported(store: EventStore, sha256: str, federation: str) -> bool:
    """Whether these bytes were imported for `federation`: its manifest, or (lists imported when a
    list's manifest was the file's alone, `source:<sha>`) a member of it registered from these bytes."""
    if store.stream_version(member_list_stream(sha256, federation)) > 0:
        return True
    if store.stream_version(source_stream(sha256)) == 0:
        return False
    with store.reader() as con:
        members = payload_fields(con, ["MemberRegistered"], (PayloadField("federation", "federation"),
                                                             PayloadField("sha256", "source.sha256")))
    return not members.filter((pl.col("federation") == federation) & (pl.col("sha256") == sha256)).is_empty()


def _new_or_changed(store: EventStore, members: list[MemberRegistered], at: datetime) -> list[MemberRegistered]:
    if not store.exists():
        return members
    federation = members[0].federation if members else ""
    with store.reader() as con:
        registered = payload_frame(con, "MemberRegistered", MEMBER_FIELDS, up_to=log_head(store),
                                   as_of_us=to_epoch_us(at))
    current = latest(registered.filter(pl.col("federation") == federation), ["federation_id"])
    known = {
        row["federation_id"]: tuple(row[c] for c in MEMBER_FIELDS)
        for row in current.iter_rows(named=True)
    }
    return [m for m in members
            if known.get(m.federation_id) != tuple(getattr(m, c) for c in MEMBER_FIELDS)]
