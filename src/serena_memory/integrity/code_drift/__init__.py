"""The code drift check: the files, folders and symbols the memories mention, checked
against the project's git repository (missing, moved, changed).

Empty on purpose: importing the package loads nothing, so the light read note
(:mod:`.read_note`) stays light; each module is imported where it is needed.
"""
