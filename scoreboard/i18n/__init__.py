"""The players' language: the gettext catalogs (``catalog``), their build (``build``, a developer's tool) and the
Babel extractor for the touchscreen's ``.kv`` files (``kv``). English is the source language; Croatian is
``locale/hr/LC_MESSAGES/devetka.po`` (docs/i18n.md)."""
