"""The puzzle library: the bundled position files (``*.txt``, the position file format with a
recorded answer), ``library`` (loading, measuring and finding puzzles) and ``generate`` (making
new ones of a measured difficulty).
"""
