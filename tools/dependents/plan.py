"""What to run: the data file, the interpreters, the release for each.

projects.json names the interpreters and, per project, its releases (the
newest whose ``min_python`` the interpreter meets runs there), the exact pins
and how its suite runs; allowed.json is the allow-list.  The interpreters
are pyenv's by exact version, and Debian unstable's through tools/debian_root.py.
"""

import json
import os
import subprocess
from pathlib import Path

from .. import debian_root, plumbing

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PROJECTS = HERE / 'projects.json'
ALLOWED = HERE / 'allowed.json'

# Printed by every interpreter we use, one line: the exact version, the
# implementation, and sys.version (which names the build).
_ABOUT = ("import platform, sys; print(platform.python_version(), "
          "sys.implementation.name, sys.version.replace(chr(10), ' '))")


def deps_dir():
    """Everything this tool downloads, builds and runs lives here."""
    return plumbing.cache_dir() / 'dependents'


def load(path=PROJECTS):
    with open(str(path)) as handle:
        return json.load(handle)


def version_tuple(text):
    return tuple(int(part) for part in text.split('.') if part.isdigit())


def release_for(project, version):
    """The release of `project` (a projects.json entry) that runs on an
    interpreter of `version` ('3.13.0'), or None if none supports it."""
    for release in project['releases']:
        if version_tuple(version)[:2] >= version_tuple(release['min_python']):
            return release
    return None


class Unavailable(Exception):
    """An interpreter cannot be used; the message says why."""


class Interpreter:
    """One interpreter the suites run on, on this machine or in the root: `name` as the
    data files say it ('3.8'), `version` as found ('3.8.18'), `where` it comes from."""

    def __init__(self, name, python, where, root=None):
        self.name, self.python, self.where, self.root = name, python, where, root
        self.version = self.implementation = self.sys_version = None

    def command(self, argv, cwd=None, env=None):
        """(argv, cwd, full environment) to run `argv` with this interpreter's
        filesystem view; paths under deps_dir() are the same inside the root."""
        env = dict(env or {})
        if self.root is None:
            full = {k: v for k, v in os.environ.items()
                    if not k.startswith(('PYTHON', 'VIRTUAL_ENV', 'ENUM_DEPENDENTS_'))}
            full.update(env)
            return list(argv), cwd, full
        deps = deps_dir()
        deps.mkdir(parents=True, exist_ok=True)
        inner = debian_root.command(self.root, argv, binds=[(str(deps), str(deps))],
                                    cwd=cwd, env=env)
        return inner, None, dict(os.environ)

    def run(self, argv, cwd=None, env=None, **kwargs):
        argv, cwd, env = self.command(argv, cwd, env)
        return plumbing.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, **kwargs)

    def probe(self):
        done = self.run([self.python, '-c', _ABOUT], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, universal_newlines=True)
        words = done.stdout.strip().split(None, 2)
        if done.returncode != 0 or len(words) < 3:
            raise Unavailable('%s does not run: %s' % (self.python, done.stdout.strip()[-300:]))
        self.version, self.implementation, self.sys_version = words
        return self

    def describe(self):
        return '%s %s (%s)' % ('CPython' if self.implementation == 'cpython'
                               else self.implementation, self.version, self.where)


def find_interpreter(spec):
    """An Interpreter for a projects.json 'interpreters' entry (probed), or
    raise Unavailable."""
    name = spec['name']
    if 'pyenv' in spec:
        wanted = spec['pyenv']
        try:
            prefix = subprocess.run(['pyenv', 'prefix', wanted], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, universal_newlines=True)
        except OSError:
            raise Unavailable('pyenv is not installed (wanted its %s)' % wanted)
        python = os.path.join(prefix.stdout.strip(), 'bin', 'python3')
        if prefix.returncode != 0 or not os.path.exists(python):
            raise Unavailable('pyenv has no %s: %s' % (wanted, prefix.stderr.strip()))
        found = Interpreter(name, python, 'pyenv').probe()
        if found.version != wanted:
            raise Unavailable('pyenv %s runs as %s' % (wanted, found.version))
        return found
    if 'debian_root' in spec:
        try:
            root = debian_root.ensure()
        except debian_root.RootError as error:
            raise Unavailable('the Debian unstable root cannot be made: %s' % error)
        python = debian_root.INTERPRETERS[spec['debian_root']]
        found = Interpreter(name, python, 'Debian unstable root', root=root).probe()
        if version_tuple(found.version)[:2] != version_tuple(name):
            raise Unavailable('the root serves %s as %s' % (spec['debian_root'], found.version))
        return found
    raise Unavailable('projects.json: interpreter %r says neither pyenv nor debian_root' % name)
