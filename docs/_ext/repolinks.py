"""Fail the build on a link to a repository path that does not exist.

Cross-references (``:doc:``, ``:ref:``, ```Title`_``) are Sphinx's and
docutils' to resolve, and ``-W -n`` turns any they cannot into an error.
What neither checks is a plain link to a file of the repository
(```tox.ini <../tox.ini>`_``): this does, relative to the page that holds
it.  Links with a scheme (``https:``, ``mailto:``) are not fetched: the
build runs without a network.
"""

import os
from urllib.parse import urlsplit

from docutils import nodes
from sphinx.util import logging

logger = logging.getLogger(__name__)


def check_links(app, doctree, docname):
    base = os.path.dirname(app.env.doc2path(docname))
    for node in doctree.findall(nodes.reference):
        uri = node.get('refuri')
        if not uri or node.get('internal'):
            continue
        parts = urlsplit(uri)
        if parts.scheme or parts.netloc or not parts.path:
            continue
        if not os.path.exists(os.path.normpath(os.path.join(base, parts.path))):
            logger.warning('link to a path that does not exist: %s', uri,
                           location=node, type='repolinks', subtype='missing')


def setup(app):
    app.connect('doctree-resolved', check_links)
    return {'parallel_read_safe': True, 'parallel_write_safe': True}
