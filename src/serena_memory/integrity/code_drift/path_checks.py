"""Whether a path a memory mentions still names the project's file: found (and changed
much since the memory was written, or moved to its place since), moved (git saw where
to) or missing; for a file named in another form than its path (a module, ``./x``, an
alias) the files it may name are tried in turn
(:mod:`~serena_memory.integrity.code_drift.forms`). A weak mention (an example, a name in
a fenced block) is told only when git knew the file it names.

Nothing is read from a mentioned path: it is looked up in the project's list of files
and in what git remembers.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace

from serena_memory.integrity.code_drift.aliases import Aliases, expand, project_aliases
from serena_memory.integrity.code_drift.case_only import (
    in_other_case,
    moved_finding,
    unknown_in_other_case,
)
from serena_memory.integrity.code_drift.code_report import CHANGED, MISSING, CodeFinding
from serena_memory.integrity.code_drift.drawn_then import placed_then
from serena_memory.integrity.code_drift.examples import stands_for_any_project
from serena_memory.integrity.code_drift.extensions import stem_candidates
from serena_memory.integrity.code_drift.forms import (
    ALIAS,
    GLOB,
    MEMBER,
    MODULE,
    RELATIVE,
    STEM,
    UP,
    module_candidates,
    rewritten,
    script_candidates,
    within_same_folder,
)
from serena_memory.integrity.code_drift.history import GitPast
from serena_memory.integrity.code_drift.mentions import PATH, Mention
from serena_memory.integrity.code_drift.moves import (
    Moves,
    known,
    missing_note,
    moved_folder,
    moves,
    still_there_at,
    there_when_written,
)
from serena_memory.integrity.code_drift.namesakes import namesake_gone, there_then
from serena_memory.integrity.code_drift.patterns import glob_tail
from serena_memory.integrity.code_drift.project import ProjectFiles
from serena_memory.integrity.code_drift.relative_names import one_new_form, placed_from
from serena_memory.integrity.code_drift.reorganised import (
    FolderMoves,
    became_package,
    carried_with_folder,
    copied_before_gone,
    new_extension,
    reorganised_to,
    stem_index,
)
from serena_memory.integrity.code_drift.sketches import below_absent, detailed, within_sketch
from serena_memory.integrity.code_drift.trees import places_of
from serena_memory.integrity.code_drift.written_then import beside_memory, moved_since

_ARCHIVE = re.compile(r"(?:^|/)archive(?:d|s)?(?:[-_][^/]*)?/", re.IGNORECASE)
"""A folder that keeps what the project no longer uses: ``archive/``, ``docs-archive``
is not one (its name does not start so), ``archive-2025-09/`` is."""


class PathChecks:
    """The checks of path mentions, for a checker that gives the project's files, its
    history and how many commits make a file ``changed``."""

    changed_commits: int
    _aliases: Aliases | None = None
    _stems: tuple[ProjectFiles, dict[str, list[str]], FolderMoves] | None = None
    # per list of files: its files by stem, where the folders asked went

    @property
    def files(self) -> ProjectFiles:
        raise NotImplementedError

    @property
    def past(self) -> GitPast:
        raise NotImplementedError

    @property
    def history(self) -> bool:
        raise NotImplementedError

    def check_path(
        self, memory: str, m: Mention, when: float | None, read_only: bool = False
    ) -> CodeFinding | None:
        """The finding of one path mention: missing, moved or changed (None: it names a
        file of the project that did not change much since ``when``)."""
        if self._meant_to_make(m):
            return None
        if m.placed and m.weak and when is not None and self.history:  # a drawn tree
            m = replace(m, placed=placed_then(self.past, m.placed, when))
        m = self._as_named(memory, m)
        if m.form == GLOB:
            return self._check_glob(memory, m, when, read_only)
        if m.form:
            return self._check_form(memory, m, when, read_only)
        if m.exact:
            resolved = m.target if self.files.exists(m.target) else None
        else:
            resolved = self.files.resolve(m.target)
            if resolved is not None and resolved != m.target and self._archived_only(m.target):
                resolved = None  # a live file's name; only archived copies have it now
        if resolved is not None:
            gone = self._namesake_gone(m.target, resolved, when)
            if gone is None:
                return self._present(memory, m, m.target, resolved, when, read_only)
            m = replace(m, target=gone)
        return self._check_not_found(memory, m, when, read_only)

    def _meant_to_make(self, m: Mention) -> bool:
        """Whether a path in a plan's section names a file the plan means to make."""
        if not (m.planned and not m.form and self.history):
            return False
        return not self._known_to_plan(m)

    def _known_to_plan(self, m: Mention) -> bool:
        """Whether git knew the path a plan names (where its tree puts it, or as
        written): a plan's file git never knew is one still to be made."""
        if not m.placed:
            return self._ever(m.target)
        places = places_of(m.placed)
        return self._ever(places[0]) or any(self._at_root(p) for p in places[1:])

    def _check_not_found(
        self, memory: str, m: Mention, when: float | None, read_only: bool
    ) -> CodeFinding | None:
        """:meth:`check_path` for a path that names no file of the project now (or names
        one that came after the one it named): missing, or moved where git saw it go; no
        finding for what was never a file (an example, a library's name)."""
        if not self.history:
            return None if m.weak else self._cased_or_missing(memory, m, read_only)
        shortened = self._as_then(m, when)
        if shortened is None:
            return None  # a folder it names is there now, as then
        m = shortened
        candidates, went = moves(self.past, self.files, m.target, when)
        if "/" not in m.target.rstrip("/"):  # a bare name: the file it named then
            went = there_when_written(self.past, went, when)
        cased = unknown_in_other_case(
            self.past, self.files, (candidates, went), memory, m, read_only
        )
        if cased is not None:
            return cased  # even written loosely: the project's own path, in another case
        if self._never_a_file(m, candidates, went):
            return None  # an example, a library's name, the end of names: never a file
        m = self._as_then_named(m, candidates, went, when)
        if len(went) == 1:
            ((new, (old, commit)),) = went.items()
            if m.target.endswith("/") and not new.endswith("/"):
                new += "/"
            new_mention = within_same_folder(m.text, m.target, old, new)
            return moved_finding(memory, m, m.target, new, commit, read_only, new_mention)
        if not went and not m.target.endswith("/") and (found := self._rewritten(m.target, when)):
            return moved_finding(memory, m, m.target, found[0], found[1], read_only, None)
        note = missing_note(self.past, m.target, candidates, went, when)
        return CodeFinding(
            memory, m.line, m.text, PATH, MISSING, m.target, note=note, read_only=read_only
        )

    def _as_then_named(
        self, m: Mention, candidates: list[str], went: Moves, when: float | None
    ) -> Mention:
        """A bare file name gone, that git saw move nowhere, as the one file of that name
        the project had when the memory was written (``ide-assistant.yml`` as
        ``src/config/contexts/ide-assistant.yml``, deleted since): its deletion is told,
        and asked of git in its own folder."""
        if went or when is None or "/" in m.target:
            return m
        then = [c for c in candidates if c != m.target and still_there_at(self.past, c, when)]
        return replace(m, target=then[0]) if len(then) == 1 else m

    def _cased_or_missing(self, memory: str, m: Mention, read_only: bool) -> CodeFinding:
        """Without git's history: the project's path in another case, else missing."""
        return in_other_case(self.files, memory, m, read_only) or self._plain_missing(
            memory, m, read_only
        )

    def _as_then(self, m: Mention, when: float | None) -> Mention | None:
        """``m`` with a folder written with folders left out as the one it named then
        (:meth:`_shortened`); None when a folder it names is there now, as then."""
        if not (m.target.endswith("/") and m.target.count("/") > 1):
            return m
        short = self._shortened(m.target, when)
        if short == "":
            return None
        return m if short is None else replace(m, target=short)

    def _rewritten(self, target: str, when: float | None) -> tuple[str, str] | None:
        """Where a file gone with no rename git saw was rewritten: at its place where its
        folder went, else as its one namesake since in the same part of the project."""
        past, files = self.past, self.files
        if self._stems is None or self._stems[0] is not files:
            self._stems = (files, stem_index(files), {})
        return (
            carried_with_folder(past, files, target, when, self._stems[2])
            or new_extension(past, self._stems[1], target, when)
            or became_package(past, files, target, when)
            or reorganised_to(past, files, target, when)
            or copied_before_gone(past, files, target, when)
        )

    def _never_a_file(self, m: Mention, candidates: list[str], went: Moves) -> bool:
        """Whether a path found nowhere is no claim about a file: written loosely (or the
        end of the project's names), seen go nowhere, and git never knew a file by it."""
        return (
            (m.weak or self._name_ending(m.target))
            and not went
            and not known(self.past, candidates, m.target)
        )

    def _shortened(self, target: str, when: float | None) -> str | None:
        """For a folder written with folders left out (``module-core/repository/`` for
        ``server/module-core/src/main/kotlin/com/acme/repository/``) that git never knew
        at its root nor as a suffix: the one folder git knew it named when the memory
        last changed (``when``), gone now (of several, the one that held the most files:
        ``src/main/...``, not ``src/test/...``); '' when a folder it names is there now and
        was then; None when it names none."""
        bare = target.rstrip("/")
        if self.past.had_folder(bare) or bare in self.past.seen:
            return None
        parts = bare.split("/")
        found = [f for f in self.past.folders_named(parts[-1]) if _leaves_out(f, parts)]
        if not found:
            return None
        then = [f for f in found if self.past.folder_there_at(f, when)]
        if not then or any(self.files.exists(f + "/") for f in then):
            return "" if then else None
        sizes = sorted(((self.past.folder_size(f), f) for f in then), reverse=True)
        if len(sizes) > 1 and sizes[0][0] == sizes[1][0]:
            return None
        return sizes[0][1] + "/"

    def _as_named(self, memory: str, m: Mention) -> Mention:
        """The mention as the path it names: a link's target beside the memory, a name
        at its place in a tree, a path without an extension told only when git knew it
        (`.githooks/pre-commit`, not a branch `frontend/28-map-view` beside `frontend/`)."""
        if m.loose and not m.weak and self.history:
            m = replace(m, weak=True)
        if m.ran and self._at_root(m.target):
            m = replace(m, exact=True)
        if m.linked:
            m = self._beside(memory, m)
        return self._at_place(m) if m.placed else m

    def _check_glob(
        self, memory: str, m: Mention, when: float | None, read_only: bool
    ) -> CodeFinding | None:
        """A glob's folder (``m.target``): found while a file below it ends like the glob;
        else told when git knew such a file there (moved when all went to one folder)."""
        folder, tail = m.target, glob_tail(m.text)
        if any(f.startswith(folder) and f.endswith(tail) for f in self.files.files):
            return None
        if not self.history or not any(
            p.startswith(folder) and p.endswith(tail) for p in self.past.seen
        ):
            return None
        went = moved_folder(self.past, self.files, folder.rstrip("/"), when)
        if len(went) == 1:
            ((new, (_old, commit)),) = went.items()
            return moved_finding(memory, m, folder, new, commit, read_only, None, GLOB)
        note = missing_note(self.past, folder, [folder.rstrip("/")], {}, when)
        return CodeFinding(
            memory, m.line, m.text, PATH, MISSING, folder, note=note, read_only=read_only, form=GLOB
        )

    def _check_form(
        self, memory: str, m: Mention, when: float | None, read_only: bool
    ) -> CodeFinding | None:
        """:meth:`check_path` for a file named in another form than its path
        (:mod:`~serena_memory.integrity.code_drift.forms`): found when a file it may name
        exists; else told like the file git knew by that name, in the form written (a
        module, or a path written with ``../``, that git never knew is no finding: it may
        be a library's or another project's)."""
        groups = self._form_files(m)
        placed = placed_from(m, groups, self._at_root) if self.history else None
        if placed is not None:
            groups = [placed]
        for _prefix, files in groups:
            for file in files:
                resolved = self.files.resolve(file)
                if resolved is not None:
                    return self._present(memory, m, file, resolved, when, read_only)
        if not self.history:
            return self._plain_missing(memory, m, read_only) if self._plain(m) else None
        for prefix, files in groups:
            for file in files:
                candidates, went = moves(self.past, self.files, file)
                went = one_new_form(
                    m, prefix, went, lambda w: there_when_written(self.past, w, when)
                )
                if len(went) == 1:
                    ((new, (old, commit)),) = went.items()
                    new_mention = rewritten(m.text, m.form, prefix, old, new)
                    return moved_finding(
                        memory, m, old, new, commit, read_only, new_mention, m.form
                    )
                if went or known(self.past, candidates, file):
                    note = missing_note(self.past, file, candidates, went, when)
                    return CodeFinding(
                        memory,
                        m.line,
                        m.text,
                        PATH,
                        MISSING,
                        file,
                        note=note,
                        read_only=read_only,
                        form=m.form,
                    )
        return self._plain_missing(memory, m, read_only) if self._plain(m) else None

    def _namesake_gone(self, name: str, resolved: str, when: float | None) -> str | None:
        """:func:`namesake_gone`, with the history when there is one."""
        past = self.past if self.history else None
        return namesake_gone(past, self.files, name, resolved, when)

    def _there_then(self, path: str, when: float) -> bool:
        return there_then(self.past, path, when)

    def _archived_only(self, target: str) -> bool:
        """Whether every file a bare file name finds lies in an archive folder (a folder
        named ``archive``, ``archived`` or starting ``archive-``: `run_framework.py`
        found only as `archive/epic-1/run_framework.py`), the name not written so."""
        if "/" in target or not self.history:
            return False
        same = self.files.by_name.get(target, ())
        return bool(same) and all(_ARCHIVE.search(p) for p in same)

    def _name_ending(self, target: str) -> bool:
        """Whether a bare dotted name is how files of the project end (``.agent.md`` in
        "agents with the `.agent.md` suffix", for ``orchestrator.agent.md``)."""
        if not target.startswith(".") or "/" in target or target.count(".") < 2:
            return False
        return any(name != target and name.endswith(target) for name in self.files.by_name)

    def under_top(self, m: Mention) -> bool:
        """Whether a path with neither extension nor ``/`` at its end starts with a
        top-level folder of the project (``application/json`` does not)."""
        first = m.target.split("/", 1)[0]
        prefix = self.files.prefix
        return first in self.files.top or (bool(prefix) and m.target.startswith(prefix))

    def _beside(self, memory: str, m: Mention) -> Mention:
        """A link's mention as the file beside the memory when git knows one there (a
        link's target is read from the memory's folder first), else as written."""
        if not self.history:
            return m
        beside = beside_memory(memory, m.text if m.form == UP else m.target)
        if beside and (self.files.exists(beside) or known(self.past, [beside], beside)):
            return replace(m, target=beside, form="", linked=False)
        return m

    def _at_place(self, m: Mention) -> Mention:
        """A name in a tree as the path the tree puts it at, when a file is there now
        or git knew one there, from the root or as a suffix, or without the tree's top
        folders from the root only (the top is often the project's own folder); at its
        place under a folder the project has when git never knew it there; else as
        written (the drawing may be wrong)."""
        places = places_of(m.placed)
        found = self._near_top(m, places) or self._from_root(m, places)
        return found or replace(m, placed="")

    def _near_top(self, m: Mention, places: list[str]) -> Mention | None:
        """The name where a file is or was, from the tree's top or right under it at the
        root; or, drawn right under a top that is a folder of the project, there though
        git never knew it (``backend/`` then ``downloads/``)."""
        if self._ever(places[0]) or self._shortens(places[0]):
            return replace(m, target=places[0], placed="")
        if len(places) > 1 and self._at_root(places[1]):
            return replace(m, target=places[1], placed="", exact=True)
        top, _, name = places[0].partition("/")
        # a name right under a top the project has not (its own name, `fortinet/`), where
        # git never knew it: the one at the root
        single = bool(name) and "/" not in name.rstrip("/")
        if single and not self.files.exists(top + "/") and self._at_root(name):
            return replace(m, target=name, placed="", exact=True)
        parent = places[0].rstrip("/").rpartition("/")[0]
        if m.weak and not m.shown and parent and self._at_root(parent + "/"):
            return replace(m, target=places[0], placed="", exact=True, weak=False)
        return None

    def _from_root(self, m: Mention, places: list[str]) -> Mention | None:
        """Without the tree's top: the first place from the root a file is or was at, or
        under a folder the project has (a name git never knew there), or right under a
        top that is the project's own name (`MADF/`) at the root, a file too when git
        never knew one of its name (`MADF/` then `setup.py`); None: none of these."""
        for place in places[1:]:
            if self._at_root(place):
                return replace(m, target=place, placed="", exact=True)
            parent = place.rstrip("/").rpartition("/")[0]
            if parent and self._under_project_folder(parent):
                return replace(m, target=place, placed="", exact=True, weak=m.shown)
        top, _, last = places[0].partition("/")
        folder = last.endswith("/")
        if (
            last
            and "/" not in last.rstrip("/")
            and not (folder and last.startswith("."))  # `.git/`, `.venv/`: tools', not the code
            and not self._at_root(top)
            and not stands_for_any_project(top)
            and not self._at_root(last.rstrip("/"))  # a submodule
            and (folder or ("." in last and not self._ever(last)))  # a file git never knew
        ):
            return replace(m, target=last, placed="", exact=True, weak=m.shown)
        return None

    def _under_project_folder(self, parent: str) -> bool:
        """Whether the folder ``parent`` (``pkg/agent``), or a folder above it
        (``pkg/``), is one the project has or had from the root: a tree drawing a folder
        git never knew under it draws one that is not there (``pkg/tools/`` under the
        project's ``pkg/`` is not the root's ``tools/``)."""
        parts = parent.split("/")
        return any(self._at_root("/".join(parts[:i]) + "/") for i in range(len(parts), 0, -1))

    def without_sketches(self, mentions: list[Mention]) -> list[Mention]:
        """One memory's ``mentions`` but those of a tree that sketches code still to be
        written: a tree whose top folder git never knew, nor any of its names at their
        places; the paths below that folder elsewhere in the memory go with it (a plan's
        ``packages/ai-runtime/`` in a heading, a table, an arrow)."""
        if not self.history:
            return mentions
        mentions = below_absent(mentions, self._somewhere)  # `convex/_generated`, `convex/`
        sketched = self._sketched_tops(mentions)
        if not sketched:
            return mentions
        mentions, sketched = detailed(mentions, sketched)  # a folder another tree draws
        return [m for m in mentions if not within_sketch(m, sketched)]

    def _sketched_tops(self, mentions: list[Mention]) -> list[str]:
        """The top folders of the trees of ``mentions`` that sketch code still to be
        written: the common folder of a tree's names, git never knowing it nor them."""
        tops: dict[str, list[str]] = {}
        for m in mentions:
            if m.placed and "/" in m.placed.rstrip("/"):
                tops.setdefault(m.placed.split("/", 1)[0] + "/", []).append(m.placed)
        sketched = []
        for placed in tops.values():
            top = posixpath.commonpath(placed) + "/"
            if len(placed) > 1 and top != "/" and not self._anything_at(top, placed):
                sketched.append(top)
        return sketched

    def _anything_at(self, top: str, placed: list[str]) -> bool:
        """Whether git knew the folder ``top`` or a name a tree under it places."""
        if self._at_root(top) or self._ever(top) or self._shortens(top):
            return True
        for path in placed:
            places = places_of(path)
            if self._ever(places[0]) or any(self._at_root(p) for p in places[1:]):
                return True
        # the project's own name on top (`obsidian-x/`, then `├── main.ts`): names right
        # under it that the root has or had, two or more
        under = {p[len(top) :] for p in placed if "/" not in p[len(top) :].rstrip("/")}
        return sum(1 for name in under if self._at_root(name)) >= 2

    def _shortens(self, folder: str) -> bool:
        """Whether ``folder`` is written with folders left out of one git knew."""
        if not folder.endswith("/") or folder.count("/") < 2 or not self.history:
            return False
        parts = folder.rstrip("/").split("/")
        return any(_leaves_out(f, parts) for f in self.past.folders_named(parts[-1]))

    def _at_root(self, path: str) -> bool:
        """Whether a file or folder is at ``path`` from the root now, or git knew one."""
        if self.files.exists(path):
            return True
        bare = path.rstrip("/")
        return self.history and (bare in self.past.seen or self.past.had_folder(bare))

    def _somewhere(self, folder: str) -> bool:
        """Whether a folder is at ``folder`` or ends with it, now or in git's history."""
        return self._at_root(folder) or self._ever(folder)

    def _ever(self, path: str) -> bool:
        """Whether a file is at ``path`` (or ends with it) now, or git knew one there."""
        if self.files.resolve(path) is not None:
            return True
        return self.history and (
            known(self.past, [path], path) or bool(self.past.ending_with(path.rstrip("/")))
        )

    @staticmethod
    def _plain(m: Mention) -> bool:
        """Whether a form is told missing though git never knew it (``./x``, not weak)."""
        return m.form == RELATIVE and not m.weak

    def _form_files(self, m: Mention) -> list[tuple[str, list[str]]]:
        """(prefix, files) a mention in a form may name (:mod:`~serena_memory.
        integrity.code_drift.forms`); none for an alias that is not the project's."""
        if m.form == MODULE:
            return module_candidates(m.target, m.text.startswith("."), m.text)
        if m.form == MEMBER:
            return module_candidates(m.target, True)
        if m.form == STEM:
            return [(m.target, [f for f in stem_candidates(m.target) if self._ever(f)])]
        if m.form == ALIAS:
            if self._aliases is None:
                self._aliases = project_aliases(self.files)
            path = expand(m.target, self._aliases)
            return [] if path is None else [(path, script_candidates(path))]
        return [(m.target, script_candidates(m.target))]

    def _present(
        self, memory: str, m: Mention, named: str, resolved: str, when: float | None, ro: bool
    ) -> CodeFinding | None:
        """The finding of a mention naming a file found now (``named``: the path it
        names): moved when git renamed the file to its place since ``when`` from another
        place it named, else :meth:`_changed`."""
        moved = moved_since(self.past, self.files, named, resolved, when) if self.history else None
        if moved is None:
            return self._changed(memory, m, resolved, when, ro)
        old, commit = moved
        form = m.form if m.form in (RELATIVE, "") else ""
        new_mention = rewritten(m.text, form, m.target, old, resolved) if form else None
        return moved_finding(memory, m, m.target, resolved, commit, ro, new_mention, form)

    def _plain_missing(self, memory: str, m: Mention, read_only: bool) -> CodeFinding:
        """A path that names no file now nor in git's history."""
        note = "never in the git history: a plan or a typo?" if self.history else ""
        return CodeFinding(
            memory, m.line, m.text, PATH, MISSING, m.target, note=note, read_only=read_only
        )

    def _changed(
        self, memory: str, m: Mention, resolved: str, when: float | None, read_only: bool
    ) -> CodeFinding | None:
        """A ``changed`` finding for a file that exists, when enough commits changed it
        since the memory last changed."""
        if not self.history or when is None or self.changed_commits <= 0 or resolved.endswith("/"):
            return None
        since = sum(1 for t in self.past.changes.get(resolved, ()) if t > when)
        if since < self.changed_commits:
            return None
        return CodeFinding(
            memory,
            m.line,
            m.text,
            PATH,
            CHANGED,
            m.target,
            commits_since=since,
            read_only=read_only,
        )


def _leaves_out(folder: str, parts: list[str]) -> bool:
    """Whether ``folder`` has the ``parts`` in their order, its first and last among
    them, with folders left out between them (none left out is a suffix, not this)."""
    have = folder.split("/")
    if parts[0] not in have:
        return False
    at = have.index(parts[0])
    rest = iter(have[at + 1 :])
    if not all(p in rest for p in parts[1:]):
        return False
    return have[at : at + len(parts)] != parts
