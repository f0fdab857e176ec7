"""typeshed's side of the change: from_value() and from_name() in enum.pyi.

The typeshed is the one a pinned mypy wheel ships, fetched with pip and
cached; the edit (under ``if sys.version_info >= (3, 16):``) is
backport/enum_backport/_typeshed.py's.  `write_patch` writes the `git am`
patch of stdlib/enum.pyi that `patch` puts beside the series; `check` runs
mypy's stubtest on ``enum`` against the patched 3.13.5 build with the stub as
it is (it must report the two methods missing) and with the edit gated at
that build's version (nothing about them, nothing new) (docs/cpython-change.rst).
"""

import importlib.util
import os
import re
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

from ..plumbing import complete, venv as venv_of
from .util import ToolError, cache_dir, git, locked, run, say, short_key, space_for

#: The mypy release whose wheel gives the typeshed copy, and whose stubtest
#: checks it.
MYPY = "2.4.1"
STUB = "stdlib/enum.pyi"
ROOT = Path(__file__).resolve().parents[2]
EDIT = ROOT / "backport" / "enum_backport" / "_typeshed.py"

SUBJECT = "enum: add EnumType.from_value() and EnumType.from_name() (3.16)"
BODY = """\
CPython 3.16 adds two lookups to the enum metaclass: from_value() finds
the member with a value as the constructor does, from_name() the member
with a name; each raises ValueError on a miss, or returns the default
when one is given.
"""


def edit():
    """backport/enum_backport/_typeshed.py, loaded without the package (which patches enum)."""
    spec = importlib.util.spec_from_file_location("enum_backport_typeshed_edit", str(EDIT))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def obtain(cache=None, mypy=MYPY):
    """The typeshed tree of mypy `mypy`'s wheel, unpacked into the cache whole or not at all."""
    root = cache_dir(cache) / "typeshed" / ("mypy-" + mypy)
    tree, stamp = root / "typeshed", root / "typeshed-ok"
    with locked(root.parent / (".%s.lock" % root.name)):
        if stamp.is_file() and (tree / STUB).is_file():
            return tree
        with space_for(root.parent, "60 MB"), complete(root) as staging:
            download = staging / "download"
            run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                 "--only-binary", ":all:", "--dest", download, "mypy==" + mypy],
                where=root.parent, needed="60 MB")
            wheels = list(download.glob("mypy-%s-*.whl" % mypy))
            if len(wheels) != 1:
                raise ToolError("pip download mypy==%s gave %s, not one wheel" % (mypy, wheels))
            with zipfile.ZipFile(str(wheels[0])) as wheel:
                members = [n for n in wheel.namelist() if n.startswith("mypy/typeshed/")]
                wheel.extractall(str(staging / "unpacked"), members)
            if not (staging / "unpacked" / "mypy" / "typeshed" / STUB).is_file():
                raise ToolError("mypy %s's wheel has no mypy/typeshed/%s" % (mypy, STUB))
            os.rename(str(staging / "unpacked" / "mypy" / "typeshed"), str(staging / "typeshed"))
            shutil.rmtree(str(download))
            shutil.rmtree(str(staging / "unpacked"))
            (staging / "typeshed-ok").write_text("%s, %d files\n" % (wheels[0].name,
                                                                      len(members)))
        say("typeshed copy from mypy %s's wheel: %s" % (mypy, tree))
        return tree


def edited_copy(tree, target, gate):
    """A copy of the typeshed `tree` at `target`, enum.pyi given the methods from `gate`."""
    shutil.copytree(str(tree), str(target))
    stub = Path(target) / STUB
    stub.write_text(edit().add_methods(stub.read_text(), gate=gate))
    return Path(target)


def _identity(author):
    if isinstance(author, (tuple, list)):
        return tuple(author)
    match = re.fullmatch(r"\s*(.+?)\s*<([^<>@\s]+@[^<>\s]+)>\s*", author or "")
    if not match:
        raise ToolError("the typeshed patch needs an author as 'Name <email>', not %r" % author)
    return match.groups()


def write_patch(output, issue, author, cache=None, mypy=MYPY):
    """Write typeshed's enum.pyi change to `output` as a `git am` patch, checked by `git am`.

    `issue` is the CPython issue the body names; `author` 'Name <email>' or a
    (name, email) pair.  The caller says where it is (`made`).
    """
    if not isinstance(issue, int) or issue <= 0:
        raise ToolError("the typeshed patch needs the CPython issue number, not %r" % (issue,))
    name, email = _identity(author)
    env = dict(os.environ, GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email,
               GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email)
    stock = (obtain(cache, mypy) / STUB).read_text()
    changed = edit().add_methods(stock)
    with tempfile.TemporaryDirectory(prefix="typeshed-patch-") as scratch:
        env["GIT_CEILING_DIRECTORIES"] = scratch
        tree = Path(scratch) / "typeshed"
        (tree / "stdlib").mkdir(parents=True)
        (tree / STUB).write_text(stock)
        git("init", "-q", cwd=tree, env=env)
        git("add", STUB, cwd=tree, env=env)
        git("commit", "-q", "-m", "stdlib/enum.pyi from mypy %s" % mypy, cwd=tree, env=env)
        (tree / STUB).write_text(changed)
        message = Path(scratch) / "message"
        message.write_text("%s\n\n%s\nSee python/cpython#%d.\n" % (SUBJECT, BODY, issue))
        git("commit", "-q", "-a", "-F", str(message), cwd=tree, env=env)
        text = git("format-patch", "-1", "--stdout", "--full-index", "HEAD",
                   cwd=tree, env=env).stdout
        output = Path(output)
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text)
        git("checkout", "-q", "--detach", "HEAD^", cwd=tree, env=env)
        git("am", "-q", str(output.resolve()), cwd=tree, env=env)
        if (tree / STUB).read_text() != changed:
            raise ToolError("git am of %s onto typeshed's enum.pyi did not reproduce the edit"
                            % output)
    return output


def made(path, mypy=MYPY):
    """What the patch at PATH is, for the line that says where it was written."""
    return ("%s: typeshed's %s from mypy %s's wheel, the methods under sys.version_info "
            ">= (3, 16); git am onto it reproduces the edit" % (path, STUB, mypy))


def stubtest_venv(python, cache=None, mypy=MYPY):
    """A venv of `python` with mypy `mypy` (for stubtest), kept in the cache."""
    python = Path(python).resolve()
    venv = cache_dir(cache) / "venvs" / ("stubtest-%s" % short_key(
        {"python": str(python), "mypy": mypy}))
    with locked(venv.parent / (".%s.lock" % venv.name)):
        venv_of(venv, python, ["mypy==" + mypy], marker="mypy-ok")
    return venv / "bin" / "python"


def _reported(output):
    """The names stubtest reported an error for."""
    return set(re.findall(r"^error: (\S+)", output, re.MULTILINE))


def check(python, cache=None, mypy=MYPY, out=None):
    """stubtest on enum against `python`, the stub as it is (it must miss the methods) and
    as edited at `python`'s version (nothing about them, nothing new); else ToolError."""
    venv_python = stubtest_venv(python, cache, mypy)
    version = run([venv_python, "-c", "import sys; print(sys.version_info[:2])"]).stdout
    gate = tuple(int(part) for part in re.findall(r"\d+", version))
    methods = {"enum.EnumMeta.from_value", "enum.EnumMeta.from_name"}
    with tempfile.TemporaryDirectory(prefix="typeshed-check-") as scratch:
        stock = obtain(cache, mypy)
        edited = edited_copy(stock, Path(scratch) / "typeshed", gate)
        results = {}
        for label, tree in (("as it is", stock), ("edited", edited)):
            proc = run([venv_python, "-m", "mypy.stubtest", "--custom-typeshed-dir", tree,
                        "enum"], check=False, env=dict(os.environ, MYPY_CACHE_DIR=str(
                            Path(scratch) / ("cache-" + label.replace(" ", "-")))))
            results[label] = _reported(proc.stdout)
            say("stubtest (mypy %s) on enum, typeshed's enum.pyi %s: %s" % (
                mypy, label, ", ".join(sorted(results[label])) or "nothing reported"), out)
    before, after = results["as it is"], results["edited"]
    problems = []
    if not methods <= before:
        problems.append("stubtest did not miss %s in the stub as it is: is %s patched?"
                        % (" and ".join(sorted(methods - before)), python))
    # stubtest names each twice, under EnumMeta and under its alias EnumType.
    left = {name for name in after if name.rsplit(".", 1)[-1] in ("from_value", "from_name")}
    if left:
        problems.append("the edited stub still differs from the interpreter in %s"
                        % ", ".join(sorted(left)))
    if after - before:
        problems.append("the edit brought new reports: %s" % ", ".join(sorted(after - before)))
    if problems:
        raise ToolError("typeshed check: " + "; ".join(problems))
    say("typeshed's enum.pyi, the methods gated at %s: stubtest against %s reports "
        "nothing about from_value or from_name (%d other reports, as without the edit)"
        % (gate, python, len(after)), out)
