"""The ``rummikub`` command line: a thin click layer over the ``solver`` library."""
