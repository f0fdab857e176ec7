"""Hold the two runs of one suite against each other and the allow-list.

Pure functions over plain data (tests/test_dependents_tool.py checks them):
an outcome map is ``{test id: outcome}`` with the outcomes of `OUTCOMES`,
``'absent'`` for a test found in the other run only.
"""

import collections

OUTCOMES = ('passed', 'failed', 'error', 'skipped', 'xfailed', 'absent')
BAD = ('failed', 'error')


def rewrite_ids(outcomes, rewrites):
    """(outcomes, {pattern: ids it rewrote}): one run's test ids with a project's rewrites
    ((compiled pattern, replacement)) applied, in order, ids made equal numbered."""
    used = dict((pattern.pattern, 0) for pattern, _ in rewrites)
    rewritten = {}
    for test, outcome in outcomes.items():
        for pattern, replacement in rewrites:
            new = pattern.sub(replacement, test)
            if new != test:
                used[pattern.pattern] += 1
                test = new
        rewritten[numbered(test, rewritten)] = outcome
    return rewritten, used


def numbered(test, taken):
    """TEST, or the first of TEST#2, TEST#3 ... that TAKEN lacks."""
    key, number = test, 1
    while key in taken:
        number += 1
        key = '%s#%d' % (test, number)
    return key


def differences(without, with_):
    """[(test id, outcome without, outcome with)] for every test whose
    outcome differs, in test id order."""
    found = []
    for test in sorted(set(without) | set(with_)):
        before = without.get(test, 'absent')
        after = with_.get(test, 'absent')
        if before != after:
            found.append((test, before, after))
    return found


def failing_in_both(without, with_):
    """Test ids that fail (or error) in both runs, sorted."""
    return sorted(test for test, outcome in without.items()
                  if outcome in BAD and with_.get(test) in BAD)


def counts(outcomes):
    """{outcome: number of tests} for the outcomes that occur."""
    return dict(collections.Counter(outcomes.values()))


def entry_applies(entry, project, interpreter):
    """Whether an allow-list entry speaks of this project on this interpreter."""
    return entry['project'] == project and (
        entry['interpreters'] == '*' or interpreter in entry['interpreters'])


def judge(found, allowed, project, interpreter):
    """Split the differences of one project on one interpreter: (allowed, unexpected, stale).

    The (difference, entry) pairs an entry names (same test id, same two
    outcomes), the differences none names, and the entries for this project
    and interpreter whose difference did not occur.
    """
    entries = [e for e in allowed if entry_applies(e, project, interpreter)]
    used = set()
    hits, unexpected = [], []
    for difference in found:
        test, before, after = difference
        match = next((i for i, e in enumerate(entries)
                      if e['test'] == test and e['without'] == before and e['with'] == after),
                     None)
        if match is None:
            unexpected.append(difference)
        else:
            used.add(match)
            hits.append((difference, entries[match]))
    stale = [e for i, e in enumerate(entries) if i not in used]
    return hits, unexpected, stale


def check_allow_list(allowed, projects, interpreters):
    """Problems with the allow-list itself: unknown names, bad outcomes,
    missing reasons, duplicates.  [] when it is sound."""
    problems, seen = [], set()
    for number, entry in enumerate(allowed, 1):
        where = 'allow-list entry %d' % number
        missing = [k for k in ('project', 'interpreters', 'test', 'without', 'with', 'why')
                   if k not in entry]
        if missing:
            problems.append('%s lacks %s' % (where, ', '.join(missing)))
            continue
        if entry['project'] not in projects:
            problems.append('%s names an unknown project %r' % (where, entry['project']))
        names = entry['interpreters']
        if names != '*' and (not isinstance(names, list)
                             or any(n not in interpreters for n in names)):
            problems.append('%s names interpreters %r; known: %s'
                            % (where, names, ', '.join(interpreters)))
        for side in ('without', 'with'):
            if entry[side] not in OUTCOMES:
                problems.append('%s: %s=%r is not one of %s'
                                % (where, side, entry[side], ', '.join(OUTCOMES)))
        if entry['without'] == entry['with']:
            problems.append('%s: the same outcome twice is no difference' % where)
        if len(str(entry['why']).split()) < 5:
            problems.append('%s: the reason (why) must say why, in a sentence' % where)
        key = (entry['project'], entry['test'], str(names))
        if key in seen:
            problems.append('%s repeats an earlier entry' % where)
        seen.add(key)
    return problems
