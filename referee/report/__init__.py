"""The match report: ``DIR/report.html``, one self-contained page per match or tournament.

:mod:`referee.report.info` records what the page needs beyond ``results.jsonl`` (the
engines, the schedule, the SPRT, the texts of the rules and the clock) in
``DIR/report.json``; :mod:`referee.report.data` builds the page's data from the
results (the statistics come from :mod:`referee.match`); :mod:`referee.report.page`
renders it into the HTML page (its script and style are package data, no network);
:mod:`referee.report.live` rewrites the page as a match plays.
"""
