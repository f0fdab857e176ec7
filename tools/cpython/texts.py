"""What a contributor pastes, and the checks of it: the prose in texts/, filled.

The texts are str.format templates of FIELDS, and texts/stock-test-failures.json
is the ledger of what each interpreter's own test_enum.py may fail against
the changed enum.py; docs/cpython-change.rst ("The texts and the ledger")
says what each field holds and how the ledger is read.
"""

import fnmatch
import json
import re
from pathlib import Path

from .change import PRS, label, whatsnew_blocks
from .util import ToolError

TEXTS = Path(__file__).resolve().parent / "texts"
LEDGER = "stock-test-failures.json"
KINDS = ("commit.txt", "issue.md", "pr.md")
# The feature was declined before (gh-89636): it is proposed on
# discuss.python.org first.
PROPOSAL = ("feature", "proposal.md")
PROPOSAL_WORDS = 600
FIELDS = tuple("%s_issue" % pr for pr in PRS) + tuple("%s_whatsnew" % pr for pr in PRS) + (
    "author", "author_name", "author_email",
    "in_benchmark_table", "everyday_table", "check_then_construct", "stock_test_failures")
LEFT_FIELD_RE = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")
MEMBERSHIP_TITLE = "Membership, median ns per ``in``"
BENCH_ROWS = ("3.13.5 stock", "3.13.5 patched")
EVERYDAY_TITLE = "Patched 3.13.5 against stock 3.13.5"
EVERYDAY_COLUMNS = ("statement", "stock ns", "patched ns", "patched / stock")
# The everyday statement of check-then-construct (the flag PR's cost).
CHECK_THEN_CONSTRUCT = "``if c in F: F(c)``"
BASE_NAMES = ("3.13.5", "3.14", "3.15")
ENUMS = tuple(label(PRS[:n]) for n in range(1, len(PRS) + 1))


def fill(template, fields, name="text"):
    """TEMPLATE with FIELDS filled; an unknown or left field is an error naming it."""
    try:
        text = template.format_map(fields)
    except KeyError as error:
        raise ToolError("%s: unknown field {%s} (the tool fills %s)"
                        % (name, error.args[0], ", ".join("{%s}" % f for f in FIELDS)))
    except (ValueError, IndexError) as error:
        raise ToolError("%s: not a str.format template (%s; write a literal brace "
                        "as {{ or }})" % (name, error))
    left = LEFT_FIELD_RE.findall(text)
    if left:
        raise ToolError("%s: unfilled field %s after filling" % (name, ", ".join(left)))
    return text


def read(pr, kind, texts=TEXTS):
    path = Path(texts) / ("%s.%s" % (pr, kind))
    if not path.is_file():
        raise ToolError("%s is missing: the %s PR's %s" % (path, pr, kind))
    return path.read_text(encoding="utf-8")


# A PR description is read in full by a reviewer: the evidence, tables and
# history go in the issue text.
PR_WORDS = 400


def filled_texts(fields, texts=TEXTS, prs=PRS):
    """{(pr, kind): filled text} for every text of PRS; a PR description is PR_WORDS at most."""
    keys = [(pr, kind) for pr in prs for kind in KINDS]
    keys += [PROPOSAL] if PROPOSAL[0] in prs else []
    filled = {(pr, kind): fill(read(pr, kind, texts), fields, "%s.%s" % (pr, kind))
              for pr, kind in keys}
    for pr in prs:
        words = len(filled[(pr, "pr.md")].split())
        if words > PR_WORDS:
            raise ToolError("the %s PR's description is %d words filled; a PR description is "
                            "at most %d (move the evidence to %s.issue.md)"
                            % (pr, words, PR_WORDS, pr))
    if PROPOSAL in filled and len(filled[PROPOSAL].split()) > PROPOSAL_WORDS:
        raise ToolError("%s.%s is %d words filled; the proposal is at most %d"
                        % (PROPOSAL + (len(filled[PROPOSAL].split()), PROPOSAL_WORDS)))
    return filled


def whatsnew_markdown(carriers, author_name, standin, issue):
    """The whatsnew blocks of CARRIERS (one PR's) for its PR description ("" if none),
    credited to AUTHOR_NAME, the stand-in STANDIN replaced by ISSUE."""
    blocks = [b for item in carriers for b in whatsnew_blocks(item)]
    where = ["at the end of the `enum` subsection of \"Improved modules\" (made "
             "between `encodings` and `gzip` where main has none)",
             "at the end of \"Changes in the Python API\" under \"Porting to "
             "Python 3.16\""]
    out = []
    for n, block in enumerate(blocks):
        text = block.replace("{author_name}", author_name)
        if standin is not None:
            text = text.replace(":gh:`%d`" % standin, ":gh:`%d`" % issue)
        out.append("For `Doc/whatsnew/3.16.rst`, %s:\n\n```rst\n%s```"
                   % (where[min(n, 1)], text))
    return "\n\n".join(out)


def _rst_table(results_rst, title, what):
    """(header, rows) of the first simple table after the line starting TITLE."""
    path = Path(results_rst)
    if not path.is_file():
        raise ToolError("%s is missing: run benchmarks/run.py for the %s figures" % (path, what))
    lines = path.read_text(encoding="utf-8").splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.startswith(title))
        rule = next(i for i in range(start, len(lines)) if lines[i].startswith("==="))
    except StopIteration:
        raise ToolError("%s has no table after %r" % (path, title))
    spans = [(m.start(), m.end()) for m in re.finditer(r"=+", lines[rule])]

    def cells(line):
        return [line[a:b if i + 1 < len(spans) else None].strip()
                for i, (a, b) in enumerate(spans)]

    rows = []
    for line in lines[rule + 3:]:
        if line.startswith("==="):
            break
        rows.append(cells(line))
    return cells(lines[rule + 1]), rows


def _markdown_cell(rst):
    # ``code`` is `code` in Markdown; a | inside a cell would end it.
    return rst.replace("``", "`").replace("|", "\\|")


def _markdown_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(_markdown_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def in_benchmark_table(results_rst):
    """The membership rows of stock and patched 3.13.5 as a Markdown table, without
    the flag columns."""
    header, found = _rst_table(results_rst, MEMBERSHIP_TITLE, "`in`")
    rows = {row[0]: row for row in found}
    missing = [r for r in BENCH_ROWS if r not in rows]
    if missing:
        raise ToolError("%s: the membership table has no row %s"
                        % (results_rst, ", ".join(repr(m) for m in missing)))
    # A plain Enum's columns: the fix's issue is not about flags.
    keep = [i for i, name in enumerate(header) if not name.startswith("flag")]
    return (_markdown_table([header[i] for i in keep],
                            [[rows[r][i] for i in keep] for r in BENCH_ROWS])
            + "\n\nMedian ns per `in` (hit: the middle member's value; miss: -1).")


def everyday_table(results_rst):
    """Stock 3.13.5 against patched, statement by statement, as a Markdown table."""
    header, found = _rst_table(results_rst, EVERYDAY_TITLE, "everyday")
    missing = [c for c in EVERYDAY_COLUMNS if c not in header]
    if missing or not found:
        raise ToolError("%s: the everyday table has no %s"
                        % (results_rst, ", ".join(repr(m) for m in missing) or "rows"))
    index = [header.index(c) for c in EVERYDAY_COLUMNS]
    return (_markdown_table(EVERYDAY_COLUMNS, [[row[i] for i in index] for row in found])
            + "\n\n`E`: an Enum of 10 members, `F`: a Flag of 20.  Median ns, in"
            " alternating processes of the two builds; the ratio: the median, over"
            " the rounds, of the ratio of the two processes' medians.  The controls"
            " involve no enum: they show what the two builds differ by apart from"
            " the change.")


def check_then_construct(results_rst):
    """The everyday table's patched / stock ratio of CHECK_THEN_CONSTRUCT, with
    its range over the rounds: "1.81x (1.72-1.95 over the rounds)"."""
    header, found = _rst_table(results_rst, EVERYDAY_TITLE, "everyday")
    rows = [row for row in found if row[0].startswith(CHECK_THEN_CONSTRUCT)]
    if len(rows) != 1 or "patched / stock" not in header or "rounds" not in header:
        raise ToolError("%s: the everyday table has no row %s with its ratio and rounds"
                        % (results_rst, CHECK_THEN_CONSTRUCT))
    row = rows[0]
    return "%sx (%s over the rounds)" % (row[header.index("patched / stock")],
                                        row[header.index("rounds")])


def load_ledger(texts=TEXTS):
    """The ledger's entries, checked: [{test, bases, enum, reason}]."""
    path = Path(texts) / LEDGER
    if not path.is_file():
        raise ToolError("%s is missing (the stock test_enum failures the change "
                        "may cause; write {\"failures\": []} if there are none)" % path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as error:
        raise ToolError("%s: not JSON: %s" % (path, error))
    entries = data.get("failures") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise ToolError("%s: wants {\"failures\": [...]}" % path)
    problems, seen = [], set()
    for n, entry in enumerate(entries):
        where = "%s: failures[%d]" % (path.name, n)
        if not isinstance(entry, dict) or set(entry) != {"test", "bases", "enum", "reason"}:
            problems.append("%s: wants exactly test, bases, enum, reason" % where)
            continue
        if not isinstance(entry["test"], str) or not re.fullmatch(r"[\w*?]+\.[\w*?\[\]]+",
                                                                  entry["test"]):
            problems.append("%s: test %r is not Class.method" % (where, entry["test"]))
        for key, allowed in (("bases", BASE_NAMES), ("enum", ENUMS)):
            value = entry[key]
            if not isinstance(value, list) or not value or not set(value) <= set(allowed):
                problems.append("%s: %s must be a non-empty list of %s"
                                % (where, key, ", ".join(allowed)))
        if not isinstance(entry["reason"], str) or len(entry["reason"].strip()) < 10:
            problems.append("%s: give the reason (a sentence)" % where)
        if isinstance(entry["test"], str) and entry["test"] in seen:
            problems.append("%s: %s listed twice" % (where, entry["test"]))
        seen.add(entry["test"] if isinstance(entry["test"], str) else None)
    if problems:
        raise ToolError("the ledger is malformed:\n  " + "\n  ".join(problems))
    return entries


def expected_failures(entries, base_name, enum):
    """{test: reason} the ledger allows to fail on BASE_NAME with ENUM."""
    return {e["test"]: e["reason"] for e in entries
            if base_name in e["bases"] and enum in e["enum"]}


def listed(test, allowed):
    """The reason ALLOWED ({pattern: reason}) gives for TEST, or None."""
    return next((reason for pattern, reason in allowed.items()
                 if fnmatch.fnmatchcase(test, pattern)), None)


def judge_stock_run(entries, base_name, enum, ran, failed):
    """Problems of one stock test_enum run: RAN and FAILED are sets of Class.method."""
    allowed = expected_failures(entries, base_name, enum)
    problems = ["%s failed and the ledger does not list it for %s with %s"
                % (t, base_name, enum) for t in sorted(failed) if listed(t, allowed) is None]
    for pattern in sorted(allowed):
        if not fnmatch.filter(ran, pattern):
            problems.append("%s is listed for %s with %s but no such test ran"
                            % (pattern, base_name, enum))
        elif not fnmatch.filter(failed, pattern):
            problems.append("%s is listed for %s with %s but passed: take it out of %s"
                            % (pattern, base_name, enum, LEDGER))
    return problems


def ledger_markdown(entries):
    """The ledger as a Markdown list for a PR description: each test with the
    newest base it fails on."""
    if not entries:
        return ("None: each interpreter's own `test_enum.py` (3.13.5, 3.14, 3.15) passes "
                "against every PR set.")
    lines = []
    for e in entries:   # the newest base only: the PR that fails it goes to main
        lines.append("- `%s` (%s; with %s): %s" % (
            e["test"], max(e["bases"], key=lambda b: tuple(map(int, b.split(".")))),
            " and with ".join(_pr_set(label) for label in e["enum"]), e["reason"].strip()))
    return "\n".join(lines)


def _pr_set(label):
    """A ledger's PR set as a reader says it: "the fix alone", "the PRs up to
    the feature", "all five PRs"."""
    prs = label.split("+")
    if len(prs) == 1:
        return "the %s PR alone" % prs[0]
    if len(prs) == len(PRS):
        return "all %s PRs" % ("five" if len(PRS) == 5 else len(PRS))
    return "the PRs up to the %s PR" % prs[-1]


def check_ledger_named(entries, filled):
    """Every ledger test must be named in the description of the PR that makes it fail
    (the last of the smallest PR set it lists); FILLED is {(pr, kind): text}."""
    missing = []
    for e in entries:
        pr = min(e["enum"], key=len).split("+")[-1]
        if e["test"].rsplit(".", 1)[-1].strip("*?") not in filled[(pr, "pr.md")]:
            missing.append("%s (%s.pr.md)" % (e["test"], pr))
    if missing:
        raise ToolError("a PR description does not name the stock tests its PR makes fail: %s"
                        % ", ".join(missing))
