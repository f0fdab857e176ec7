"""The tools that prove the CPython change and test the backport.

    plumbing.py         what every tool shares: messages, the error base, the
                        wrapper for errors and signals, process groups, the
                        cache, locks, venvs (its docstring lists it all)
    bootstrap.py        runs a tool file as a module of this package, in the
                        tools' venv (tools/requirements.txt)
    cpython_change.py   apply and prove the CPython change; its stages are
                        the modules of cpython/
    check.py            the whole test suite: nox runs the steps of the
                        checkout's noxfile.py
    debian_root.py      the Debian unstable root with 3.14, 3.15 and PyPy 3.11
    host_apt.py         apt-get on this machine, one at a time
    tox_interpreters.py the table of the interpreters a tox run used
    release.py, release_check.py   the release and its checks
    dependents/         the dependents' own suites, without and with the backport
"""
