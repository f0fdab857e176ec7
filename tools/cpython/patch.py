"""Write the change as one `git am` patch, with a CPython-style commit message.

The patch is made against the closest thing to main that exists here:
Lib/ files against the newest base's (Debian's 3.15, with the Lib diffs
carried onto it by the 3-way merge), everything else against 3.13.5's tree,
the newest whole Doc tree there is.  In a scratch repository:

    commit 1  3.13.5's tree as released
    commit 2  the same, with the newest base's Lib files the change touches
    commit 3  the change (`git format-patch --full-index` of this one)

Its index lines name the newest base's blobs for Lib/ and 3.13.5's for the
rest, which is what lets `git am -3` merge it in a CPython clone whose main
has moved on.  Both are checked here: `git am` onto commit 2 gives commit
3's tree, and `git am -3` onto commit 1, whose Lib files differ from the
patch's context as main's do, merges without a conflict.
"""

import os
import re
import tempfile
from pathlib import Path

from . import apply
from .util import ToolError, git, run, say

SUBJECT = "gh-{issue}: Add EnumType.from_value() and EnumType.from_name()"
BODY = """\
Enum classes get two lookups on the metaclass.  from_value() finds a
member by value exactly as the constructor does, and from_name() finds
a member by name, aliases included.  Both raise ValueError on a miss,
or return the default when one is given, so code that checks input no
longer needs try/except, and from_name() never returns a method or
descriptor the way getattr() can.

`value in EnumCls` no longer has side effects: unhashable probes are
compared by equality instead of raising, and a Flag value is checked
without creating and caching a pseudo-member.  The constructor shares
the value lookup with from_value(), so an equal hashable probe now
finds a member whose value is unhashable.
"""
FALLBACK_AUTHOR = "enum-from-value contributors <enum-from-value@example.invalid>"


def commit_message(issue):
    return SUBJECT.format(issue=issue) + "\n\n" + BODY


def author_of(author=None):
    """(name, email) from AUTHOR, else the user's git identity, else a placeholder."""
    if author is None:
        # The user's own configuration, which git() leaves out on purpose.
        name = run(["git", "config", "user.name"], check=False).stdout.strip()
        email = run(["git", "config", "user.email"], check=False).stdout.strip()
        author = "%s <%s>" % (name, email) if name and email else FALLBACK_AUTHOR
    match = re.match(r"^(.*?)\s*<(.*)>$", author)
    if match is None or not match.group(1):
        raise ToolError("--author must look like 'Name <email>'")
    return match.group(1), match.group(2)


def write(files, source, lib_base, merged, output, issue, author=None):
    """Write the patch to OUTPUT; LIB_BASE's Lib files, MERGED the change's onto them."""
    name, email = author_of(author)
    identity = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
                "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email}
    lib = [f.path for f in files if f.is_lib and f.is_diff]
    with tempfile.TemporaryDirectory(prefix="cpython-patch-") as scratch:
        tree = source.extract(Path(scratch) / "cpython")
        env = dict(os.environ, GIT_CEILING_DIRECTORIES=scratch, **identity)

        def commit(message):
            git("add", "-A", "-f", cwd=tree, env=env)
            git("commit", "-q", "--allow-empty", "-m", message, cwd=tree, env=env)
            return git("rev-parse", "HEAD", cwd=tree, env=env).stdout.strip()

        git("init", "-q", cwd=tree, env=env)
        released = commit("Python %s" % source.version)
        for path, data in lib_base.read(lib).items():
            (tree / path).write_bytes(data)
        base = commit("%s from %s" % (", ".join(lib), lib_base.version))
        for path in lib:
            (tree / path).write_bytes(Path(merged[path]).read_bytes())
        apply.apply_change(tree, [f for f in files if not (f.is_lib and f.is_diff)],
                           source, issue=issue, exact_only=True)
        message = Path(scratch) / "message"
        message.write_text(commit_message(issue))
        git("add", "-A", "-f", cwd=tree, env=env)
        git("commit", "-q", "-F", message, cwd=tree, env=env)
        want = git("rev-parse", "HEAD^{tree}", cwd=tree, env=env).stdout.strip()
        text = git("format-patch", "-1", "--stdout", "--stat", "--full-index", "HEAD",
                   cwd=tree, env=env).stdout
        Path(output).parent.mkdir(parents=True, exist_ok=True)
        Path(output).write_text(text)
        blobs = re.findall(r"^diff --git a/(\S+) .*\nindex ([0-9a-f]+)\.\.", text, re.M)

        git("checkout", "-q", "--detach", base, cwd=tree, env=env)
        git("am", "-q", Path(output).resolve(), cwd=tree, env=env)
        if git("rev-parse", "HEAD^{tree}", cwd=tree, env=env).stdout.strip() != want:
            raise ToolError("git am of %s onto its base did not reproduce the change" % output)
        git("checkout", "-q", "--detach", released, cwd=tree, env=env)
        am = git("am", "-3", Path(output).resolve(), cwd=tree, env=env, check=False)
        if am.returncode != 0:
            raise ToolError("git am -3 of %s onto pristine %s failed:\n%s"
                            % (output, source.version, am.stdout))
    for path, blob in blobs:
        origin = lib_base.version if path in lib else source.version
        say("  %s against %s (blob %s)" % (path, origin, blob[:12]))
    say("wrote %s (gh-%d): git am onto its base reproduces the change; git am -3 onto "
        "pristine %s merges it" % (output, issue, source.version))

