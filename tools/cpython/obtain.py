"""Obtain the bases: the 3.13.5 tarball into the cache, and Debian's root.

The tarball comes from --tarball (checked by its sha256) or, on Debian, from
trixie's python3.13 source package (`apt-get source`, after adding a deb-src
entry for trixie when apt has none); the root is tools/debian_root.py's.
"""

import os
import re
import shutil
import tempfile
from pathlib import Path

from .. import debian_root, host_apt
from .base import SourceBase, debian_bases
from .util import ToolError, locked, require_program, say, sha256_file, space_for

APT_DIR = Path("/etc/apt")
APT_SOURCES_NAME = "enum-from-value-trixie-src.sources"  # in APT_DIR/sources.list.d
APT_KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
DEB_SOURCE_PACKAGE = "python3.13"
DEB_SUITE = "trixie"  # the Debian release whose python3.13 is 3.13.5


def tarball(cache, local=None, apt_source=False):
    """Put the 3.13.5 tarball into the cache unless it is there; return its path.

    A cached file whose sha256 is wrong (cut short) is fetched again when
    --tarball or --apt-source says from where, else named in the error.
    """
    source = SourceBase(cache)
    dest = source.tarball
    with space_for(dest.parent, "25 MB"):
        dest.parent.mkdir(parents=True, exist_ok=True)
    # (the lock beside src/, which holds what apt-get source fetches and nothing else)
    with locked(dest.parent.parent / (".%s.lock" % dest.name)):
        return _fetch(source, local, apt_source)


def _fetch(source, local, apt_source):
    dest = source.tarball
    damaged = dest.is_file() and sha256_file(dest) != source.TARBALL_SHA256
    if dest.is_file() and not damaged:
        say("tarball already cached: %s" % dest)
        return dest
    if damaged and not (local or apt_source):
        raise ToolError(source.damaged())
    if local:
        local = Path(local).expanduser()
        if not local.is_file():
            raise ToolError("%s: no such file" % local)
        if sha256_file(local) != source.TARBALL_SHA256:
            raise ToolError("%s is not the CPython %s release tarball (sha256 differs)"
                            % (local, source.version))
        if damaged:
            say("the cached %s is damaged (sha256 differs): replacing it with %s"
                % (dest, local))
        _copy_in(local, dest)
    elif apt_source:
        if os.geteuid() != 0:
            raise ToolError("--apt-source changes apt's configuration: run as root")
        require_program("apt-get", "for --apt-source")
        ensure_deb_src()
        if damaged:
            say("the cached %s is damaged (sha256 differs): fetching it again" % dest)
            dest.unlink()
        try:
            # One apt-get at a time: the Debian root may be installing
            # debootstrap in the background.
            host_apt.apt_get(["update"], dest.parent / "apt-update.log")
            host_apt.apt_get(["source", "--download-only", DEB_SOURCE_PACKAGE],
                             dest.parent / "apt-source.log", cwd=str(dest.parent))
        except host_apt.AptError as error:
            raise ToolError(str(error))
        if not dest.is_file() or sha256_file(dest) != source.TARBALL_SHA256:
            if dest.is_file():
                dest.unlink()
            raise ToolError("apt-get source did not fetch the %s tarball %s"
                            % (source.version, source.TARBALL_NAME))
    else:
        raise ToolError("the %s tarball is not cached: pass --tarball PATH "
                        "(Python-%s.tar.xz) or, on Debian, --apt-source"
                        % (source.version, source.version))
    say("tarball fetched into the cache: %s" % dest)
    return dest


def _copy_in(local, dest):
    """Copy LOCAL to DEST by way of a file of this run's own beside it, then a rename:
    a copy cut short never has DEST's name."""
    handle, partial = tempfile.mkstemp(prefix=dest.name + ".", suffix=".partial",
                                       dir=str(dest.parent))
    os.close(handle)
    try:
        with space_for(dest.parent, "25 MB"):
            shutil.copyfile(str(local), partial)
        os.chmod(partial, 0o644)  # as a plain copy would be, not mkstemp's 0600
        os.replace(partial, str(dest))
    finally:
        if os.path.exists(partial):
            os.unlink(partial)


def newer_bases(cache):
    """The DebianBases of the root (made unless a fresh one is cached)."""
    try:
        root = debian_root.ensure(cache)
    except debian_root.RootError as error:
        raise ToolError("the Debian root for 3.14 and 3.15: %s" % error)
    return debian_bases(root)


def apt_entries(apt_dir):
    """(types, uris, suites, signed_by) of each enabled source in APT_DIR."""
    entries = []
    folder = apt_dir / "sources.list.d"
    for path in sorted(folder.glob("*.sources")) if folder.is_dir() else ():
        for paragraph in re.split(r"\n\s*\n", path.read_text(errors="replace")):
            fields = {}
            for line in paragraph.splitlines():
                if not line.startswith("#") and ":" in line and not line[:1].isspace():
                    key, value = line.split(":", 1)
                    fields[key.strip().lower()] = value.split()
            if fields.get("enabled", ["yes"])[0].lower() != "no" and "types" in fields \
                    and "uris" in fields:
                entries.append((fields["types"], fields["uris"], fields.get("suites", []),
                                " ".join(fields.get("signed-by", []))))
    lists = [apt_dir / "sources.list"] + (sorted(folder.glob("*.list")) if folder.is_dir() else [])
    for path in lists:
        for line in path.read_text(errors="replace").splitlines() if path.is_file() else ():
            words = re.sub(r"\[[^]]*\]", "", line.split("#", 1)[0]).split()
            if len(words) >= 3 and words[0] in ("deb", "deb-src"):
                entries.append(([words[0]], [words[1]], [words[2]], ""))
    return entries


def ensure_deb_src(apt_dir=APT_DIR):
    """Add a deb-src entry for trixie from the machine's own mirror unless one exists
    (then None); return the file written."""
    entries = apt_entries(apt_dir)
    if any("deb-src" in types and DEB_SUITE in suites for types, _, suites, _ in entries):
        return None
    mirrors = [(uris[0], signed) for types, uris, suites, signed in entries
               if "deb" in types and uris and not any(s.endswith("-security") for s in suites)]
    chosen = os.environ.get(debian_root.MIRROR_ENV)
    if chosen:
        mirrors.insert(0, (chosen, ""))
    if not mirrors:
        raise ToolError("no Debian mirror in %s/sources.list(.d) to add a deb-src entry for %s "
                        "from: name one with %s=URL" % (apt_dir, DEB_SUITE,
                                                       debian_root.MIRROR_ENV))
    uri, signed = mirrors[0]
    # The full archive keyring also holds the keys of the next release.
    if Path(APT_KEYRING).is_file() or not signed:
        signed = APT_KEYRING
    target = apt_dir / "sources.list.d" / APT_SOURCES_NAME
    say("adding %s (deb-src %s from %s)" % (target, DEB_SUITE, uri))
    target.write_text("Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\n"
                      "Signed-By: %s\n" % (uri, DEB_SUITE, signed))
    return target
