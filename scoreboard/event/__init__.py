"""The night's event on the venue box: its formats folded by a pure core (``core``), its log in SQLite
(``store``), its rows for export (``export``). docs/events.md."""
