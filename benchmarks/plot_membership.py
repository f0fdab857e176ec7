"""Draw the time of ``in`` against the member count, from run.py's summary.

    python plot_membership.py results/summary.json membership.png

Stock 3.13.5, patched 3.13.5 and the backport on stock 3.13.5 are drawn
bold; the backport on the other interpreters thin, for comparison.
"""

import json
import sys

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

COLOURS = {'stock': '#c0392b', 'patched': '#2471a3', 'stock + backport': '#1e8449'}
#: One each for the other interpreters run.py measures (3.8 to 3.13.0): a
#: colour is used twice only past six.
OTHERS = ['#7f7f7f', '#b8860b', '#8e44ad', '#a0522d', '#17a589', '#e75480']


def style(label, others):
    """Colour, width and line style of a series, by the role its label names."""
    for role in ('stock', 'patched', 'stock + backport'):
        if label.endswith(' ' + role):
            return COLOURS[role], 2.4, '-'
    if label not in others:
        others[label] = OTHERS[len(others) % len(OTHERS)]
    return others[label], 1.2, '--'


def main(summary, png):
    with open(summary) as f:
        series = json.load(f)['series']
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6), sharey=True)
    others = {}
    for ax, kind in zip(axes, ('hit', 'miss')):
        for item in series:
            if item['kind'] != kind:
                continue
            colour, width, line = style(item['label'], others)
            ns = [seconds * 1e9 for seconds in item['seconds']]
            ax.plot(item['sizes'], ns, marker='o', markersize=4, linewidth=width,
                    linestyle=line, color=colour, label=item['label'])
        ax.set_xscale('log')
        ax.set_yscale('log')
        ax.set_xticks([10, 100, 1000, 10000])
        ax.set_xticklabels(['10', '100', '1,000', '10,000'])
        ax.set_xlabel('members')
        ax.set_title('value in E, a %s' % kind)
        ax.grid(True, which='both', alpha=0.3)
    axes[0].set_ylabel('median time per test (ns)')
    axes[1].legend(fontsize=8, loc='upper left')
    fig.suptitle('Membership test time against member count')
    fig.tight_layout()
    fig.savefig(png, dpi=100)


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
