"""The checks of `serena memories check` as plug-ins: one module per check behind the small
interface of :mod:`.base`, listed once in :mod:`.registry`. The command line, its
``--json`` and ``--strict``, and the dashboard's Check page go over the registry instead
of naming each check; a new check is one module here plus its test.

Importing the package loads nothing heavy: each check imports its engine when it runs.
"""
