"""The dependents' own suites, without and with ``import enum_backport``.

    python3 tools/dependents [--projects a,b] [--interpreters 3.8,3.15] [--jobs N]
    python3 tools/dependents docs       # docs/testing.rst's figures from the last full run
    python3 tools/dependents freeze [--write]   # re-resolve the pins

docs/testing.rst ("Dependents") says what runs, what is compared and what
fails the run; everything it fetches and builds is kept under
``$ENUM_FROM_VALUE_CACHE/dependents``.
"""

if __name__ == '__main__' and not __package__:  # run as `python3 tools/dependents`
    import os.path as p, runpy  # tools/bootstrap.py, a folder up: the package, in the tools' venv
    runpy.run_path(p.join(p.dirname(p.dirname(p.abspath(__file__))), 'bootstrap.py'))['run'](
        'tools.dependents')

import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import sys
import time
import traceback

from . import compare, plan, prepare, report, suites
from ..plumbing import UsageError, main as wrapper, say


class Missing:
    """Stands for an interpreter that could not be found."""

    def __init__(self, name):
        self.name, self.version, self.implementation, self.root = name, None, None, None

    def describe(self):
        return 'MISSING'


class Job:
    """One project on one interpreter: its two runs and their verdict."""

    def __init__(self, interp, project, release):
        self.interp, self.project, self.release = interp, project, release
        self.state, self.reason, self.failing = 'pending', '', False
        self.without = self.with_ = None
        self.counts = {}
        self.tests = 0
        self.allowed, self.unexpected, self.stale, self.both = [], [], [], []
        self.manifest = {}
        self.rewritten = {}
        self.claims = []

    def unclaimed(self):
        """Whether the release's classifiers leave out this interpreter's Python."""
        version = '.'.join((self.interp.version or '').split('.')[:2])
        return bool(self.claims) and version not in self.claims

    def fail(self, state, reason):
        self.state, self.reason, self.failing = state, reason, True

    def execute(self, wheel, allow_list):
        try:
            sdist = prepare.sdist(self.project['pypi'], self.release['version'])
            self.claims = prepare.claimed_pythons(sdist)
            with prepare.locked('%s-%s' % (self.interp.name, self.project['name'])):
                environment = prepare.venv(self.interp, self.project, self.release)
                self.manifest = environment.manifest
                prepare.install_backport(self.interp, environment, wheel)
                self.without = suites.run_suite(self.interp, self.project, environment, sdist,
                                                'without')
                self.with_ = suites.run_suite(self.interp, self.project, environment, sdist,
                                              'with')
        except prepare.SetupError as error:
            if self.unclaimed():
                # What its users would meet: a release that does not claim
                # this Python failing to install there is upstream's limit.
                self.state = 'unsupported'
                self.reason = ('%s %s does not list Python %s among its versions, and its '
                               'setup failed: %s' % (self.project['label'], self.release['version'],
                                                     self.interp.name, error))
            else:
                self.fail('not run', 'setup failed: %s' % error)
            return
        self.judge(allow_list)

    def judge(self, allow_list):
        for run in (self.without, self.with_):
            self.counts[run.mode] = compare.counts(run.outcomes)
        broken = [r for r in (self.without, self.with_) if r.error]
        if broken:
            self.fail('failed', '; '.join('%s the backport: no result: %s' % (r.mode, r.error)
                                          for r in broken))
            return
        rewrites = [(re.compile(r['pattern']), r['replacement'])
                    for r in self.project.get('id_rewrites', [])]
        unused = set()
        for run in (self.without, self.with_):
            run.outcomes, used = compare.rewrite_ids(run.outcomes, rewrites)
            unused |= {pattern for pattern, number in used.items() if not number}
            self.rewritten[run.mode] = sum(used.values())
        self.tests = len(set(self.without.outcomes) | set(self.with_.outcomes))
        found = compare.differences(self.without.outcomes, self.with_.outcomes)
        self.allowed, self.unexpected, self.stale = compare.judge(
            found, allow_list, self.project['name'], self.interp.name)
        self.both = compare.failing_in_both(self.without.outcomes, self.with_.outcomes)
        problems = ['%s the backport: %s' % (r.mode, r.effect)
                    for r in (self.without, self.with_) if not r.effect_ok]
        if self.unexpected:
            problems.append(report.plural(len(self.unexpected), 'difference')
                            + ' not in allowed.json')
        if unused:
            problems.append('id rewrite %s matched no test id' % ', '.join(sorted(unused)))
        if self.stale:
            problems.append(report.plural(len(self.stale), 'allowed.json entry',
                                          'allowed.json entries') + ' whose difference is gone')
        if problems:
            self.fail('failed', '; '.join(problems))
        else:
            self.state = 'ok'

    def line(self):
        head = '[%s %s %s]' % (self.interp.name, self.project['label'], self.release['version'])
        if self.state == 'not run':
            return '%s NOT RUN: %s' % (head, self.reason)
        if self.state == 'unsupported':
            return '%s NOT RUN (upstream does not support it): %s' % (head, self.reason)
        if not self.tests:
            return '%s FAILED: %s' % (head, self.reason)
        return '%s %s tests, %s, %s fail in both runs%s' % (
            head, '{:,}'.format(self.tests),
            report.plural(len(self.allowed) + len(self.unexpected), 'difference'),
            len(self.both), ': FAILED: ' + self.reason if self.failing else ': ok')

    def as_json(self):
        return {'interpreter': self.interp.name, 'version': self.interp.version,
                'project': self.project['name'], 'release': self.release['version'],
                'state': self.state, 'reason': self.reason, 'tests': self.tests,
                'counts': self.counts,
                'differences': [list(d) for d in self.unexpected]
                + [list(d) for d, _ in self.allowed],
                'stale': [e['test'] for e in self.stale], 'fail_in_both': self.both}


def pick(names, wanted, what):
    if not wanted:
        return names
    chosen = [n.strip() for n in wanted.split(',') if n.strip()]
    unknown = [n for n in chosen if n not in names]
    if unknown:
        raise UsageError('unknown %s: %s (known: %s)' % (what, ', '.join(unknown),
                                                         ', '.join(names)))
    return chosen


def run(args):
    started = time.monotonic()
    data = plan.load()
    allow_list = plan.load(plan.ALLOWED)['allowed']
    all_projects = [p['name'] for p in data['projects']]
    all_interps = [i['name'] for i in data['interpreters']]
    problems = compare.check_allow_list(allow_list, all_projects, all_interps)
    if problems:
        for problem in problems:
            say('allowed.json: ' + problem)
        return 2
    projects = [p for p in data['projects']
                if p['name'] in pick(all_projects, args.projects, 'projects')]
    wanted = pick(all_interps, args.interpreters, 'interpreters')
    say('cache: %s' % plan.deps_dir())

    jobs, interpreters = [], []
    for spec in data['interpreters']:
        if spec['name'] not in wanted:
            continue
        try:
            interp = plan.find_interpreter(spec)
            interpreters.append(interp)
            say('interpreter %s: %s' % (interp.name, interp.describe()))
        except plan.Unavailable as error:
            interp = Missing(spec['name'])
            interpreters.append(interp)
            reason = 'interpreter %s unavailable: %s' % (spec['name'], error)
            say('NOT RUN: ' + reason)
        for project in projects:
            release = (plan.release_for(project, interp.version) if interp.version
                       else {'version': '(no interpreter)'})
            if release is None:
                job = Job(interp, project, {'version': '-'})
                job.state = 'unsupported'
                job.reason = 'no release in projects.json supports %s' % interp.version
            else:
                job = Job(interp, project, release)
                if isinstance(interp, Missing):
                    job.fail('not run', reason)
            jobs.append(job)

    try:
        wheel = prepare.backport_wheel()
    except prepare.SetupError as error:
        say('Summary')
        say('NOT RUN: every project: the backport wheel could not be built: %s' % error)
        return 1
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    say('backport: %s (sha256 %s)' % (wheel.name, digest[:12]))

    pending = [j for j in jobs if j.state == 'pending']
    # The longest suites first, so that two workers finish together.
    pending.sort(key=lambda j: -j.project.get('weight', 1))
    say('running %s, %d at a time' % (report.plural(len(pending), 'pair'), args.jobs))

    def work(job):
        try:
            job.execute(wheel, allow_list)
        except Exception:   # the tool's own bug: say so, and let the other pairs run
            job.fail('failed', 'the runner itself failed: %s'
                     % traceback.format_exc().strip().replace('\n', ' | '))
        say(job.line())
        return job

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for future in [pool.submit(work, j) for j in pending]:
            future.result()

    print(flush=True)
    say('Details')
    for job in jobs:
        report.details(job, say)
    full = not args.projects and not args.interpreters
    block = report.page_block(jobs, projects)
    summary = []  # its lines, kept in the record for tools/check.py's summary

    def tell(message):
        summary.append('dependents: ' + message)
        say(message)

    print(flush=True)
    say('Summary')
    if full:
        current = report.page_current(block)
        if current:
            tell("docs/testing.rst's figures are this run's")
        elif current is False:
            tell("docs/testing.rst's figures differ from this run's "
                 "(python3 tools/dependents docs writes them)")
        elif current is None:
            tell('docs/testing.rst has no dependents-results block')
    else:
        tell('a partial run (--projects/--interpreters): docs/testing.rst not compared')
    failed = report.closing(jobs, interpreters, (wheel.name, digest), projects, tell)
    cpu = sum(r.cpu for j in jobs for r in (j.without, j.with_) if r is not None)
    tell('pairs: %d passed, %d failed (%.0f s; the suites used %.0f s of CPU)' % (
        sum(1 for j in jobs if j.state == 'ok'), len(failed), time.monotonic() - started, cpu))
    last = {'full': full, 'jobs': [j.as_json() for j in jobs], 'docs': block,
            'seconds': round(time.monotonic() - started), 'summary': summary}
    plan.deps_dir().mkdir(parents=True, exist_ok=True)
    (plan.deps_dir() / ('last-run.json' if full else 'last-partial-run.json')).write_text(
        json.dumps(last, indent=1) + '\n')
    return 1 if failed else 0


def docs(args):
    path = plan.deps_dir() / 'last-run.json'
    try:
        last = json.loads(path.read_text())
    except (OSError, ValueError):
        raise UsageError('no full run recorded in %s: run python3 tools/dependents first' % path)
    # Runs recorded before the figures moved to the handbook call them 'readme'.
    report.write_page(last['docs'] if 'docs' in last else last['readme'])
    print('docs/testing.rst: dependents figures written from the run recorded in %s' % path)
    return 0


def freeze(args):
    """Resolve each release's requirements afresh on each interpreter it runs
    on, and print (or, with --write, store) the exact pins."""
    data = plan.load()
    wanted = pick([i['name'] for i in data['interpreters']], args.interpreters, 'interpreters')
    names = pick([p['name'] for p in data['projects']], args.projects, 'projects')
    interps = [plan.find_interpreter(s) for s in data['interpreters'] if s['name'] in wanted]
    for project in data['projects']:
        if project['name'] not in names:
            continue
        for release in project['releases']:
            found = {}
            for interp in interps:
                if plan.release_for(project, interp.version) is not release:
                    continue
                folder = plan.deps_dir() / 'freeze' / interp.name / project['name']
                shutil.rmtree(str(folder), ignore_errors=True)
                prepare.interp_run(interp, [interp.python, '-m', 'venv', str(folder)], 'venv')
                python = str(folder / 'bin' / 'python')
                wanted_reqs = (['%s==%s' % (project['pypi'], release['version'])]
                               + release['requires'])
                prepare.interp_run(interp, [python, '-m', 'pip', 'install', '-q'] + wanted_reqs,
                                   'pip install %s' % ' '.join(wanted_reqs))
                lines = prepare.interp_run(interp, [python, '-m', 'pip', 'freeze'],
                                           'pip freeze')
                found[interp] = dict(line.split('==', 1) for line in lines.splitlines()
                                     if '==' in line and not line.startswith('#'))
                shutil.rmtree(str(folder), ignore_errors=True)
            if not found:
                continue
            release['pins'] = merge_pins(found)
            print('%s %s: %s' % (project['name'], release['version'],
                                 json.dumps(release['pins'], indent=1)))
    if args.write:
        plan.PROJECTS.write_text(json.dumps(data, indent=2) + '\n')
        print('wrote %s' % plan.PROJECTS)
    return 0


def merge_pins(found):
    """One list of pins from {interpreter: {name: version}}: plain if the same on every
    interpreter, else with a marker naming the Python versions it is for."""
    names = sorted({n for pins in found.values() for n in pins}, key=str.lower)
    merged = []
    for name in names:
        by_version = {}
        for interp, pins in sorted(found.items(), key=lambda kv: plan.version_tuple(kv[0].version)):
            if name in pins:
                by_version.setdefault(pins[name], []).append(
                    '.'.join(interp.version.split('.')[:2]))
        if len(by_version) == 1 and all(name in pins for pins in found.values()):
            merged.append('%s==%s' % (name, next(iter(by_version))))
            continue
        for version, pythons in by_version.items():
            merged.append('%s==%s; %s' % (name, version, ' or '.join(
                'python_version == "%s"' % p for p in pythons)))
    return merged


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('command', nargs='?', default='run', choices=('run', 'docs', 'freeze'))
    parser.add_argument('--projects', help='only these projects (comma-separated)')
    parser.add_argument('--interpreters', help='only these interpreters (comma-separated)')
    parser.add_argument('--jobs', type=int, default=max(1, min(2, os.cpu_count() or 1)),
                        help='pairs run at a time (default: 2, or 1 on one core)')
    parser.add_argument('--write', action='store_true', help='freeze: store the pins')
    args = parser.parse_args(argv)
    command = {'run': run, 'docs': docs, 'freeze': freeze}[args.command]
    return wrapper(command, 'dependents', args)


if __name__ == '__main__':
    sys.exit(main())
