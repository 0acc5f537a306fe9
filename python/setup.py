# Build of the Python package: a cffi extension (API mode) compiled against libdirac's headers
# and linked to the shared libdirac, which is copied into the package so that the installed
# package does not depend on the build tree (the extension finds it through RUNPATH $ORIGIN).
# Where libdirac comes from: dirac_build.py.
import os
import shutil
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dirac_build  # noqa: E402


class build_py_with_libdirac(build_py):
    """Also copies libdirac.so.SONAME next to the extension."""

    def run(self):
        super().run()
        if self.dry_run:
            return
        target = os.path.join(self.build_lib, "dirac", dirac_build.LIBRARY.soname)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(dirac_build.LIBRARY.path, target)
        os.chmod(target, 0o755)


setup(
    cffi_modules=["dirac_build.py:ffibuilder"],
    cmdclass={"build_py": build_py_with_libdirac},
    package_data={"dirac": ["libdirac.so*"]},
    zip_safe=False,
)
