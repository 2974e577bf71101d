"""Regular expressions that come from outside: configuration files and tool arguments.

A pattern such as ``(a|aa)+$`` backtracks for minutes on a short input. Every such
pattern is compiled and matched here, with the ``regex`` package's time limit, so a hostile
or careless pattern becomes one clear error instead of a hung command or server. Matching
releases the interpreter lock, so other threads (the MCP server's event loop) keep running
meanwhile. Patterns written in this code base use :mod:`re` as usual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from serena_memory.core.errors import PatternError, PatternTimeoutError

if TYPE_CHECKING:
    from collections.abc import Callable

TIME_LIMIT_SECONDS = 1.0
"""The longest one search, scan or substitution of an outside pattern may run."""


class OutsidePattern:
    """A compiled outside pattern whose every use runs under :data:`TIME_LIMIT_SECONDS`.

    ``origin`` says where the pattern came from (``"edit_memory needle"``,
    ``"/p/.serena/project.yml: key 'ignored_memory_patterns'"``) and starts every error.
    """

    __slots__ = ("text", "origin", "time_limit", "_compiled")

    def __init__(
        self,
        text: str,
        origin: str,
        *,
        multiline: bool = False,
        time_limit: float = TIME_LIMIT_SECONDS,
    ) -> None:
        import regex  # about 35 ms to import, so only once an outside pattern exists

        self.text = text
        self.origin = origin
        self.time_limit = time_limit
        flags = regex.VERSION0 | (regex.MULTILINE | regex.DOTALL if multiline else 0)
        try:
            self._compiled = regex.compile(text, flags)
        except (regex.error, RecursionError, OverflowError, ValueError) as exc:
            raise PatternError(
                f"{origin}: {_preview(text)} is not a valid regular expression "
                f"(invalid regex: {exc})"
            ) from None

    @property
    def groups(self) -> int:
        return int(self._compiled.groups)

    def fullmatch(self, text: str) -> bool:
        return self._timed(self._compiled.fullmatch, text) is not None

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
        """The first match in ``text[pos:endpos]`` (a ``regex`` match object) or None."""
        end = len(text) if endpos is None else endpos
        return self._timed(self._compiled.search, text, pos, end)

    def finditer(self, text: str, stop: Callable[[Any], bool] | None = None) -> list[Any]:
        """Every match, collected at once so the time limit covers the whole scan; with
        ``stop``, the scan ends at the first match for which it is true (included)."""

        def collect(*args: Any, **kwargs: Any) -> list[Any]:
            found = []
            for match in self._compiled.finditer(*args, **kwargs):
                found.append(match)
                if stop is not None and stop(match):
                    break
            return found

        return self._timed(collect, text)

    def _timed(self, method: Callable[..., Any], *args: Any) -> Any:
        try:
            return method(*args, timeout=self.time_limit, concurrent=True)
        except TimeoutError:
            raise PatternTimeoutError(
                f"{self.origin}: {_preview(self.text)} ran longer than "
                f"{self.time_limit:g} s and was stopped; simplify it (nested repetition such "
                "as (a+)+ or (a|aa)+ makes a pattern try exponentially many ways to match)"
            ) from None
        except RecursionError:
            raise PatternError(
                f"{self.origin}: {_preview(self.text)} is nested too deeply to run; simplify it"
            ) from None


def _preview(pattern: str, limit: int = 60) -> str:
    shown = pattern if len(pattern) <= limit else pattern[: limit - 3] + "..."
    return repr(shown)
