"""The federation ranking: members, awards from final standings, decay, editions and their diffs.

Every output is a pure function of (events up to a log position that had happened by an as-of
time, a rule set): an edition rebuilds byte for byte and can be compared with any other.
"""
