"""The dependents' own suites, without and with the backport (see __main__.py)."""
