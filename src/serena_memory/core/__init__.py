"""The rules about memories; imports nothing above it.

- The store: ``store`` (the facade) with ``store_reading``, ``store_writing`` and
  ``store_rename``; each change in one ``transaction``, a rename's plan in the
  ``journal``, ``recovery`` after a crash.
- A change as callers ask it: the ``verbs`` (applied, or saved as ``proposals`` in review
  mode), each checked once by the gates of ``planned_change``, its outcome carrying the
  notes of the ``advice`` the store is given.
- What a memory is and where it lives: ``names``, ``references``, ``layout``, ``paths``
  (the path gate), ``files``, ``patterns``, ``access``, ``front_matter``, ``lifecycle``,
  and the settings (``config``, ``settings_schema``, ``settings_cache``).
- The secret gate: ``secrets`` and its ``secret_*`` detectors.
- For the layers above: one command or request as an ``operation``, what the process keeps
  (``process``), the interfaces history, usage and the checks implement (``changes``,
  ``reads``, ``advice``), and the one sentence each failure is told in (``errors``).
"""
