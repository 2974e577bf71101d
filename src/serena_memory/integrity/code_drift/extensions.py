"""The extensions and names that make a word a file's name (pure): ``login.py``,
``Makefile``; and the files a bare name may stand for in a folder (``smtop`` in
``src/bin/`` is ``src/bin/smtop.rs``).
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


KNOWN_EXTENSIONS = _words(
    """py pyi pyx ipynb js jsx ts tsx mjs cjs go rs java kt kts scala groovy rb php c h cc
    cpp cxx hpp hh cs fs swift m mm sh bash zsh fish ps1 bat cmd sql json jsonc json5 yaml
    yml toml ini cfg conf xml html htm css scss sass less vue svelte md mdx rst txt adoc lock
    gradle proto graphql gql tf tfvars hcl ex exs erl hrl hs ml mli lua r jl dart nix cmake
    mk mak make dockerfile properties env sbt clj cljs cljc el vim zig nim v sv vhd pl pm
    tsv csv svg j2 jinja jinja2 tmpl tpl hbs ejs erb haml pug twig http rake gemspec podspec
    pbxproj plist xcconfig storyboard xib csproj sln vcxproj editorconfig gitignore dockerignore
    prettierrc eslintrc babelrc npmrc nvmrc mdc tsbuildinfo"""
)
"""File extensions that make a word a file name (``login.py``, ``config.yaml``)."""

DOTFILE_NAMES = _words(
    "prettierrc prettierignore eslintrc eslintignore stylelintrc babelrc npmrc nvmrc yarnrc "
    "gitignore gitattributes gitmodules dockerignore node-version python-version tool-versions"
)
"""The configuration files of the tools a project runs (formatters, linters, package
managers, git, docker) written with their leading dot alone (``.prettierrc``): a file's
name, never the extension of other files as ``.md`` is. Not an editor's settings
(``.editorconfig``, like ``.vscode/``), which a memory often reads off its writer's
machine."""

DATA_EXTENSIONS = _words("db sqlite sqlite3 duckdb")
"""Extensions of a database file: a file's name with a folder before it
(``backend/database/events.db``); alone (``data.db``) more often the file a program makes
at run time than one the project keeps."""

EXTENSIONLESS_FILES = _words(
    "Makefile Dockerfile Containerfile Jenkinsfile Procfile Gemfile Rakefile Vagrantfile "
    "Justfile Brewfile Pipfile LICENSE CHANGELOG README CODEOWNERS"
)


def stem_candidates(target: str) -> list[str]:
    """The files a bare name placed in a folder may stand for (``src/bin/smtop``: a cargo
    binary, ``src/components/Header``: a component): a file of that stem with a known
    extension (``src/bin/smtop.rs``), or a folder of that name (``src/bin/smtop/``)."""
    return [f"{target}.{ext}" for ext in sorted(KNOWN_EXTENSIONS)] + [target + "/"]
