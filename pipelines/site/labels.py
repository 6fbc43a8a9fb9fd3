"""The words on the pages, per language. A language the table does not have reads English."""

from __future__ import annotations

from collections.abc import Mapping

ENGLISH: dict[str, str] = {
    "analysis_pending": "Double-dummy analysis pending: this deal has not been solved yet.",
    "results": "Results", "events": "Events", "event": "Event", "session": "Session", "sessions": "Sessions",
    "status": "Status", "final": "final", "provisional": "provisional", "until": "until",
    "unpublished": "not yet published", "published": "Published", "deadline": "Correction period ends",
    "place": "Place", "pair": "Pair", "team": "Team", "players": "Players", "score": "Score",
    "percent": "%", "boards": "Boards", "board": "Board", "table": "Table", "contract": "Contract",
    "declarer": "By", "lead": "Lead", "tricks": "Tricks", "result": "Result", "ns": "NS", "ew": "EW",
    "score_ns": "Score NS", "score_ew": "Score EW", "mp": "MP", "imp": "IMP", "points": "Points",
    "opponents": "Opponents", "opponents_short": "vs", "running_total": "Running total", "running_percent": "Running %",
    "direction": "Direction", "section": "Section", "all": "One field", "dealer": "Dealer",
    "vulnerable": "Vulnerable", "double_dummy": "Double-dummy tricks", "par": "Par",
    "no_deal": "No hand record for this board.", "no_solver": "Double-dummy analysis is not available "
    "(the solver, endplay, is not installed).", "travellers": "Travellers", "score_cards": "Score cards",
    "downloads": "Downloads", "audit": "Corrections and rulings (audit)", "standings": "Standings",
    "overall": "Overall standings", "carry_over": "Running total", "total": "Total",
    "ranking_points": "Ranking pts", "ranking_points_long": "Ranking points this result earned", "matches": "Matches",
    "vp": "VP", "imps_for": "IMPs for", "imps_against": "IMPs against", "vp_table": "VP table",
    "imp_table": "IMP margins, team against team",
    "round": "Round", "vp_total_note": "The VPs of this match add up to", "usual_total": "the usual total is",
    "adjusted": "adjusted", "weighted": "weighted", "corrected": "corrected", "artificial_note":
    "artificial adjusted score (Law 12C2)", "weighted_note": "weighted score (Law 12C1(c))",
    "corrected_note": "corrected after publication (see the audit)", "passed": "Passed out",
    "footer_session": "Every correction and ruling of this session, with the time it was made, is in its audit",
    "footer_page": "Part of the results of this session: standings, travellers and the audit",
    "legend": "Row colours", "legend_corrected": "corrected after publication: the audit says what and why",
    "legend_adjusted": "an adjusted or weighted score given by the director",
    "see_audit": "see the audit", "order_by": "Rows ordered by the NS score, highest first",
    "all_boards": "Boards of the session", "change": "Before → after", "when": "Raised",
    "requested_by": "Requested by", "ruling": "Decision", "asked": "Asked for",
    "winners": "Winners", "match_against": "Match against", "groups": "Groups of tables",
    "plot_score_ns": "score for NS", "plot_tables": "tables", "plot_editions": "published editions",
    "plot_boards_played": "boards played (boards {first} to {last})",
    "fouled_note": "fouled board (Law 87): {group} deal, tables {tables}; scored among these {n} tables and "
    "factored (Neuberg) to the board's {field} tables",
    "fouled_note_imps": "fouled board (Law 87): {group} deal, tables {tables}; compared only among these {n} tables",
    "group_original": "the original", "group_fouled": "the fouled",
    "group_deal": "{group} deal", "hand_record_deal": "the hand record's deal",
    "deal_played_at": "{deal}, played at tables {tables}", "record_dd": "the hand record's deal",
    "legend_fouled": "a fouled board (Law 87): each group scored on its own deal",
    "as_of": "as of", "no_events": "No events yet.",
    "running_plot": "Running percentage through the session", "distribution_plot": "Scores on this board",
    "datum": "Datum", "tie": "tied", "method": "Scoring", "sitting": "Direction", "none": "None", "both": "All",
    "penalty": "penalty", "no_carry": "Each session is ranked on its own (no carry-over).", "date": "Date",
    "pbn": "Session as PBN (with ScoreTable and TotalScoreTable)", "csv_boards": "Every table's score (CSV)",
    "csv_standings": "Standings (CSV)", "back": "Back", "home": "All events", "tables": "Every table's result",
    "ranking": "Federation ranking", "spades": "spades", "hearts": "hearts", "diamonds": "diamonds",
    "clubs": "clubs", "nt": "NT", "breadcrumbs": "breadcrumbs",
    "method_MP": "Matchpoints", "method_BUTLER": "IMPs (Butler)", "method_CROSS_IMP": "Cross-IMPs",
    "method_TOTAL": "Total points", "method_IMP_TEAMS": "Teams (IMPs)", "method_VP_TEAMS": "Teams (IMPs to VPs)",
}

POLISH: dict[str, str] = {
    "analysis_pending": "Analiza w widne karty w toku: tego rozkładu jeszcze nie policzono.",
    "results": "Wyniki", "events": "Turnieje", "event": "Turniej", "session": "Sesja", "sessions": "Sesje",
    "status": "Status", "final": "ostateczne", "provisional": "wstępne", "until": "do",
    "unpublished": "nieopublikowane", "published": "Opublikowano", "deadline": "Koniec okresu poprawek",
    "place": "Miejsce", "pair": "Para", "team": "Drużyna", "players": "Zawodnicy", "score": "Wynik",
    "percent": "%", "boards": "Rozdania", "board": "Rozdanie", "table": "Stół", "contract": "Kontrakt",
    "declarer": "Rozgr.", "lead": "Wist", "tricks": "Lewy", "result": "Rezultat", "ns": "NS", "ew": "EW",
    "score_ns": "Zapis NS", "score_ew": "Zapis EW", "mp": "Pkt", "imp": "IMP", "points": "Punkty",
    "opponents": "Przeciwnicy", "opponents_short": "vs", "running_total": "Suma narastająco",
    "running_percent": "% narastająco",
    "direction": "Linia", "section": "Sektor", "all": "Wspólna klasyfikacja", "dealer": "Rozdający",
    "vulnerable": "Po partii", "double_dummy": "Lewy w widne karty", "par": "Par",
    "no_deal": "Brak rozkładu kart tego rozdania.", "no_solver": "Analiza w widne karty jest niedostępna "
    "(program endplay nie jest zainstalowany).", "travellers": "Protokoły", "score_cards": "Karty wyników",
    "downloads": "Do pobrania", "audit": "Poprawki i decyzje sędziego (audyt)", "standings": "Klasyfikacja",
    "overall": "Klasyfikacja łączna", "carry_over": "Suma narastająco", "total": "Razem",
    "ranking_points": "Pkt rank.", "ranking_points_long": "Punkty rankingowe zdobyte za ten wynik", "matches": "Mecze",
    "vp": "VP", "imps_for": "IMP zdobyte", "imps_against": "IMP stracone", "vp_table": "Tabela VP",
    "imp_table": "Różnice IMP, drużyna z drużyną",
    "round": "Runda", "vp_total_note": "VP tego meczu sumują się do", "usual_total": "zwykle suma wynosi",
    "adjusted": "arbitralny", "weighted": "ważony", "corrected": "poprawiony", "artificial_note":
    "sztuczny wynik arbitralny (Prawo 12C2)", "weighted_note": "wynik ważony (Prawo 12C1(c))",
    "corrected_note": "poprawiony po publikacji (zob. audyt)", "passed": "Wszyscy pas",
    "footer_session": "Każda poprawka i decyzja sędziego tej sesji, z czasem jej podjęcia, jest w audycie",
    "footer_page": "Część wyników sesji: klasyfikacja, protokoły i audyt",
    "legend": "Kolory wierszy", "legend_corrected": "poprawiony po publikacji: audyt mówi co i dlaczego",
    "legend_adjusted": "wynik arbitralny lub ważony przyznany przez sędziego",
    "see_audit": "zob. audyt", "order_by": "Wiersze według zapisu NS, od najwyższego",
    "all_boards": "Rozdania sesji", "change": "Przed → po", "when": "Zgłoszono",
    "requested_by": "Zgłaszający", "ruling": "Decyzja", "asked": "Wniosek",
    "winners": "Zwycięzcy", "match_against": "Mecz z", "groups": "Grupy stołów",
    "plot_score_ns": "zapis NS", "plot_tables": "stoły", "plot_editions": "opublikowane edycje",
    "plot_boards_played": "rozegrane rozdania (rozdania od {first} do {last})",
    "fouled_note": "rozdanie zepsute (Prawo 87): {group}, stoły {tables}; liczone między tymi {n} stołami i "
    "przeliczone (Neuberg) na {field} stołów rozdania",
    "fouled_note_imps": "rozdanie zepsute (Prawo 87): {group}, stoły {tables}; porównane tylko między tymi {n} "
    "stołami", "group_original": "rozkład pierwotny",
    "group_fouled": "rozkład zmieniony", "group_deal": "{group}", "hand_record_deal": "rozkład z protokołu",
    "deal_played_at": "{deal}, grany przy stołach {tables}", "record_dd": "rozkład z protokołu",
    "legend_fouled": "rozdanie zepsute (Prawo 87): każda grupa liczona osobno",
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

SAME_IN_POLISH = frozenset({"status", "percent", "ns", "ew", "imp", "vp", "par", "datum", "opponents_short"})
"""The labels Polish writes as English does (bridge's own abbreviations and loanwords)."""

AUDIT_HEADERS: dict[str, dict[str, str]] = {
    "en": {
        "kind": "Kind", "id": "Id", "event_id": "Event", "session_id": "Session", "section": "Section",
        "board": "Board", "table_id": "Table", "raised_at": "Raised at", "recorded_at": "Recorded at",
        "back_dated": "Back-dated", "requested_by": "Requested by", "reason": "Reason", "window": "When",
        "decision": "Decision", "rule": "Rule", "before_contract": "Before: contract", "before_declarer": "Before: by",
        "before_tricks": "Before: tricks", "before_score_ns": "Before: score NS", "before_mp_ns": "Before: MP NS",
        "before_imp_ns": "Before: IMP NS", "asked": "Asked for", "after_contract": "After: contract",
        "after_declarer": "After: by", "after_tricks": "After: tricks", "after_score_ns": "After: score NS",
        "after_mp_ns": "After: MP NS", "after_imp_ns": "After: IMP NS", "published_at": "Published at",
        "deadline": "Correction period ends",
    },
    "pl": {
        "kind": "Rodzaj", "id": "Id", "event_id": "Turniej", "session_id": "Sesja", "section": "Sektor",
        "board": "Rozdanie", "table_id": "Stół", "raised_at": "Zgłoszono", "recorded_at": "Zapisano",
        "back_dated": "Z datą wsteczną", "requested_by": "Zgłaszający", "reason": "Powód", "window": "Kiedy",
        "decision": "Decyzja", "rule": "Przepis", "before_contract": "Przed: kontrakt",
        "before_declarer": "Przed: rozgr.", "before_tricks": "Przed: lewy", "before_score_ns": "Przed: zapis NS",
        "before_mp_ns": "Przed: pkt NS", "before_imp_ns": "Przed: IMP NS", "asked": "Wniosek",
        "after_contract": "Po: kontrakt", "after_declarer": "Po: rozgr.", "after_tricks": "Po: lewy",
        "after_score_ns": "Po: zapis NS", "after_mp_ns": "Po: pkt NS", "after_imp_ns": "Po: IMP NS",
        "published_at": "Opublikowano", "deadline": "Koniec okresu poprawek",
    },
}
"""The audit's columns (`pipelines.replay.audit.AUDIT_COLUMNS`) as its page heads them; audit.csv keeps the names."""

AUDIT_VALUES: dict[str, dict[str, str]] = {
    "en": {},
    "pl": {
        "correction": "poprawka", "ruling": "decyzja sędziego", "applied": "uwzględniona", "rejected": "odrzucona",
        "before publication": "przed publikacją", "inside correction period": "w okresie poprawek",
        "after correction period": "po okresie poprawek", "recorded with the results": "zapisana z wynikami",
        "inside ruling period": "w terminie na decyzję", "after ruling period": "po terminie na decyzję",
        "ordinary fix before publication": "zwykła poprawka przed publikacją",
        "back-dated: claims a time before the session became final but was recorded after; not applied without "
        "an acknowledgement (bridgeledger acknowledge-back-dated)":
            "z datą wsteczną: podaje czas sprzed zamknięcia sesji, lecz zapisana później; nieuwzględniona bez "
            "potwierdzenia (bridgeledger acknowledge-back-dated)",
        "Law 79C1: raised within the correction period": "Prawo 79C1: zgłoszona w okresie poprawek",
        "Law 79C2: late correction approved by the organiser":
            "Prawo 79C2: spóźniona poprawka zatwierdzona przez organizatora",
        "Law 79C1: correction period had expired; no Law 79C2 approval":
            "Prawo 79C1: okres poprawek minął; brak zgody według Prawa 79C2",
        "adjusted score recorded with the results": "wynik arbitralny zapisany z wynikami",
        "ruling before publication: stands": "decyzja przed publikacją: obowiązuje",
        "Law 92B: ruling requested within the period": "Prawo 92B: decyzja zażądana w terminie",
        "Law 92B: period for requesting a ruling had expired": "Prawo 92B: termin na żądanie decyzji minął",
        "superseded by a later ruling for the same table": "zastąpiona późniejszą decyzją dla tego stołu",
        "weighted score (Law 12C1)": "wynik ważony (Prawo 12C1)",
    },
}
"""The audit's fixed values (kind, decision, window, rule: `pipelines.rulings.corrections`, `pipelines.replay.audit`)
in each language, where it says them otherwise than English; free text (a reason, a name) stays."""

LANGUAGES: Mapping[str, Mapping[str, str]] = {"en": ENGLISH, "pl": POLISH}


def language_code(tag: str) -> str:
    """The language of a BCP 47 tag, as the word tables are keyed (`pl-PL` -> `pl`)."""
    return tag.split("-")[0].lower()


def labels(language: str) -> Mapping[str, str]:
    """The words for a BCP 47 tag: its own language's, else English."""
    return LANGUAGES.get(language_code(language), ENGLISH)


def audit_words(language: str) -> tuple[Mapping[str, str], Mapping[str, str]]:
    """The audit page's column heads and fixed values for a BCP 47 tag (English when it has none)."""
    code = language_code(language)
    return AUDIT_HEADERS.get(code, AUDIT_HEADERS["en"]), AUDIT_VALUES.get(code, AUDIT_VALUES["en"])
