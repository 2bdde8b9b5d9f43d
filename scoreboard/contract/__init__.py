"""The contract between the referee and everything that shows it: the served records, built in one place.

``records`` declares each served message as a frozen, typed record (msgspec); ``present`` is the one place they
are built; ``read`` decodes them on a client's side, tolerantly (a field not declared ignored); ``schema`` writes
their JSON Schemas to ``docs/schema/``. Above the core, below the referee and the adapters: the referee, MQTT and
the local API serve what ``present`` builds, and the touchscreen reads it typed with ``read``.
"""
