"""Write the change as a git format-patch series: 0001 to 0005, one per PR (change.PRS).

docs/cpython-change.rst ("Writing and submitting the patches") says how it
is made, what it writes, checks and refuses.
"""

import hashlib
import io
import json
import os
import re
import tempfile
from pathlib import Path

from . import apply, change, texts, typeshed
from .util import ToolError, git, say, space_for, writable_place

# GitHub numbers CPython's issues and PRs together; blurb refuses numbers
# below its first GitHub issue, and no number near a million has been
# given yet (about 150,000 by 2026), so such a number is a stand-in.
LOWEST_ISSUE = 32426
HIGHEST_PLAUSIBLE_ISSUE = 999999
# RFC 2606 and RFC 6761 names: addresses no one reads.
PLACEHOLDER_DOMAIN_RE = re.compile(
    r"(^|\.)(example\.(com|net|org)|example|invalid|test|localhost|local)$", re.I)
OUTPUTS = {(pr, kind): "%s-%s" % (pr, kind) for pr, kind in [
    (pr, kind) for pr in change.PRS for kind in ("issue.md", "pr.md")] + [texts.PROPOSAL]}
# In the output directory: the names and sha256s of what `patch` wrote
# there, so that a later run replaces those and touches nothing else.
MANIFEST = ".cpython-change-patch.json"
# typeshed's patch, beside the series (see extra_patches)
TYPESHED_PATCH = "typeshed-enum.pyi.mbox"
# What the documented `git am -3 DIR/000[1-5]-*.patch` takes: in the
# directory, only the series may match it.
SERIES_GLOB = re.compile(r"000[1-5]-.*\.patch$")

def check_issue(name, number, standins=()):
    """NUMBER, the option NAME's gh issue, unless it is obviously not one (ToolError)."""
    if number in standins:
        raise ToolError("%s %d is this repository's stand-in number, not a CPython issue"
                        % (name, number))
    if not LOWEST_ISSUE <= number <= HIGHEST_PLAUSIBLE_ISSUE:
        raise ToolError("%s %d cannot be a CPython issue (GitHub numbers run from %d "
                        "and have not reached %d)" % (name, number, LOWEST_ISSUE,
                                                      HIGHEST_PLAUSIBLE_ISSUE + 1))
    return number


def check_issues(issues, standins=()):
    """ISSUES, {PR: gh issue number} for every PR, or ToolError saying in one line what is wrong."""
    if any(issues.get(pr) is None for pr in change.PRS):
        raise ToolError("give every PR's CPython issue number: %s"
                        % " ".join("--%s-issue N" % pr for pr in change.PRS))
    for pr in change.PRS:
        check_issue("--%s-issue" % pr, issues[pr], standins)
    for i, pr in enumerate(change.PRS):
        for other in change.PRS[i + 1:]:
            if issues[pr] == issues[other]:
                raise ToolError("--%s-issue and --%s-issue are both %d: each PR needs an "
                                "issue of its own" % (pr, other, issues[pr]))
    return {pr: issues[pr] for pr in change.PRS}


def check_author(author):
    """(name, email) of AUTHOR, 'Name <email>'; ToolError in one line if it is not real."""
    if not author:
        raise ToolError("give the author: --author 'Name <email>'")
    match = re.match(r"^\s*([^<>]*?)\s*<([^<>@\s]+)@([^<>@\s]+)>\s*$", author)
    if match is None or not match.group(1):
        raise ToolError("--author must look like 'Name <email>', not %r" % author)
    name, local, domain = match.groups()
    if PLACEHOLDER_DOMAIN_RE.search(domain.rstrip(".")) or "." not in domain:
        raise ToolError("--author's address %s@%s is a placeholder; give a real one"
                        % (local, domain))
    return name, "%s@%s" % (local, domain)


def author_parts(author, proof_only=False):
    """(name, email) of AUTHOR: checked, or as it is for PROOF_ONLY's stand-in."""
    if proof_only:
        return re.match(r"^(.*?)\s*<(.*)>$", author).groups()
    return check_author(author)


def fields(issues, author, ledger, results_rst, files, proof_only=False, main_whatsnew=None):
    """The fields texts/ may use (texts.FIELDS), filled (PROOF_ONLY: AUTHOR as it is)."""
    name, email = author_parts(author, proof_only)
    found = {"author": "%s <%s>" % (name, email), "author_name": name,
             "author_email": email,
             "in_benchmark_table": texts.in_benchmark_table(results_rst),
             "everyday_table": texts.everyday_table(results_rst),
             "check_then_construct": texts.check_then_construct(results_rst),
             "stock_test_failures": texts.ledger_markdown(ledger)}
    standins = change.standin_issues(files)
    for pr in change.PRS:
        found["%s_issue" % pr] = issues[pr]
        carriers = [f for f in files if f.pr == pr and f.is_whatsnew]
        found["%s_whatsnew" % pr] = (
            "In the patch, in `%s`." % main_whatsnew[0] if main_whatsnew and carriers
            else texts.whatsnew_markdown(carriers, name, standins.get(pr), issues[pr]))
    return found


def extra_patches(series_dir, issues, author, cache=None):
    """typeshed's side of the feature, [(file name, bytes)]: its `git am` patch of
    stdlib/enum.pyi, named so that nothing beside the series ends in .patch."""
    path = typeshed.write_patch(Path(series_dir) / TYPESHED_PATCH, issues["feature"],
                                author, cache=cache)
    return [(TYPESHED_PATCH, path.read_bytes())]


def write_series(repo, source, lib_base, merged, output, issues, author, fields_,
                 newer=(), texts_dir=texts.TEXTS, proof_only=False, main_whatsnew=None):
    """Write 0001 to 0005 (one per PR) and the PRs' texts into OUTPUT; return the files.

    MERGED is {PR set label: {path: file}}, the Lib files of each prefix of
    change.PRS merged onto LIB_BASE's; NEWER the bases the backports must go
    onto.  MAIN_WHATSNEW, (path, bytes) of main's newest whatsnew file,
    joins the base and gets the whatsnew entries.  PROOF_ONLY (the `all`
    run's stand-ins) skips the checks of real numbers and author: its OUTPUT
    must be a scratch directory.
    """
    if not proof_only:
        check_issues(issues, set(change.standin_issues(change.collect(repo)).values()))
    name, email = author_parts(author, proof_only)
    filled = texts.filled_texts(fields_, texts_dir)
    ledger = texts.load_ledger(texts_dir)
    texts.check_ledger_named(ledger, filled)
    identity = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
                "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email}
    everything = change.collect(repo)
    lib = sorted(change.diffs_by_path([f for f in everything if f.is_lib]))
    standins = change.standin_issues(everything)
    output = Path(output)
    earlier_output(output)
    with tempfile.TemporaryDirectory(prefix="cpython-patch-") as scratch:
        tree = source.extract(Path(scratch) / "cpython")
        env = dict(os.environ, GIT_CEILING_DIRECTORIES=scratch, **identity)

        def commit(message):
            git("add", "-A", "-f", cwd=tree, env=env)
            git("commit", "-q", "--allow-empty", "-F", "-", cwd=tree, env=env, input=message)
            return git("rev-parse", "HEAD", cwd=tree, env=env).stdout.strip()

        def tree_of(rev):
            return git("rev-parse", rev + "^{tree}", cwd=tree, env=env).stdout.strip()

        git("init", "-q", cwd=tree, env=env)
        released = commit("Python %s" % source.version)
        for path, data in lib_base.read(lib).items():
            (tree / path).write_bytes(data)
        if main_whatsnew:
            (tree / main_whatsnew[0]).write_bytes(main_whatsnew[1])
        base = commit("%s from %s" % (", ".join(lib), lib_base.version))
        for n, pr in enumerate(change.PRS):
            label = change.label(change.PRS[:n + 1])
            for path in lib:
                if path in merged[label]:
                    (tree / path).write_bytes(change.name_issues(
                        Path(merged[label][path]).read_bytes(), standins, issues))
            # The whatsnew entries only into main's file (else each PR's description
            # carries its entry).
            apply.apply_change(tree, [f for f in everything if f.pr == pr and not (
                                          f.is_lib and f.is_diff)
                                      and (main_whatsnew or not f.is_whatsnew)],
                               source, issues={pr: issues[pr]}, exact_only=True,
                               out=io.StringIO(), author_name=name)
            commit(filled[(pr, "commit.txt")])
        want = tree_of("HEAD")
        series_dir = Path(scratch) / "series"
        git("format-patch", "-q", "--full-index", "--stat", "-o", series_dir,
            "%s..HEAD" % base, cwd=tree, env=env)
        series = sorted(series_dir.glob("*.patch"))
        if [p.name[:5] for p in series] != ["%04d-" % (n + 1) for n in range(len(change.PRS))]:
            raise ToolError("format-patch wrote %s, not 0001 to %04d"
                            % (", ".join(p.name for p in series), len(change.PRS)))
        text = "".join(p.read_text() for p in series)
        left = texts.LEFT_FIELD_RE.findall(text)
        if left:
            raise ToolError("the patches hold unfilled fields: %s" % ", ".join(sorted(set(left))))
        blobs = [(p.name[:4], re.findall(r"^diff --git a/(\S+) .*\nindex ([0-9a-f]+)\.\.",
                                         p.read_text(), re.M)) for p in series]

        git("checkout", "-q", "--detach", base, cwd=tree, env=env)
        git("am", "-q", *series, cwd=tree, env=env)
        if tree_of("HEAD") != want:
            raise ToolError("git am of the series onto its base did not reproduce the change")
        # The backports go to the released branches too: onto 3.13.5's own files.
        backports = series[:len(change.BACKPORTS)]
        git("checkout", "-q", "--detach", released, cwd=tree, env=env)
        am = git("am", "-3", *backports, cwd=tree, env=env, check=False)
        if am.returncode != 0:
            raise ToolError("git am -3 of %s onto pristine %s failed:\n%s"
                            % (_names(backports), source.version, am.stdout))
        for other in newer:
            how = backports_onto(tree, env, released, other, lib, backports)
            say("%s alone onto %s's Lib files: %s"
                % (_names(backports), other.version or other.name, how))
        extra = extra_patches(series_dir, issues, author, getattr(source, "cache", None))

        files = [(path.name, path.read_bytes()) for path in series] + list(extra)
        files += [(file_name, filled[key].encode("utf-8"))
                  for key, file_name in OUTPUTS.items()]
        written = replace_output(output, files)
    if not proof_only:  # named where it is now, not in the scratch directory it was made in
        say("wrote " + typeshed.made(output / TYPESHED_PATCH))
    for number, found in blobs:
        for path, blob in found:
            origin = lib_base.version if path in lib else source.version
            earlier = ["%04d" % n for n in range(1, int(number))]
            say("  %s %s against %s%s (blob %s)" % (number, path, origin,
                                                   "".join(" + " + e for e in earlier),
                                                   blob[:12]))
    say("%s %s: git am onto its base reproduces the change; git am -3 of the backports "
        "onto pristine %s merges them"
        % ("made (proof only, in a scratch directory)" if proof_only else "wrote",
           ", ".join(p.name for p in written), source.version))
    return written


def _sha256(data):
    return hashlib.sha256(data).hexdigest()


def earlier_output(output):
    """{name: [sha256, ...]} of the files an earlier run wrote into OUTPUT (its MANIFEST).

    ToolError, before anything is made, for a directory it did not write
    into, or a file of its own that was changed since.
    """
    if output.exists() and not output.is_dir():
        raise ToolError("%s exists and is not a directory" % output)
    writable_place(output, "--output")
    present = sorted(p.name for p in output.iterdir()) if output.is_dir() else []
    if not present:
        return {}
    manifest = output / MANIFEST
    if not manifest.is_file():
        patches = [n for n in present if n.endswith(".patch")]
        others = [n for n in present if not n.endswith(".patch")]
        held = " and ".join("other %s (%s)" % (kind, ", ".join(names)) for kind, names in (
            ("patches", patches), ("files", others)) if names)
        raise ToolError("%s already holds %s that `patch` did not write; give a new or empty "
                        "directory (or one an earlier `patch` wrote)" % (output, held))
    try:
        earlier = json.loads(manifest.read_text())["files"]
        earlier = {str(name): [str(h) for h in hashes] for name, hashes in earlier.items()}
        if any(Path(name).name != name or name in (".", "..", MANIFEST) for name in earlier):
            raise ValueError("not a file name of its own")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise ToolError("%s is not a list of what `patch` wrote; give a new or empty "
                        "directory" % manifest)
    for name, hashes in sorted(earlier.items()):
        path = output / name
        if path.is_file() and _sha256(path.read_bytes()) not in hashes:
            raise ToolError("%s was changed since `patch` wrote it; move it away (or delete "
                            "it) and run again" % path)
    foreign = [n for n in present if SERIES_GLOB.match(n) and n not in earlier]
    if foreign:
        raise ToolError("%s holds %s, which `patch` did not write and `git am -3 %s/000[1-5]-"
                        "*.patch` would apply with the series; move it away and run again"
                        % (output, ", ".join(foreign), output))
    return earlier


def _write(path, data):
    """DATA as the file PATH, by a rename: a write cut short never has its name."""
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(data)
    os.replace(str(partial), str(path))


def replace_output(output, files):
    """FILES, [(name, bytes)], into OUTPUT, in place of what an earlier run wrote there;
    anything else stays, and a file in the way that no earlier run wrote is refused."""
    earlier = earlier_output(output)
    in_the_way = [n for n, _ in files if (output / n).exists() and n not in earlier]
    if in_the_way:
        raise ToolError("%s already holds %s, which `patch` did not write; move it away "
                        "and run again" % (output, ", ".join(in_the_way)))
    with space_for(output):
        _replace(output, files, earlier)
    return [output / name for name, _ in files]


def _replace(output, files, earlier):
    output.mkdir(parents=True, exist_ok=True)
    new = {name: _sha256(data) for name, data in files}
    # Until the old files are gone the list names both, so that a run cut
    # short leaves nothing of its own unlisted.
    both = {name: list(hashes) for name, hashes in earlier.items()}
    for name, digest in new.items():
        both.setdefault(name, []).append(digest)
    _write(output / MANIFEST, json.dumps({"files": both}, indent=1, sort_keys=True).encode())
    for name, data in files:
        _write(output / name, data)
    for name in sorted(set(earlier) - set(new)):
        if (output / name).is_file():
            (output / name).unlink()
    _write(output / MANIFEST, json.dumps({"files": {n: [d] for n, d in new.items()}},
                                         indent=1, sort_keys=True).encode())


def _names(patches):
    return "%s to %s" % (patches[0].name[:4], patches[-1].name[:4])


def backports_onto(tree, env, released, other, lib, patches):
    """Apply PATCHES (0001 to 0003) alone onto 3.13.5 with OTHER's Lib files: how it went."""
    git("checkout", "-q", "--detach", released, cwd=tree, env=env)
    for path, data in other.read(lib).items():
        (tree / path).write_bytes(data)
    git("add", "-A", "-f", cwd=tree, env=env)
    git("commit", "-q", "--allow-empty", "-m", "Lib files of %s" % other.version, cwd=tree,
        env=env)
    if git("am", "-q", *patches, cwd=tree, env=env, check=False).returncode == 0:
        return "git am applies them"
    git("am", "--abort", cwd=tree, env=env, check=False)
    am = git("am", "-3", *patches, cwd=tree, env=env, check=False)
    if am.returncode != 0:
        git("am", "--abort", cwd=tree, env=env, check=False)
        raise ToolError("%s (the backports) do not go onto %s's Lib files, not even by "
                        "git am -3:\n%s" % (_names(patches), other.version or other.name,
                                            am.stdout))
    return "git am -3 merges them (plain git am does not apply them)"
