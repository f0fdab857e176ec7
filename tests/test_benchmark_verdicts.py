"""How the benchmark harness turns ratios into verdicts (issue 28).

benchmarks/targets.py sets each target's limit on each interpreter and
re-sets it at a floor plus 10% where the floor, timed beside the same
statement, cannot meet it; a figure over its limit by at most 5% is met
within the machine's noise; report.py prints figure and limit, and marks
such a figure.  These tests give both made-up ratios: they check the
arithmetic and the wording of a verdict, not any measurement.  They also
read the statements bench_enum.py times, for the form of their calls.  The
sdist does not ship benchmarks/, so there the module skips
(tests/_layout.py).
"""

import ast
import os
import sys
import unittest

import _layout

_layout.require('benchmarks')

sys.path.insert(0, os.path.join(_layout.ROOT, 'benchmarks'))
import report  # noqa: E402
import targets  # noqa: E402
from targets import TARGETS_BY_KEY, assess  # noqa: E402

NEW = (3, 12)
OLD = (3, 9)


def results(**ratios_by_key):
    """One interpreter's results holding `ratios_by_key` (key: {size: ratio})."""
    return {'lookups': {'ratios': ratios_by_key}}


def sizes(*ratios):
    return dict(zip(targets.SIZES, ratios))


class Limits(unittest.TestCase):

    def test_the_limit_depends_on_the_version(self):
        target = TARGETS_BY_KEY['value_hit']
        res = results(value_hit=sizes(0.7, 0.7, 0.7, 0.7))
        self.assertIs(assess(res, target, OLD).met, True)      # 0.8 up to 3.10
        self.assertIs(assess(res, target, NEW).met, False)     # 0.6 from 3.11
        self.assertEqual(assess(res, target, (3, 11, 7)).limit, 0.6)

    def test_the_worst_size_decides(self):
        target = TARGETS_BY_KEY['name_miss']
        res = results(name_miss=sizes(0.3, 0.3, 0.3, 0.7))
        assessment = assess(res, target, NEW)
        self.assertEqual(assessment.value, 0.7)
        self.assertIs(assessment.met, False)

    def test_the_name_miss_limit_from_3_11_is_0_65(self):
        target = TARGETS_BY_KEY['name_miss']
        self.assertEqual((target.old, target.new), (0.7, 0.65))
        res = results(name_miss=sizes(0.64, 0.64, 0.64, 0.64))
        for version in ((3, 11), NEW):
            with self.subTest(version=version):
                assessment = assess(res, target, version)
                self.assertEqual(assessment.limit, 0.65)
                self.assertEqual((assessment.met, assessment.noise), (True, False))
        self.assertEqual(report.target_cell(target, assess(res, target, NEW)), '0.64 / 0.65')

    def test_a_floor_under_the_limit_leaves_it(self):
        target = TARGETS_BY_KEY['name_miss']
        res = results(name_miss=sizes(0.5, 0.5, 0.5, 0.5),
                      floor_name_miss=sizes(0.3, 0.3, 0.3, 0.3))
        assessment = assess(res, target, NEW)
        self.assertEqual((assessment.floor, assessment.used), (0.3, 0.65))

    def test_a_floor_over_the_limit_re_sets_it_ten_percent_higher(self):
        target = TARGETS_BY_KEY['name_hit']
        res = results(name_hit=sizes(2.6, 2.6, 2.6, 2.6),
                      least_name_hit=sizes(2.3, 2.3, 2.4, 2.4))
        assessment = assess(res, target, NEW)
        self.assertEqual(assessment.limit, 2.2)
        self.assertAlmostEqual(assessment.used, 2.64)
        self.assertIs(assessment.met, True)
        self.assertEqual(report.target_cell(target, assessment), '2.60 / 2.64f')
        res['lookups']['ratios']['name_hit'] = sizes(2.6, 2.6, 2.6, 2.8)
        self.assertEqual(report.target_cell(target, assess(res, target, NEW)),
                         '2.80 / 2.64f MISS')

    def test_a_hit_s_floor_is_the_least_hit_and_a_miss_s_the_empty_method(self):
        # The empty method is timed beside hits too ("empty"), and re-sets
        # nothing there: a hit must at least find its member.
        self.assertEqual(TARGETS_BY_KEY['value_hit'].floor, 'least_value_hit')
        self.assertEqual(TARGETS_BY_KEY['name_hit'].floor, 'least_name_hit')
        self.assertEqual(TARGETS_BY_KEY['value_miss'].floor, 'floor_value_miss')
        self.assertEqual(TARGETS_BY_KEY['name_miss'].floor, 'floor_name_miss')
        target = TARGETS_BY_KEY['value_hit']
        res = results(value_hit=sizes(0.65, 0.65, 0.65, 0.65),
                      floor_value_hit=sizes(0.7, 0.7, 0.7, 0.7),
                      least_value_hit=sizes(0.5, 0.5, 0.5, 0.5))
        self.assertEqual(assess(res, target, NEW).used, 0.6)

    def test_within_means_either_side_of_one(self):
        target = TARGETS_BY_KEY['same_class']
        for value, met in ((0.96, True), (1.04, True), (1.11, False), (0.90, False)):
            with self.subTest(value=value):
                self.assertIs(assess({'untouched': {'same_class': value}}, target, NEW).met,
                              met)

    def test_nothing_measured_is_no_verdict(self):
        self.assertIsNone(assess(results(), TARGETS_BY_KEY['value_hit'], NEW))


class Noise(unittest.TestCase):
    """A figure over its limit by at most 5%: met within the machine's noise."""

    def test_up_to_five_percent_over_is_met_and_says_so(self):
        target = TARGETS_BY_KEY['value_hit']   # 0.6 from 3.11
        for value, met, noise in ((0.6, True, False), (0.62, True, True),
                                  (0.629, True, True), (0.632, False, False)):
            with self.subTest(value=value):
                assessment = assess(results(value_hit=sizes(value, 0.5, 0.5, 0.5)),
                                    target, NEW)
                self.assertEqual((assessment.met, assessment.noise), (met, noise))
                self.assertEqual(assessment.limit, 0.6)   # the limit stays
                self.assertEqual(assessment.used, 0.6)

    def test_the_cell_is_marked(self):
        target = TARGETS_BY_KEY['value_hit']
        cell = report.target_cell(target, assess(results(value_hit=sizes(0.62)), target, NEW))
        self.assertEqual(cell, '0.62 / 0.60~')
        cell = report.target_cell(target, assess(results(value_hit=sizes(0.65)), target, NEW))
        self.assertEqual(cell, '0.65 / 0.60 MISS')

    def test_past_a_limit_re_set_at_the_floor(self):
        target = TARGETS_BY_KEY['name_hit']
        res = results(name_hit=sizes(2.7, 2.6), least_name_hit=sizes(2.4, 2.4))
        assessment = assess(res, target, NEW)
        self.assertEqual((assessment.met, assessment.noise), (True, True))
        self.assertEqual(report.target_cell(target, assessment), '2.70 / 2.64f~')

    def test_either_side_of_one(self):
        target = TARGETS_BY_KEY['same_class']   # within 5% of 1
        for value, met, noise in ((1.04, True, False), (1.06, True, True),
                                  (1.10, True, True), (1.11, False, False),
                                  (0.94, True, True), (0.91, True, True),
                                  (0.90, False, False)):
            with self.subTest(value=value):
                assessment = assess({'untouched': {'same_class': value}}, target, NEW)
                self.assertEqual((assessment.met, assessment.noise), (met, noise))
        assessment = assess({'untouched': {'same_class': 1.06}}, target, NEW)
        self.assertEqual(report.target_cell(target, assessment), '1.06 / 1\u00b10.05~')

    def test_milliseconds(self):
        target = TARGETS_BY_KEY['import']   # 2 ms
        for value, met, noise in ((2.0, True, False), (2.09, True, True), (2.11, False, False)):
            with self.subTest(value=value):
                assessment = assess({'import': {'own_min_ms': value}}, target, NEW)
                self.assertEqual((assessment.met, assessment.noise), (met, noise))

    def page(self, **ratios):
        res = results(**ratios)
        res.update(role='backport', version=NEW)
        return [('3.12.1 + backport', res)]

    def test_counted_as_met_and_listed_apart(self):
        page = self.page(value_hit=sizes(0.62), name_miss=sizes(0.5))
        self.assertEqual(report.missed_targets(page), [])
        self.assertEqual(report.missed_targets(page, noise=True),
                         ['- 3.12.1 + backport, fv hit: 0.62x (limit 0.60x)'])
        table = report.targets_table(page)
        self.assertIn('0.62 / 0.60~', table)
        self.assertEqual(table.splitlines()[3].split()[-1], 'PASS~')
        self.assertEqual(report.targets_table(self.page(value_hit=sizes(0.5)))
                         .splitlines()[3].split()[-1], 'PASS')
        self.assertEqual(report.targets_table(self.page(value_hit=sizes(0.7)))
                         .splitlines()[3].split()[-1], 'MISS')

    def test_the_page_explains_the_mark(self):
        page = self.page(value_hit=sizes(0.62))
        settings = type('Settings', (), {'quick': True})()
        text = report.render(page, [], settings, 1.0)
        self.assertIn('"~" marks a figure over its limit by at most 5%: met within the '
                      "machine's noise, and counted as met.", text)
        listed = text.split("Targets met within the machine's noise in this run (~):\n\n")[1]
        self.assertTrue(listed.startswith('- 3.12.1 + backport, fv hit: 0.62x (limit 0.60x)\n'),
                        listed[:200])


class KeywordDefaults(unittest.TestCase):
    """bench_enum.py times the lookups as they are called: a default by keyword."""

    #: Calls and the positional arguments they take: the lookups, as methods
    #: and as functions, and the stand-ins timed beside them.
    POSITIONAL = {'from_value': 1, 'from_name': 1, '_bench_floor': 1,
                  '_bench_least_value': 1, '_bench_least_name': 1,
                  '_bench_try_first_name': 1, 'floor': 2}

    def statements(self, name):
        with open(os.path.join(_layout.ROOT, 'benchmarks', name), encoding='utf-8') as f:
            tree = ast.parse(f.read())
        found = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                try:
                    code = ast.parse((node.value % (('v',) * node.value.count('%s')))
                                     .strip() or 'pass')
                except (SyntaxError, TypeError, ValueError):
                    continue  # prose, not a statement
                found += [call for call in ast.walk(code) if isinstance(call, ast.Call)]
        return found

    def test_a_default_is_passed_by_keyword(self):
        calls = []
        for call in self.statements('bench_enum.py'):
            func = call.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, 'id', None)
            if name not in self.POSITIONAL:
                continue
            calls.append(ast.unparse(call) if hasattr(ast, 'unparse') else name)
            positional = self.POSITIONAL[name] + (isinstance(func, ast.Name)
                                                  and name != 'floor')
            self.assertLessEqual(len(call.args), positional, calls[-1])
        # The defaults are there, by keyword.
        with_default = [call for call in self.statements('bench_enum.py')
                        if any(k.arg == 'default' for k in call.keywords)]
        self.assertGreaterEqual(len(with_default), 8, calls)

    def test_the_stand_ins_take_their_default_as_the_lookups_do(self):
        sys.path.insert(0, os.path.join(_layout.ROOT, 'benchmarks'))
        self.addCleanup(sys.path.remove, os.path.join(_layout.ROOT, 'benchmarks'))
        with open(os.path.join(_layout.ROOT, 'benchmarks', 'bench_enum.py'),
                  encoding='utf-8') as f:
            tree = ast.parse(f.read())
        stand_ins = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
                     and node.name in ('_floor', '_least_value', '_least_name',
                                       '_try_first_name', '_floor_function')]
        self.assertEqual(len(stand_ins), 8)   # three of them twice: up to 3.11 and after
        for node in stand_ins:
            with self.subTest(function=node.name, line=node.lineno):
                self.assertEqual([a.arg for a in node.args.kwonlyargs], ['default'])
                self.assertEqual(len(node.args.posonlyargs), 2)


class Printing(unittest.TestCase):

    def test_figures_that_round_alike_get_more_decimals(self):
        self.assertEqual(report.two_figures(0.62, 0.6), ('0.62', '0.60'))
        self.assertEqual(report.two_figures(0.6024, 0.6), ('0.602', '0.600'))
        self.assertEqual(report.two_figures(0.60004, 0.6), ('0.6000', '0.6000'))
        self.assertEqual(report.two_figures(0.6, 0.6), ('0.60', '0.60'))

    def test_a_figure_over_by_less_than_a_hundredth_shows(self):
        target = TARGETS_BY_KEY['value_hit']
        res = results(value_hit=sizes(0.6024, 0.6, 0.6, 0.6),
                      least_value_hit=sizes(0.3, 0.3, 0.3, 0.3))
        self.assertEqual(report.target_cell(target, assess(res, target, NEW)),
                         '0.602 / 0.600~')


if __name__ == '__main__':
    unittest.main()


class EverydayMisses(unittest.TestCase):
    """The patched build's everyday statements over the ceiling are listed."""

    def everyday(self, **ratios):
        return [('3.13.5 patched', {'everyday': ratios})]

    def test_over_the_ceiling_is_listed_with_the_controls(self):
        lines = report.everyday_misses(self.everyday(
            call_miss=1.1004, flag_in=1.02, control_dict=1.01, control_class=1.08))
        self.assertEqual(lines, [
            '- ``try: E(m)`` ``except ValueError``: 1.1004x (ceiling 1.1000x; the controls'
            ' in the same run: control, no enum: ``d[k]`` 1.01x,'
            ' control, no enum: ``class C: pass`` 1.08x)'])

    def test_at_the_ceiling_or_a_control_is_not(self):
        self.assertEqual(report.everyday_misses(self.everyday(
            call_miss=1.10, control_class=1.5)), [])

    def test_what_happens_once_per_value_is_shown_not_judged(self):
        self.assertEqual(report.everyday_misses(self.everyday(flag_new=1.3)), [])
        medians = {'baseline': {'everyday Flag new': 6e-6, 'everyday E(v) miss': 2e-6},
                   'variant': {'everyday Flag new': 7.8e-6, 'everyday E(v) miss': 2.4e-6}}
        rows = [line.split() for line in report.everyday_table([('3.13.5 patched', {
            'everyday': {'flag_new': 1.3, 'flag_new_spread': (1.2, 1.4),
                         'call_miss': 1.2, 'call_miss_spread': (1.1, 1.3),
                         'medians': medians}})]).splitlines()
                if 'anew' in line or 'ValueError' in line]
        self.assertEqual(rows[0][-4:], ['1.20', 'MISS', '1.10-1.30', '1.10'])
        self.assertEqual(rows[1][-3:], ['1.30', '1.20-1.40', '-'])
