"""The code drift check: the files, folders and symbols the memories mention, checked
against the project's git repository (missing, moved, changed). What the front-ends call:
:mod:`.check` (the check run on a store), :mod:`.fixing` (its fixes written to a store),
:mod:`.read_note` (what a reader of one memory is told) and :mod:`.drifted_memories` (the
drifted memories named where an agent starts).

Empty on purpose: importing the package loads nothing, so the light read note
(:mod:`.read_note`) stays light; each module is imported where it is needed.
"""
