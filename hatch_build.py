"""The sdist's README.rst is the package page (backport/README.rst), and
its CHANGELOG.rst the package's changelog (backport/CHANGELOG.rst), which
the page names.

The repository's own README.rst is for contributors and points at what
the sdist leaves out, so pyproject.toml leaves it out and names this hook
for the sdist.  The page stays at backport/README.rst too, where the
sdist's pyproject.toml reads it for the wheel's metadata.  It is a copy
that goes in as README.rst: forcing the page itself in under that name
would move it (hatchling leaves a file of the project forced in under
another name out of its own place).
"""

import os
import shutil
import tempfile

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class SdistReadme(BuildHookInterface):

    def initialize(self, version, build_data):
        self._scratch = tempfile.mkdtemp()
        for name in ('README.rst', 'CHANGELOG.rst'):
            copy = os.path.join(self._scratch, name)
            shutil.copyfile(os.path.join(self.root, 'backport', name), copy)
            build_data['force_include'][copy] = name

    def finalize(self, version, build_data, artifact_path):
        shutil.rmtree(self._scratch, ignore_errors=True)
