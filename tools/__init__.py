"""The tools that prove the CPython change and test the backport (README.rst's "Tools")."""
