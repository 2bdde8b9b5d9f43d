"""The table's config, a room of its own below the referee, the adapters and the touchscreen: each reads its
settings from here (``scoreboard.config.table``), and the touchscreen needs no referee to show or change them."""
