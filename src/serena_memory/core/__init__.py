"""The rules about memories; imports nothing above it.

- The store: ``store`` (the facade) with ``store_reading``, ``store_writing`` and
  ``store_rename``; each change in one ``transaction``, a rename's plan in the
  ``journal``, ``recovery`` after a crash.
- What a memory is and where it lives: ``names``, ``references``, ``layout``, ``paths``
  (the path gate), ``files``, ``patterns``, ``access``, ``front_matter``, ``lifecycle``,
  and the settings (``config``, ``settings_schema``, ``settings_cache``).
- The secret gate: ``secrets`` and its ``secret_*`` detectors.
- For the layers above: one command or request as an ``operation``, what the process keeps
  (``process``), the interfaces history and usage implement (``changes``, ``reads``), and
  the one sentence each failure is told in (``errors``).
"""
