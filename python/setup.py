"""The profdiff Python package (issue 48): profdiff's diffs as pandas DataFrames.

The gRPC and protobuf modules are generated from the repository's protos/ at build time
(protoc + grpc_python_plugin, Debian 12's protobuf-compiler and protobuf-compiler-grpc), into
profdiff/v1/, the Python package the protos' own `package profdiff.v1` names, so the generated
imports (`from profdiff.v1 import diff_pb2`) resolve inside this package.

    /usr/bin/python3 -m venv --system-site-packages VENV
    VENV/bin/pip install --no-index --no-build-isolation ./python
"""
import os
import re
import shutil
import subprocess
from pathlib import Path

from setuptools import Command, find_packages, setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
# PROFDIFF_PROTOS: another checkout's protos/ (an unpacked sdist has its own copy, see below).
PROTOS = Path(os.environ.get("PROFDIFF_PROTOS") or
              (HERE / "protos" if (HERE / "protos").is_dir() else HERE.parent / "protos"))
GENERATED = HERE / "profdiff" / "v1"


def project_version():
    """The version of the C++ tools (CMakeLists.txt's project()), so `profdiff --version` and
    profdiff.__version__ agree."""
    cmake = HERE.parent / "CMakeLists.txt"
    if cmake.is_file():
        found = re.search(r"project\(profdiff VERSION ([0-9.]+)", cmake.read_text())
        if found:
            return found.group(1)
    return "0.0.0"


class GenerateProtos(Command):
    """protoc --python_out --grpc_out over protos/profdiff/v1/*.proto into profdiff/v1/."""

    description = "generate profdiff/v1/*_pb2.py and *_pb2_grpc.py from protos/"
    user_options = []

    def initialize_options(self):
        pass

    def finalize_options(self):
        pass

    def run(self):
        sources = sorted((PROTOS / "profdiff" / "v1").glob("*.proto"))
        if not sources:
            raise SystemExit(f"profdiff: no protos under {PROTOS}/profdiff/v1 (set PROFDIFF_PROTOS "
                             "to the repository's protos/ folder)")
        protoc = shutil.which("protoc")
        plugin = os.environ.get("PROFDIFF_GRPC_PYTHON_PLUGIN") or shutil.which("grpc_python_plugin")
        if not protoc or not plugin:
            raise SystemExit("profdiff: building needs protoc and grpc_python_plugin "
                             "(apt-get install protobuf-compiler protobuf-compiler-grpc)")
        # Generated afresh each build: a stale module of a deleted proto must not survive.
        shutil.rmtree(GENERATED, ignore_errors=True)
        GENERATED.mkdir(parents=True)
        out = HERE  # protoc writes profdiff/v1/<name>_pb2.py below it
        command = [protoc, f"-I{PROTOS}", f"--python_out={out}", f"--grpc_out={out}",
                   f"--plugin=protoc-gen-grpc={plugin}"] + [str(s) for s in sources]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"profdiff: protoc failed ({done.returncode}):\n{done.stderr}")
        (GENERATED / "__init__.py").write_text(
            '"""Generated from protos/profdiff/v1 by setup.py; do not edit."""\n')


class BuildPy(build_py):
    """Generates the stubs before the package's modules are collected."""

    def run(self):
        self.run_command("generate_protos")
        # find_packages ran before the stubs existed: add the generated package now.
        if "profdiff.v1" not in self.packages:
            self.packages.append("profdiff.v1")
        super().run()


class Sdist(sdist):
    """An sdist carries the protos (not the stubs), so it builds away from the repository."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        shutil.copytree(PROTOS / "profdiff", Path(base_dir) / "protos" / "profdiff")


setup(
    name="profdiff",
    version=project_version(),
    description="Diff PyTorch profiler traces: profdiff's reports as pandas DataFrames",
    packages=find_packages(include=["profdiff", "profdiff.*"]),
    python_requires=">=3.9",
    # Debian packages (python3-grpcio, python3-protobuf, python3-pandas), seen through a venv made
    # with --system-site-packages; pip resolves nothing from an index.
    install_requires=["grpcio", "protobuf", "pandas"],
    cmdclass={"generate_protos": GenerateProtos, "build_py": BuildPy, "sdist": Sdist},
)
