"""The stages of tools/cpython_change.py, one module each, around one idea: a base.

    base.py     a tree of CPython files plus the interpreter that runs them:
                3.13.5 built from source, or Debian's 3.14/3.15 binaries with
                the pure-Python files overlaid
    change.py   the change as the repository holds it (diffs, new files)
    obtain.py   the 3.13.5 tarball; the Debian root with 3.14 and 3.15
    apply.py    the change onto a tree: exactly onto 3.13.5, by a 3-way
                merge (base 3.13.5) onto anything newer
    whatsnew.py where the whatsnew entry and porting note go in a tree
    build.py    stock and patched 3.13.5 from source
    test.py     the stdlib suites and this project's tests on every base;
                refleak runs on the debug build
    docs.py     the Doc tree built with CPython's own toolchain and checked
    patch.py    the git-am patch a contributor applies to main
    util.py     subprocesses, cache keys, git, jobs side by side (messages,
                errors, signals, the cache and locks are ../plumbing.py's)
"""
