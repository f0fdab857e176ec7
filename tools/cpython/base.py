"""A base: a tree of CPython files plus the interpreter that runs them.

`SourceBase` is 3.13.5, the tarball's whole tree, built from source
(build.py); `DebianBase` is Debian unstable's 3.14 or 3.15 in the root of
tools/debian_root.py, whose patched interpreter is the same binary with the
merged files bound over the root's own for one run (docs/cpython-change.rst,
"How each PR is proven").  An `Interpreter` is what the test stage runs,
whichever kind of base it came from.
"""

import contextlib
import lzma
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from .. import debian_root, plumbing

from .util import (ToolError, clean_env, disk_full, locked, no_space, run, run_live, say,
                   sha256_file)

# What is inside a Debian base's root for a run: a private directory (the
# run's working directory and its .pyc prefix) and, for tests that need it,
# a venv.  PYTHONPYCACHEPREFIX keeps every .pyc in the private directory,
# so no stale .pyc of the root is read for an overlaid file and none is
# written into the shared root.
RUN_DIR = "/tmp/enum-from-value-run"
VENV_DIR = "/opt/enum-from-value-venv"
# What the 3.13.5 tree takes unpacked (about 110 MB here), with room to spare.
TREE_SPACE = "150 MB"


class Interpreter:
    """How to run one interpreter, with its files, on the host or in the root."""

    def __init__(self, label, python, root=None, binds=None, env=None):
        self.label = label
        self.python = python
        self.root = root
        self.binds = dict(binds or {})
        self.env = dict(env or {})

    def command(self, args, cwd=None):
        argv = [str(self.python)] + [str(a) for a in args]
        if self.root is None:
            return argv
        return debian_root.command(self.root, argv, binds=self.binds, cwd=cwd, env=self.env)

    def _host(self, cwd):
        """(cwd, env) for subprocess on the host: the root's are set inside."""
        if self.root is None:
            return cwd, clean_env(**self.env)
        return None, clean_env()

    def live(self, args, cwd=None, out=None):
        """Run with output to OUT; return the exit code."""
        host_cwd, env = self._host(cwd)
        shown = [str(self.python)] + ["'<script>'" if "\n" in str(a) else str(a) for a in args]
        if self.root is not None:
            shown[:0] = ["[root %s, %s]" % (self.root.name, ", ".join(
                "%s over %s" % (h, i) for h, i in self.binds.items()))]
        return run_live(self.command(args, cwd), cwd=host_cwd, env=env, out=out,
                        show=" ".join(shown))

    def capture(self, args, cwd=None):
        host_cwd, env = self._host(cwd)
        return run(self.command(args, cwd), cwd=host_cwd, env=env, check=False)

    def venv(self, host_dir, packages, out=None):
        """This interpreter as seen from a venv at HOST_DIR that has PACKAGES."""
        inside = Path(host_dir) if self.root is None else Path(VENV_DIR)
        binds = dict(self.binds)
        if self.root is not None:
            binds[str(host_dir)] = str(inside)
        venv = Interpreter(self.label + " (venv)", inside / "bin" / "python", self.root,
                           binds, self.env)
        # Several PR sets of one base share its venv, and are proven side by side.
        with locked(Path(host_dir).parent / (".%s.lock" % Path(host_dir).name)):
            if not (Path(host_dir) / "venv-ok").is_file():
                say("venv with %s for %s: %s" % (", ".join(packages), self.label, host_dir),
                    out)
            maker = Interpreter(self.label, self.python, self.root, binds, self.env)

            def run(argv):  # PATH's venv seen from inside, where the python may be
                argv = [inside if a == Path(host_dir) else a for a in argv]
                who = maker if argv[0] == self.python else venv
                return who.live(argv[1:], out=out)

            plumbing.venv(host_dir, self.python, packages, run)
        return venv


class SourceBase:
    """CPython 3.13.5 from its release tarball, built from source."""

    name = version = "3.13.5"
    TARBALL_NAME = "python3.13_3.13.5.orig.tar.xz"  # Debian's name for Python-3.13.5.tar.xz
    TARBALL_SHA256 = "93e583f243454e6e9e4588ca2c2662206ad961659863277afcdb96801647d640"
    TOPDIR = "Python-3.13.5"
    GIT_TAG = "v3.13.5"  # the same tree in a CPython clone

    def __init__(self, cache):
        self.cache = Path(cache)
        self.tarball = self.cache / "src" / self.TARBALL_NAME
        self._files = {}
        self._checked = None  # (size, mtime) of the tarball whose sha256 was right

    def require_tarball(self):
        """The cached tarball, its sha256 checked (once while the file is unchanged)."""
        if not self.tarball.is_file():
            raise ToolError("%s is missing: run `fetch` first" % self.tarball)
        stat = self.tarball.stat()
        if self._checked != (stat.st_size, stat.st_mtime_ns):
            if sha256_file(self.tarball) != self.TARBALL_SHA256:
                raise ToolError(self.damaged())
            self._checked = (stat.st_size, stat.st_mtime_ns)
        return self.tarball

    def damaged(self):
        """What to say of a cached tarball whose sha256 is not the release's."""
        return ("%s is damaged (a download or copy cut short? its sha256 is not the "
                "CPython %s release's %s...): run `fetch --tarball PATH` or, on Debian, "
                "`fetch --apt-source` to replace it"
                % (self.tarball, self.version, self.TARBALL_SHA256[:16]))

    def read(self, paths):
        """{path: bytes} of the 3.13.5 files PATHS, from the tarball."""
        wanted = [p for p in paths if p not in self._files]
        if wanted:
            names = {self.TOPDIR + "/" + p: p for p in wanted}
            try:
                with tarfile.open(str(self.require_tarball())) as archive:
                    for member in archive:
                        if member.name in names:
                            self._files[names.pop(member.name)] = archive.extractfile(
                                member).read()
                            if not names:
                                break
            except (EOFError, lzma.LZMAError, tarfile.TarError):
                raise ToolError(self.damaged())
            if names:
                raise ToolError("not in the %s tarball: %s" % (self.version, ", ".join(names.values())))
        return {p: self._files[p] for p in paths}

    def extract(self, dest, needed=TREE_SPACE):
        """Unpack the whole tree as DEST (NEEDED: the space to name if the disk is full)."""
        dest = Path(dest)
        tarball = self.require_tarball()
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            if disk_full(error):
                raise ToolError("unpacking %s: %s" % (tarball.name, no_space(dest.parent,
                                                                             needed)))
            raise
        run(["tar", "-xf", tarball, "-C", dest.parent], where=dest.parent, needed=needed)
        (dest.parent / self.TOPDIR).rename(dest)
        return dest

    def interpreter(self, python, patched=True):
        label = "%s %s (built from source)" % ("patched" if patched else "stock", self.version)
        return Interpreter(label, python)

    def describe(self, python):
        found = run([python, "-c", "import platform; print(platform.python_version())"],
                    env=clean_env()).stdout.strip()
        if found != self.version:
            raise ToolError("%s is %s, not %s" % (python, found, self.version))
        return "CPython %s, built from %s (sha256 %s...)" % (
            found, self.TARBALL_NAME, self.TARBALL_SHA256[:16])


class DebianBase:
    """CPython 3.X as Debian unstable ships it, in the root of debian_root.py."""

    def __init__(self, root, name):
        self.root = Path(root)
        self.name = name                           # "3.15"
        self.python = "/usr/bin/python" + name
        dbg = "python%s-dbg" % name
        self.debug_python = debian_root.INTERPRETERS.get(dbg)
        self.version = None                        # "3.15.2", set by describe()

    def stdlib(self, path):
        """Where CPython's file PATH is inside the root (only Lib/ files are)."""
        if not path.startswith("Lib/"):
            raise ToolError("%s: Debian's %s packages hold Lib/ only" % (path, self.name))
        return "/usr/lib/python%s/%s" % (self.name, path[len("Lib/"):])

    def read(self, paths):
        found = {}
        for path in paths:
            host = self.root / self.stdlib(path).lstrip("/")
            if not host.is_file():
                raise ToolError("%s is not in the root (%s)" % (self.stdlib(path), host))
            found[path] = host.read_bytes()
        return found

    @contextlib.contextmanager
    def interpreter(self, overlay=None, debug=False, binds=None):
        """An Interpreter with OVERLAY ({CPython path: host file}) bound over the root's,
        and a private run directory for the with block."""
        python = self.debug_python if debug else self.python
        if python is None:
            raise ToolError("the root has no debug build of %s" % self.name)
        run_dir = tempfile.mkdtemp(prefix="enum-from-value-run-")
        try:
            all_binds = {run_dir: RUN_DIR}
            all_binds.update(binds or {})
            for path, host in (overlay or {}).items():
                all_binds[str(host)] = self.stdlib(path)
            label = "%s %s (%s)" % (Path(python).name, self.version or self.name,
                                    "the merged files overlaid" if overlay else "stock")
            yield Interpreter(label, python, self.root, all_binds,
                              {"PYTHONPYCACHEPREFIX": RUN_DIR + "/pycache"})
        finally:
            shutil.rmtree(run_dir, ignore_errors=True)

    def describe(self, files=("Lib/enum.py", "Lib/test/test_enum.py")):
        """The exact version, and the Debian package (and version) of each file."""
        code = "import platform; print(platform.python_version())"
        argv = [self.python, "-c", code]
        script = ("for f in %s; do p=$(dpkg -S \"$f\" | cut -d: -f1); "
                  "echo \"$f $p $(dpkg-query -W -f '${Version}' $p)\"; done"
                  % " ".join(self.stdlib(f) for f in files))
        version = debian_root.run(self.root, argv, stdout=subprocess.PIPE,
                                  universal_newlines=True)
        owners = debian_root.run(self.root, ["sh", "-c", script], stdout=subprocess.PIPE,
                                 universal_newlines=True)
        if version.returncode != 0 or owners.returncode != 0:
            raise ToolError("cannot run %s in the root %s" % (self.python, self.root))
        self.version = version.stdout.strip()
        text = "CPython %s, Debian's %s" % (self.version, self.python)
        for line in owners.stdout.splitlines():
            path, package, package_version = line.split()
            text += "; %s from %s %s" % (path, package, package_version)
        if self.debug_python:
            text += "; debug build %s" % self.debug_python
        return text


def debian_names():
    """The names of the Debian bases ("3.14", "3.15"), known without the root."""
    names = []
    for name in debian_root.INTERPRETERS:
        minor = name[len("python"):]
        if name.startswith("python3.") and minor.replace(".", "").isdigit():
            names.append(minor)
    return sorted(names, key=lambda n: tuple(int(p) for p in n.split(".")))


def check_names(source, bases=None, lib_base=None):
    """ToolError for a --base or --lib-base that names no base, before the root is made."""
    every = [source.version, source.version + "t"] + debian_names()
    unknown = sorted(set(bases or ()) - set(every))
    if unknown:
        raise ToolError("no such base: %s (there are %s)" % (", ".join(unknown),
                                                             ", ".join(every)))
    libs = [source.version] + debian_names()
    if lib_base is not None and lib_base not in libs:
        raise ToolError("no such base for --lib-base: %s (there are %s)"
                        % (lib_base, ", ".join(libs)))


def debian_bases(root):
    """One DebianBase per CPython the root serves, oldest first (3.14, 3.15)."""
    return [DebianBase(root, name) for name in debian_names()]

