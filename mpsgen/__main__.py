"""`python -m mpsgen`: the console script, through the interpreter that runs it (as the tests call it)."""

from mpsgen.console import run

if __name__ == "__main__":
    run()
