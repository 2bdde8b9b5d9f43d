"""The director: the venue box's daemon that keeps the night's events (docs/events.md, "The director")."""
