"""The one build step pyproject.toml cannot say: the pages' catalogs compiled into the package.

The French catalog is kept as ``messages.po`` (``messages.mo`` is made from it, never committed). A wheel or an
install from a clone must carry the ``.mo``: a server installed by root and run by a user of its own (the deploy
guide's service) cannot write it into the package when it starts, and would speak English only.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithCatalogs(build_py):
    """``build_py``, then every ``messages.po`` of the built package compiled beside it (Babel, as ``make install``
    and the app do)."""

    def run(self) -> None:
        super().run()
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        for po in Path(self.build_lib, "api", "translations").glob("*/LC_MESSAGES/messages.po"):
            with po.open("rb") as source:
                catalog = read_po(source)
            with po.with_suffix(".mo").open("wb") as target:
                write_mo(target, catalog, use_fuzzy=False)


setup(cmdclass={"build_py": BuildWithCatalogs})
