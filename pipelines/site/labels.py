"""The words on the pages, per language. A language the table does not have reads English."""

from __future__ import annotations

from collections.abc import Mapping

ENGLISH: dict[str, str] = {
    "results": "Results", "events": "Events", "event": "Event", "session": "Session", "sessions": "Sessions",
    "status": "Status", "final": "final", "provisional": "provisional", "until": "until",
    "unpublished": "not yet published", "published": "Published", "deadline": "Correction period ends",
    "place": "Place", "pair": "Pair", "team": "Team", "players": "Players", "score": "Score",
    "percent": "%", "boards": "Boards", "board": "Board", "table": "Table", "contract": "Contract",
    "declarer": "By", "lead": "Lead", "tricks": "Tricks", "result": "Result", "ns": "NS", "ew": "EW",
    "score_ns": "Score NS", "score_ew": "Score EW", "mp": "MP", "imp": "IMP", "points": "Points",
    "opponents": "Opponents", "running_total": "Running total", "running_percent": "Running %",
    "direction": "Direction", "section": "Section", "all": "One field", "dealer": "Dealer",
    "vulnerable": "Vulnerable", "double_dummy": "Double-dummy tricks", "par": "Par",
    "no_deal": "No hand record for this board.", "no_solver": "Double-dummy analysis is not available "
    "(the solver, endplay, is not installed).", "travellers": "Travellers", "score_cards": "Score cards",
    "downloads": "Downloads", "audit": "Corrections and rulings (audit)", "standings": "Standings",
    "overall": "Overall standings", "carry_over": "Carried over", "total": "Total", "matches": "Matches",
    "vp": "VP", "imps_for": "IMPs for", "imps_against": "IMPs against", "vp_table": "VP table",
    "imp_table": "IMP margins, team against team",
    "adjusted": "adjusted", "weighted": "weighted", "corrected": "corrected", "artificial_note":
    "artificial adjusted score (Law 12C2)", "weighted_note": "weighted score (Law 12C1(c))",
    "corrected_note": "corrected after publication (see the audit)", "passed": "Passed out",
    "log_position": "Scored from the event log up to this session's latest fact, position",
    "scored_with_session": "Scored with the session: its page names the log position",
    "as_of": "as of", "no_events": "No events yet.",
    "running_plot": "Running percentage through the session", "distribution_plot": "Scores on this board",
    "datum": "Datum", "tie": "tied", "method": "Scoring", "sitting": "Sat", "none": "None", "both": "All",
    "penalty": "penalty", "no_carry": "Each session is ranked on its own (no carry-over).", "date": "Date",
    "pbn": "Session as PBN (with ScoreTable and TotalScoreTable)", "csv_boards": "Every table's score (CSV)",
    "csv_standings": "Standings (CSV)", "back": "Back", "home": "All events", "tables": "Every table's result",
    "ranking": "Federation ranking",
}

POLISH: dict[str, str] = {
    **ENGLISH,
    "results": "Wyniki", "events": "Turnieje", "event": "Turniej", "session": "Sesja", "sessions": "Sesje",
    "status": "Status", "final": "ostateczne", "provisional": "wstępne", "until": "do",
    "unpublished": "nieopublikowane", "published": "Opublikowano", "deadline": "Koniec okresu poprawek",
    "place": "Miejsce", "pair": "Para", "team": "Drużyna", "players": "Zawodnicy", "score": "Wynik",
    "boards": "Rozdania", "board": "Rozdanie", "table": "Stół", "contract": "Kontrakt", "declarer": "Rozgr.",
    "lead": "Wist", "tricks": "Lewy", "opponents": "Przeciwnicy", "running_total": "Suma narastająco",
    "travellers": "Protokoły", "score_cards": "Karty wyników", "downloads": "Do pobrania",
    "standings": "Klasyfikacja", "dealer": "Rozdający", "vulnerable": "Po partii", "home": "Wszystkie turnieje",
}

LANGUAGES: Mapping[str, Mapping[str, str]] = {"en": ENGLISH, "pl": POLISH}


def labels(language: str) -> Mapping[str, str]:
    """The words for a BCP 47 tag: its own language's, else English."""
    return LANGUAGES.get(language.split("-")[0].lower(), ENGLISH)
