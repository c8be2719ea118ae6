"""The local web app (``rummikub serve``): an analysis board, a puzzle trainer, games against the
AI players, game reviews, and a JSON API.

A front-end over the library, as ``cli/`` is: ``app`` speaks HTTP; ``request`` reads the fields
every request shares and turns every outcome into a status and a JSON body; the modules that turn
JSON into library calls and their answers back into JSON are ``endpoints`` (positions, puzzles,
one-turn solves), ``games`` (a game kept between requests, told to a page as far as its person may
see) and ``reviews`` (a record judged turn by turn); ``store`` keeps games and reviews on disk,
``pool`` runs the solves in worker processes, ``limits`` holds what keeps the server safe to leave
running. The pages are static files in ``static/`` (HTML, CSS and plain ES modules).
"""
