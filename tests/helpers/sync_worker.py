"""One machine at work: writes a memory and syncs, several times (run as its own process,
with its own SERENA_HOME, next to another machine doing the same)."""

from __future__ import annotations

import subprocess
import sys


def main() -> int:
    label, remote, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    serena = [sys.executable, "-m", "serena_memory.cli", "memories"]
    for i in range(rounds):
        name = f"global/{label}-{i}"
        subprocess.run([*serena, "write", name, "--content", f"{label} {i}\n"], check=True)
        result = subprocess.run(
            [*serena, "sync", "--remote", remote], capture_output=True, text=True
        )
        if result.returncode != 0:
            print(result.stderr, file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
