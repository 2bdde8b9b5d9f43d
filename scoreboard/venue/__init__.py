"""The venue: every table's Mosquitto bridged to one broker behind the bar (docs/venue.md)."""
