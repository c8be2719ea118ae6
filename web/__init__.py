"""The local web app (``rummikub serve``): an analysis board, a puzzle trainer and a JSON API.

A front-end over the library, as ``cli/`` is: ``app`` speaks HTTP, ``service`` turns JSON into
one library call and its answer back into JSON (the only module here that imports the library),
``pool`` runs the solves in worker processes, ``limits`` holds what keeps the server safe to
leave running. The pages are static files in ``static/`` (HTML, CSS and plain ES modules).
"""
