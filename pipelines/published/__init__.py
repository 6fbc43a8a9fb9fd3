"""What a file published (scores, standings, double-dummy analysis) held against our own figures."""
