"""The stages of tools/cpython_change.py, one module each, around one idea: a base (base.py).

docs/cpython-change.rst tells what each stage does; util.py has what they share beside
../plumbing.py (messages, errors, signals, the cache, locks).
"""
