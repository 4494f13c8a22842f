#!/usr/bin/env python3
"""cmake/static_link_launcher.py rewrites a link command: a library named by
path or by -l whose archive lies beside the others is linked from that archive
(once, in the group at the end); the runtimes and jemalloc, and a library with
no archive, stay as they were.

  static_link_launcher_test.py LAUNCHER
"""
import importlib.util
import os
import sys
import tempfile
import unittest


def load(path):
    spec = importlib.util.spec_from_file_location("static_link_launcher", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class StaticCommandTest(unittest.TestCase):
    def test_paths_and_flags_link_from_archives(self):
        with tempfile.TemporaryDirectory() as lib:
            def touch(name):
                open(os.path.join(lib, name), "w").close()
                return os.path.join(lib, name)
            grpc_so = touch("libgrpc.so.29")
            touch("libgrpc.a")
            touch("libre2.so")
            re2_a = touch("libre2.a")
            touch("libz.a")
            touch("libjemalloc.so")
            touch("libjemalloc.a")
            touch("libisal.so")  # no archive
            jemalloc_so = os.path.join(lib, "libjemalloc.so")
            isal_so = os.path.join(lib, "libisal.so")
            command = ["clang++", "main.o", "-o", "profdiff", grpc_so, "-lre2",
                       "-lpthread", "-lisal", jemalloc_so, isal_so]
            out = LAUNCHER.static_command(["z", "pthread", "nothere"],
                                          command)
            group = out.index("-Wl,--start-group")
            self.assertEqual(out[:group],
                             ["clang++", "main.o", "-o", "profdiff",
                              "-lpthread", "-lisal", jemalloc_so, isal_so,
                              "-lnothere"])
            self.assertEqual(out[group:],
                             ["-Wl,--start-group",
                              os.path.join(lib, "libgrpc.a"), re2_a,
                              os.path.join(lib, "libz.a"),
                              "-Wl,--end-group"])

    def test_a_command_without_archives_is_kept(self):
        command = ["clang++", "main.o", "-lre2", "/nowhere/libfoo.so"]
        self.assertEqual(LAUNCHER.static_command(["re2"], command), command)


if __name__ == "__main__":
    LAUNCHER = load(sys.argv.pop(1))
    unittest.main()
