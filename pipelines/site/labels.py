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
    "ranking": "Federation ranking", "spades": "spades", "hearts": "hearts", "diamonds": "diamonds",
    "clubs": "clubs", "nt": "NT", "breadcrumbs": "breadcrumbs",
    "method_MP": "Matchpoints", "method_BUTLER": "IMPs (Butler)", "method_CROSS_IMP": "Cross-IMPs",
    "method_TOTAL": "Total points", "method_IMP_TEAMS": "Teams (IMPs)", "method_VP_TEAMS": "Teams (IMPs to VPs)",
}

POLISH: dict[str, str] = {
    "results": "Wyniki", "events": "Turnieje", "event": "Turniej", "session": "Sesja", "sessions": "Sesje",
    "status": "Status", "final": "ostateczne", "provisional": "wstępne", "until": "do",
    "unpublished": "nieopublikowane", "published": "Opublikowano", "deadline": "Koniec okresu poprawek",
    "place": "Miejsce", "pair": "Para", "team": "Drużyna", "players": "Zawodnicy", "score": "Wynik",
    "percent": "%", "boards": "Rozdania", "board": "Rozdanie", "table": "Stół", "contract": "Kontrakt",
    "declarer": "Rozgr.", "lead": "Wist", "tricks": "Lewy", "result": "Rezultat", "ns": "NS", "ew": "EW",
    "score_ns": "Zapis NS", "score_ew": "Zapis EW", "mp": "Pkt", "imp": "IMP", "points": "Punkty",
    "opponents": "Przeciwnicy", "running_total": "Suma narastająco", "running_percent": "% narastająco",
    "direction": "Linia", "section": "Sektor", "all": "Wspólna klasyfikacja", "dealer": "Rozdający",
    "vulnerable": "Po partii", "double_dummy": "Lewy w widne karty", "par": "Par",
    "no_deal": "Brak rozkładu kart tego rozdania.", "no_solver": "Analiza w widne karty jest niedostępna "
    "(program endplay nie jest zainstalowany).", "travellers": "Protokoły", "score_cards": "Karty wyników",
    "downloads": "Do pobrania", "audit": "Poprawki i decyzje sędziego (audyt)", "standings": "Klasyfikacja",
    "overall": "Klasyfikacja łączna", "carry_over": "Przeniesione", "total": "Razem", "matches": "Mecze",
    "vp": "VP", "imps_for": "IMP zdobyte", "imps_against": "IMP stracone", "vp_table": "Tabela VP",
    "imp_table": "Różnice IMP, drużyna z drużyną",
    "adjusted": "arbitralny", "weighted": "ważony", "corrected": "poprawiony", "artificial_note":
    "sztuczny wynik arbitralny (Prawo 12C2)", "weighted_note": "wynik ważony (Prawo 12C1(c))",
    "corrected_note": "poprawiony po publikacji (zob. audyt)", "passed": "Wszyscy pas",
    "log_position": "Policzone z dziennika zdarzeń do ostatniego faktu tej sesji, pozycja",
    "scored_with_session": "Policzone razem z sesją: jej strona podaje pozycję w dzienniku",
    "as_of": "stan na", "no_events": "Nie ma jeszcze turniejów.",
    "running_plot": "Procent narastająco w trakcie sesji", "distribution_plot": "Zapisy w tym rozdaniu",
    "datum": "Datum", "tie": "ex aequo", "method": "Sposób liczenia", "sitting": "Linia", "none": "Nikt",
    "both": "Obie", "penalty": "kara", "no_carry": "Każda sesja ma osobną klasyfikację (bez przeniesień).",
    "date": "Data", "pbn": "Sesja w formacie PBN (z ScoreTable i TotalScoreTable)",
    "csv_boards": "Zapisy wszystkich stołów (CSV)", "csv_standings": "Klasyfikacja (CSV)", "back": "Wstecz",
    "home": "Wszystkie turnieje", "tables": "Wyniki wszystkich stołów", "ranking": "Ranking federacji",
    "spades": "piki", "hearts": "kiery", "diamonds": "kara", "clubs": "trefle", "nt": "BA",
    "breadcrumbs": "ścieżka nawigacji",
    "method_MP": "Zapis maksymalny", "method_BUTLER": "Zapis IMP (butler)",
    "method_CROSS_IMP": "Zapis IMP (każdy z każdym)", "method_TOTAL": "Zapis punktowy",
    "method_IMP_TEAMS": "Mecz drużynowy (IMP)", "method_VP_TEAMS": "Mecze drużynowe (IMP na VP)",
}
"""Every word of `ENGLISH` in Polish."""

SAME_IN_POLISH = frozenset({"status", "percent", "ns", "ew", "imp", "vp", "par", "datum"})
"""The labels Polish writes as English does (bridge's own abbreviations and loanwords)."""

LANGUAGES: Mapping[str, Mapping[str, str]] = {"en": ENGLISH, "pl": POLISH}


def labels(language: str) -> Mapping[str, str]:
    """The words for a BCP 47 tag: its own language's, else English."""
    return LANGUAGES.get(language.split("-")[0].lower(), ENGLISH)
