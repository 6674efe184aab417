"""A text engine (tmbot's protocols, or a CheckerBoard library behind `cbhost`) on a pipe,
shared by the bench scripts."""
import re
import subprocess
import sys

# The value in a CheckerBoard engine's search report, as `cbhost` prints it on `genmove`.
_SEARCH_VALUE = re.compile(r"^genmove \w+: .* value (-?\d+)")
# A checkers board string (FEN) line of `showboard`.
_CHECKERS_FEN = re.compile(r"^[BW]:[BW][^ ]*:[BW][^ ]*$")


class TextEngine:
    """An engine process; `ask` sends one command and returns every line up to the end of its
    answer (`=` or `?`, then an empty line), the engine's other output included."""

    def __init__(self, command, cwd=None):
        self.process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True, bufsize=1)

    def ask(self, command):
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        lines = []
        while True:
            line = self.process.stdout.readline()
            if not line:
                sys.exit(f"the engine stopped after '{command}'")
            lines.append(line)
            if line.startswith("=") or line.startswith("?"):
                while line.strip():
                    line = self.process.stdout.readline()
                    lines.append(line)
                return lines

    def ask_ok(self, command):
        """`ask`, exiting with the engine's message when it refuses the command."""
        lines = self.ask(command)
        answer = next(line for line in reversed(lines) if line.startswith(("=", "?")))
        if answer.startswith("?"):
            sys.exit(f"the engine refused '{command}': {answer.strip()}")
        return lines

    def close(self):
        self.process.stdin.write("quit\n")
        self.process.stdin.flush()
        self.process.wait()


def checkers_board(tracker):
    """The FEN of the board of `tracker`, a `tmbot checkers` engine, from its `showboard`."""
    return next(line.strip() for line in tracker.ask_ok("showboard")
                if _CHECKERS_FEN.match(line.strip()))


def genmove_values(engine):
    """Asks `engine` (a CheckerBoard library under `cbhost`) for a move; returns the values of
    its search reports (hundredths of a man, the last the final one), none for a book move."""
    return [int(m.group(1)) for m in map(_SEARCH_VALUE.match, engine.ask("genmove")) if m]
