"""`python -m irlint ARGS`: the irlint command line (same arguments, output and
exit status as the `irlint` binary)."""

import signal
import sys

from ._irlint import main


def run() -> int:
    # Ctrl-C ends the run as it ends the binary, instead of waiting for the
    # analysis (which runs without the GIL) to return to the interpreter.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    # The command line writes to the process's stdout and stderr directly.
    sys.stdout.flush()
    sys.stderr.flush()
    return main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(run())
