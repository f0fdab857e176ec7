"""Say what the run found: per pair, the differences, the closing figures,
and the handbook's block of them (docs/testing.rst)."""

import re

from .plan import ROOT

PAGE = ROOT / 'docs' / 'testing.rst'
START, END = '.. dependents-results-start', '.. dependents-results-end'


def plural(number, word, many=None):
    return '%s %s' % ('{:,}'.format(number), word if number == 1 else (many or word + 's'))


def tally(counts):
    order = ('passed', 'failed', 'error', 'skipped', 'xfailed', 'absent')
    return ', '.join('%s %s' % ('{:,}'.format(counts[k]), k) for k in order if counts.get(k))


def details(job, say):
    """Everything about one pair that is worth reading."""
    head = '[%s %s %s]' % (job.interp.name, job.project['label'], job.release['version'])
    if job.state in ('not run', 'unsupported'):
        say(job.line())
        return
    installed = {k.lower(): v for k, v in job.manifest.get('installed', {}).items()
                 if k.lower() not in ('pip', 'setuptools')}
    shown = [job.project['pypi'].lower()]
    if job.project['suite']['runner'] == 'pytest':
        shown.append('pytest')
    if installed:
        say('%s installed from the pins: %s and %d other packages' % (
            head, ', '.join('%s %s' % (n, installed.get(n, '?')) for n in shown),
            len(installed) - len(shown)))
    for run in (job.without, job.with_):
        if run is None:
            continue
        if run.error:
            say('%s %s the backport: NO RESULT: %s (log: %s)' % (head, run.mode, run.error,
                                                                 run.log))
        else:
            say('%s %s the backport: %s in %.0f s (%.0f s of CPU); %s' % (
                head, run.mode, tally(job.counts[run.mode]), run.seconds, run.cpu, run.effect))
    for rule in job.project.get('id_rewrites', []):
        say('%s test ids rewritten (without: %s, with: %s): %s -> %s (%s)' % (
            head, job.rewritten.get('without', 0), job.rewritten.get('with', 0),
            rule['pattern'], rule['replacement'], rule['why']))
    for item in job.project.get('excluded', []):
        say('%s left out: %s (%s)' % (head, item['path'], item['why']))
    for (test, before, after), entry in job.allowed:
        say('%s difference, allow-listed: %s: %s without, %s with (%s)'
            % (head, test, before, after, entry['why']))
    for test, before, after in job.unexpected:
        say('%s DIFFERENCE: %s: %s without the backport, %s with it' % (head, test, before, after))
    for entry in job.stale:
        say('%s STALE allow-list entry: %s (%s -> %s) no longer differs'
            % (head, entry['test'], entry['without'], entry['with']))
    if job.both:
        say('%s %s in both runs:' % (head, plural(len(job.both), 'test fails', 'tests fail')))
        for test in job.both:
            say('    ' + test)


def closing(jobs, interpreters, wheel, projects, say):
    """The last lines: versions, what did not run and why, the figures.
    Returns the pairs that fail the run."""
    say('interpreters: ' + '; '.join('%s = %s' % (i.name, i.describe()) for i in interpreters))
    for project in projects:
        used = {}
        for job in jobs:
            if job.project is project and job.interp.version:
                used.setdefault(job.release['version'], []).append(
                    job.interp.name + (' (not in its classifiers)' if job.unclaimed() else ''))
        say('%s: %s' % (project['label'], '; '.join(
            '%s on %s' % (version, ', '.join(names))
            for version, names in used.items()) or 'no release ran'))
    say('enum-backport: %s, built from this work tree (sha256 %s)' % (wheel[0], wheel[1][:12]))
    for job in jobs:
        if job.state == 'not run':
            say('NOT RUN (fails the run): %s %s on %s: %s' % (
                job.project['label'], job.release['version'], job.interp.name, job.reason))
        elif job.state == 'unsupported':
            say('NOT RUN (upstream does not support it): %s %s on %s: %s'
                % (job.project['label'], job.release['version'], job.interp.name, job.reason))
    for job in jobs:
        if job.both:
            say('fail in both runs: %s %s on %s: %s (named above)' % (
                job.project['label'], job.release['version'], job.interp.name,
                plural(len(job.both), 'test')))
    failed = [j for j in jobs if j.failing]
    say(figures(jobs, projects))
    for job in failed:
        if job.state != 'not run':
            say('FAILED: %s %s on %s: %s' % (job.project['label'], job.release['version'],
                                             job.interp.name, job.reason))
    return failed


def figures(jobs, projects):
    """The one line of figures: pairs, tests, differences, fails in both."""
    ran = [j for j in jobs if j.tests]
    differences = sum(len(j.allowed) + len(j.unexpected) for j in ran)
    unexpected = sum(len(j.unexpected) for j in ran)
    return ('%d projects x %d interpreters: %d of %d pairs ran, 2 x %s; '
            '%s (%d allow-listed, %d not), %s; %s in both runs'
            % (len(projects), len({j.interp.name for j in jobs}), len(ran), len(jobs),
               plural(sum(j.tests for j in ran), 'test'),
               plural(differences, 'difference'), differences - unexpected, unexpected,
               plural(sum(len(j.stale) for j in ran), 'stale allow-list entry',
                      'stale allow-list entries'),
               plural(sum(len(j.both) for j in ran), 'test fails', 'tests fail')))


def page_block(jobs, projects):
    """The docs/testing.rst text between the two dependents-results comments."""
    rows = [('project', 'interpreter', 'tests', 'differences', 'fail in both runs')]
    for job in jobs:
        where = job.interp.describe().split(' (')[0] if job.interp.version else job.interp.name
        label = '%s %s' % (job.project['label'], job.release['version'])
        if job.tests:
            rows.append((label, where, '{:,}'.format(job.tests),
                         str(len(job.allowed) + len(job.unexpected)), str(len(job.both))))
        else:
            rows.append((label, where, 'not run', '', ''))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    rule = '  '.join('=' * w for w in widths)
    lines = [rule, '  '.join(c.ljust(w) for c, w in zip(rows[0], widths)).rstrip(), rule]
    lines += ['  '.join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows[1:]]
    lines.append(rule)
    return '\n'.join(lines) + '\n\n' + figures(jobs, projects) + '.'


def page_current(block):
    """Whether docs/testing.rst already shows `block`; None without the markers."""
    text = PAGE.read_text()
    found = re.search(re.escape(START) + r'\n\n(.*?)\n\n' + re.escape(END), text, re.S)
    return None if found is None else found.group(1) == block


def write_page(block):
    text = PAGE.read_text()
    pattern = re.compile(re.escape(START) + r'\n.*?' + re.escape(END), re.S)
    if not pattern.search(text):
        raise SystemExit('%s has no %s ... %s comments' % (PAGE, START, END))
    PAGE.write_text(pattern.sub(lambda _: '%s\n\n%s\n\n%s' % (START, block, END), text))
