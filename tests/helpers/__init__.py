"""What many test files share, as plain functions (fixtures stay in conftest.py):

    paths.py    the repository's folders and grammar files
    cli.py      running the command line in process and capturing what it prints
    c_build.py  generating C for a grammar and building it with a harness from tests/c
    cputime.py  the CPU time child processes use (bounds on cost that hold on a busy machine)
    records.py  check --records run in process on files a test writes
    signals.py  children that take a Ctrl-C as in a terminal, however the tests were started
"""
